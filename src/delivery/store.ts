// Delivery SQL: which subscribers a campaign goes to (listmonk's rules, docs/decisions.md §40), the
// per-recipient send ledger (campaign_sends) and the campaign's progress columns.
import type { DB } from '../db/connection.ts';
import { inTransaction } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { CampaignRow, SubscriberRow } from '../campaigns/store.ts';

/**
 * A subscription qualifies when: regular campaign, double opt-in list, confirmed; regular,
 * single opt-in, not unsubscribed; opt-in campaign, double opt-in list, unconfirmed.
 * The subscriber must not be blocklisted. @optin is 1 for opt-in campaigns.
 */
const QUALIFIES = `((@optin = 0 AND ((l.optin = 'double' AND sl.status = 'confirmed') OR (l.optin = 'single' AND sl.status != 'unsubscribed')))
      OR (@optin = 1 AND l.optin = 'double' AND sl.status = 'unconfirmed'))`;
const ELIGIBLE = `s.status != 'blocklisted' AND EXISTS (
    SELECT 1 FROM campaign_lists cl
    JOIN subscriber_lists sl ON sl.list_id = cl.list_id AND sl.subscriber_id = s.id
    JOIN lists l ON l.id = cl.list_id
    WHERE cl.campaign_id = @campaign AND ${QUALIFIES})`;

const SQL = {
  audience: `SELECT COUNT(*) AS count, COALESCE(MAX(s.id), 0) AS max FROM subscribers s WHERE ${ELIGIBLE}`,
  // The same rule over lists not saved with a campaign yet (@lists: a JSON array of ids),
  // walked from the lists' subscriptions rather than from every subscriber.
  audienceOfLists: `SELECT COUNT(*) FROM subscribers s WHERE s.status != 'blocklisted' AND s.id IN (
      SELECT sl.subscriber_id FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id
      WHERE sl.list_id IN (SELECT value FROM json_each(@lists)) AND ${QUALIFIES})`,
  // A recipient tried again after a deferral, if still in the audience (not unsubscribed, blocklisted or deleted meanwhile).
  eligible: `SELECT s.* FROM subscribers s WHERE s.id = @id AND ${ELIGIBLE}`,
  countByStatus: `SELECT COUNT(*) FROM campaign_sends WHERE campaign_id = ? AND status = ?`,
  firstFailed: `SELECT MIN(subscriber_id) FROM campaign_sends WHERE campaign_id = ? AND status = 'failed'`,
  pickUp: `UPDATE campaigns SET status = 'running', status_reason = '', to_send = @toSend, sent = @sent, failed = @failed, deferred = 0, max_subscriber_id = @max,
      started_at = COALESCE(started_at, strftime('%Y-%m-%dT%H:%M:%fZ', 'now')), updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    WHERE id = @campaign`,
  // Keyset walk in id order; subscribers already sent to are skipped (the exactly-once rule).
  // Sending a finished campaign again (@retrying = 1) walks only its failed recipients (and
  // those of that retry not sent yet, still queued).
  batch: `SELECT s.* FROM subscribers s WHERE s.id > @after AND s.id <= @max AND ${ELIGIBLE}
      AND NOT EXISTS (SELECT 1 FROM campaign_sends cs WHERE cs.campaign_id = @campaign AND cs.subscriber_id = s.id AND cs.status = 'sent')
      AND (@retrying = 0 OR EXISTS (SELECT 1 FROM campaign_sends cs WHERE cs.campaign_id = @campaign AND cs.subscriber_id = s.id AND cs.status IN ('failed', 'queued')))
    ORDER BY s.id LIMIT @limit`,
  // Recipients queued again after a failure are no longer counted as failed.
  unfail: `UPDATE campaigns SET failed = failed - (SELECT COUNT(*) FROM campaign_sends
      WHERE campaign_id = @campaign AND status = 'failed' AND subscriber_id IN (SELECT value FROM json_each(@ids))) WHERE id = @campaign`,
  queue: `INSERT INTO campaign_sends (campaign_id, subscriber_id, status) VALUES (?, ?, 'queued')
    ON CONFLICT (campaign_id, subscriber_id) DO UPDATE SET status = 'queued', error = '', updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`,
  record: `UPDATE campaign_sends SET status = ?, error = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE campaign_id = ? AND subscriber_id = ?`,
  progress: `UPDATE campaigns SET sent = sent + ?, failed = failed + ?, deferred = ?, last_subscriber_id = MAX(last_subscriber_id, ?), updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  due: `SELECT id FROM campaigns WHERE status = 'running' OR (status = 'scheduled' AND send_at <= ?) ORDER BY id`,
  status: 'SELECT status FROM campaigns WHERE id = ?',
  finish: `UPDATE campaigns SET status = 'finished', retrying_failed = 0, deferred = 0, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND status IN ('running', 'scheduled')`,
  pause: `UPDATE campaigns SET status = 'paused', status_reason = ?, deferred = 0, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ? AND status = 'running'`,
  holdBack: `UPDATE campaigns SET status = 'paused', status_reason = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
};

