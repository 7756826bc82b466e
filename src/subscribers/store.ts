// Subscribers and subscriptions: every SQL statement of the domain and the rules of how
// subscriptions change. Reads that take user filters run read-only (a search on the read-only
// connection, a segment on a segment thread under its deadline); every change runs on the
// writer, in one transaction, on ids a check produced (`Authorized`), and writes its events to
// the change log in that transaction.
import { randomUUID } from 'node:crypto';
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { conflict } from '../core/errors.ts';
import type { Authorized } from '../core/authz.ts';
import { changedFields } from '../events/changes.ts';
import type { EventLog, RecordOptions } from '../events/log.ts';
import type { ListRow } from '../lists/store.ts';
import type { SegmentRunner } from '../segments/index.ts';
import { containsText, likeContains, mayHaveAttribText } from './search.ts';

export const SUBSCRIBER_STATUSES = ['enabled', 'disabled', 'blocklisted'] as const;
export const SUBSCRIPTION_STATUSES = ['unconfirmed', 'confirmed', 'unsubscribed'] as const;
export const LIST_ACTIONS = ['add', 'remove', 'unsubscribe'] as const;
export type SubscriberStatus = (typeof SUBSCRIBER_STATUSES)[number];
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];
export type ListAction = (typeof LIST_ACTIONS)[number];
/** How a subscription was made (consent record). */
export type SubscriptionSource = 'api' | 'import' | 'form' | 'admin';

export const SUBSCRIBER_ORDER_COLUMNS = {
  email: 'subscribers.email',
  status: 'subscribers.status',
  name: 'subscribers.name',
  created_at: 'subscribers.created_at',
  updated_at: 'subscribers.updated_at',
} as const;

export interface SubscriberRow {
  id: number;
  uuid: string;
  email: string;
  name: string;
  attribs: string;
  status: SubscriberStatus;
  created_at: string;
  updated_at: string;
}

export interface Subscription {
  subscription_status: SubscriptionStatus;
  subscription_created_at: string;
  subscription_updated_at: string;
  subscription_source: string;
  subscription_meta: Record<string, unknown>;
  id: number;
  uuid: string;
  name: string;
  type: string;
  optin: string;
  status: string;
  tags: string[];
  description?: string;
  created_at: string;
  updated_at: string;
  restricted?: true;
}

export interface Subscriber {
  id: number;
  created_at: string;
  updated_at: string;
  uuid: string;
  email: string;
  name: string;
  attribs: Record<string, unknown>;
  status: SubscriberStatus;
  lists: Subscription[];
}

/** Which subscribers a read or a by-query change is about. */
export interface SubscriberFilter {
  /** Members of any of these lists; null: no list filter. */
  lists: number[] | null;
  /**
   * A subscription in this status to one of `lists`; without a list filter, to any list
   * (listmonk ignores it then).
   */
  subscriptionStatus?: SubscriptionStatus;
  search?: string;
  /** A translated segment expression (parenthesised SQL over `subscribers`). */
  segment?: { sql: string; params: unknown[]; attribStrings?: string[] };
  ids?: number[];
  /** The subscriber's own status (enabled, blocklisted). */
  status?: SubscriberStatus;
  /** Only subscribers on no list at all. */
  orphans?: boolean;
}

export interface SubscriberOrder {
  column: string;
  dir: 'ASC' | 'DESC';
}

export interface SubscriberFields {
  email: string;
  name: string;
  status: SubscriberStatus;
  attribs: Record<string, unknown>;
}

type SubscriptionJoinRow = ListRow & {
  subscriber_id: number;
  subscription_status: SubscriptionStatus;
  subscription_created_at: string;
  subscription_updated_at: string;
  subscription_source: string;
  subscription_meta: string;
};

const SUBSCRIPTION_COLUMNS = `sl.subscriber_id, sl.status AS subscription_status, sl.created_at AS subscription_created_at,
  sl.updated_at AS subscription_updated_at, sl.source AS subscription_source, sl.meta AS subscription_meta, l.*`;

/** Ids go to SQLite as one JSON array per statement, in chunks of this many. */
const CHUNK = 5000;

/** The status of each subscription a change may move, by list and subscriber. */
type SubscriptionStates = Map<number, Map<number, SubscriptionStatus>>;

/** The events of subscriptions that exist before and after a change, in the order they are written. */
const SUBSCRIPTION_MOVES = ['subscription.added', 'subscription.confirmed', 'subscription.unsubscribed'] as const;
type SubscriptionMove = (typeof SUBSCRIPTION_MOVES)[number];

/** The fields whose changes subscriber.updated reports. */
const TRACKED_FIELDS = ['email', 'name', 'attribs', 'status'] as const;

/** A campaign the subscriber viewed (GET /api/subscribers/{id}/activity); a campaign the caller may not see has no id, uuid, name or subject. */
export interface ActivityView {
  id: number | null;
  uuid: string | null;
  name: string;
  subject: string;
  view_count: number;
  last_viewed_at: string;
  /** Set on a campaign the caller may not see. */
  restricted?: true;
}

/** A link the subscriber clicked, with its campaign; as ActivityView, no link or campaign when the caller may not see it. */
export interface ActivityClick {
  link_id: number | null;
  url: string;
  campaign_id: number | null;
  campaign_uuid: string | null;
  campaign_name: string | null;
  campaign_subject: string | null;
  click_count: number;
  last_clicked_at: string;
  restricted?: true;
}

type Visible = { visible: boolean };

const CAMPAIGN_VISIBLE = `(@lists IS NULL OR EXISTS (SELECT 1 FROM campaign_lists cl WHERE cl.campaign_id = c.id
  AND cl.list_id IN (SELECT value FROM json_each(@lists))))`;

