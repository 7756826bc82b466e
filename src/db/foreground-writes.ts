// The server's own writes go before those of its background threads (the import's writer, the
// search indexer). Those threads take SQLite's one write lock transaction after transaction;
// a request that writes meanwhile waits in SQLite's busy handler, which polls with sleeps
// growing to 100 ms, on the main thread, so the whole server waits with it. It rarely polls in
// the microseconds between two background transactions: during a 1M-row import, API writes
// took 336 ms at p95 and 3.4 s at worst.
//
// So both sides say what they are doing, in two shared counters. The server counts the
// requests in progress that may write, and each waits (without blocking the event loop) for
// the background transaction under way to commit, woken the moment it does, instead of polling.
// A background thread starts a transaction only while no such request is in progress. Each
// side raises its own counter before reading the other's, so at least one of two that start
// together sees the other, and the thread is the one that backs off.
import type { MiddlewareHandler } from 'hono';

/** Slots of the shared Int32Array. */
const FOREGROUND = 0;
const BACKGROUND = 1;

/**
 * The longest a request waits for a background transaction: SQLite's busy timeout
 * (db/connection.ts), after which a write would give up anyway (503).
 */
const MAX_REQUEST_WAIT_MS = 5000;

export class ForegroundWrites {
  /** Int32 slots: requests in progress that may write, background transactions under way. Shared with the threads. */
  readonly buffer = new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT);
  private readonly slots = new Int32Array(this.buffer);

  /** Middleware for the routes that may write. */
  readonly track: MiddlewareHandler = async (_c, next) => {
    Atomics.add(this.slots, FOREGROUND, 1);
    try {
      await this.backgroundIdle();
      await next();
    } finally {
      if (Atomics.sub(this.slots, FOREGROUND, 1) === 1) Atomics.notify(this.slots, FOREGROUND);
    }
  };

  inProgress(): number {
    return Atomics.load(this.slots, FOREGROUND);
  }

  private async backgroundIdle(): Promise<void> {
    const until = performance.now() + MAX_REQUEST_WAIT_MS;
    for (let n = Atomics.load(this.slots, BACKGROUND); n > 0; n = Atomics.load(this.slots, BACKGROUND)) {
      const left = until - performance.now();
      if (left <= 0) return;
      const wait = Atomics.waitAsync(this.slots, BACKGROUND, n, left);
      if (wait.async) await wait.value;
    }
  }
}

/**
 * On a background thread: runs `transaction` once the server has no write in progress, waiting
 * for that at most `maxMs` (a slow request, such as a large upload, delays it no longer), and
 * wakes the requests that arrived meanwhile as soon as it is over.
 */
export function backgroundTransaction<T>(buffer: SharedArrayBuffer, maxMs: number, transaction: () => T): T {
  const slots = new Int32Array(buffer);
  const until = performance.now() + maxMs;
  for (;;) {
    Atomics.add(slots, BACKGROUND, 1);
    const writes = Atomics.load(slots, FOREGROUND);
    const left = until - performance.now();
    if (writes === 0 || left <= 0) break;
    endBackground(slots);
    Atomics.wait(slots, FOREGROUND, writes, left);
  }
  try {
    return transaction();
  } finally {
    endBackground(slots);
  }
}

function endBackground(slots: Int32Array): void {
  if (Atomics.sub(slots, BACKGROUND, 1) === 1) Atomics.notify(slots, BACKGROUND);
}
