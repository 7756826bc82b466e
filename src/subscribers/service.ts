// Subscriber rules and who may see or change which subscriber. Routes pass the actor and typed
// input; every check is here, and store changes take only the ids a check produced.
//
// One rule for who sees which subscribers (reads, exports, by-id and by-query changes): a caller
// with `subscribers:get_all` or read access to every list sees every subscriber; anyone else
// sees the subscribers on the lists they hold a grant for. Lists are named, added and removed
// by their own grants (`list:get`, `list:manage`).
import type { AppContext } from '../context.ts';
import type { RecordOptions } from '../events/log.ts';
import { loggedIds } from '../log.ts';
import { denied, invalid, notFound, upstreamFailed } from '../core/errors.ts';
import type { Paging } from '../core/paging.ts';
import { authorize, authorizeAll, authorizeEach, can, permittedLists, type Actor, type Authorized } from '../core/authz.ts';
import { TABLE_PERMISSIONS, translateSegment, type SegmentAccess } from '../segments/index.ts';
import { domainRules, nameFromEmail, validateEmail } from '../mail/address.ts';
import { sendOptin, sendOptinQuietly } from './optin.ts';
import type {
  ActivityClick, ActivityView, ListAction, Subscriber, SubscriberFields, SubscriberFilter, SubscriberOrder, SubscriberRow, SubscriberStatus, SubscriberStore,
  Subscription, SubscriptionSource, SubscriptionStatus,
} from './store.ts';

// What callers (routes, pages) use of a subscriber, without reaching the store.
export { SUBSCRIBER_ORDER_COLUMNS, SUBSCRIPTION_STATUSES, type ActivityClick, type ActivityView, type Subscriber, type SubscriberStatus, type SubscriptionStatus } from './store.ts';

/** Which subscribers a listing, an export or a by-query change is about, as the caller asks. */
export interface SubscriberQuery {
  /** Members of these lists (kept to the ones the caller may see). */
  listIds: number[];
  /** The status of the subscription to those lists. */
  subscriptionStatus?: SubscriptionStatus;
  search?: string;
  /** A segment expression; needs `subscribers:sql_query`. */
  query?: string;
  ids?: number[];
  /** The subscriber's own status (the admin's dashboard links; not an API parameter). */
  status?: SubscriberStatus;
  /** Only subscribers on no list (the admin's dashboard links; not an API parameter). */
  orphans?: boolean;
}

/** A by-query change's selection: `all`, or a search or a segment, within the list filter. */
export interface SubscriberSelection {
  all: boolean;
  search: string;
  query: string;
  listIds: number[];
  subscriptionStatus?: SubscriptionStatus;
}

/** A new subscriber; absent fields take listmonk's defaults (the name from the address). */
export interface SubscriberInput {
  /** As given: checked here (the domain rules are settings). For a PATCH, absent keeps it. */
  email?: unknown;
  name?: string;
  status?: SubscriberStatus;
  attribs?: Record<string, unknown>;
  lists?: number[];
  /** Subscriptions start confirmed, and no opt-in mail is sent. */
  preconfirm?: boolean;
}

/**
 * A PUT or PATCH. PUT replaces: the e-mail is required, absent attribs and lists become empty.
 * PATCH merges: absent fields keep the stored ones, attribs merge over the stored ones.
 */
export type SubscriberChanges = SubscriberInput;

export interface ListChange {
  action: ListAction;
  targets: number[];
  /** Of the subscriptions an `add` makes; the other actions leave `unsubscribed`. */
  status: SubscriptionStatus;
}

/** A page of subscribers; a large one comes in batches, read as the client reads them. */
export type SubscriberPage = { total: number; results: Subscriber[] } | { total: number; batches: () => Subscriber[] | null };

/** Rows per batch of a streamed page or a CSV export. */
const STREAM_BATCH = 500;

/** A segment expression as listmonk pre-processes it: trimmed, one trailing `;` removed. */
export function cleanQuery(q: string | undefined): string {
  return (q ?? '').trim().replace(/;$/, '').trim();
}

