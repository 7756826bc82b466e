// CSV downloads streamed in batches: a header row, then each batch as the client reads, so a
// large export never sits whole in memory. Cells that a spreadsheet would read as a formula are
// neutralised (OWASP's CSV injection advice: a leading ') unless the caller says not to.
import { stringify } from 'csv-stringify/sync';
import type { Context } from 'hono';

/** What starts a formula in a spreadsheet: =, +, -, @, a tab or a carriage return. */
const FORMULA_START = /^[=+\-@\t\r]/;

/** A text cell that a spreadsheet would run as a formula, prefixed with a ' (others as they are). */
export function neutraliseCell(v: unknown): unknown {
  return typeof v === 'string' && FORMULA_START.test(v) ? `'${v}` : v;
}

export interface CsvOptions {
  /** Prefix a ' to text cells that start a formula (the security.csv_escape_formulas setting). */
  escapeFormulas: boolean;
}

/** Answers `header` and then the rows of each `nextBatch()` until it returns null (the end). */
export function sendCsv(c: Context, filename: string, header: readonly string[], nextBatch: () => unknown[][] | null, opts: CsvOptions): Response {
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
      ctl.enqueue(enc.encode(stringify(opts.escapeFormulas ? rows.map((r) => r.map(neutraliseCell)) : rows)));
    },
  }));
}
