// The server's own writes go before those of its background threads (the import's writer, the
// search indexer). Those threads take SQLite's one write lock transaction after transaction;
// a request that writes meanwhile waits in SQLite's busy handler, which polls with sleeps
// growing to 100 ms, on the main thread, so the whole server waits with it. It rarely polls in
// the microseconds between two background transactions: during a 1M-row import, API writes
// took 336 ms at p95 and 3.4 s at worst. So the two sides share two counters:
// - the requests in progress that may write: a background thread does not start a
//   transaction while there is one;
// - the background transactions under way: a request that may write first waits, without
//   blocking the event loop, for the one under way to end, so that it does not meet the lock
//   in SQLite's busy handler (which would stall every other request, reads included, and
//   oversleep by up to a poll).
// Each side counts itself before it looks at the other, so at least one of two that start
// together sees the other.
// A lock held outside the process is waited for the same way, polled (write-lock.ts): such a
// request answers 503 once the busy timeout has passed with the lock still taken, instead of
// holding the event loop in SQLite's busy handler all that time.
import type { MiddlewareHandler } from 'hono';
import type { DB } from './connection.ts';
import { databaseLocked, waitForWriteLock } from './write-lock.ts';

const WRITES = 0;
const BACKGROUND = 1;

/**
 * The longest a request waits for a background transaction (SQLite's busy timeout, see
 * connection.ts): a transaction that runs longer, such as a name index rebuild on a huge
 * table, is then waited for in SQLite's busy handler as before.
 */
const MAX_REQUEST_WAIT_MS = 5000;

/** Decrements a counter, waking those who wait for it when it reaches 0. */
function release(slots: Int32Array, slot: number): void {
  if (Atomics.sub(slots, slot, 1) === 1) Atomics.notify(slots, slot);
}

export class ForegroundWrites {
  /** Two Int32 counters shared with the background threads: WRITES and BACKGROUND. */
  readonly buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  private readonly slots = new Int32Array(this.buffer);

  /** `db`: the server's connection, whose write lock requests wait for (none: only the counters). */
  constructor(private readonly db?: DB) {}

  /** Middleware for the routes that may write. */
  readonly track: MiddlewareHandler = async (_c, next) => {
    Atomics.add(this.slots, WRITES, 1);
    try {
      const until = performance.now() + MAX_REQUEST_WAIT_MS;
      for (let n = Atomics.load(this.slots, BACKGROUND); n > 0; n = Atomics.load(this.slots, BACKGROUND)) {
        const left = until - performance.now();
        if (left <= 0) break;
        const wait = Atomics.waitAsync(this.slots, BACKGROUND, n, left);
        if (wait.async) await wait.value;
      }
      if (this.db && !(await waitForWriteLock(this.db))) throw databaseLocked();
      await next();
    } finally {
      release(this.slots, WRITES);
    }
  };

  inProgress(): number {
    return Atomics.load(this.slots, WRITES);
  }

  backgroundTransactions(): number {
    return Atomics.load(this.slots, BACKGROUND);
  }
}

/**
 * On a background thread: runs `transaction` once no request that may write is in progress
 * (waiting at most `maxMs`, so a slow request, such as a large upload, holds it up no longer),
 * counted as a background transaction under way while it runs.
 */
export function backgroundTransaction<T>(buffer: SharedArrayBuffer, maxMs: number, transaction: () => T): T {
  const slots = new Int32Array(buffer);
  const until = performance.now() + maxMs;
  for (;;) {
    Atomics.add(slots, BACKGROUND, 1);
    const writes = Atomics.load(slots, WRITES);
    const left = until - performance.now();
    if (writes === 0 || left <= 0) break;
    // A request got in first: step back until it is done.
    release(slots, BACKGROUND);
    Atomics.wait(slots, WRITES, writes, left);
  }
  try {
    return transaction();
  } finally {
    release(slots, BACKGROUND);
  }
}
