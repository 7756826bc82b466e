// `listmgr restore FILE`: puts a backup in place of the database. The backup is copied beside
// the database and checked there (integrity, a listmgr database, migrations this version
// knows, which are applied to the copy), so a refused restore leaves the database untouched.
// Only then is the database itself checkpointed (what its WAL still held goes into the file),
// kept as `<db>.before-restore`, and the copy renamed into its place: no WAL or shared-memory
// file of the old database is left for SQLite to replay over the restored one.
import { chmodSync, copyFileSync, existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { closeDatabase, openDatabase, type DB } from './connection.ts';
import { fileSize } from './files.ts';
import { acquireServeLock } from './lock.ts';
import { appliedVersions, isInstalled, listMigrations, migrate, type Migration } from './migrate.ts';
import { CLI_NAME } from '../sea.ts';

export class RestoreError extends Error {}

export interface RestoreResult {
  /** Where the replaced database was kept; null when there was none. */
  keptAs: string | null;
  /** Migrations the backup lacked, applied to it. */
  applied: Migration[];
}


/** Why SQLite could not read the backup, in words. */
function unreadable(shown: string, e: unknown): RestoreError {
  const { code, message } = e as { code?: string; message: string };
  return new RestoreError(code === 'SQLITE_CORRUPT' ? `${shown} is damaged (${message})` : `${shown} is not a SQLite database (${message})`);
}

/** Checks the copy of the backup at `path` and brings its schema up to date; throws RestoreError saying what is wrong. */
function checkBackup(path: string, shown: string, onApply?: (m: Migration) => void): Migration[] {
  let db: DB | null = null;
  try {
    db = openDatabase(path);
    const problems = (db.pragma('integrity_check') as { integrity_check: string }[]).map((r) => r.integrity_check);
    if (problems.join() !== 'ok') throw new RestoreError(`${shown} is damaged (integrity check: ${problems.slice(0, 3).join('; ')})`);
    const hasMigrations = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'").get() !== undefined;
    if (!hasMigrations || !isInstalled(db)) throw new RestoreError(`${shown} is not a listmgr database (no installed listmgr schema in it)`);
    const known = new Set(listMigrations().map((m) => m.version));
    const unknown = [...appliedVersions(db)].filter((v) => !known.has(v)).sort((a, b) => a - b);
    if (unknown.length) throw new RestoreError(`${shown} was written by a newer listmgr (migrations ${unknown.join(', ')} are unknown to this version); restore it with that version`);
    try {
      return migrate(db, onApply);
    } catch (e) {
      throw new RestoreError(`the migrations could not be applied to ${shown}: ${(e as Error).message}`);
    }
  } catch (e) {
    throw e instanceof RestoreError ? e : unreadable(shown, e);
  } finally {
    if (db) closeDatabase(db);
  }
}

/** Merges what the database's WAL holds into its file, so the file alone is the whole database. */
function checkpoint(dbPath: string): void {
  const db = openDatabase(dbPath);
  try {
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

/**
 * Replaces the database at `dbPath` with the backup `file`. Refuses (RestoreError, or the
 * lock's LockError while a server runs on the database) without changing anything.
 */
export function restoreDatabase(file: string, dbPath: string, onApply?: (m: Migration) => void): RestoreResult {
  const source = resolve(file);
  const target = resolve(dbPath);
  if (!existsSync(source)) throw new RestoreError(`no backup file at ${source}`);
  if (!statSync(source).isFile()) throw new RestoreError(`${source} is not a file`);
  if (source === target) throw new RestoreError('the backup file is the database itself');
  if (fileSize(`${source}-wal`) > 0) throw new RestoreError(`${source} has a write-ahead log beside it (${basename(source)}-wal): it is a database in use, not a backup; make one with "${CLI_NAME} backup FILE"`);
  const keptAs = `${target}.before-restore`;
  if (existsSync(keptAs)) throw new RestoreError(`${keptAs} is left from an earlier restore; move it away first`);
  if (!existsSync(dirname(target))) throw new RestoreError(`the folder ${dirname(target)} does not exist`);

  const release = acquireServeLock(target, 'restoring would replace the database under it');
  const copy = join(dirname(target), `.${basename(target)}.restore-${process.pid}`);
  const removeCopy = () => {
    for (const f of [copy, `${copy}-wal`, `${copy}-shm`]) rmSync(f, { force: true });
  };
  try {
    let applied: Migration[];
    try {
      copyFileSync(source, copy);
      chmodSync(copy, 0o600);
      applied = checkBackup(copy, source, onApply);
    } catch (e) {
      removeCopy();
      throw e;
    }
    rmSync(`${copy}-wal`, { force: true }); // closing checkpointed it: empty if left at all
    rmSync(`${copy}-shm`, { force: true });
    let kept: string | null = null;
    if (existsSync(target)) {
      // A database a crashed server left may still hold writes in its WAL only.
      try {
        checkpoint(target);
      } catch {
        // Unreadable as a database: its WAL is kept beside it as it is.
        if (existsSync(`${target}-wal`)) renameSync(`${target}-wal`, `${keptAs}-wal`);
      }
      renameSync(target, keptAs);
      kept = keptAs;
    }
    rmSync(`${target}-wal`, { force: true });
    rmSync(`${target}-shm`, { force: true });
    renameSync(copy, target);
    return { keptAs: kept, applied };
  } finally {
    release();
  }
}
