// Garbage collection (listmonk's maintenance operations) and the database VACUUM. Deleting
// subscribers or subscriptions is a bulk change: the change log has an event per row only while
// a consumer wants the type.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { EventLog } from '../events/log.ts';

/** Whether the export's caller may read subscriber `s` (see exportViews). */
const READABLE = `(@lists IS NULL OR EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = s.id
  AND sl.list_id IN (SELECT value FROM json_each(@lists))))`;
const personal = (column: string, as: string) => `CASE WHEN ${READABLE} THEN coalesce(s.${column}, '') ELSE '' END AS ${as}`;
const PERSONAL = [personal('uuid', 'subscriber_uuid'), personal('email', 'email'), personal('name', 'subscriber_name')].join(', ');

const SQL = {
  deleteOrphans: 'DELETE FROM subscribers WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = subscribers.id)',
  deleteBlocklisted: "DELETE FROM subscribers WHERE status = 'blocklisted'",
  deleteUnconfirmed: `DELETE FROM subscriber_lists WHERE status = 'unconfirmed' AND created_at < ?
    AND list_id IN (SELECT id FROM lists WHERE optin = 'double')`,
  // What each deletion would touch, for the admin's "asks first with the count" (same conditions).
  countOrphans: 'SELECT COUNT(*) FROM subscribers WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = subscribers.id)',
  countBlocklisted: "SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted'",
  countUnconfirmed: `SELECT COUNT(*) FROM subscriber_lists WHERE status = 'unconfirmed' AND created_at < ?
    AND list_id IN (SELECT id FROM lists WHERE optin = 'double')`,
  // The rows each deletion takes, for their events (same conditions).
  orphanIds: 'SELECT id FROM subscribers WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = subscribers.id)',
  blocklistedIds: "SELECT id FROM subscribers WHERE status = 'blocklisted'",
  unconfirmedRows: `SELECT list_id, subscriber_id FROM subscriber_lists WHERE status = 'unconfirmed' AND created_at < ?
    AND list_id IN (SELECT id FROM lists WHERE optin = 'double') ORDER BY list_id, subscriber_id`,
  countViewsBefore: 'SELECT COUNT(*) FROM campaign_views WHERE created_at < ?',
  countClicksBefore: 'SELECT COUNT(*) FROM link_clicks WHERE created_at < ?',
  countViewsSince: 'SELECT COUNT(*) FROM campaign_views WHERE created_at >= ?',
  countClicksSince: 'SELECT COUNT(*) FROM link_clicks WHERE created_at >= ?',
  deleteViews: 'DELETE FROM campaign_views WHERE created_at < ?',
  deleteClicks: 'DELETE FROM link_clicks WHERE created_at < ?',
  // The export's next batch after @after, recorded since @since; deleted campaigns and subscribers
  // (and anonymous tracking) come out as 0 and ''. A subscriber's UUID, e-mail and name only when
  // @lists is null (every subscriber readable) or the subscriber is on one of the lists in it.
  exportViews: `SELECT v.id, coalesce(c.id, 0) AS campaign_id, coalesce(c.uuid, '') AS campaign_uuid, coalesce(c.name, '') AS campaign_name,
      coalesce(s.id, 0) AS subscriber_id, ${PERSONAL}, v.created_at
    FROM campaign_views v LEFT JOIN campaigns c ON c.id = v.campaign_id LEFT JOIN subscribers s ON s.id = v.subscriber_id
    WHERE v.id > @after AND v.created_at >= @since ORDER BY v.id LIMIT @limit`,
  exportClicks: `SELECT k.id, coalesce(c.id, 0) AS campaign_id, coalesce(c.uuid, '') AS campaign_uuid, coalesce(c.name, '') AS campaign_name,
      coalesce(s.id, 0) AS subscriber_id, ${PERSONAL}, l.url, k.created_at
    FROM link_clicks k JOIN links l ON l.id = k.link_id LEFT JOIN campaigns c ON c.id = k.campaign_id LEFT JOIN subscribers s ON s.id = k.subscriber_id
    WHERE k.id > @after AND k.created_at >= @since ORDER BY k.id LIMIT @limit`,
};

/** Columns of the analytics export, as listmonk names them (clicks add `url`). */
export const ANALYTICS_EXPORT_COLUMNS = {
  views: ['campaign_id', 'campaign_uuid', 'campaign_name', 'subscriber_id', 'subscriber_uuid', 'email', 'subscriber_name', 'created_at'],
  clicks: ['campaign_id', 'campaign_uuid', 'campaign_name', 'subscriber_id', 'subscriber_uuid', 'email', 'subscriber_name', 'url', 'created_at'],
} as const;
export type AnalyticsExportType = keyof typeof ANALYTICS_EXPORT_COLUMNS;
export const ANALYTICS_EXPORT_TYPES = Object.keys(ANALYTICS_EXPORT_COLUMNS) as AnalyticsExportType[];

export const SUBSCRIBER_GC_TYPES = ['orphan', 'blocklisted'] as const;
export const ANALYTICS_GC_TYPES = ['views', 'clicks', 'all'] as const;