/** The sections of a subscriber's data export the settings allow (`privacy.exportable`). */
export function exportableSections(ctx: Pick<AppContext, 'settings'>): string[] {
  const v = ctx.settings.get<unknown>('privacy.exportable');
  return Array.isArray(v) ? v.map(String) : [];
}

/**
 * The one rule (above) as lists: null when the actor sees every subscriber, else the lists
 * whose members it sees. Other domains listing subscribers (campaign analytics) apply it too.
 */
export function subscriberScope(actor: Actor): number[] | null {
  if (can(actor, 'subscribers:get_all')) return null;
  const lists = permittedLists(actor, 'get');
  return lists === 'all' ? null : lists;
}

/**
 * Whose personal data (UUID, e-mail, name) other domains' exports may show the actor: null for
 * every subscriber, else the members of these lists; [] without subscriber read access at all.
 */
export function subscriberReadScope(actor: Actor): number[] | null {
  if (!can(actor, 'subscribers:get_all') && !can(actor, 'subscribers:get')) return [];
  return subscriberScope(actor);
}

/**
 * The lists whose campaigns the actor may see, as the campaign API decides: null for every
 * campaign (campaigns:get_all, or campaigns:get with every list), [] without campaign read access.
 */
function campaignScope(actor: Actor): number[] | null {
  if (can(actor, 'campaigns:get_all')) return null;
  if (!can(actor, 'campaigns:get')) return [];
  const lists = permittedLists(actor, 'get');
  return lists === 'all' ? null : lists;
}

export class SubscriberService {
  constructor(private readonly ctx: AppContext, private readonly store: SubscriberStore) {}

  /** Whether the actor may select subscribers by a segment (an SQL expression): the check of every query below. */
  queriesSegments(actor: Actor): boolean {
    return can(actor, 'subscribers:sql_query');
  }

  // Reads ---------------------------------------------------------------------------------

  async page(actor: Actor, q: SubscriberQuery, order: SubscriberOrder, paging: Paging): Promise<SubscriberPage> {
    const filter = this.filterFor(actor, q);
    const mask = (s: Subscriber) => this.mask(actor, s);
    // Large pages (per_page=all, or a huge number as some clients send) are streamed.
    if (paging.all || paging.perPage > STREAM_BATCH) {
      const ids = await this.store.matchingIds(filter, order);
      const pageIds = paging.all ? ids : ids.slice(paging.offset, paging.offset + paging.limit);
      let i = 0;
      return { total: ids.length, batches: () => (i >= pageIds.length ? null : this.store.rowsInOrder(pageIds.slice(i, (i += STREAM_BATCH))).map(mask)) };
    }
    const { results, total } = await this.store.page(filter, order, paging.limit, paging.offset);
    return { total, results: results.map(mask) };
  }

  /** The CSV export's rows, batch by batch; rows deleted meanwhile drop out of their batch. */
  async exportRows(actor: Actor, q: SubscriberQuery): Promise<() => SubscriberRow[] | null> {
    const ids = await this.store.matchingIds(this.filterFor(actor, q));
    let i = 0;
    return () => (i >= ids.length ? null : this.store.rawRowsInOrder(ids.slice(i, (i += STREAM_BATCH))));
  }

  get(actor: Actor, id: number): Subscriber {
    return this.mask(actor, this.load(actor, id).subscriber);
  }

  /**
   * The subscriber's views and clicks. Those of campaigns the actor may not see (campaignScope)
   * stay in the counts as "a campaign you cannot see": no campaign, subject or link.
   */
  activity(actor: Actor, id: number): { campaign_views: ActivityView[]; link_clicks: ActivityClick[] } {
    const { campaign_views, link_clicks } = this.store.activity(this.load(actor, id).id, campaignScope(actor));
    return {
      campaign_views: campaign_views.map(({ visible, ...v }) => (visible ? v
        : { id: null, uuid: null, name: '', subject: '', view_count: v.view_count, last_viewed_at: v.last_viewed_at, restricted: true })),
      link_clicks: link_clicks.map(({ visible, ...k }) => (visible ? k
        : { link_id: null, url: '', campaign_id: null, campaign_uuid: null, campaign_name: null, campaign_subject: null, click_count: k.click_count, last_clicked_at: k.last_clicked_at, restricted: true })),
    };
  }

