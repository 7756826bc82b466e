// The delivery worker's SQL: turning the change log into deliveries (the dispatcher's cursor),
// taking due deliveries with a lease, and writing the attempts' outcomes. A lease is the only
// lock: a row leased by a process that was killed becomes due again when its lease runs out, so
// nothing is lost (an attempt in flight at the kill is repeated, with the same webhook-id).
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { waitForWriteLock } from '../db/write-lock.ts';

const CURSOR = 'webhooks';

const SQL = {
  // A first start reads from the oldest webhook's first event (none: from now on).
  initCursor: `INSERT OR IGNORE INTO event_cursors (consumer, last_event_id)
    VALUES (@consumer, coalesce((SELECT min(after_event_id) FROM webhooks), (SELECT max(id) FROM events), 0))`,
  cursor: 'SELECT last_event_id FROM event_cursors WHERE consumer = ?',
  lastEvent: 'SELECT coalesce(max(id), 0) FROM events',
  batchEnd: 'SELECT max(id) FROM (SELECT id FROM events WHERE id > ? ORDER BY id LIMIT ?)',
  // One delivery per event and enabled webhook that subscribed to its type and existed before it.
  // webhook.test is delivered to its one webhook by the test endpoint, never fanned out.
  fanOut: `INSERT INTO webhook_deliveries (webhook_id, event_id)
    SELECT w.id, e.id FROM events e
    JOIN webhooks w ON w.enabled = 1 AND e.id > w.after_event_id
      AND EXISTS (SELECT 1 FROM json_each(w.events) j WHERE j.value IN ('*', e.type))
    WHERE e.id > @from AND e.id <= @to AND e.type <> 'webhook.test'
    ORDER BY e.id, w.id`,
  advance: 'UPDATE event_cursors SET last_event_id = ? WHERE consumer = ?',
  enabledWebhooks: 'SELECT id FROM webhooks WHERE enabled = 1',
  // Through the index of waiting rows (webhook_id, status, next_attempt_at): the due ones only.
  claimDue: `UPDATE webhook_deliveries SET lease_until = @lease
    WHERE id IN (SELECT id FROM webhook_deliveries
      WHERE webhook_id = @webhook AND status = @status AND next_attempt_at <= @now
        AND (lease_until IS NULL OR lease_until <= @now)
      LIMIT @limit)
    RETURNING id`,
  // "Send now": due or not, whether its webhook is enabled or not (a test of a disabled endpoint).
  claimOne: `UPDATE webhook_deliveries SET lease_until = @lease
    WHERE id = @id AND status IN ('pending', 'retrying') AND (lease_until IS NULL OR lease_until <= @now)
    RETURNING id`,
  requests: `SELECT d.id, d.webhook_id, d.attempts, w.url, w.secret, w.previous_secret, w.previous_secret_until,
      e.uuid, e.type, e.occurred_at, e.data
    FROM webhook_deliveries d JOIN webhooks w ON w.id = d.webhook_id JOIN events e ON e.id = d.event_id
    WHERE d.id IN (SELECT value FROM json_each(?)) ORDER BY d.id`,
  delivered: `UPDATE webhook_deliveries SET status = 'delivered', attempts = attempts + 1, lease_until = NULL,
      attempted_at = @attempted_at, response_status = @status, response_ms = @ms, response_body = @body, error = '',
      delivered_at = @now
    WHERE id = @id`,
  notFailing: 'UPDATE webhooks SET failing_since = NULL WHERE id = ? AND failing_since IS NOT NULL',
  notDelivered: `UPDATE webhook_deliveries SET status = @outcome, attempts = attempts + 1, lease_until = NULL,
      next_attempt_at = @next, attempted_at = @attempted_at, response_status = @status, response_ms = @ms,
      response_body = @body, error = @error
    WHERE id = @id`,
  failing: 'UPDATE webhooks SET failing_since = coalesce(failing_since, ?) WHERE id = ?',
  disable: `UPDATE webhooks SET enabled = 0, disabled_reason = @reason, updated_at = @now
    WHERE id = @id AND enabled = 1 AND failing_since <= @since
    RETURNING id, name`,
} as const;

/** A leased delivery with what its request is made of. */
export interface DeliveryRequest {
  id: number;
  webhook_id: number;
  /** Attempts made before this one. */
  attempts: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
  /** The event's. */
  uuid: string;
  type: string;
  occurred_at: string;
  data: string;
}