const SQL = {
  total: 'SELECT n FROM subscriber_total WHERE id = 1',
  listTotal: 'SELECT COALESCE(SUM(n), 0) FROM list_subscriber_counts WHERE list_id = ?',
  listStatusTotal: 'SELECT COALESCE(SUM(n), 0) FROM list_subscriber_counts WHERE list_id = ? AND status = ?',
  byId: 'SELECT * FROM subscribers WHERE id = ?',
  byUuid: 'SELECT * FROM subscribers WHERE uuid = ?',
  byEmail: 'SELECT * FROM subscribers WHERE email = ?',
  byIds: 'SELECT * FROM subscribers WHERE id IN (SELECT value FROM json_each(?))',
  subscriptionsOf: `SELECT ${SUBSCRIPTION_COLUMNS} FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
    WHERE sl.subscriber_id IN (SELECT value FROM json_each(?)) ORDER BY sl.subscriber_id, l.id`,
  insert: `INSERT INTO subscribers (uuid, email, name, attribs, status, created_at, updated_at)
    VALUES (@uuid, @email, @name, @attribs, @status, @now, @now)`,
  update: `UPDATE subscribers SET email = @email, name = @name, attribs = @attribs, status = @status, updated_at = @now
    WHERE id = @id`,
  updateName: 'UPDATE subscribers SET name = ?, updated_at = ? WHERE id = ?',
  emailOwner: 'SELECT id FROM subscribers WHERE email = ? AND id != ?',
  // Subscribing with "keep" rules (create, PUT/PATCH): existing confirmed and unsubscribed
  // rows stay; a blocklisted subscriber's rows are all unsubscribed (excluded.status).
  subscribeKeep: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    SELECT @sid, id, @status, @source, @now, @now FROM lists WHERE id = @lid
    ON CONFLICT (subscriber_id, list_id) DO UPDATE SET
      status = CASE WHEN excluded.status = 'unsubscribed' THEN 'unsubscribed'
                    WHEN subscriber_lists.status IN ('confirmed', 'unsubscribed') THEN subscriber_lists.status
                    ELSE excluded.status END,
      updated_at = excluded.updated_at`,
  // Public re-subscription: confirmed stays, anything else asks for confirmation again;
  // a blocklisted subscriber (excluded.status unsubscribed) is left as is.
  subscribePublic: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    SELECT @sid, id, @status, @source, @now, @now FROM lists WHERE id = @lid
    ON CONFLICT (subscriber_id, list_id) DO UPDATE SET
      status = CASE WHEN excluded.status = 'unsubscribed' OR subscriber_lists.status = 'confirmed' THEN subscriber_lists.status
                    ELSE 'unconfirmed' END,
      updated_at = excluded.updated_at`,
  otherLists: `SELECT list_id FROM subscriber_lists WHERE subscriber_id = @sid
    AND list_id NOT IN (SELECT value FROM json_each(@keep)) AND (@all OR list_id IN (SELECT value FROM json_each(@manageable)))`,
  // What a change's subscription events compare (@lists null: every list).
  subscriptionStates: `SELECT list_id, subscriber_id, status FROM subscriber_lists WHERE subscriber_id IN (SELECT value FROM json_each(@ids))
    AND (@lists IS NULL OR list_id IN (SELECT value FROM json_each(@lists))) ORDER BY list_id, subscriber_id`,
  notBlocklisted: `SELECT id FROM subscribers WHERE id IN (SELECT value FROM json_each(?)) AND status != 'blocklisted'`,
  allIds: 'SELECT id FROM subscribers',
  // Bulk list changes: @ids and @lists are JSON arrays.
  addOverwrite: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    SELECT s.id, l.id, @status, @source, @now, @now FROM json_each(@ids) j JOIN subscribers s ON s.id = j.value
    JOIN lists l ON l.id IN (SELECT value FROM json_each(@lists)) WHERE true
    ON CONFLICT (subscriber_id, list_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at`,
  // Bulk add by query: one insert per target list with the per-row counter triggers gated
  // off (sql/0040's bulk gate, from_id 0 = every subscriber), the counters then set at once.
  existingLists: 'SELECT id FROM lists WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
  bulkGate: 'UPDATE subscriber_bulk_insert SET from_id = ? WHERE id = 1',
  addMissingToList: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    SELECT s.id, @list, @status, @source, @now, @now FROM json_each(@ids) j JOIN subscribers s ON s.id = j.value WHERE true
    ON CONFLICT (subscriber_id, list_id) DO NOTHING`,
  orphansAmong: `SELECT COUNT(DISTINCT s.id) FROM json_each(?) j JOIN subscribers s ON s.id = j.value
    WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = s.id)`,
  listStatusCount: 'SELECT n FROM list_subscriber_counts WHERE list_id = ? AND status = ?',
  setListStatusCount: `INSERT INTO list_subscriber_counts (list_id, status, n) VALUES (@list, @status, @n)
    ON CONFLICT (list_id, status) DO UPDATE SET n = excluded.n`,
  addSubscribedCount: `UPDATE dashboard_counts SET n = n + ? WHERE key = 'subscribed'`,
  removeFromLists: `DELETE FROM subscriber_lists WHERE subscriber_id IN (SELECT value FROM json_each(@ids))
    AND list_id IN (SELECT value FROM json_each(@lists))`,
  unsubscribeFromLists: `UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = @now
    WHERE subscriber_id IN (SELECT value FROM json_each(@ids)) AND list_id IN (SELECT value FROM json_each(@lists))
    AND status != 'unsubscribed'`,
  unsubscribeAll: `UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = @now
    WHERE subscriber_id IN (SELECT value FROM json_each(@ids)) AND status != 'unsubscribed'`,
  blocklist: `UPDATE subscribers SET status = 'blocklisted', updated_at = @now WHERE id IN (SELECT value FROM json_each(@ids))`,
  delete: 'DELETE FROM subscribers WHERE id IN (SELECT value FROM json_each(?))',
  deleteAll: 'DELETE FROM subscribers',
  // Subscribers outside the given lists (the per-id access check of restricted callers).
  outsideLists: `SELECT j.value FROM json_each(?) j WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists sl
    WHERE sl.subscriber_id = j.value AND sl.list_id IN (SELECT value FROM json_each(?))) LIMIT 1`,
  existingIds: 'SELECT id FROM subscribers WHERE id IN (SELECT value FROM json_each(?))',
  // Opt-in: pending subscriptions (double opt-in lists only for the mail; any list for the page).
  pendingDoubleOptin: `SELECT l.* FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
    WHERE sl.subscriber_id = @sid AND sl.status = 'unconfirmed' AND l.optin = 'double'
    AND (@any OR l.id IN (SELECT value FROM json_each(@lists))) ORDER BY l.id`,
  // An opt-in mail sent outside the lists' opt-in action (sql/0104: the 24-hour rule counts it).
  recordOptinSent: `INSERT INTO optin_mails (subscriber_id, list_id, status) SELECT @sid, value, 'sent' FROM json_each(@lists)`,
  pendingAny: `SELECT l.* FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
    WHERE sl.subscriber_id = @sid AND sl.status = 'unconfirmed'
    AND (@any OR l.uuid IN (SELECT value FROM json_each(@uuids))) ORDER BY l.id`,
  confirm: `UPDATE subscriber_lists SET status = 'confirmed', updated_at = @now, meta = json_patch(meta, @meta)
    WHERE subscriber_id = @sid AND status = 'unconfirmed' AND list_id IN (SELECT value FROM json_each(@lists))`,
  campaignLists: `SELECT cl.list_id FROM campaign_lists cl JOIN campaigns c ON c.id = cl.campaign_id
    WHERE c.uuid = ? AND cl.list_id IS NOT NULL`,
  // Once per campaign and subscriber; the zero UUID (opt-in mails, previews) names no campaign.
  campaignRef: 'SELECT id, uuid, name FROM campaigns WHERE uuid = ?',
  campaignUnsubscribe: `INSERT OR IGNORE INTO campaign_unsubscribes (campaign_id, subscriber_id) SELECT id, ? FROM campaigns WHERE uuid = ?`,
  unsubscribeNonPrivateExcept: `UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = @now
    WHERE subscriber_id = @sid AND status != 'unsubscribed'
    AND list_id IN (SELECT id FROM lists WHERE type != 'private' AND uuid NOT IN (SELECT value FROM json_each(@keep)))`,
  exportSubscriptions: `SELECT sl.status AS subscription_status, CASE WHEN l.type = 'private' THEN 'Private list' ELSE l.name END AS name,
    l.type, sl.created_at, sl.source, sl.meta FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
    WHERE sl.subscriber_id = ? ORDER BY l.id`,
  exportViews: `SELECT c.subject AS campaign, COUNT(*) AS views FROM campaign_views v JOIN campaigns c ON c.id = v.campaign_id
    WHERE v.subscriber_id = ? GROUP BY c.id ORDER BY c.id`,
  exportClicks: `SELECT k.url, COUNT(*) AS clicks FROM link_clicks lc JOIN links k ON k.id = lc.link_id
    WHERE lc.subscriber_id = ? GROUP BY k.id ORDER BY k.id`,
  // `visible`: the campaign is one the caller may see (@lists null: every one; else one of its
  // lists is in @lists; a deleted campaign's clicks only with null).
  activityViews: `SELECT c.id, c.uuid, c.name, c.subject, COUNT(*) AS view_count, MAX(v.created_at) AS last_viewed_at, ${CAMPAIGN_VISIBLE} AS visible
    FROM campaign_views v JOIN campaigns c ON c.id = v.campaign_id WHERE v.subscriber_id = @sid
    GROUP BY c.id ORDER BY last_viewed_at DESC`,
  activityClicks: `SELECT k.id AS link_id, k.url, c.id AS campaign_id, c.uuid AS campaign_uuid, c.name AS campaign_name,
    c.subject AS campaign_subject, COUNT(*) AS click_count, MAX(lc.created_at) AS last_clicked_at, ${CAMPAIGN_VISIBLE} AS visible
    FROM link_clicks lc JOIN links k ON k.id = lc.link_id LEFT JOIN campaigns c ON c.id = lc.campaign_id
    WHERE lc.subscriber_id = @sid GROUP BY k.id, c.id ORDER BY last_clicked_at DESC`,
  bounces: `SELECT b.id, b.type, b.source, b.meta, b.created_at, s.email, s.uuid AS subscriber_uuid, s.id AS subscriber_id,
    s.status AS subscriber_status, c.id AS campaign_id, c.name AS campaign_name
    FROM bounces b JOIN subscribers s ON s.id = b.subscriber_id LEFT JOIN campaigns c ON c.id = b.campaign_id
    WHERE b.subscriber_id = ? ORDER BY b.created_at DESC, b.id DESC LIMIT 1000`,
  deleteBounces: 'DELETE FROM bounces WHERE subscriber_id = ?',
} as const;

export class SubscriberStore {
  private readonly sql: Prepare;
  private readonly roSql: Prepare;

  /**
   * `ro`: a read-only connection; `segments`: where the reads of a filter with a segment run
   * (worker threads, under a deadline); `events`: the change log each change writes to.
   */
  constructor(private readonly db: DB, private readonly ro: DB, private readonly segments: SegmentRunner, private readonly events: EventLog) {
    this.sql = statementCache(db);
    this.roSql = statementCache(ro);
  }

  // Reads ---------------------------------------------------------------------------------

  get(id: number): Subscriber | null {
    const row = this.rowById(id);
    return row ? this.withLists([row])[0] : null;
  }

  rowById(id: number): SubscriberRow | null {
    return this.sql<[number], SubscriberRow>(SQL.byId).get(id) ?? null;
  }

  rowByUuid(uuid: string): SubscriberRow | null {
    return this.sql<[string], SubscriberRow>(SQL.byUuid).get(uuid) ?? null;
  }

  rowByEmail(email: string): SubscriberRow | null {
    return this.sql<[string], SubscriberRow>(SQL.byEmail).get(email) ?? null;
  }

  /** Attaches each subscriber's subscriptions (one query for the whole page). */
  withLists(rows: SubscriberRow[], db: 'writer' | 'reader' = 'writer'): Subscriber[] {
    if (!rows.length) return [];
    const prep = db === 'writer' ? this.sql : this.roSql;
    const byId = new Map<number, Subscription[]>();
    for (const r of prep<[string], SubscriptionJoinRow>(SQL.subscriptionsOf).all(JSON.stringify(rows.map((s) => s.id)))) {
      let arr = byId.get(r.subscriber_id);
      if (!arr) byId.set(r.subscriber_id, (arr = []));
      arr.push(toSubscription(r));
    }
    return rows.map((r) => toSubscriber(r, byId.get(r.id) ?? []));
  }

  /**
   * One page and the total. Totals come from the counter tables when the filter allows;
   * otherwise the page query counts its matches in the same scan (COUNT(*) OVER ()).
   */
  async page(f: SubscriberFilter, order: SubscriberOrder, limit: number, offset: number): Promise<{ results: Subscriber[]; total: number }> {
    const where = whereOf(f);
    const orderSql = `ORDER BY ${order.column} ${order.dir}, subscribers.id ${order.dir}`;
    const cheap = this.cheapTotal(f);
    if (cheap !== null) {
      const rows = this.ro.prepare(`SELECT subscribers.* FROM subscribers ${where.sql} ${orderSql} LIMIT ? OFFSET ?`)
        .all(...where.params, limit, offset) as SubscriberRow[];
      return { results: this.withLists(rows, 'reader'), total: cheap };
    }
    const hits = await this.filtered<{ id: number; total: number }>(f, `SELECT subscribers.id, COUNT(*) OVER () AS total FROM subscribers ${where.sql} ${orderSql} LIMIT ? OFFSET ?`, [...where.params, limit, offset]);
    const total = hits.length ? hits[0].total : await this.count(f);
    return { results: this.rowsInOrder(hits.map((h) => h.id)), total };
  }

  /** Every matching id in order (per_page=all, exports and by-query changes), read-only. */
  matchingIds(f: SubscriberFilter, order: SubscriberOrder = { column: 'subscribers.id', dir: 'ASC' }): Promise<number[]> {
    const where = whereOf(f);
    const query = `SELECT subscribers.id FROM subscribers ${where.sql} ORDER BY ${order.column} ${order.dir}, subscribers.id ${order.dir}`;
    if (f.segment) return this.segments.ids(query, where.params);
    return Promise.resolve(this.ro.prepare(query).pluck().all(...where.params) as number[]);
  }

  /** The subscribers with these ids, in the given order, with their lists (read-only). */
  rowsInOrder(ids: number[]): Subscriber[] {
    if (!ids.length) return [];
    const rows = this.roSql<[string], SubscriberRow>(SQL.byIds).all(JSON.stringify(ids));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return this.withLists(ids.map((id) => byId.get(id)).filter((r): r is SubscriberRow => r !== undefined), 'reader');
  }

  /** Raw rows (no lists) with these ids, in the given order (CSV export). */
  rawRowsInOrder(ids: number[]): SubscriberRow[] {
    const rows = this.roSql<[string], SubscriberRow>(SQL.byIds).all(JSON.stringify(ids));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.map((id) => byId.get(id)).filter((r): r is SubscriberRow => r !== undefined);
  }

  async count(f: SubscriberFilter): Promise<number> {
    const cheap = this.cheapTotal(f);
    if (cheap !== null) return cheap;
    const where = whereOf(f);
    const [row] = await this.filtered<{ n: number }>(f, `SELECT COUNT(*) AS n FROM subscribers ${where.sql}`, where.params);
    return row.n;
  }

  /** A read of the filter's rows: on a segment thread if it has a segment, else on the read-only connection. */
  private filtered<T>(f: SubscriberFilter, query: string, params: unknown[]): Promise<T[]> {
    if (f.segment) return this.segments.rows<T>(query, params);
    return Promise.resolve(this.ro.prepare(query).all(...params) as T[]);
  }

  private cheapTotal(f: SubscriberFilter): number | null {
    if (f.search || f.segment || f.ids || f.status || f.orphans) return null;
    if (f.lists === null) return f.subscriptionStatus ? null : (this.roSql(SQL.total).pluck().get() as number);
    if (f.lists.length === 0) return 0;
    if (f.lists.length > 1) return null;
    return (f.subscriptionStatus
      ? this.roSql(SQL.listStatusTotal).pluck().get(f.lists[0], f.subscriptionStatus)
      : this.roSql(SQL.listTotal).pluck().get(f.lists[0])) as number;
  }

  /** The first of these ids that is on none of the lists, or null. */
  firstOutside(ids: readonly number[], lists: readonly number[]): number | null {
    return (this.sql(SQL.outsideLists).pluck().get(JSON.stringify(ids), JSON.stringify(lists)) as number | undefined) ?? null;
  }

  existingIds(ids: readonly number[]): number[] {
    return this.sql(SQL.existingIds).pluck().all(JSON.stringify(ids)) as number[];
  }

  // Changes -------------------------------------------------------------------------------
  // Each records its events in its own transaction: the subscribers' first, then the
  // subscriptions' it moved (recordMoves). A bulk change (`bulk`: many ids or a query) writes its
  // per-subscriber events only while a consumer wants them, and reads what they compare only then.

  /** Creates a subscriber and its subscriptions; 409 if the e-mail exists. Returns the id. */
  create(f: SubscriberFields, lists: readonly Authorized<number>[], opts: { preconfirm: boolean; source: SubscriptionSource }): number {
    return this.db.transaction(() => {
      if (this.sql(SQL.byEmail).get(f.email)) throw conflict('a subscriber with this e-mail already exists');
      const now = new Date().toISOString();
      const id = Number(this.sql(SQL.insert).run({ uuid: randomUUID(), ...f, attribs: JSON.stringify(f.attribs), now }).lastInsertRowid);
      const status = f.status === 'blocklisted' ? 'unsubscribed' : opts.preconfirm ? 'confirmed' : 'unconfirmed';
      for (const lid of lists) this.sql(SQL.subscribeKeep).run({ sid: id, lid, status, source: opts.source, now });
      this.events.recordSubscribers('subscriber.created', [id]);
      this.recordMoves(new Map(), [id], null);
      return id;
    }).immediate();
  }

  /**
   * Saves the fields and, when `lists` is given, replaces the subscriptions among the lists
   * the caller manages (others stay). 409 if the e-mail belongs to someone else.
   */
  update(id: Authorized<number>, f: SubscriberFields, lists: readonly Authorized<number>[] | null, opts: { preconfirm: boolean; source: SubscriptionSource; manageable: 'all' | number[] }): void {
    this.db.transaction(() => {
      if (this.sql(SQL.emailOwner).get(f.email, id)) throw conflict('a subscriber with this e-mail already exists');
      const was = this.rowById(id);
      const before = this.statesBefore([id], null);
      const now = new Date().toISOString();
      this.sql(SQL.update).run({ id, ...f, attribs: JSON.stringify(f.attribs), now });
      if (lists !== null) {
        const dropped = this.sql(SQL.otherLists).pluck().all({
          sid: id, keep: JSON.stringify(lists), all: opts.manageable === 'all' ? 1 : 0,
          manageable: JSON.stringify(opts.manageable === 'all' ? [] : opts.manageable),
        }) as number[];
        // Before the rows go: the events have the subscriptions as they were.
        this.events.recordSubscriptions('subscription.removed', [id], dropped);
        this.sql(SQL.removeFromLists).run({ ids: JSON.stringify([id]), lists: JSON.stringify(dropped) });
        const status = f.status === 'blocklisted' ? 'unsubscribed' : opts.preconfirm ? 'confirmed' : 'unconfirmed';
        for (const lid of lists) this.sql(SQL.subscribeKeep).run({ sid: id, lid, status, source: opts.source, now });
      }
      if (f.status === 'blocklisted') this.sql(SQL.unsubscribeAll).run({ ids: JSON.stringify([id]), now });
      if (was) this.recordFieldChanges(was, this.rowById(id)!);
      this.recordMoves(before, [id], null);
    }).immediate();
  }

  /** Public subscription: creates the subscriber or adds the lists to an existing one. */
  subscribePublic(email: string, name: string, lists: number[]): { id: number; created: boolean } {
    return this.db.transaction(() => {
      const now = new Date().toISOString();
      const existing = this.sql<[string], SubscriberRow>(SQL.byEmail).get(email);
      const id = existing?.id ?? Number(this.sql(SQL.insert).run({ uuid: randomUUID(), email, name, attribs: '{}', status: 'enabled', now }).lastInsertRowid);
      const before = this.statesBefore([id], lists);
      const status = existing?.status === 'blocklisted' ? 'unsubscribed' : 'unconfirmed';
      for (const lid of lists) this.sql(SQL.subscribePublic).run({ sid: id, lid, status, source: 'form', now });
      if (!existing) this.events.recordSubscribers('subscriber.created', [id]);
      this.recordMoves(before, [id], lists);
      return { id, created: !existing };
    }).immediate();
  }

  /**
   * Adds, removes or unsubscribes the subscribers on the target lists, in one transaction.
   * `add` with `overwrite` sets the status of existing rows too (by-id calls with a status);
   * otherwise existing subscriptions are left as they are.
   */
  changeLists(ids: readonly Authorized<number>[], action: ListAction, targets: readonly Authorized<number>[], opts: { status: SubscriptionStatus; overwrite: boolean; source: SubscriptionSource } & RecordOptions): void {
    const now = new Date().toISOString();
    const record = { bulk: opts.bulk };
    if (action === 'add' && !opts.overwrite) return this.addMissing(ids, targets, opts.status, opts.source, now, record);
    const lists = JSON.stringify(targets);
    const stmt = action === 'remove' ? SQL.removeFromLists
      : action === 'unsubscribe' ? SQL.unsubscribeFromLists
        : SQL.addOverwrite;
    this.db.transaction(() => {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const part = ids.slice(i, i + CHUNK);
        const chunk = JSON.stringify(part);
        // Before the rows go: the events have the subscriptions as they were.
        if (action === 'remove') this.events.recordSubscriptions('subscription.removed', part, targets, {}, record);
        const before = action === 'remove' ? null : this.statesBefore(part, targets, record);
        if (action === 'add') this.sql(stmt).run({ ids: chunk, lists, status: opts.status, source: opts.source, now });
        else this.sql(stmt).run({ ids: chunk, lists, now });
        this.recordMoves(before, part, targets, {}, record);
      }
    }).immediate();
  }

  /**
   * Adds the subscribers to the lists they are not on yet (existing subscriptions stay), for
   * any number of subscribers: rows go in one list at a time without per-row counter upkeep,
   * and the per-list and dashboard counters are brought up to date once. The list counters
   * are written as absolute values (read inside the same transaction), so they stay right
   * whether or not the list-count insert trigger honours the bulk gate.
   */
  private addMissing(ids: readonly number[], targets: readonly number[], status: SubscriptionStatus, source: SubscriptionSource, now: string, record: RecordOptions): void {
    this.db.transaction(() => {
      const lists = this.sql(SQL.existingLists).pluck().all(JSON.stringify(targets)) as number[];
      if (!lists.length || !ids.length) return;
      const counts = new Map(lists.map((list) => [list, (this.sql(SQL.listStatusCount).pluck().get(list, status) as number | undefined) ?? 0]));
      let newlySubscribed = 0;
      this.sql(SQL.bulkGate).run(0);
      try {
        for (let i = 0; i < ids.length; i += CHUNK) {
          const part = ids.slice(i, i + CHUNK);
          const chunk = JSON.stringify(part);
          const before = this.statesBefore(part, lists, record);
          // Every subscriber of the chunk is on at least one list afterwards.
          newlySubscribed += this.sql(SQL.orphansAmong).pluck().get(chunk) as number;
          for (const list of lists) {
            const added = this.sql(SQL.addMissingToList).run({ ids: chunk, list, status, source, now }).changes;
            counts.set(list, counts.get(list)! + added);
          }
          this.recordMoves(before, part, lists, {}, record);
        }
      } finally {
        this.sql(SQL.bulkGate).run(null);
      }
      for (const [list, n] of counts) this.sql(SQL.setListStatusCount).run({ list, status, n });
      if (newlySubscribed) this.sql(SQL.addSubscribedCount).run(newlySubscribed);
    }).immediate();
  }

  /**
   * Blocklists the subscribers and unsubscribes all their subscriptions. `campaignUuid`: the
   * campaign whose mail's unsubscribe page did it, named in the subscriptions' events.
   */
  blocklist(ids: readonly Authorized<number>[], record: RecordOptions = {}, campaignUuid?: string): void {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      for (let i = 0; i < ids.length; i += CHUNK) {
        const part = ids.slice(i, i + CHUNK);
        const chunk = JSON.stringify(part);
        // Only a real blocklisting is an event, not a repeated one.
        const newly = this.events.records('subscriber.blocklisted', record) ? this.sql(SQL.notBlocklisted).pluck().all(chunk) as number[] : [];
        const before = this.statesBefore(part, null, record);
        this.sql(SQL.blocklist).run({ ids: chunk, now });
        this.sql(SQL.unsubscribeAll).run({ ids: chunk, now });
        this.events.recordSubscribers('subscriber.blocklisted', newly, {}, record);
        this.recordMoves(before, part, null, this.fromCampaign(campaignUuid), record);
      }
    }).immediate();
  }

  /** Deletes the subscribers (subscriptions and bounces go with them); returns how many. */
  delete(ids: readonly Authorized<number>[], record: RecordOptions = {}): number {
    return this.db.transaction(() => {
      let n = 0;
      for (let i = 0; i < ids.length; i += CHUNK) {
        const part = ids.slice(i, i + CHUNK);
        // Before the rows go: the events have the subscribers as they were.
        this.events.recordSubscribers('subscriber.deleted', part, {}, record);
        n += this.sql(SQL.delete).run(JSON.stringify(part)).changes;
      }
      return n;
    }).immediate();
  }

  /** Deletes every subscriber: a bulk change (a by-query delete of all). */
  deleteAll(): void {
    const record = { bulk: true };
    this.db.transaction(() => {
      if (this.events.records('subscriber.deleted', record)) this.events.recordSubscribers('subscriber.deleted', this.sql(SQL.allIds).pluck().all() as number[], {}, record);
      this.sql(SQL.deleteAll).run();
    }).immediate();
  }

  /**
   * subscriber.updated with the fields that changed, if any. A blocklisting is reported as
   * subscriber.blocklisted instead, as the blocklist endpoints report it, so a consumer sees it
   * under one type whichever way it was made.
   */
  private recordFieldChanges(was: SubscriberRow, now: SubscriberRow): void {
    const changes = changedFields(toSubscriber(was, []), toSubscriber(now, []), TRACKED_FIELDS);
    const blocklisted = changes.status?.to === 'blocklisted';
    if (blocklisted) delete changes.status;
    if (Object.keys(changes).length) this.events.recordSubscribers('subscriber.updated', [now.id], { changes });
    if (blocklisted) this.events.recordSubscribers('subscriber.blocklisted', [now.id]);
  }

  /**
   * The subscriptions of these subscribers (on these lists; null: on any) before a change, for
   * recordMoves; null when the change writes no subscription event (a bulk change's are written
   * only while a consumer wants them, and nothing is read then).
   */
  private statesBefore(ids: readonly number[], lists: readonly number[] | null, record: RecordOptions = {}): SubscriptionStates | null {
    return SUBSCRIPTION_MOVES.some((type) => this.events.records(type, record)) ? this.subscriptionStates(ids, lists) : null;
  }

  private subscriptionStates(ids: readonly number[], lists: readonly number[] | null): SubscriptionStates {
    type Row = { list_id: number; subscriber_id: number; status: SubscriptionStatus };
    const states: SubscriptionStates = new Map();
    const rows = this.sql<[Record<string, unknown>], Row>(SQL.subscriptionStates).all({ ids: JSON.stringify(ids), lists: lists === null ? null : JSON.stringify(lists) });
    for (const r of rows) {
      let ofList = states.get(r.list_id);
      if (!ofList) states.set(r.list_id, (ofList = new Map()));
      ofList.set(r.subscriber_id, r.status);
    }
    return states;
  }

  /**
   * Records, list by list (one statement per list and batch), the subscriptions made, confirmed
   * and ended since `before` (statesBefore). A subscription left as it was, or set back to
   * unconfirmed, writes nothing. `extra` goes into each payload.
   */
  private recordMoves(before: SubscriptionStates | null, ids: readonly number[], lists: readonly number[] | null, extra: Record<string, unknown> = {}, record: RecordOptions = {}): void {
    if (!before) return;
    const moved = new Map<SubscriptionMove, Map<number, number[]>>(SUBSCRIPTION_MOVES.map((type) => [type, new Map()]));
    for (const [list, states] of this.subscriptionStates(ids, lists)) {
      for (const [sid, status] of states) {
        const type = moveOf(before.get(list)?.get(sid), status);
        if (!type) continue;
        const ofType = moved.get(type)!;
        let sids = ofType.get(list);
        if (!sids) ofType.set(list, (sids = []));
        sids.push(sid);
      }
    }
    for (const [type, byList] of moved) {
      for (const [list, sids] of byList) this.events.recordSubscriptions(type, sids, [list], extra, record);
    }
  }

  // Opt-in and the subscriber's own pages --------------------------------------------------

  /** Records an opt-in mail sent to the subscriber about these lists (a list's opt-in action does not send another within 24 hours). */
  recordOptinSent(sid: number, lists: number[]): void {
    this.sql(SQL.recordOptinSent).run({ sid, lists: JSON.stringify(lists) });
  }

  /** Unconfirmed subscriptions on double opt-in lists (limited to `lists` when given). */
  pendingDoubleOptin(sid: number, lists: number[] | null): ListRow[] {
    return this.sql<[Record<string, unknown>], ListRow>(SQL.pendingDoubleOptin).all({ sid, any: lists === null ? 1 : 0, lists: JSON.stringify(lists ?? []) });
  }

  /** Unconfirmed subscriptions on any list (limited to the list UUIDs when given). */
  pendingConfirmation(sid: number, uuids: string[]): ListRow[] {
    return this.sql<[Record<string, unknown>], ListRow>(SQL.pendingAny).all({ sid, any: uuids.length ? 0 : 1, uuids: JSON.stringify(uuids) });
  }

  /** Confirms the unconfirmed subscriptions on these lists, recording the evidence in meta. */
  confirm(sid: Authorized<number>, lists: number[], evidence: Record<string, string>): number {
    return this.db.transaction(() => {
      const before = this.statesBefore([sid], lists);
      const n = this.sql(SQL.confirm).run({ sid, lists: JSON.stringify(lists), meta: JSON.stringify(evidence), now: new Date().toISOString() }).changes;
      this.recordMoves(before, [sid], lists);
      return n;
    }).immediate();
  }

  /** The ids of the lists a campaign went to (empty for unknown or the zero UUID). */
  campaignLists(campaignUuid: string): number[] {
    return this.sql(SQL.campaignLists).pluck().all(campaignUuid) as number[];
  }

  /**
   * Unsubscribes from these lists (null: from every list); returns how many subscriptions it
   * ended (0: already unsubscribed from all of them). `campaignUuid`: the campaign whose mail's
   * link was followed, named in the events.
   */
  unsubscribe(sid: Authorized<number>, lists: number[] | null, campaignUuid?: string): number {
    return this.db.transaction(() => {
      const before = this.statesBefore([sid], lists);
      const now = new Date().toISOString();
      const n = lists === null
        ? this.sql(SQL.unsubscribeAll).run({ ids: JSON.stringify([sid]), now }).changes
        : this.sql(SQL.unsubscribeFromLists).run({ ids: JSON.stringify([sid]), lists: JSON.stringify(lists), now }).changes;
      this.recordMoves(before, [sid], lists, this.fromCampaign(campaignUuid));
      return n;
    }).immediate();
  }

  /** The `campaign` of an unsubscribe's events: none for other mails (the zero UUID) and unknown campaigns. */
  private fromCampaign(uuid: string | undefined): Record<string, unknown> {
    const campaign = uuid === undefined ? undefined : this.sql(SQL.campaignRef).get(uuid);
    return campaign ? { campaign } : {};
  }

  /** Records that the subscriber left through the unsubscribe link of this campaign (its analytics count it). */
  noteCampaignUnsubscribe(sid: Authorized<number>, campaignUuid: string): void {
    this.sql(SQL.campaignUnsubscribe).run(sid, campaignUuid);
  }

  /** Preferences page: new name; non-private lists not kept are unsubscribed. */
  savePreferences(sid: Authorized<number>, name: string, keepUuids: string[]): void {
    const now = new Date().toISOString();
    this.db.transaction(() => {
      const was = this.rowById(sid);
      const before = this.statesBefore([sid], null);
      this.sql(SQL.updateName).run(name, now, sid);
      this.sql(SQL.unsubscribeNonPrivateExcept).run({ sid, keep: JSON.stringify(keepUuids), now });
      if (was) this.recordFieldChanges(was, this.rowById(sid)!);
      this.recordMoves(before, [sid], null);
    }).immediate();
  }

  /** The data export document (only the sections named in `sections`). */
  exportData(sid: number, sections: string[]): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const row = this.sql<[number], SubscriberRow>(SQL.byId).get(sid);
    if (!row) return out;
    if (sections.includes('profile')) {
      const { lists: _lists, ...profile } = toSubscriber(row, []);
      out.profile = [profile];
    }
    if (sections.includes('subscriptions')) {
      out.subscriptions = this.sql<[number], { meta: string }>(SQL.exportSubscriptions).all(sid).map((s) => ({ ...s, meta: JSON.parse(s.meta) }));
    }
    if (sections.includes('campaign_views')) out.campaign_views = this.sql(SQL.exportViews).all(sid);
    if (sections.includes('link_clicks')) out.link_clicks = this.sql(SQL.exportClicks).all(sid);
    return out;
  }

  /** The subscriber's views and clicks by campaign, each marked with whether a caller seeing the campaigns of `campaignLists` (null: every one) may see its campaign. */
  activity(sid: number, campaignLists: number[] | null): { campaign_views: (ActivityView & Visible)[]; link_clicks: (ActivityClick & Visible)[] } {
    const params = { sid, lists: campaignLists === null ? null : JSON.stringify(campaignLists) };
    const visible = <T extends { visible: number | boolean }>(r: T) => ({ ...r, visible: r.visible === 1 });
    return {
      campaign_views: this.sql<[typeof params], ActivityView & { visible: number }>(SQL.activityViews).all(params).map(visible),
      link_clicks: this.sql<[typeof params], ActivityClick & { visible: number }>(SQL.activityClicks).all(params).map(visible),
    };
  }

  bounces(sid: number): unknown[] {
    type Row = { meta: string; campaign_id: number | null; campaign_name: string | null };
    return this.sql<[number], Row>(SQL.bounces).all(sid).map(({ campaign_id, campaign_name, meta, ...b }) => ({
      ...b,
      meta: JSON.parse(meta),
      campaign: campaign_id === null ? null : { id: campaign_id, name: campaign_name },
    }));
  }

  deleteBounces(sid: Authorized<number>): void {
    this.sql(SQL.deleteBounces).run(sid);
  }
}

