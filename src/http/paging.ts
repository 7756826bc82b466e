// The paging and ordering parameters of a listing's query schema, read as core/paging.ts says.
import { DEFAULT_PER_PAGE, parseOrder, parseOrderBy } from '../core/paging.ts';
import { q } from './schema.ts';

/** The paging and ordering parameters of a listing's query schema (listmonk's names). */
export const pagingQuery = {
  page: q.first({ type: 'integer', minimum: 1, default: 1 }, (v) => v),
  per_page: q.first({ anyOf: [{ type: 'integer', minimum: 1, default: DEFAULT_PER_PAGE }, { const: 'all' }] }, (v) => v),
};

/** `order_by` from an allow-list, as its SQL column (fallback when absent or unknown). */
export function orderByQuery<K extends string>(allowed: Record<K, string>, fallback: string) {
  return q.first({ type: 'string', enum: Object.keys(allowed) }, (v) => parseOrderBy(v, allowed, fallback));
}

/** `order`: asc or desc in any case; anything else is desc. */
export const orderQuery = () => q.first({ type: 'string', enum: ['asc', 'desc'] }, parseOrder);