export interface SendResult {
  subscriberId: number;
  ok: boolean;
  error: string;
}

export class DeliveryStore {
  private readonly sql: Prepare;
  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** Campaigns that should be sending now: running, or scheduled with send_at reached. */
  due(now: string): number[] {
    return this.sql<[string], number>(SQL.due).pluck().all(now) as number[];
  }

  status(id: number): string | undefined {
    return this.sql<[number], string>(SQL.status).pluck().get(id) as string | undefined;
  }

  /**
   * Marks the campaign running and records its audience (to_send, max_subscriber_id, as
   * listmonk recomputes them at every pick-up; kept when retrying its failed recipients, an
   * audience that was already counted). Returns where the walk starts: the stored low-water
   * mark, or just before the first failed recipient, who is retried.
   */
  pickUp(c: Pick<CampaignRow, 'id' | 'last_subscriber_id' | 'retrying_failed' | 'to_send' | 'max_subscriber_id'>, optin: boolean): { max: number; start: number } {
    return inTransaction(this.db, () => {
      const id = c.id;
      const a = c.retrying_failed
        ? { count: c.to_send, max: c.max_subscriber_id }
        : this.sql<[Record<string, unknown>], { count: number; max: number }>(SQL.audience).get({ campaign: id, optin: optin ? 1 : 0 })!;
      const count = this.sql<[number, string], number>(SQL.countByStatus).pluck();
      this.sql(SQL.pickUp).run({ campaign: id, toSend: a.count, sent: count.get(id, 'sent'), failed: count.get(id, 'failed'), max: a.max });
      const failed = this.sql<[number], number | null>(SQL.firstFailed).pluck().get(id) as number | null;
      return { max: a.max, start: failed !== null ? Math.min(c.last_subscriber_id, failed - 1) : c.last_subscriber_id };
    });
  }

  /** How many subscribers a campaign to these lists would be sent to now (its to_send when started). */
  audienceOfLists(listIds: number[], optin: boolean): number {
    return this.sql<[Record<string, unknown>], number>(SQL.audienceOfLists).pluck().get({ lists: JSON.stringify(listIds), optin: optin ? 1 : 0 }) as number;
  }

  /** The next recipients after `after`, each recorded as queued before anything is sent. */
  nextBatch(id: number, optin: boolean, retrying: boolean, after: number, max: number, limit: number): SubscriberRow[] {
    return inTransaction(this.db, () => {
      const rows = this.sql<[Record<string, unknown>], SubscriberRow>(SQL.batch).all({ campaign: id, optin: optin ? 1 : 0, retrying: retrying ? 1 : 0, after, max, limit });
      if (rows.length) this.sql(SQL.unfail).run({ campaign: id, ids: JSON.stringify(rows.map((r) => r.id)) });
      const queue = this.sql(SQL.queue);
      for (const r of rows) queue.run(id, r.id);
      return rows;
    });
  }

  /** The subscriber, re-read, when the campaign still goes to them. */
  eligible(id: number, optin: boolean, subscriberId: number): SubscriberRow | undefined {
    return this.sql<[Record<string, unknown>], SubscriberRow>(SQL.eligible).get({ campaign: id, optin: optin ? 1 : 0, id: subscriberId });
  }

  /** Writes a batch of outcomes and the campaign's progress (with the count of recipients deferred now) in one transaction. */
  record(id: number, results: SendResult[], lowWater: number, deferred: number): void {
    inTransaction(this.db, () => {
      const rec = this.sql(SQL.record);
      let sent = 0;
      for (const r of results) {
        rec.run(r.ok ? 'sent' : 'failed', r.error, id, r.subscriberId);
        if (r.ok) sent++;
      }
      this.sql(SQL.progress).run(sent, results.length - sent, deferred, lowWater, id);
    });
  }

  /** running/scheduled → finished (a retry of failed recipients ends with it); false if the campaign was paused, cancelled or deleted meanwhile. */
  finish(id: number): boolean {
    return this.sql(SQL.finish).run(id).changes > 0;
  }

  pause(id: number, reason: string): boolean {
    return this.sql(SQL.pause).run(reason, id).changes > 0;
  }

  /** A due campaign that cannot start (no messenger, does not render) is paused with the reason. */
  holdBack(id: number, reason: string): void {
    this.sql(SQL.holdBack).run(reason, id);
  }
}
