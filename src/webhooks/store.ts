// Webhooks SQL: the endpoints (sql/0108 `webhooks`) and the API's reads of their deliveries. The
// delivery worker's own SQL (claiming, recording attempts) is in deliveries.ts.
import { randomUUID } from 'node:crypto';
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { Authorized } from '../core/authz.ts';
import type { Paging } from '../core/paging.ts';

export const DELIVERY_STATUSES = ['pending', 'delivered', 'retrying', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/**
 * The deliveries the recent figures of a webhook (failure rate, last delivery) are taken over:
 * its last 100, whatever their age, so a quiet endpoint still shows how its last calls went.
 */
const RECENT_DELIVERIES = 100;

/** What a webhook is made of, as a create or a change gives it. */
export interface WebhookFields {
  name: string;
  url: string;
  description: string;
  /** Event types, or ['*'] for all. */
  events: string[];
  enabled: boolean;
}

/** A webhook as the API gives it: never its secret. */
export interface Webhook extends WebhookFields {
  id: number;
  uuid: string;
  /** Why the server disabled it (every delivery failed for 24 hours); '' otherwise. */
  disabled_reason: string;
  created_at: string;
  updated_at: string;
  /** The most recent attempt among its last RECENT_DELIVERIES deliveries, and that delivery's status. */
  last_delivery_at: string | null;
  last_delivery_status: DeliveryStatus | null;
  /** Failed attempts / attempts over its last RECENT_DELIVERIES deliveries (0..1); null before any attempt. */
  failure_rate: number | null;
  /** Its deliveries by status. */
  counts: Record<DeliveryStatus, number>;
}

/** One delivery of an event to a webhook, as the API lists it. */
export interface Delivery {
  id: number;
  event_id: number;
  event_uuid: string;
  type: string;
  status: DeliveryStatus;
  attempts: number;
  response_status: number | null;
  response_ms: number | null;
  /** The start of the last answer's body, as the worker stored it. */
  response_body: string;
  error: string;
  /** When it is tried next (pending and retrying only). */
  next_attempt_at: string | null;
  created_at: string;
  delivered_at: string | null;
  /** When the last attempt was signed and sent. */
  attempted_at: string | null;
}

/** A delivery with its event, whose body the request carries. */
interface DeliveryWithEvent extends Delivery {
  event: { type: string; occurred_at: string; data: string };
}

interface WebhookRow extends Omit<WebhookFields, 'events' | 'enabled'> {
  id: number;
  uuid: string;
  events: string;
  enabled: number;
  disabled_reason: string;
  created_at: string;
  updated_at: string;
}

interface RecentRow {
  status: DeliveryStatus;
  attempts: number;
  attempted_at: string | null;
}

const WEBHOOK_COLUMNS = 'id, uuid, name, url, description, events, enabled, disabled_reason, created_at, updated_at';
const DELIVERY_COLUMNS = `d.id, d.event_id, e.uuid AS event_uuid, e.type, d.status, d.attempts, d.response_status,
  d.response_ms, d.response_body, d.error,
  CASE WHEN d.status IN ('pending', 'retrying') THEN d.next_attempt_at END AS next_attempt_at,
  d.created_at, d.delivered_at, d.attempted_at`;
const NOW = `strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

/**
 * The ids of the newest `:window` deliveries of the webhook `:webhook`, newest first: as many
 * of each status, merged, so that each part is read in the order of the (webhook_id, status,
 * id) index instead of sorting all of the webhook's deliveries (a page of a webhook with 500,000
 * deliveries took 625 ms so; this way well under 1 ms). Callers add their LIMIT and OFFSET.
 */
const NEWEST_IDS = `SELECT id FROM (${DELIVERY_STATUSES.map((s) => `SELECT * FROM (SELECT id FROM webhook_deliveries
  WHERE webhook_id = :webhook AND status = '${s}' ORDER BY id DESC LIMIT :window)`).join(' UNION ALL ')}) ORDER BY id DESC`;

const SQL = {
  all: `SELECT ${WEBHOOK_COLUMNS} FROM webhooks ORDER BY id`,
  byId: `SELECT ${WEBHOOK_COLUMNS} FROM webhooks WHERE id = ?`,
  // From its creation on: the events written before it are not delivered to it.
  insert: `INSERT INTO webhooks (uuid, name, url, description, events, enabled, secret, after_event_id)
    VALUES (:uuid, :name, :url, :description, :events, :enabled, :secret, (SELECT COALESCE(MAX(id), 0) FROM events))`,
  // Enabling a disabled webhook clears why the server disabled it and how long it had been failing.
  update: `UPDATE webhooks SET name = :name, url = :url, description = :description, events = :events, enabled = :enabled,
    disabled_reason = CASE WHEN :enabled = 1 AND enabled = 0 THEN '' ELSE disabled_reason END,
    failing_since = CASE WHEN :enabled = 1 AND enabled = 0 THEN NULL ELSE failing_since END,
    updated_at = ${NOW} WHERE id = :id`,
  delete: 'DELETE FROM webhooks WHERE id = ?',
  // A second rotation within the overlap drops the oldest secret: only the last two sign.
  rotate: `UPDATE webhooks SET previous_secret = secret, previous_secret_until = :until, secret = :secret, updated_at = ${NOW} WHERE id = :id`,
  wantedTypes: `SELECT DISTINCT j.value FROM webhooks w, json_each(w.events) j WHERE w.enabled = 1`,
  counts: 'SELECT status, COUNT(*) AS n FROM webhook_deliveries WHERE webhook_id = ? GROUP BY status',
  recent: `SELECT status, attempts, attempted_at FROM webhook_deliveries WHERE id IN (${NEWEST_IDS} LIMIT :window)`,
  deliveries: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
    WHERE d.id IN (${NEWEST_IDS} LIMIT :limit OFFSET :offset) ORDER BY d.id DESC`,
  deliveriesCount: 'SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = :webhook',
  deliveriesByStatus: `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
    WHERE d.webhook_id = :webhook AND d.status = :status ORDER BY d.id DESC LIMIT :limit OFFSET :offset`,
  deliveriesByStatusCount: 'SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = :webhook AND status = :status',
  delivery: `SELECT ${DELIVERY_COLUMNS}, e.occurred_at, e.data FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
    WHERE d.webhook_id = :webhook AND d.id = :id`,
  retry: `UPDATE webhook_deliveries SET status = 'pending', next_attempt_at = ${NOW}, lease_until = NULL WHERE webhook_id = :webhook AND id = :id`,
  // Right after the change log's INSERT of the event, on the same connection.
  insertForLastEvent: 'INSERT INTO webhook_deliveries (webhook_id, event_id) VALUES (?, last_insert_rowid())',
} as const;

