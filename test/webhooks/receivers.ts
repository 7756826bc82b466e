// What the webhook tests share: real HTTP receivers on the loopback that record what arrives and
// answer as a test tells them, webhooks written straight into the table (the API has tests of
// its own), and events recorded through the change log as a store records them.
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { DB } from '../../src/db/connection.ts';
import type { EventLog } from '../../src/events/log.ts';
import type { EventType } from '../../src/events/types.ts';

export interface Received {
  /** The path and query it was sent to. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** How a receiver answers the n-th request (0-based): a status, or 'hang' to never answer. */
export type Answer = (r: Received, n: number) => number | 'hang';

export interface Receiver {
  url: string;
  received: Received[];
  /** Changes how it answers from now on. */
  answer(fn: Answer): void;
  /** The webhook-ids received, in order (repeats included). */
  ids(): string[];
  close(): Promise<void>;
}

export async function startReceiver(answer: Answer = () => 200): Promise<Receiver> {
  const received: Received[] = [];
  const hanging = new Set<ServerResponse>();
  let answerWith = answer;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = { url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      const status = answerWith(r, received.length);
      received.push(r);
      if (status === 'hang') hanging.add(res);
      else res.writeHead(status, { 'content-type': 'text/plain' }).end(`answered ${status}`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    answer: (fn) => (answerWith = fn),
    ids: () => received.map((r) => String(r.headers['webhook-id'])),
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A Standard Webhooks secret: whsec_ + base64 of 32 random bytes. */
export const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

export interface WebhookRow {
  url: string;
  events?: string[];
  enabled?: boolean;
  secret?: string;
  previous_secret?: string | null;
  previous_secret_until?: string | null;
  /** Default: the log's last event (it receives the events recorded after it). */
  after_event_id?: number;
}

/** Inserts a webhook; answers its id and secret. */
export function addWebhook(db: DB, w: WebhookRow): { id: number; secret: string } {
  const secret = w.secret ?? newSecret();
  const after = w.after_event_id ?? (db.prepare('SELECT coalesce(max(id), 0) FROM events').pluck().get() as number);
  const { id } = db.prepare(`INSERT INTO webhooks (uuid, name, url, events, enabled, secret, previous_secret, previous_secret_until, after_event_id)
    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`).get(randomUUID(), `hook ${w.url}`, w.url, JSON.stringify(w.events ?? ['*']), w.enabled === false ? 0 : 1,
    secret, w.previous_secret ?? null, w.previous_secret_until ?? null, after) as { id: number };
  return { id, secret };
}

/** Records an event in a transaction of its own, as a store records its change's; answers its id and uuid. */
export function recordEvent(db: DB, events: EventLog, type: EventType, data: Record<string, unknown> = {}): { id: number; uuid: string } {
  return db.transaction(() => {
    events.record(type, data);
    return db.prepare('SELECT id, uuid FROM events ORDER BY id DESC LIMIT 1').get() as { id: number; uuid: string };
  })();
}

export interface DeliveryRow {
  id: number;
  webhook_id: number;
  event_id: number;
  status: string;
  attempts: number;
  response_status: number | null;
  response_body: string;
  error: string;
  lease_until: string | null;
  delivered_at: string | null;
}

export function deliveriesOf(db: DB, webhook: number): DeliveryRow[] {
  return db.prepare('SELECT * FROM webhook_deliveries WHERE webhook_id = ? ORDER BY id').all(webhook) as DeliveryRow[];
}
