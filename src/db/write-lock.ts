// Waiting for SQLite's write lock without blocking the event loop. better-sqlite3 is
// synchronous: a write that meets the lock held by another connection waits in SQLite's busy
// handler, on the main thread, for up to the busy timeout (connection.ts), and every other
// request waits with it, reads included. The server's own threads are waited for through
// shared counters (foreground-writes.ts); a lock held outside the process (an admin's sqlite3
// session, another tool) is waited for here: the lock is tried without waiting, and while it
// is taken the caller polls it from timers, so the server goes on answering meanwhile.
import Database from 'better-sqlite3';
import type { DB } from './connection.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** The first and the longest pause between two tries. */
const FIRST_POLL_MS = 2;
const MAX_POLL_MS = 50;

/** The connection's busy timeout in ms: how long a caller is willing to wait for the lock. */
export function busyTimeout(db: DB): number {
  return Number(db.pragma('busy_timeout', { simple: true })) || 0;
}

/**
 * Whether the write lock can be taken at this moment: it is taken and given back at once, with
 * SQLite's busy handler off (an empty IMMEDIATE transaction costs a few microseconds: lock calls
 * and a read of the WAL index, no I/O). Inside a transaction of this connection: true.
 */
export function writeLockFree(db: DB): boolean {
  if (db.inTransaction) return true;
  const timeout = busyTimeout(db);
  db.pragma('busy_timeout = 0');
  try {
    db.exec('BEGIN IMMEDIATE');
    db.exec('ROLLBACK');
    return true;
  } catch (e) {
    if (e instanceof Database.SqliteError && (e.code.startsWith('SQLITE_BUSY') || e.code.startsWith('SQLITE_LOCKED'))) return false;
    throw e;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * Resolves true as soon as the write lock is free, or false once `maxMs` (default: the
 * connection's busy timeout) have passed with the lock still taken. The event loop is free
 * while it waits.
 */
export async function waitForWriteLock(db: DB, maxMs = busyTimeout(db)): Promise<boolean> {
  if (writeLockFree(db)) return true;
  const until = performance.now() + maxMs;
  for (let pause = FIRST_POLL_MS; ; pause = Math.min(MAX_POLL_MS, pause * 2)) {
    const left = until - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(pause, left));
    if (writeLockFree(db)) return true;
  }
}

/** The error SQLite itself gives when the lock stays taken past the busy timeout (answered 503). */
export function databaseLocked(): Error {
  return new Database.SqliteError('database is locked', 'SQLITE_BUSY');
}
