// CSV downloads streamed in batches: a header row, then each batch as the client reads, so a
// large export never sits whole in memory.
import { stringify } from 'csv-stringify/sync';
import type { Context } from 'hono';

/** Answers `header` and then the rows of each `nextBatch()` until it returns null (the end). */
export function sendCsv(c: Context, filename: string, header: readonly string[], nextBatch: () => unknown[][] | null): Response {
  c.header('Content-Type', 'text/csv; charset=utf-8');
  c.header('Content-Disposition', `attachment; filename=${filename}`);
  c.header('Cache-Control', 'no-cache');
  const enc = new TextEncoder();
  return c.body(new ReadableStream<Uint8Array>({
    start(ctl) {
      ctl.enqueue(enc.encode(stringify([[...header]])));
    },
    pull(ctl) {
      const rows = nextBatch();
      if (rows === null) return ctl.close();
      ctl.enqueue(enc.encode(stringify(rows)));
    },
  }));
}
