// A full disk (or quota, or file-size limit) is the server's condition, not a bug and not the
// caller's fault: it is answered 507 Insufficient Storage with words an administrator can act
// on, and the process goes on serving (docs/decisions.md §82).
import Database from 'better-sqlite3';
import { DomainError, noSpace } from '../core/errors.ts';

const FULL = ['ENOSPC', 'EDQUOT', 'EFBIG'];

/** Whether `e` is a write refused for lack of space: a file system error or SQLite's SQLITE_FULL. */
export function isDiskFull(e: unknown): boolean {
  if (e instanceof Database.SqliteError) return e.code === 'SQLITE_FULL';
  return FULL.includes(String((e as NodeJS.ErrnoException | null)?.code));
}

/** The 507 answer; `what` says what could not be stored. */
export function diskFull(what: string): DomainError {
  return noSpace(`the server has no space left to store ${what}; try again once disk space has been freed`);
}