function recentFigures(rows: RecentRow[]): Pick<Webhook, 'last_delivery_at' | 'last_delivery_status' | 'failure_rate'> {
  let attempts = 0;
  let failed = 0;
  let last: RecentRow | null = null;
  for (const r of rows) {
    attempts += r.attempts;
    // Every attempt but a delivered one's last failed.
    failed += r.status === 'delivered' ? r.attempts - 1 : r.attempts;
    if (r.attempted_at !== null && (last === null || r.attempted_at > last.attempted_at!)) last = r;
  }
  return {
    last_delivery_at: last?.attempted_at ?? null,
    last_delivery_status: last?.status ?? null,
    failure_rate: attempts ? failed / attempts : null,
  };
}

export class WebhookStore {
  private readonly sql: Prepare;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  all(): Webhook[] {
    return this.sql<[], WebhookRow>(SQL.all).all().map((r) => this.toWebhook(r));
  }

  get(id: number): Webhook | null {
    const row = this.sql<[number], WebhookRow>(SQL.byId).get(id);
    return row ? this.toWebhook(row) : null;
  }

  create(f: WebhookFields, secret: string): Webhook {
    const r = this.sql(SQL.insert).run({ ...this.params(f), uuid: randomUUID(), secret });
    return this.get(Number(r.lastInsertRowid))!;
  }

