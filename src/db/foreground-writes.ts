// The server's own writes go before those of its background threads (the import's writer, the
// search indexer). Those threads take SQLite's one write lock transaction after transaction;
// a request that writes meanwhile waits in SQLite's busy handler, which polls with sleeps
// growing to 100 ms, on the main thread, so the whole server waits with it. It rarely polls in
// the microseconds between two background transactions: during a 1M-row import, API writes
// took 336 ms at p95 and 3.4 s at worst. So the server counts the requests that may write, and
// the background threads hold off between transactions while any is in progress.
import type { MiddlewareHandler } from 'hono';

export class ForegroundWrites {
  /** One Int32: the number of requests in progress that may write. Shared with the threads. */
  readonly buffer = new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT);
  private readonly count = new Int32Array(this.buffer);

  /** Middleware for the routes that may write. */
  readonly track: MiddlewareHandler = async (_c, next) => {
    Atomics.add(this.count, 0, 1);
    try {
      await next();
    } finally {
      if (Atomics.sub(this.count, 0, 1) === 1) Atomics.notify(this.count, 0);
    }
  };

  inProgress(): number {
    return Atomics.load(this.count, 0);
  }
}

/**
 * On a background thread, before each write transaction: waits while the server has writes in
 * progress, for at most `maxMs` (a slow request, such as a large upload, delays it no longer).
 */
export function waitForForegroundWrites(buffer: SharedArrayBuffer, maxMs: number): void {
  const count = new Int32Array(buffer);
  const until = performance.now() + maxMs;
  for (let n = Atomics.load(count, 0); n > 0; n = Atomics.load(count, 0)) {
    const left = until - performance.now();
    if (left <= 0) return;
    Atomics.wait(count, 0, n, left);
  }
}
