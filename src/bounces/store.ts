// Bounce records: reading, deleting, blocklisting bounced subscribers, and recording a new
// bounce with the configured action (bounce.actions), each in one transaction.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { Paging } from '../core/paging.ts';
import type { Authorized } from '../core/authz.ts';
import type { EventLog } from '../events/log.ts';

export const BOUNCE_TYPES = ['soft', 'hard', 'complaint'] as const;
export type BounceType = (typeof BOUNCE_TYPES)[number];

export const BOUNCE_ACTIONS = ['none', 'unsubscribe', 'blocklist', 'delete'] as const;
export type BounceActionName = (typeof BOUNCE_ACTIONS)[number];
export type BounceActions = Record<BounceType, { count: number; action: BounceActionName }>;

/** A bounce to record, as every source (webhook, provider, mailbox) reports it. */
export interface BounceInput {
  /** Lower-cased address; used when no subscriber UUID is given or it matches nobody. */
  email?: string;
  subscriberUuid?: string;
  campaignUuid?: string;
  type: BounceType;
  source: string;
  meta: Record<string, unknown>;
  /** ISO timestamp of the event; now when absent. */
  createdAt?: string;
}

/** What recording did. */
export interface RecordOutcome {
  /** null: no subscriber matched, nothing happened. */
  subscriberId: number | null;
  /** The bounce row written, or null (threshold passed, subscriber blocklisted or deleted). */
  bounceId: number | null;
  /** The action applied by this bounce ('none' when the threshold was not reached). */
  action: BounceActionName;
}

/** A bounce as the API returns it (listmonk's fields; campaign null when not linked to one). */
export interface Bounce {
  id: number;
  type: BounceType;
  source: string;
  meta: Record<string, unknown>;
  created_at: string;
  email: string;
  subscriber_uuid: string;
  subscriber_id: number;
  subscriber_status: string;
  campaign: { id: number; name: string } | null;
}

export interface BounceFilter {
  campaignId?: number;
  source?: string;
  type?: BounceType;
}

/** API order_by names and their columns. */
export const BOUNCE_ORDER_COLUMNS = {
  email: 's.email',
  campaign_name: 'c.name',
  source: 'b.source',
  created_at: 'b.created_at',
  type: 'b.type',
} as const;

interface BounceRow {
  id: number;
  type: BounceType;
  source: string;
  meta: string;
  created_at: string;
  subscriber_id: number;
  subscriber_uuid: string;
  email: string;
  subscriber_status: string;
  campaign_id: number | null;
  campaign_name: string | null;
}

const SELECT = `SELECT b.id, b.type, b.source, b.meta, b.created_at, b.subscriber_id,
  s.uuid AS subscriber_uuid, s.email, s.status AS subscriber_status, b.campaign_id, c.name AS campaign_name
  FROM bounces b JOIN subscribers s ON s.id = b.subscriber_id LEFT JOIN campaigns c ON c.id = b.campaign_id`;
const FILTER = `WHERE (:campaignId = 0 OR b.campaign_id = :campaignId) AND (:source = '' OR b.source = :source) AND (:type = '' OR b.type = :type)`;

const SQL = {
  count: `SELECT COUNT(*) FROM bounces b ${FILTER}`,
  /** ORDER BY is appended from BOUNCE_ORDER_COLUMNS (an allow-list), never from user text. */
  page: `${SELECT} ${FILTER}`,
  byId: `${SELECT} WHERE b.id = ?`,
  deleteById: 'DELETE FROM bounces WHERE id = ?',
  deleteByIds: 'DELETE FROM bounces WHERE id IN (SELECT value FROM json_each(?))',
  deleteAll: 'DELETE FROM bounces',
  blocklistBounced: `UPDATE subscribers SET status = 'blocklisted', updated_at = :now
    WHERE id IN (SELECT subscriber_id FROM bounces) AND status != 'blocklisted' RETURNING id`,
  unsubscribeBounced: `UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = :now
    WHERE subscriber_id IN (SELECT subscriber_id FROM bounces) AND status != 'unsubscribed'`,
  subscriberByUuid: 'SELECT id, status FROM subscribers WHERE uuid = ?',
  subscriberByEmail: 'SELECT id, status FROM subscribers WHERE email = ?',
  campaignByUuid: 'SELECT id FROM campaigns WHERE uuid = ?',
  countOfType: 'SELECT COUNT(*) FROM bounces WHERE subscriber_id = ? AND type = ?',
  insert: `INSERT INTO bounces (subscriber_id, campaign_id, type, source, meta, created_at)
    VALUES (:subscriberId, :campaignId, :type, :source, :meta, :createdAt)`,
  blocklistSubscriber: `UPDATE subscribers SET status = 'blocklisted', updated_at = ? WHERE id = ?`,
  unsubscribeSubscriber: `UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = ? WHERE subscriber_id = ? AND status != 'unsubscribed' RETURNING list_id`,
  deleteSubscriber: 'DELETE FROM subscribers WHERE id = ?',
};