  /** The subscriber's data export, the sections the settings allow. */
  exportData(actor: Actor, id: number): Record<string, unknown> {
    return this.store.exportData(this.load(actor, id).id, exportableSections(this.ctx));
  }

  bounces(actor: Actor, id: number): unknown[] {
    return this.store.bounces(this.load(actor, id).id);
  }

  // Changes -------------------------------------------------------------------------------

  /** Creates the subscriber on the requested lists the actor may manage; 409 if the e-mail exists. */
  async create(actor: Actor, input: SubscriberInput): Promise<Subscriber> {
    const email = validateEmail(input.email, domainRules(this.ctx.settings));
    const lists = this.manageable(actor, input.lists ?? []);
    const preconfirm = input.preconfirm ?? false;
    const fields: SubscriberFields = {
      email,
      name: input.name || nameFromEmail(email, 'title'),
      status: input.status ?? 'enabled',
      attribs: input.attribs ?? {},
    };
    const id = this.store.create(fields, lists, { preconfirm, source: sourceOf(actor) });
    if (!preconfirm && lists.length) await sendOptinQuietly(this.ctx, this.store, id, lists);
    return this.store.get(id)!;
  }

  /**
   * PUT (`replace`) or PATCH (`merge`), see SubscriberChanges. Given lists replace the
   * subscriptions among the lists the actor manages; the others stay.
   */
  async update(actor: Actor, id: number, changes: SubscriberChanges, mode: 'replace' | 'merge'): Promise<Subscriber> {
    const { id: checked, subscriber: current } = this.load(actor, id);
    const email = mode === 'replace' || changes.email !== undefined
      ? validateEmail(changes.email, domainRules(this.ctx.settings), { checkLength: false })
      : current.email;
    const lists = mode === 'replace' ? this.manageable(actor, changes.lists ?? []) : changes.lists === undefined ? null : this.manageable(actor, changes.lists);
    const preconfirm = changes.preconfirm ?? false;
    const fields: SubscriberFields = {
      email,
      name: changes.name || current.name,
      status: changes.status ?? current.status,
      attribs: mode === 'replace' ? changes.attribs ?? {} : { ...current.attribs, ...changes.attribs },
    };
    this.store.update(checked, fields, lists, { preconfirm, source: sourceOf(actor), manageable: permittedLists(actor, 'manage') });
    if (!preconfirm && lists?.length) await sendOptinQuietly(this.ctx, this.store, checked, lists);
    return this.mask(actor, this.store.get(checked)!);
  }

  /** Sends the opt-in mail for the subscriber's pending double opt-in lists; 502 if it fails. */
  async sendOptin(actor: Actor, id: number): Promise<void> {
    const checked = this.load(actor, id).id;
    try {
      await sendOptin(this.ctx, this.store, checked, null);
    } catch (e) {
      throw upstreamFailed(`could not send the opt-in e-mail: ${(e as Error).message}`);
    }
  }

  /** Deletes the subscribers; ids that do not exist are ignored. */
  delete(actor: Actor, ids: number[]): void {
    this.store.delete(this.authorize(actor, ids), byIds(ids));
  }

  /** Deletes one subscriber; 404 if there is none. */
  deleteOne(actor: Actor, id: number): void {
    this.store.delete([this.load(actor, id).id]);
  }

  /** Blocklists the subscribers (every subscription unsubscribed); unknown ids are ignored. */
  blocklist(actor: Actor, ids: number[]): void {
    const authorized = this.authorize(actor, ids);
    this.store.blocklist(authorized, byIds(ids));
    this.logBlocklisted(actor, authorized);
  }

  /** Blocklists one subscriber; 404 if there is none. */
  blocklistOne(actor: Actor, id: number): void {
    const sub = this.load(actor, id).id;
    this.store.blocklist([sub]);
    this.logBlocklisted(actor, [sub]);
  }

  private logBlocklisted(actor: Actor, ids: readonly number[]): void {
    if (ids.length) this.ctx.log.info(`${loggedIds('subscriber', ids)} blocklisted (source: ${sourceOf(actor)}, by ${actor.username})`);
  }

  deleteBounces(actor: Actor, id: number): void {
    this.store.deleteBounces(this.load(actor, id).id);
  }

