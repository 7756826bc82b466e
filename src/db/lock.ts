// One owner per database file: `serve` holds <db>.lock with its pid while it runs, so a second
// server (which would send the same campaigns again) refuses to start, and so do the commands
// that would replace the database under it (install, upgrade).
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';

export class LockError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Takes the lock for the length of `doing` (what a running server would be hurt by); answers its release. */
export function acquireServeLock(dbPath: string, doing = 'two servers on one database would send campaigns twice'): () => void {
  const path = `${dbPath}.lock`;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') throw new LockError(`cannot create ${path}: ${code === 'ENOENT' ? 'the folder does not exist' : 'permission denied'}`);
      if (code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8').trim());
      if (pid && pid !== process.pid && alive(pid)) {
        throw new LockError(`a listmgr server (pid ${pid}) is serving ${dbPath}; ${doing}. Stop it first.`);
      }
      rmSync(path, { force: true }); // stale lock from a crashed process
    }
  }
  throw new LockError(`could not take the lock ${path}`);
}