function toBounce(r: BounceRow): Bounce {
  return {
    id: r.id,
    type: r.type,
    source: r.source,
    meta: JSON.parse(r.meta),
    created_at: r.created_at,
    email: r.email,
    subscriber_uuid: r.subscriber_uuid,
    subscriber_id: r.subscriber_id,
    subscriber_status: r.subscriber_status,
    campaign: r.campaign_id === null ? null : { id: r.campaign_id, name: r.campaign_name ?? '' },
  };
}

export class BounceStore {
  private readonly sql: Prepare;
  constructor(private readonly db: DB, private readonly events: EventLog) {
    this.sql = statementCache(db);
  }

  query(filter: BounceFilter, paging: Paging, orderBy: string, order: 'ASC' | 'DESC'): { results: Bounce[]; total: number } {
    const params = { campaignId: filter.campaignId ?? 0, source: filter.source ?? '', type: filter.type ?? '' };
    const total = this.sql(SQL.count).pluck().get(params) as number;
    const sql = `${SQL.page} ORDER BY ${orderBy} ${order}, b.id ${order} LIMIT :limit OFFSET :offset`;
    const rows = this.sql<[object], BounceRow>(sql).all({ ...params, limit: paging.limit, offset: paging.offset });
    return { results: rows.map(toBounce), total };
  }

  get(id: number): Bounce | null {
    const row = this.sql<[number], BounceRow>(SQL.byId).get(id);
    return row ? toBounce(row) : null;
  }

  /** Deletes one bounce; false when there was none. */
  delete(id: Authorized<number>): boolean {
    return this.sql(SQL.deleteById).run(id).changes > 0;
  }

  deleteMany(ids: Authorized<number>[]): number {
    return this.sql(SQL.deleteByIds).run(JSON.stringify(ids)).changes;
  }

  deleteAll(): number {
    return this.sql(SQL.deleteAll).run().changes;
  }

  /** Blocklists every subscriber with a bounce and unsubscribes all their subscriptions: a change to many subscribers. */
  blocklistBounced(): number {
    const now = new Date().toISOString();
    return this.db.transaction(() => {
      const ids = this.sql<[object], number>(SQL.blocklistBounced).pluck().all({ now }) as number[];
      this.sql(SQL.unsubscribeBounced).run({ now });
      this.events.recordSubscribers('subscriber.blocklisted', ids, {}, { bulk: true });
      return ids.length;
    }).immediate();
  }

  /**
   * Records one bounce as listmonk does: n = the subscriber's earlier bounces of this type + 1;
   * when n reaches the type's count the action runs (blocklist and unsubscribe only for
   * subscribers not already blocklisted); the row is stored unless the subscriber is
   * blocklisted or n is past the count (so history stops at the threshold). Unknown
   * subscribers are ignored.
   */
  record(b: BounceInput, actions: BounceActions): RecordOutcome {
    return this.db.transaction((): RecordOutcome => {
      const sub = this.findSubscriber(b);
      if (!sub) return { subscriberId: null, bounceId: null, action: 'none' };
      const campaignId = b.campaignUuid
        ? (this.sql(SQL.campaignByUuid).pluck().get(b.campaignUuid) as number | undefined) ?? null
        : null;
      const rule = actions[b.type];
      const n = (this.sql(SQL.countOfType).pluck().get(sub.id, b.type) as number) + 1;
      const reached = n >= rule.count;
      const blocklisted = sub.status === 'blocklisted';
      const now = new Date().toISOString();

      let bounceId: number | null = null;
      if (!blocklisted && n <= rule.count && !(reached && rule.action === 'delete')) {
        const r = this.sql(SQL.insert).run({
          subscriberId: sub.id, campaignId, type: b.type, source: b.source,
          meta: JSON.stringify(b.meta), createdAt: b.createdAt ?? now,
        });
        bounceId = Number(r.lastInsertRowid);
        this.events.record('bounce.recorded', { bounce: this.get(bounceId) });
      }
      let action: BounceActionName = 'none';
      if (reached) {
        if (rule.action === 'delete') {
          // The subscriber as they were, before the row goes.
          this.events.recordSubscribers('subscriber.deleted', [sub.id]);
          this.sql(SQL.deleteSubscriber).run(sub.id);
          action = 'delete';
        } else if (rule.action === 'blocklist' && !blocklisted) {
          this.sql(SQL.blocklistSubscriber).run(now, sub.id);
          this.events.recordSubscribers('subscriber.blocklisted', [sub.id]);
          action = 'blocklist';
        } else if (rule.action === 'unsubscribe' && !blocklisted) {
          const lists = this.sql<[string, number], number>(SQL.unsubscribeSubscriber).pluck().all(now, sub.id) as number[];
          this.events.recordSubscriptions('subscription.unsubscribed', [sub.id], lists);
          action = 'unsubscribe';
        }
      }
      return { subscriberId: sub.id, bounceId, action };
    }).immediate();
  }

  private findSubscriber(b: BounceInput): { id: number; status: string } | undefined {
    type Sub = { id: number; status: string };
    const byUuid = b.subscriberUuid ? this.sql<[string], Sub>(SQL.subscriberByUuid).get(b.subscriberUuid) : undefined;
    return byUuid ?? (b.email ? this.sql<[string], Sub>(SQL.subscriberByEmail).get(b.email) : undefined);
  }
}
