// Garbage collection (listmonk's maintenance operations) and the database VACUUM.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';

const SQL = {
  deleteOrphans: 'DELETE FROM subscribers WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = subscribers.id)',
  deleteBlocklisted: "DELETE FROM subscribers WHERE status = 'blocklisted'",
  deleteUnconfirmed: `DELETE FROM subscriber_lists WHERE status = 'unconfirmed' AND created_at < ?
    AND list_id IN (SELECT id FROM lists WHERE optin = 'double')`,
  deleteViews: 'DELETE FROM campaign_views WHERE created_at < ?',
  deleteClicks: 'DELETE FROM link_clicks WHERE created_at < ?',
};

export const SUBSCRIBER_GC_TYPES = ['orphan', 'blocklisted'] as const;
export const ANALYTICS_GC_TYPES = ['views', 'clicks', 'all'] as const;

export class MaintenanceStore {
  private readonly sql: Prepare;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** Deletes orphan (no subscription at all) or blocklisted subscribers; returns how many. */
  deleteSubscribers(type: (typeof SUBSCRIBER_GC_TYPES)[number]): number {
    const stmt = this.sql(type === 'orphan' ? SQL.deleteOrphans : SQL.deleteBlocklisted);
    return this.db.transaction(() => stmt.run().changes).immediate();
  }

  /** Deletes unconfirmed subscriptions to double opt-in lists made before `before` (ISO); returns how many. */
  deleteUnconfirmedSubscriptions(before: string): number {
    return this.db.transaction(() => this.sql(SQL.deleteUnconfirmed).run(before).changes).immediate();
  }

  /** Deletes views and/or clicks recorded before `before` (ISO). */
  deleteAnalytics(type: (typeof ANALYTICS_GC_TYPES)[number], before: string): void {
    this.db.transaction(() => {
      if (type !== 'clicks') this.sql(SQL.deleteViews).run(before);
      if (type !== 'views') this.sql(SQL.deleteClicks).run(before);
    }).immediate();
  }

  /** Rewrites the file compactly and refreshes the planner's statistics. */
  vacuum(): void {
    this.db.exec('VACUUM');
    this.db.pragma('optimize');
  }
}