/** What one attempt got back. */
export interface AttemptResult {
  /** When it was signed (webhook-timestamp), ISO. */
  attempted_at: string;
  status: number | null;
  ms: number;
  body: string;
  error: string;
}

/** An attempt that did not get a 2xx: retried at `next`, or given up on (`next` null). */
export interface Failure extends AttemptResult {
  next: string | null;
}

export type Outcome = { delivery: DeliveryRequest; delivered: true; result: AttemptResult } | { delivery: DeliveryRequest; delivered: false; result: Failure };

/** A webhook the outcomes disabled. */
export interface DisabledWebhook {
  id: number;
  name: string;
  reason: string;
}

export class WebhookDeliveryStore {
  private readonly sql: Prepare;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
    this.sql(SQL.initCursor).run({ consumer: CURSOR });
  }

  /**
   * Resolves once SQLite's write lock is free (false: still taken after the busy timeout), so a
   * write of the worker never waits for another connection (the import's writer) in SQLite's
   * busy handler, which would hold the event loop.
   */
  writable(): Promise<boolean> {
    return waitForWriteLock(this.db);
  }

  /** Whether the log has events the dispatcher has not read. */
  behind(): boolean {
    return (this.sql(SQL.lastEvent).pluck().get() as number) > this.cursor();
  }

  /**
   * Turns the next `batch` events after the cursor into deliveries, with one INSERT..SELECT, and
   * advances the cursor, in one transaction; answers how many events it read (0: caught up).
   */
  dispatch(batch: number): number {
    return this.db.transaction(() => {
      const from = this.cursor();
      const to = this.sql(SQL.batchEnd).pluck().get(from, batch) as number | null;
      if (to === null) return 0;
      // Not without webhooks: an INSERT into an AUTOINCREMENT table writes its sqlite_sequence
      // row even when it inserts nothing.
      if (this.enabledWebhooks().length) this.sql(SQL.fanOut).run({ from, to });
      this.sql(SQL.advance).run(to, CURSOR);
      return to - from;
    })();
  }

  private cursor(): number {
    return this.sql(SQL.cursor).pluck().get(CURSOR) as number;
  }

  enabledWebhooks(): number[] {
    return this.sql(SQL.enabledWebhooks).pluck().all() as number[];
  }

  /** Leases up to `limit` due deliveries of an (enabled) webhook, new ones or retries, until `lease`. */
  claimDue(webhook: number, status: 'pending' | 'retrying', limit: number, now: string, lease: string): DeliveryRequest[] {
    const ids = this.sql(SQL.claimDue).pluck().all({ webhook, status, limit, now, lease }) as number[];
    return ids.length ? this.requests(ids) : [];
  }

  /** Leases one delivery whatever its due time, unless it is done or leased already. */
  claimOne(id: number, now: string, lease: string): DeliveryRequest | null {
    const ids = this.sql(SQL.claimOne).pluck().all({ id, now, lease }) as number[];
    return ids.length ? this.requests(ids)[0] : null;
  }

  private requests(ids: number[]): DeliveryRequest[] {
    return this.sql(SQL.requests).all(JSON.stringify(ids)) as DeliveryRequest[];
  }

  /**
   * Writes the outcomes, in order, in one transaction: a success clears the webhook's failing
   * streak, a failure starts one, and a failure while the streak is older than `disableSince`
   * disables the webhook (`reason` gives the reason from the failure). Answers the webhooks disabled.
   */
  record(outcomes: readonly Outcome[], now: string, disableSince: string, reason: (f: Failure) => string): DisabledWebhook[] {
    return this.db.transaction(() => {
      const disabled: DisabledWebhook[] = [];
      for (const o of outcomes) {
        const { id, webhook_id: webhook } = o.delivery;
        const r = o.result;
        const row = { id, attempted_at: r.attempted_at, status: r.status, ms: r.ms, body: r.body };
        if (o.delivered) {
          this.sql(SQL.delivered).run({ ...row, now });
          this.sql(SQL.notFailing).run(webhook);
          continue;
        }
        const f = o.result;
        this.sql(SQL.notDelivered).run({ ...row, outcome: f.next ? 'retrying' : 'failed', next: f.next ?? now, error: f.error });
        this.sql(SQL.failing).run(now, webhook);
        const why = reason(f);
        const off = this.sql(SQL.disable).get({ id: webhook, reason: why, now, since: disableSince }) as { id: number; name: string } | undefined;
        if (off) disabled.push({ ...off, reason: why });
      }
      return disabled;
    })();
  }
}