const BULK = { bulk: true };

export class MaintenanceStore {
  private readonly sql: Prepare;

  /** `events`: the change log each deletion writes to. */
  constructor(private readonly db: DB, private readonly events: EventLog) {
    this.sql = statementCache(db);
  }

  /** Deletes orphan (no subscription at all) or blocklisted subscribers; returns how many. */
  deleteSubscribers(type: (typeof SUBSCRIBER_GC_TYPES)[number]): number {
    const orphans = type === 'orphan';
    return this.db.transaction(() => {
      // Before the rows go: the events have the subscribers as they were.
      if (this.events.records('subscriber.deleted', BULK)) {
        this.events.recordSubscribers('subscriber.deleted', this.sql(orphans ? SQL.orphanIds : SQL.blocklistedIds).pluck().all() as number[], {}, BULK);
      }
      return this.sql(orphans ? SQL.deleteOrphans : SQL.deleteBlocklisted).run().changes;
    }).immediate();
  }

  /** Deletes unconfirmed subscriptions to double opt-in lists made before `before` (ISO); returns how many. */
  deleteUnconfirmedSubscriptions(before: string): number {
    return this.db.transaction(() => {
      if (this.events.records('subscription.removed', BULK)) this.recordRemovals(before);
      return this.sql(SQL.deleteUnconfirmed).run(before).changes;
    }).immediate();
  }

  /** subscription.removed for each subscription deleteUnconfirmedSubscriptions is about to delete, list by list. */
  private recordRemovals(before: string): void {
    const byList = new Map<number, number[]>();
    for (const r of this.sql<[string], { list_id: number; subscriber_id: number }>(SQL.unconfirmedRows).all(before)) {
      let ids = byList.get(r.list_id);
      if (!ids) byList.set(r.list_id, (ids = []));
      ids.push(r.subscriber_id);
    }
    for (const [list, ids] of byList) this.events.recordSubscriptions('subscription.removed', ids, [list], {}, BULK);
  }

  /** Deletes views and/or clicks recorded before `before` (ISO). */
  deleteAnalytics(type: (typeof ANALYTICS_GC_TYPES)[number], before: string): void {
    this.db.transaction(() => {
      if (type !== 'clicks') this.sql(SQL.deleteViews).run(before);
      if (type !== 'views') this.sql(SQL.deleteClicks).run(before);
    }).immediate();
  }

  /** How many subscribers deleteSubscribers(type) would delete now. */
  countSubscribers(type: (typeof SUBSCRIBER_GC_TYPES)[number]): number {
    return this.count(type === 'orphan' ? SQL.countOrphans : SQL.countBlocklisted);
  }

  /** How many subscriptions deleteUnconfirmedSubscriptions(before) would delete now. */
  countUnconfirmedSubscriptions(before: string): number {
    return this.count(SQL.countUnconfirmed, before);
  }

  /** How many views and clicks were recorded before `before` (what deleteAnalytics would delete), or since `since` (what the export holds). */
  countAnalytics(type: (typeof ANALYTICS_GC_TYPES)[number], at: { before: string } | { since: string }): { views: number; clicks: number } {
    const [views, clicks] = 'before' in at ? [SQL.countViewsBefore, SQL.countClicksBefore] : [SQL.countViewsSince, SQL.countClicksSince];
    const date = 'before' in at ? at.before : at.since;
    return { views: type === 'clicks' ? 0 : this.count(views, date), clicks: type === 'views' ? 0 : this.count(clicks, date) };
  }

  private count(sql: string, ...params: string[]): number {
    return this.sql<string[], number>(sql).pluck().get(...params) ?? 0;
  }

  /**
   * Up to `limit` views or clicks recorded since `since` (ISO) with ids after `afterId`, in id
   * order; subscribers' UUID, e-mail and name only for members of `readable` (null: every one).
   */
  analyticsBatch(type: AnalyticsExportType, since: string, afterId: number, limit: number, readable: number[] | null): ({ id: number } & Record<string, string | number>)[] {
    const params = { after: afterId, since, limit, lists: readable === null ? null : JSON.stringify(readable) };
    return this.sql<[typeof params], { id: number } & Record<string, string | number>>(type === 'views' ? SQL.exportViews : SQL.exportClicks).all(params);
  }

  /** Rewrites the file compactly and refreshes the planner's statistics. */
  vacuum(): void {
    this.db.exec('VACUUM');
    this.db.pragma('optimize');
    // VACUUM goes through the WAL: without this the -wal file is left as big as the database.
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  /** The database's pages in use and free (VACUUM returns the free ones to the file system). */
  pages(): { pageSize: number; pages: number; free: number } {
    const n = (name: string) => this.db.pragma(name, { simple: true }) as number;
    return { pageSize: n('page_size'), pages: n('page_count'), free: n('freelist_count') };
  }

  /** The version of the SQLite library the database runs on ("3.46.1"). */
  sqliteVersion(): string {
    return this.db.prepare('SELECT sqlite_version()').pluck().get() as string;
  }
}
