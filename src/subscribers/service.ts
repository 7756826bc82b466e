// Subscriber filters as a caller may use them, and the access check on subscriber ids.
import { forbidden, badRequest } from '../http/errors.ts';
import { hasPerm, type AuthUser } from '../http/permissions.ts';
import type { ListStore } from '../lists/store.ts';
import { SegmentError, translateSegment } from '../segments/index.ts';
import { sourceLists, visibleLists } from './access.ts';
import { SUBSCRIPTION_STATUSES, type SubscriberFilter, type SubscriberStore, type SubscriptionStatus } from './store.ts';

/** The audience stores the public pages and opt-in mails work with. */
export interface Audience {
  subscribers: SubscriberStore;
  lists: ListStore;
}

export interface FilterInput {
  listIds: number[];
  subscriptionStatus?: string;
  search?: string;
  query?: string;
  ids?: number[];
}

/** A segment expression as listmonk pre-processes it: trimmed, one trailing `;` removed. */
export function cleanQuery(q: string | undefined): string {
  return (q ?? '').trim().replace(/;$/, '').trim();
}

/**
 * The caller's filter: source lists limited to what they may see, the segment translated
 * (requires `subscribers:sql_query`; a bad expression is a 400 with the translator's message).
 */
export function buildFilter(user: AuthUser, input: FilterInput): SubscriberFilter {
  const status = input.subscriptionStatus?.trim();
  if (status && !SUBSCRIPTION_STATUSES.includes(status as SubscriptionStatus)) {
    throw badRequest(`invalid "subscription_status": "${status}" is not one of ${SUBSCRIPTION_STATUSES.join(', ')}`);
  }
  const filter: SubscriberFilter = {
    lists: sourceLists(user, input.listIds),
    subscriptionStatus: status ? (status as SubscriptionStatus) : undefined,
    search: input.search?.trim() || undefined,
    ids: input.ids?.length ? input.ids : undefined,
  };
  const query = cleanQuery(input.query);
  if (query) {
    if (!hasPerm(user, 'subscribers:sql_query')) throw forbidden('permission denied: subscribers:sql_query');
    try {
      filter.segment = translateSegment(query);
    } catch (e) {
      if (e instanceof SegmentError) throw badRequest(`invalid query expression: ${e.message}`);
      throw e;
    }
  }
  return filter;
}

/** 403 unless the caller may see every one of these subscribers. */
export function assertSubscriberAccess(store: SubscriberStore, user: AuthUser, ids: number[]): void {
  const visible = visibleLists(user);
  if (visible === null || !ids.length) return;
  const outside = store.firstOutside(ids, visible);
  if (outside !== null) throw forbidden(`permission denied: subscriber ${outside}`);
}
