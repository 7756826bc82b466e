// Who sees which subscribers. One rule everywhere (reads, exports, by-id and by-query
// changes): a subscriber is visible to a caller with `subscribers:get_all` or read access to
// every list; anyone else sees only subscribers on a list they hold a grant for.
import { forbidden } from '../http/errors.ts';
import { hasPerm, permittedLists, type AuthUser } from '../http/permissions.ts';
import type { Subscriber, Subscription } from './store.ts';

/** null: every subscriber; otherwise the lists whose members the caller may see. */
export function visibleLists(u: AuthUser): number[] | null {
  if (hasPerm(u, 'subscribers:get_all')) return null;
  const p = permittedLists(u, 'get');
  return p === 'all' ? null : p;
}

/**
 * The source-list filter of a query: the requested lists the caller may see; with none
 * requested (or none of them visible), everything the caller may see. Never wider than that.
 */
export function sourceLists(u: AuthUser, requested: number[]): number[] | null {
  const visible = visibleLists(u);
  if (visible === null) return requested.length ? requested : null;
  const kept = requested.filter((id) => visible.includes(id));
  return kept.length ? kept : visible;
}

/** Lists the caller may add subscribers to or remove them from. */
export function manageableLists(u: AuthUser): 'all' | number[] {
  return permittedLists(u, 'manage');
}

/** Requested target lists kept to the manageable ones; 403 if some were asked and none remain. */
export function filterManageable(u: AuthUser, ids: number[]): number[] {
  const m = manageableLists(u);
  const kept = m === 'all' ? ids : ids.filter((id) => m.includes(id));
  if (ids.length && !kept.length) throw forbidden('permission denied: you may not manage these lists');
  return kept;
}

/** List entries of lists the caller cannot see are masked (name hidden, `restricted`). */
export function maskSubscriber<T extends Pick<Subscriber, 'lists'>>(s: T, u: AuthUser): T {
  const p = permittedLists(u, 'get');
  if (p === 'all') return s;
  return {
    ...s,
    lists: s.lists.map((l): Subscription => {
      if (p.includes(l.id)) return l;
      const { description: _hidden, ...rest } = l;
      return { ...rest, name: '*Unknown', restricted: true };
    }),
  };
}
