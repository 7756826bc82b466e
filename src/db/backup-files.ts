// The files of the scheduled backups: where they go, what they are called, which of a folder's
// files are ours. A leaf module: the settings check the folder with it, the schedule
// (maintenance/backups.ts) writes and prunes with it.
import { accessSync, constants, mkdirSync, readdirSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, resolve } from 'node:path';

/** The folder `backup.dir` names: a relative one is taken from the database file's folder. */
export function backupFolder(setting: string, dbPath: string): string {
  const dir = setting.trim() || 'backups';
  return isAbsolute(dir) ? resolve(dir) : resolve(dirname(dbPath), dir);
}

/** "listmgr" for /data/listmgr.db: the start of every backup's name, so two databases can share a folder. */
const stem = (dbPath: string) => basename(dbPath, extname(dbPath)) || 'listmgr';

/** `listmgr-backup-20261128-051500Z.db`: the database's name and the time (UTC) it was written. */
export function backupName(dbPath: string, at: Date): string {
  const t = at.toISOString();
  return `${stem(dbPath)}-backup-${t.slice(0, 10).replace(/-/g, '')}-${t.slice(11, 19).replace(/:/g, '')}Z.db`;
}

/** The scheduled backups of the database at `dbPath` in `folder`, newest first (other files are never listed). */
export function scheduledBackups(folder: string, dbPath: string): string[] {
  const ours = new RegExp(`^${stem(dbPath).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-backup-\\d{8}-\\d{6}Z\\.db$`);
  let names: string[];
  try {
    names = readdirSync(folder);
  } catch {
    return [];
  }
  return names.filter((n) => ours.test(n)).sort().reverse().map((n) => join(folder, n));
}

/**
 * Why backups cannot be written to `folder` (created if missing), or null when they can: for
 * the settings check, so a folder that will not work is refused when it is set, not at 3 am.
 */
export function folderProblem(folder: string): string | null {
  try {
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    if (!statSync(folder).isDirectory()) return `${folder} is not a folder`;
    accessSync(folder, constants.W_OK);
    return null;
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'EEXIST' || err.code === 'ENOTDIR') return `${folder} is not a folder`;
    if (err.code === 'EACCES' || err.code === 'EPERM' || err.code === 'EROFS') return `${folder} cannot be written to (${err.code})`;
    return `${folder} cannot be used: ${err.message}`;
  }
}
