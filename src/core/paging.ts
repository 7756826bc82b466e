// Paging and ordering as listmonk's paginator reads them: page / per_page, order, order_by from
// an allow-list. With "all" allowed (as listmonk configures it) the paginator does not clamp
// large values: clients that send per_page=1000000 get that many (values are bounded only at a
// billion). The query schemas that read them from a URL are the edge's (http/paging.ts).

export const DEFAULT_PER_PAGE = 20;
/** Bound on page and per_page, so that LIMIT and OFFSET stay 64-bit integers for SQLite. */
const MAX_PAGING_VALUE = 1_000_000_000;

export interface Paging {
  page: number;
  perPage: number;
  /** per_page=all (or negative): no limit. */
  all: boolean;
  limit: number;
  offset: number;
}

function int(v: string | undefined): number {
  return v !== undefined && /^-?\d+$/.test(v.trim()) ? Math.min(MAX_PAGING_VALUE, Number(v.trim())) : 0;
}

export function parsePaging(query: { page?: string; per_page?: string }): Paging {
  const raw = query.per_page?.trim().toLowerCase();
  const page = Math.max(1, int(query.page));
  const all = raw === 'all' || int(raw) < 0;
  if (all) return { page: 1, perPage: 0, all: true, limit: -1, offset: 0 };
  let perPage = int(raw);
  if (perPage < 1) perPage = DEFAULT_PER_PAGE;
  return { page, perPage, all: false, limit: perPage, offset: (page - 1) * perPage };
}

/** The most rows a server-rendered admin list shows on one page (its largest page size). */
export const ADMIN_MAX_PER_PAGE = 500;

/**
 * page / per_page of an admin list page: as the API reads them, but every page is rendered, so
 * per_page is at most ADMIN_MAX_PER_PAGE and "all" (or a negative number) is the default size.
 */
export function parseAdminPaging(query: { page?: string; per_page?: string }): Paging {
  const asked = int(query.per_page);
  return parsePaging({ page: query.page, per_page: asked > 0 ? String(Math.min(asked, ADMIN_MAX_PER_PAGE)) : '' });
}

/** order=asc|desc in any case; anything else is desc. */
export function parseOrder(v: string | undefined): 'ASC' | 'DESC' {
  return v?.trim().toLowerCase() === 'asc' ? 'ASC' : 'DESC';
}

/** order_by from an allow-list (key = API name, value = SQL column); unknown falls back silently. */
export function parseOrderBy<K extends string>(v: string | undefined, allowed: Record<K, string>, fallback: string): string {
  return v !== undefined && Object.hasOwn(allowed, v) ? allowed[v as K] : fallback;
}