  /** Adds, removes or unsubscribes the subscribers on the target lists; unknown ids are ignored. */
  changeLists(actor: Actor, ids: number[], change: ListChange): void {
    const targets = this.manageable(actor, change.targets);
    const existing = this.existing(this.authorize(actor, ids));
    this.store.changeLists(existing, change.action, targets, { status: change.status, overwrite: true, source: sourceOf(actor), ...byIds(existing) });
    this.logUnsubscribed(actor, existing, change, targets);
  }

  private logUnsubscribed(actor: Actor, ids: readonly number[], change: ListChange, targets: readonly number[]): void {
    if (change.action === 'unsubscribe' && ids.length) this.ctx.log.info(`${loggedIds('subscriber', ids)} unsubscribed from ${loggedIds('list', targets)} (source: ${sourceOf(actor)}, by ${actor.username})`);
  }

  /** As changeLists, for one subscriber; 404 if there is none. */
  changeListsOf(actor: Actor, id: number, change: ListChange): void {
    const targets = this.manageable(actor, change.targets);
    const existing = this.existing(this.authorize(actor, [id]));
    if (!existing.length) throw notFound(`subscriber ${id} not found`);
    this.store.changeLists(existing, change.action, targets, { status: change.status, overwrite: true, source: sourceOf(actor) });
    this.logUnsubscribed(actor, existing, change, targets);
  }

  // By query: the matching ids are selected read-only within what the actor may see (which is
  // their check; a segment's on its thread, under the deadline), then changed by id in one
  // transaction on the writer.

  /** Deletes the selected subscribers (every one, at once, when nothing narrows the selection). */
  async deleteMatching(actor: Actor, sel: SubscriberSelection): Promise<void> {
    const filter = this.filterFor(actor, selected(sel, true));
    if (filter.lists === null && !filter.subscriptionStatus && !filter.search && !filter.segment) this.store.deleteAll();
    else this.store.delete(await this.matching(actor, filter), BY_QUERY);
  }

  async blocklistMatching(actor: Actor, sel: SubscriberSelection): Promise<void> {
    const ids = await this.matching(actor, this.filterFor(actor, selected(sel, true)));
    this.store.blocklist(ids, BY_QUERY);
    this.logBlocklisted(actor, ids);
  }

  /** An `add` leaves existing subscriptions as they are (by ids it sets their status too). */
  async changeListsOfMatching(actor: Actor, sel: SubscriberSelection, change: ListChange): Promise<void> {
    const filter = this.filterFor(actor, selected(sel, false));
    const targets = this.manageable(actor, change.targets);
    const ids = await this.matching(actor, filter);
    this.store.changeLists(ids, change.action, targets, { status: change.status, overwrite: false, source: sourceOf(actor), ...BY_QUERY });
    this.logUnsubscribed(actor, ids, change, targets);
  }

  // Who may see or change what ----------------------------------------------------------------

  /** The lists whose members the actor may see; null: every subscriber (the one rule, above). */
  private visibleLists(actor: Actor): number[] | null {
    return subscriberScope(actor);
  }

  /** 403 unless the actor may see every one of these subscribers (existing or not). */
  private authorize(actor: Actor, ids: number[]): Authorized<number>[] {
    const visible = this.visibleLists(actor);
    // Asked again on a refusal, to name the subscriber.
    const outside = (ids: readonly number[]) => (visible === null || !ids.length ? null : this.store.firstOutside(ids, visible));
    return authorizeAll(ids, (ids) => outside(ids) === null, (ids) => denied(`permission denied: subscriber ${outside(ids)}`));
  }

  /** The subscriber, if the actor may see it (403) and it exists (404). */
  private load(actor: Actor, id: number): { id: Authorized<number>; subscriber: Subscriber } {
    const [checked] = this.authorize(actor, [id]);
    const subscriber = this.store.get(checked);
    if (!subscriber) throw notFound(`subscriber ${id} not found`);
    return { id: checked, subscriber };
  }

  /** The ids that exist, each once. */
  private existing(ids: Authorized<number>[]): Authorized<number>[] {
    const found = new Set(this.store.existingIds(ids));
    return [...new Set(ids)].filter((id) => found.has(id));
  }

