// Opening the SQLite file. Every pragma lives here.
import Database from 'better-sqlite3';
import { closeSync, openSync } from 'node:fs';

export type DB = Database.Database;

export interface OpenOptions {
  readonly?: boolean;
}

export function openDatabase(path: string, opts: OpenOptions = {}): DB {
  // A new database file is created readable by its owner only; SQLite gives its WAL and shared-
  // memory files the database file's mode. (SQLite takes an empty file as a new database.)
  if (!opts.readonly && path !== ':memory:') createPrivateFile(path);
  const db = new Database(path, { readonly: opts.readonly ?? false, fileMustExist: opts.readonly ?? false });
  if (!opts.readonly) {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
  }
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  // 4 MB page cache per connection: the OS caches the file anyway, and a walk over 100,000
  // subscribers filled the former 16 MB cache (peak RSS 10 MB lower in the send bench).
  db.pragma('cache_size = -4000');
  db.pragma('temp_store = MEMORY');
  // A bulk import lets the WAL grow to 256 MB between checkpoints (imports/write-worker.ts);
  // when it restarts, the file is cut back to this size instead of keeping its largest.
  db.pragma(`journal_size_limit = ${64 * 1024 * 1024}`);
  return db;
}

/**
 * A database file being built that is thrown away unless it is complete (the listmonk
 * migration writes one and renames it into place): no journal and no syncing while it is
 * written, since a crash discards the file anyway, and a 16 MB page cache for its random
 * index inserts (64 MB was no faster, and cost 50 MB of memory on a million subscribers).
 * The builder checks the references and syncs the file itself before renaming it.
 */
export function openScratchDatabase(path: string): DB {
  createPrivateFile(path);
  const db = new Database(path);
  // better-sqlite3 opens connections in SQLite's defensive mode, which silently refuses
  // journal_mode = OFF (the file kept a rollback journal, written for every transaction).
  db.unsafeMode(true);
  db.pragma('journal_mode = OFF');
  db.unsafeMode(false);
  if (db.pragma('journal_mode', { simple: true }) !== 'off') throw new Error(`${path}: SQLite refused journal_mode = OFF`);
  db.pragma('synchronous = OFF');
  // References are checked once at the end (PRAGMA foreign_key_check), not row by row.
  db.pragma('foreign_keys = OFF');
  db.pragma('cache_size = -16384');
  // Index builds sort in temporary files, not in memory (a million rows' sort held 100 MB).
  db.pragma('temp_store = FILE');
  return db;
}

/** Creates `path` empty with mode 0600 unless it exists (databases, backups, lock files hold subscriber data or credentials). */
export function createPrivateFile(path: string): void {
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}

/** SQLite's default: a commit that leaves a WAL of more pages than this checkpoints it. */
const WAL_AUTOCHECKPOINT_PAGES = 1000;
const checkpointPauses = new WeakMap<DB, number>();

/**
 * While a background thread writes in bulk (the import's writer, the search indexer), the
 * WAL is mostly over the autocheckpoint size, so each commit of this connection would
 * checkpoint it on the calling thread: for the server's connection, tens of MB copied and an
 * fsync on the main thread (a 70 ms stall of every request at the end of a 1M-row import).
 * Those threads checkpoint their own connection instead, and once more when they end
 * (checkpointNow). Nested pauses count.
 */
export function pauseCheckpoints(db: DB): void {
  const n = checkpointPauses.get(db) ?? 0;
  if (n === 0) db.pragma('wal_autocheckpoint = 0');
  checkpointPauses.set(db, n + 1);
}

export function resumeCheckpoints(db: DB): void {
  const n = (checkpointPauses.get(db) ?? 0) - 1;
  if (n > 0) {
    checkpointPauses.set(db, n);
    return;
  }
  checkpointPauses.delete(db);
  if (db.open) db.pragma(`wal_autocheckpoint = ${WAL_AUTOCHECKPOINT_PAGES}`);
}

/**
 * Copies the WAL into the database file as far as readers allow, without waiting for them.
 * Best effort: what it cannot copy (a busy or failing file) is left to the next checkpoint of
 * any connection.
 */
export function checkpointNow(db: DB): void {
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch {
    // left to the next checkpoint
  }
}

/**
 * Checkpoints a background thread's connection between its transactions instead of in its
 * commits (SQLite's auto-checkpoint): a server write that waits for the thread's transaction
 * under way (db/foreground-writes.ts) then does not wait for the copy too, which took up to
 * 0.9 s for a 256 MB WAL. As the auto-checkpoint, it copies once `frames` WAL frames wait.
 */
export class WalCheckpointer {
  constructor(private readonly db: DB, private readonly frames: number) {
    db.pragma('wal_autocheckpoint = 0');
  }

  /** Called after each transaction, outside the thread's counted section. */
  afterTransaction(): void {
    // NOOP reads the WAL's size without copying anything.
    const [{ log, checkpointed }] = this.db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
    if (log - checkpointed >= this.frames) checkpointNow(this.db);
  }
}

/** Whether `e` is SQLite giving up on a lock another connection held past busy_timeout. */
export function isDatabaseBusy(e: unknown): boolean {
  return e instanceof Database.SqliteError && (e.code.startsWith('SQLITE_BUSY') || e.code.startsWith('SQLITE_LOCKED'));
}

/**
 * Whether `e` is the database failing for a while rather than a bug: locked by another
 * connection, the disk or a quota full, an I/O error, out of memory. Writing again later may
 * succeed (the sending engine retries such writes, then pauses the campaign).
 */
export function isStorageFailure(e: unknown): boolean {
  if (!(e instanceof Database.SqliteError)) return false;
  return isDatabaseBusy(e) || ['SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_NOMEM', 'SQLITE_CANTOPEN', 'SQLITE_PROTOCOL'].some((c) => e.code.startsWith(c));
}

/** Runs fn in one IMMEDIATE transaction (all or nothing). */
export function inTransaction<T>(db: DB, fn: () => T): T {
  return db.transaction(fn).immediate();
}

/** Flushes the WAL into the main file and closes. */
export function closeDatabase(db: DB): void {
  if (!db.open) return;
  if (!db.readonly) {
    try {
      db.pragma('wal_checkpoint(TRUNCATE)');
    } catch {
      // another connection may hold a read lock; the WAL is replayed on next open anyway
    }
  }
  db.close();
}
