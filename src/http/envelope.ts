// listmonk's response envelope and paged container.
import type { Context } from 'hono';
import type { Paging } from '../core/paging.ts';

/** {"data": payload} with status 200. */
export function ok(c: Context, data: unknown): Response {
  return c.json({ data });
}

export interface PageResults<T> {
  results: T[];
  search: string;
  query: string;
  total: number;
  per_page: number;
  page: number;
}

export interface PageOptions {
  query?: string;
  search?: string;
  /**
   * campaigns, bounces and the archive answer total, page and per_page 0 for an empty page,
   * also one past the end (listmonk quirk: its total comes from the page's rows).
   */
  zeroWhenEmpty?: boolean;
}

export function pageResults<T>(results: T[], total: number, paging: Paging, opts: PageOptions = {}): PageResults<T> {
  return { results, ...pageFields(results.length === 0, total, paging, opts) };
}

/** Everything of the paged container but its results. */
function pageFields(empty: boolean, total: number, paging: Paging, opts: PageOptions): Omit<PageResults<never>, 'results'> {
  const zero = opts.zeroWhenEmpty && empty;
  return {
    search: opts.search ?? '',
    query: opts.query ?? '',
    total: zero ? 0 : total,
    per_page: zero ? 0 : paging.all ? 0 : paging.perPage,
    page: zero ? 0 : paging.page,
  };
}

/**
 * The envelope of `pageResults` for a page too large to hold in memory: its results are
 * written batch by batch as the client reads, until `nextBatch()` returns null.
 */
export function streamedPage(c: Context, nextBatch: () => unknown[] | null, total: number, paging: Paging, opts: PageOptions = {}): Response {
  const enc = new TextEncoder();
  let wrote = false;
  c.header('Content-Type', 'application/json; charset=utf-8');
  return c.body(new ReadableStream<Uint8Array>({
    start(ctl) {
      ctl.enqueue(enc.encode('{"data":{"results":['));
    },
    pull(ctl) {
      // An empty batch (rows deleted meanwhile) writes nothing: read on until one does.
      for (let batch = nextBatch(); batch !== null; batch = nextBatch()) {
        if (!batch.length) continue;
        ctl.enqueue(enc.encode((wrote ? ',' : '') + batch.map((r) => JSON.stringify(r)).join(',')));
        wrote = true;
        return;
      }
      ctl.enqueue(enc.encode(`],${JSON.stringify(pageFields(!wrote, total, paging, opts)).slice(1)}}`));
      ctl.close();
    },
  }));
}