/** The WHERE clause of a filter over `subscribers` (parameterised; the segment is pre-translated). */
function whereOf(f: SubscriberFilter): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (f.lists !== null) {
    parts.push(`EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = subscribers.id
      AND sl.list_id IN (SELECT value FROM json_each(?))${f.subscriptionStatus ? ' AND sl.status = ?' : ''})`);
    params.push(JSON.stringify(f.lists));
    if (f.subscriptionStatus) params.push(f.subscriptionStatus);
  } else if (f.subscriptionStatus) {
    parts.push('EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = subscribers.id AND sl.status = ?)');
    params.push(f.subscriptionStatus);
  }
  if (f.ids) {
    parts.push('subscribers.id IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(f.ids));
  }
  if (f.status) {
    parts.push('subscribers.status = ?');
    params.push(f.status);
  }
  if (f.orphans) parts.push('NOT EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = subscribers.id)');
  const search = f.search?.trim();
  if (search) {
    // The trigram index needs three characters; shorter terms scan name and e-mail.
    if ([...search].length >= 3) {
      const match = containsText(search);
      parts.push(match.sql);
      params.push(...match.params);
    } else {
      parts.push(`(subscribers.name LIKE ? ESCAPE '\\' OR subscribers.email LIKE ? ESCAPE '\\')`);
      params.push(likeContains(search), likeContains(search));
    }
  }
  if (f.segment) {
    // Strings the segment needs among the attribs' values narrow the rows through the search
    // index first, so the expression parses the attribs of candidates only.
    for (const text of f.segment.attribStrings ?? []) {
      const narrow = mayHaveAttribText(text);
      parts.push(narrow.sql);
      params.push(...narrow.params);
    }
    parts.push(f.segment.sql);
    params.push(...f.segment.params);
  }
  return { sql: parts.length ? `WHERE ${parts.join(' AND ')}` : '', params };
}

/** The event of a subscription that was in `was` (undefined: there was none) and is in `now`, if any. */
function moveOf(was: SubscriptionStatus | undefined, now: SubscriptionStatus): SubscriptionMove | null {
  if (was === undefined) return 'subscription.added';
  if (was === now || now === 'unconfirmed') return null;
  return now === 'confirmed' ? 'subscription.confirmed' : 'subscription.unsubscribed';
}

function toSubscription(r: SubscriptionJoinRow): Subscription {
  return {
    subscription_status: r.subscription_status,
    subscription_created_at: r.subscription_created_at,
    subscription_updated_at: r.subscription_updated_at,
    subscription_source: r.subscription_source,
    subscription_meta: JSON.parse(r.subscription_meta) as Record<string, unknown>,
    id: r.id,
    uuid: r.uuid,
    name: r.name,
    type: r.type,
    optin: r.optin,
    status: r.status,
    tags: JSON.parse(r.tags) as string[],
    description: r.description,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

function toSubscriber(r: SubscriberRow, lists: Subscription[]): Subscriber {
  return {
    id: r.id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    uuid: r.uuid,
    email: r.email,
    name: r.name,
    attribs: JSON.parse(r.attribs) as Record<string, unknown>,
    status: r.status,
    lists,
  };
}
