// Delivery SQL: which subscribers a campaign goes to (listmonk's rules, docs/decisions.md §40), the
// per-recipient send ledger (campaign_sends) and the campaign's progress columns.
import type { DB } from '../db/connection.ts';
import { inTransaction } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { AudienceBreakdown } from '../campaigns/service.ts';
import type { CampaignRow, CampaignStore, SubscriberRow } from '../campaigns/store.ts';

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
  // walked from the lists' subscriptions, one group per member: who it reaches, and why each
  // member it does not reach is left out (blocklisted first; then, for a regular campaign, an
  // unconfirmed subscription to a double opt-in list; for an opt-in campaign, subscribed with
  // nothing to confirm; else unsubscribed from every one of the lists). One list needs no
  // grouping: see listFigures.
  audienceOfLists: `SELECT COUNT(*) AS members,
      COALESCE(SUM(NOT blocked AND qualifies), 0) AS count,
      COALESCE(SUM(blocked), 0) AS blocklisted,
      COALESCE(SUM(NOT blocked AND NOT qualifies AND pending), 0) AS unconfirmed,
      COALESCE(SUM(NOT blocked AND NOT qualifies AND NOT pending AND subscribed), 0) AS nothing_to_confirm,
      COALESCE(SUM(NOT blocked AND NOT qualifies AND NOT pending AND NOT subscribed), 0) AS unsubscribed
    FROM (SELECT MAX(s.status = 'blocklisted') AS blocked, MAX(${QUALIFIES}) AS qualifies,
        MAX(@optin = 0 AND l.optin = 'double' AND sl.status = 'unconfirmed') AS pending, MAX(sl.status != 'unsubscribed') AS subscribed
      FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id JOIN subscribers s ON s.id = sl.subscriber_id
      WHERE sl.list_id IN (SELECT value FROM json_each(@lists)) GROUP BY sl.subscriber_id)`,
  // One list's subscriptions by status (kept by triggers), and those of blocklisted
  // subscribers: few, so walked from the subscribers' status index (CROSS JOIN keeps that
  // order; SQLite otherwise walks the list's subscriptions, 250 ms for 200,000).
  listRow: 'SELECT id, name, optin FROM lists WHERE id = ?',
  listStatusCounts: 'SELECT status, n FROM list_subscriber_counts WHERE list_id = ?',
  listBlockedCounts: `SELECT sl.status, COUNT(*) AS n FROM subscribers s CROSS JOIN subscriber_lists sl ON sl.subscriber_id = s.id AND sl.list_id = ?
    WHERE s.status = 'blocklisted' GROUP BY sl.status`,
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
  // The lists' opt-in mails (sql/0104), walked in id order.
  queuedOptins: `SELECT id, subscriber_id, list_id FROM optin_mails WHERE status = 'queued' AND id > ? ORDER BY id LIMIT ?`,
  recordOptin: `UPDATE optin_mails SET status = ?, error = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  holdBack: `UPDATE campaigns SET status = 'paused', status_reason = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
};

export interface SendResult {
  subscriberId: number;
  ok: boolean;
  error: string;
}

/** One list's subscriptions by status, of subscribers who are not blocklisted, and how many are. */
interface ListFigures {
  id: number;
  name: string;
  optin: string;
  open: { confirmed: number; unconfirmed: number; unsubscribed: number };
  blocklisted: number;
}

/** The QUALIFIES rule over one list's figures: each subscriber has one subscription, in one status. */
function oneList(l: ListFigures, optin: boolean): Omit<AudienceBreakdown, 'optin_lists'> {
  const { confirmed, unconfirmed, unsubscribed } = l.open;
  const double = l.optin === 'double';
  const reached = optin ? (double ? unconfirmed : 0) : double ? confirmed : confirmed + unconfirmed;
  return {
    count: reached,
    members: confirmed + unconfirmed + unsubscribed + l.blocklisted,
    excluded: {
      unconfirmed: !optin && double ? unconfirmed : 0,
      unsubscribed,
      blocklisted: l.blocklisted,
      nothing_to_confirm: optin ? confirmed + unconfirmed - reached : 0,
    },
  };
}

/** An opt-in mail a list's opt-in action queued. */
export interface QueuedOptin {
  id: number;
  subscriber_id: number;
  list_id: number;
}