  /** Replaces its fields; false when there is no such webhook. */
  update(id: Authorized<number>, f: WebhookFields): boolean {
    return this.sql(SQL.update).run({ ...this.params(f), id }).changes > 0;
  }

  /** Deletes it and its deliveries; false when there was none. */
  delete(id: Authorized<number>): boolean {
    return this.sql(SQL.delete).run(id).changes > 0;
  }

  /** Signs with `secret` from now on, and with the one it replaces until `until`; false when there is no such webhook. */
  rotateSecret(id: Authorized<number>, secret: string, until: string): boolean {
    return this.sql(SQL.rotate).run({ id, secret, until }).changes > 0;
  }

  /** The event types the enabled webhooks receive ('*' among them when one takes all). */
  wantedTypes(): Set<string> {
    return new Set(this.sql(SQL.wantedTypes).pluck().all() as string[]);
  }

  /** A page of a webhook's deliveries, newest first, of one status or all. */
  deliveries(webhook: number, status: DeliveryStatus | undefined, paging: Paging): { results: Delivery[]; total: number } {
    const page = { webhook, limit: paging.limit, offset: paging.offset };
    if (status) {
      return {
        results: this.sql<[object], Delivery>(SQL.deliveriesByStatus).all({ ...page, status }),
        total: this.sql(SQL.deliveriesByStatusCount).pluck().get({ webhook, status }) as number,
      };
    }
    // Every status's newest up to the end of the page (or all of them, for per_page=all).
    const window = paging.limit < 0 ? -1 : paging.offset + paging.limit;
    return {
      results: this.sql<[object], Delivery>(SQL.deliveries).all({ ...page, window }),
      total: this.sql(SQL.deliveriesCount).pluck().get({ webhook }) as number,
    };
  }

  delivery(webhook: number, id: number): DeliveryWithEvent | null {
    const row = this.sql<[object], Delivery & { occurred_at: string; data: string }>(SQL.delivery).get({ webhook, id });
    if (!row) return null;
    const { occurred_at, data, ...delivery } = row;
    return { ...delivery, event: { type: row.type, occurred_at, data } };
  }

  /** Makes a delivery due now (pending, its lease cleared); false when the webhook has no such delivery. */
  retry(webhook: Authorized<number>, id: number): boolean {
    return this.sql(SQL.retry).run({ webhook, id }).changes > 0;
  }

  /**
   * In one transaction: records an event through `recordEvent` (the change log's INSERT) and a
   * delivery of it to this webhook alone. Returns the delivery's id.
   */
  insertDeliveryOfNewEvent(webhook: Authorized<number>, recordEvent: () => void): number {
    return this.db.transaction(() => {
      recordEvent();
      return Number(this.sql(SQL.insertForLastEvent).run(webhook).lastInsertRowid);
    }).immediate();
  }

  private params(f: WebhookFields) {
    return { name: f.name, url: f.url, description: f.description, events: JSON.stringify(f.events), enabled: f.enabled ? 1 : 0 };
  }

  private toWebhook(r: WebhookRow): Webhook {
    const counts: Record<DeliveryStatus, number> = { pending: 0, delivered: 0, retrying: 0, failed: 0 };
    for (const c of this.sql<[number], { status: DeliveryStatus; n: number }>(SQL.counts).all(r.id)) counts[c.status] = c.n;
    return {
      id: r.id,
      uuid: r.uuid,
      name: r.name,
      url: r.url,
      description: r.description,
      events: JSON.parse(r.events) as string[],
      enabled: r.enabled === 1,
      disabled_reason: r.disabled_reason,
      created_at: r.created_at,
      updated_at: r.updated_at,
      ...recentFigures(this.sql<[object], RecentRow>(SQL.recent).all({ webhook: r.id, window: RECENT_DELIVERIES })),
      counts,
    };
  }
}
