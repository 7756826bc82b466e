// One writer per database file: `serve` holds <db>.lock with its pid while it runs, so a second
// server (which would send the same campaigns again) refuses to start.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export class LockHeldError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function acquireServeLock(dbPath: string): () => void {
  const path = `${dbPath}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (pid && pid !== process.pid && alive(pid)) {
        throw new LockHeldError(`another listmgr server (pid ${pid}) is already serving ${dbPath}; two servers on one database would send campaigns twice. Stop it first.`);
      }
      rmSync(path, { force: true }); // stale lock from a crashed process
    }
  }
  throw new LockHeldError(`could not take the lock ${path}`);
}
