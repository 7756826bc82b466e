// listmonk's response envelope and paged container.
import type { Context } from 'hono';
import type { Paging } from './paging.ts';

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
  const empty = opts.zeroWhenEmpty && results.length === 0;
  return {
    results,
    search: opts.search ?? '',
    query: opts.query ?? '',
    total: empty ? 0 : total,
    per_page: empty ? 0 : paging.all ? 0 : paging.perPage,
    page: empty ? 0 : paging.page,
  };
}