export class DeliveryStore {
  private readonly sql: Prepare;
  /** The campaigns' store records the engine's starts, pauses and ends in the change log. */
  constructor(private readonly db: DB, private readonly campaigns: Pick<CampaignStore, 'recordEvent'>) {
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
   * mark, or just before the first failed recipient, who is retried. A scheduled campaign
   * starts here (one set running by a person started then).
   */
  pickUp(c: Pick<CampaignRow, 'id' | 'last_subscriber_id' | 'retrying_failed' | 'to_send' | 'max_subscriber_id'>, optin: boolean): { max: number; start: number } {
    return inTransaction(this.db, () => {
      const id = c.id;
      const scheduled = this.status(id) === 'scheduled';
      const a = c.retrying_failed
        ? { count: c.to_send, max: c.max_subscriber_id }
        : this.sql<[Record<string, unknown>], { count: number; max: number }>(SQL.audience).get({ campaign: id, optin: optin ? 1 : 0 })!;
      const count = this.sql<[number, string], number>(SQL.countByStatus).pluck();
      this.sql(SQL.pickUp).run({ campaign: id, toSend: a.count, sent: count.get(id, 'sent'), failed: count.get(id, 'failed'), max: a.max });
      if (scheduled) this.campaigns.recordEvent('campaign.started', id);
      const failed = this.sql<[number], number | null>(SQL.firstFailed).pluck().get(id) as number | null;
      return { max: a.max, start: failed !== null ? Math.min(c.last_subscriber_id, failed - 1) : c.last_subscriber_id };
    });
  }

  /**
   * Who a campaign to these lists would be sent to now (its to_send when started), and who not
   * and why. Grouping the subscriptions of several lists by subscriber costs about 1.7 s for
   * 200,000 subscribers on two lists; one list (the usual case) is counted from its status
   * counts less its blocklisted subscribers, in milliseconds.
   */
  audienceOfLists(listIds: number[], optin: boolean): AudienceBreakdown {
    const lists = listIds.map((id) => this.listFigures(id)).filter((l) => l !== null);
    const optinLists = optin ? [] : lists.filter((l) => l.optin === 'double' && l.open.unconfirmed > 0).map((l) => ({ id: l.id, name: l.name, unconfirmed: l.open.unconfirmed }));
    if (lists.length === 1) return { ...oneList(lists[0], optin), optin_lists: optinLists };
    type Row = { members: number; count: number } & AudienceBreakdown['excluded'];
    const { members, count, ...excluded } = this.sql<[Record<string, unknown>], Row>(SQL.audienceOfLists).get({ lists: JSON.stringify(listIds), optin: optin ? 1 : 0 })!;
    return { count, members, excluded, optin_lists: optinLists };
  }

  /** A list's subscriptions by status: of subscribers who are not blocklisted (`open`) and of those who are. */
  private listFigures(id: number): ListFigures | null {
    const list = this.sql<[number], { id: number; name: string; optin: string }>(SQL.listRow).get(id);
    if (!list) return null;
    const byStatus = (rows: { status: string; n: number }[]) => {
      const n = (status: string) => rows.find((r) => r.status === status)?.n ?? 0;
      return { confirmed: n('confirmed'), unconfirmed: n('unconfirmed'), unsubscribed: n('unsubscribed') };
    };
    const all = byStatus(this.sql<[number], { status: string; n: number }>(SQL.listStatusCounts).all(id));
    const blocked = byStatus(this.sql<[number], { status: string; n: number }>(SQL.listBlockedCounts).all(id));
    const open = { confirmed: all.confirmed - blocked.confirmed, unconfirmed: all.unconfirmed - blocked.unconfirmed, unsubscribed: all.unsubscribed - blocked.unsubscribed };
    return { ...list, open, blocklisted: blocked.confirmed + blocked.unconfirmed + blocked.unsubscribed };
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
    return inTransaction(this.db, () => this.changed(this.sql(SQL.finish).run(id).changes, 'campaign.finished', id));
  }

  /** running → paused by the engine, with its reason; false if the campaign was paused, cancelled or deleted meanwhile. */
  pause(id: number, reason: string): boolean {
    return inTransaction(this.db, () => this.changed(this.sql(SQL.pause).run(reason, id).changes, 'campaign.paused', id, { reason }));
  }

  /** Whether a status change changed the campaign; if so, records its event. */
  private changed(changes: number, type: 'campaign.finished' | 'campaign.paused', id: number, extra: Record<string, unknown> = {}): boolean {
    if (changes) this.campaigns.recordEvent(type, id, extra);
    return changes > 0;
  }

  /** The queued opt-in mails after `after`, oldest first. */
  queuedOptins(after: number, limit: number): QueuedOptin[] {
    return this.sql<[number, number], QueuedOptin>(SQL.queuedOptins).all(after, limit);
  }

  recordOptin(id: number, status: 'sent' | 'failed' | 'skipped', error: string): void {
    this.sql(SQL.recordOptin).run(status, error, id);
  }

  /** A due campaign that cannot start (no messenger, does not render) is paused with the reason. */
  holdBack(id: number, reason: string): void {
    inTransaction(this.db, () => this.changed(this.sql(SQL.holdBack).run(reason, id).changes, 'campaign.paused', id, { reason }));
  }
}
