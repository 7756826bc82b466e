// Dashboard figures, read from counters that triggers keep exact (sql/0040): O(1) however
// many subscribers, views and clicks there are. Lists and campaigns are small tables and are
// counted directly.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';

const SQL = {
  subscriberCounts: 'SELECT key, n FROM dashboard_counts',
  listCounts: `SELECT COUNT(*) AS total,
      coalesce(SUM(type = 'private'), 0) AS private, coalesce(SUM(type = 'public'), 0) AS public,
      coalesce(SUM(optin = 'single'), 0) AS optin_single, coalesce(SUM(optin = 'double'), 0) AS optin_double
    FROM lists`,
  campaignCounts: 'SELECT status, COUNT(*) AS n, SUM(sent) AS sent FROM campaigns GROUP BY status ORDER BY status',
  lastDay: 'SELECT max(day) FROM dashboard_daily WHERE kind = ? AND n > 0',
  window: `SELECT n AS count, day AS date FROM dashboard_daily
    WHERE kind = ? AND n > 0 AND day BETWEEN date(?, '-30 days') AND ? ORDER BY day`,
  // Served by the partial index subscriber_lists_form (sql/0086).
  formSubscription: "SELECT EXISTS (SELECT 1 FROM subscriber_lists WHERE source = 'form')",
  // Only the worker gives a reason when it disables a webhook; one disabled by hand has none.
  disabledWebhooks: `SELECT id, name, disabled_reason AS reason, count(*) OVER () AS total FROM webhooks
    WHERE enabled = 0 AND disabled_reason <> '' ORDER BY updated_at DESC, id DESC LIMIT ?`,
  // Bulk import: what the gated insert triggers skipped for subscribers [firstId, lastId].
  fillStatusCounts: `INSERT INTO dashboard_counts (key, n)
    SELECT status, COUNT(*) FROM subscribers WHERE id BETWEEN ? AND ? GROUP BY status
    ON CONFLICT (key) DO UPDATE SET n = n + excluded.n`,
  fillSubscribed: `UPDATE dashboard_counts SET n = n +
    (SELECT COUNT(DISTINCT subscriber_id) FROM subscriber_lists WHERE subscriber_id BETWEEN ? AND ?)
    WHERE key = 'subscribed'`,
};

export interface DashboardCounts {
  subscribers: { total: number | null; blocklisted: number | null; orphans: number };
  lists: { total: number; private: number; public: number; optin_single: number; optin_double: number };
  campaigns: { total: number; by_status: Record<string, number> | null };
  messages: number | null;
}

/** A webhook the delivery worker disabled because its deliveries kept failing. */
export interface DisabledWebhook {
  id: number;
  name: string;
  reason: string;
}

export interface DayCount {
  count: number;
  date: string;
}

export interface DashboardCharts {
  link_clicks: DayCount[];
  campaign_views: DayCount[];
}

export class DashboardStore {
  private readonly sql: Prepare;

  constructor(db: DB) {
    this.sql = statementCache(db);
  }

  counts(): DashboardCounts {
    const c = Object.fromEntries(this.sql<[], { key: string; n: number }>(SQL.subscriberCounts).all().map((r) => [r.key, r.n]));
    const total = (c.enabled ?? 0) + (c.disabled ?? 0) + (c.blocklisted ?? 0);
    const lists = this.sql<[], DashboardCounts['lists']>(SQL.listCounts).get()!;
    const campaigns = this.sql<[], { status: string; n: number; sent: number }>(SQL.campaignCounts).all();
    const campaignTotal = campaigns.reduce((a, r) => a + r.n, 0);
    return {
      // null when zero, as listmonk's aggregates answer
      subscribers: { total: total || null, blocklisted: c.blocklisted || null, orphans: total - (c.subscribed ?? 0) },
      lists,
      campaigns: { total: campaignTotal, by_status: campaignTotal ? Object.fromEntries(campaigns.map((r) => [r.status, r.n])) : null },
      messages: campaignTotal ? campaigns.reduce((a, r) => a + r.sent, 0) : null,
    };
  }

  /** Views and clicks per UTC day over the 31 days ending on the day of the latest event. */
  charts(): DashboardCharts {
    const series = (kind: 'views' | 'clicks'): DayCount[] => {
      const last = this.sql<[string], string | null>(SQL.lastDay).pluck().get(kind);
      return last ? this.sql<[string, string, string], DayCount>(SQL.window).all(kind, last, last) : [];
    };
    return { link_clicks: series('clicks'), campaign_views: series('views') };
  }

  /** Whether anyone has subscribed through the public form or API (the first-run checklist). */
  formSubscription(): boolean {
    return this.sql<[], number>(SQL.formSubscription).pluck().get() === 1;
  }

  /** The webhooks disabled for failing, the last disabled first: `limit` of them, and how many in all. */
  disabledWebhooks(limit: number): { results: DisabledWebhook[]; total: number } {
    const rows = this.sql<[number], DisabledWebhook & { total: number }>(SQL.disabledWebhooks).all(limit);
    return { results: rows.map(({ total: _, ...w }) => w), total: rows[0]?.total ?? 0 };
  }

  /** Bulk-import fill (src/imports/bulk.ts): counts subscribers [firstId, lastId] and their subscriptions at once. */
  fillBulk(firstId: number, lastId: number): void {
    this.sql(SQL.fillStatusCounts).run(firstId, lastId);
    this.sql(SQL.fillSubscribed).run(firstId, lastId);
  }
}