  /**
   * The ids a filter built by `filterFor` matches. Their check is the filter's: kept to lists the
   * actor may see, so every id it selects is one the actor may change.
   */
  private async matching(actor: Actor, filter: SubscriberFilter): Promise<Authorized<number>[]> {
    const visible = this.visibleLists(actor);
    const confined = visible === null || (filter.lists !== null && filter.lists.every((id) => visible.includes(id)));
    return authorizeAll(await this.store.matchingIds(filter), () => confined, () => denied('permission denied: the selection reaches beyond the lists you may see'));
  }

  /**
   * The actor's filter: the source lists kept to the visible ones (with none requested, or
   * none of them visible, every list the actor may see; never wider), the segment translated
   * (which needs `subscribers:sql_query`) within what the actor may read (segmentAccess).
   */
  private filterFor(actor: Actor, q: SubscriberQuery): SubscriberFilter {
    const visible = this.visibleLists(actor);
    const requested = visible === null ? q.listIds : q.listIds.filter((id) => visible.includes(id));
    const filter: SubscriberFilter = {
      lists: requested.length ? requested : visible,
      subscriptionStatus: q.subscriptionStatus,
      search: q.search?.trim() || undefined,
      ids: q.ids?.length ? q.ids : undefined,
      status: q.status,
      orphans: q.orphans,
    };
    const query = cleanQuery(q.query);
    if (query) {
      if (!this.queriesSegments(actor)) throw denied('permission denied: subscribers:sql_query');
      filter.segment = translateSegment(query, { access: segmentAccess(actor) });
    }
    return filter;
  }

  /** The requested lists the actor may manage; 403 if some were asked for and none remain. */
  private manageable(actor: Actor, lists: number[]): Authorized<number>[] {
    const kept = authorizeEach(lists, (id) => can(actor, 'list:manage', id));
    if (lists.length && !kept.length) throw denied('permission denied: you may not manage these lists');
    return kept;
  }

  /** Entries of lists the actor may not see are masked (name hidden, `restricted`). */
  private mask(actor: Actor, s: Subscriber): Subscriber {
    if (s.lists.every((l) => can(actor, 'list:get', l.id))) return s;
    return {
      ...s,
      lists: s.lists.map((l): Subscription => {
        if (can(actor, 'list:get', l.id)) return l;
        const { description: _hidden, ...rest } = l;
        return { ...rest, name: '*Unknown', restricted: true };
      }),
    };
  }
}

/**
 * What an actor's segment subqueries may read: the tables it could read through the API (the
 * campaign tables with every campaign visible, as the campaign service's scope; bounces with
 * bounces:get), and list rows of the lists it may see only.
 */
function segmentAccess(actor: Actor): SegmentAccess {
  const lists = permittedLists(actor, 'get');
  const allCampaigns = campaignScope(actor) === null;
  const refusedTables: Record<string, string> = {};
  for (const [table, permission] of Object.entries(TABLE_PERMISSIONS)) {
    const allowed = permission === 'campaigns:get_all' ? allCampaigns : can(actor, permission);
    if (!allowed) refusedTables[table] = permission;
  }
  return { refusedTables, lists };
}

/** A by-query selection as a query; 400 when a change needs one and none was given. */
function selected(sel: SubscriberSelection, needsSelection: boolean): SubscriberQuery {
  const search = sel.all ? '' : sel.search;
  const query = sel.all ? '' : sel.query;
  if (needsSelection && !sel.all && !search && !cleanQuery(query)) throw invalid('a "query" or "search" is required (or "all": true)');
  return { listIds: sel.listIds, subscriptionStatus: sel.subscriptionStatus, search, query };
}

/** A change by query is a bulk change: its per-subscriber events are written only while a consumer wants them. */
const BY_QUERY: RecordOptions = { bulk: true };

/** A change by ids is a bulk change when it names several subscribers. */
function byIds(ids: readonly number[]): RecordOptions {
  return { bulk: new Set(ids).size > 1 };
}

/** How a subscription was made, for its consent record. */
function sourceOf(actor: Actor): SubscriptionSource {
  return actor.via === 'session' ? 'admin' : 'api';
}
