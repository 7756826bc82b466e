// One owner per database file: `serve` holds <db>.lock while it runs, so a second server
// (which would send the same campaigns again) refuses to start, and so do the commands that
// would replace or rewrite the database under it (install, upgrade, vacuum).
//
// A server that crashed leaves its lock behind, and the pid in it may belong to another process
// by the time the server restarts (pids are reused; in a container the restarted server often
// gets the same few pids again). So the lock names its holder precisely: the pid, the process's
// start time (from /proc, in clock ticks since boot) and the boot it belongs to. A lock is held
// only while a process with that pid and that start time runs; a lock an older listmgr wrote
// (the pid alone) is held only while that pid is a listmgr process. Without /proc, a live pid
// is all there is to go on, as before.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { resolve } from 'node:path';

export class LockError extends Error {}

interface Holder {
  pid: number;
  /** The holder's start time, from /proc/PID/stat; null in a lock written without it. */
  start: string | null;
  boot: string | null;
}

/** Whether process `pid` runs (EPERM: it does, as another user). */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null;
  }
}

/** Field 22 of /proc/PID/stat: when the process started, in clock ticks since boot; null without /proc or once it is gone. */
function startTime(pid: number): string | null {
  const stat = read(`/proc/${pid}/stat`);
  if (stat === null) return null;
  // The command name (field 2) is in parentheses and may hold spaces and parentheses itself.
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
}

const bootId = () => read('/proc/sys/kernel/random/boot_id')?.trim() ?? null;

function parse(text: string): Holder {
  const [first = '', ...rest] = text.trim().split('\n');
  const field = (name: string) => rest.find((l) => l.startsWith(`${name}=`))?.slice(name.length + 1) || null;
  return { pid: Number(first.trim()) || 0, start: field('start'), boot: field('boot') };
}

/** Whether the process the lock names still runs (and is the one that wrote it). */
function holds(h: Holder): boolean {
  if (!h.pid || h.pid === process.pid || !alive(h.pid)) return false;
  if (startTime(process.pid) === null) return true; // no /proc: a live pid is all there is to go on
  const start = startTime(h.pid);
  if (start === null) return false; // gone meanwhile
  if (h.start !== null) return start === h.start && (h.boot === null || h.boot === bootId());
  // Written by an older listmgr (the pid alone): held only if that pid is a listmgr process now.
  const cmdline = read(`/proc/${h.pid}/cmdline`)?.replaceAll('\0', ' ') ?? '';
  return /listmgr|cli\.[jt]s/.test(cmdline);
}

/** The pid of the server running on the database file (holding its lock), or null. */
export function serverHolding(dbPath: string): number | null {
  const text = read(`${dbPath}.lock`);
  if (text === null) return null;
  const holder = parse(text);
  return holds(holder) ? holder.pid : null;
}

/** Takes the lock for the length of `doing` (what a running server would be hurt by); answers its release. */
export function acquireServeLock(dbPath: string, doing = 'two servers on one database would send campaigns twice'): () => void {
  const path = `${dbPath}.lock`;
  const me = [String(process.pid), `start=${startTime(process.pid) ?? ''}`, `boot=${bootId() ?? ''}`, `db=${resolve(dbPath)}`, ''].join('\n');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, me);
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'EACCES') throw new LockError(`cannot create ${path}: ${code === 'ENOENT' ? 'the folder does not exist' : 'permission denied'}`);
      if (code !== 'EEXIST') throw e;
      const holder = parse(read(path) ?? '');
      if (holds(holder)) throw new LockError(`a listmgr server (pid ${holder.pid}) is serving ${dbPath}; ${doing}. Stop it first.`);
      rmSync(path, { force: true }); // stale: its process crashed
    }
  }
  throw new LockError(`could not take the lock ${path}`);
}
