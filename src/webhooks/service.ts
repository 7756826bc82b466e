// Webhooks: the endpoints listmgr signs and posts the change log's events to, their secrets, and
// their deliveries as the API shows them. Everything here takes webhooks:manage. The service is
// also the webhooks' consumer of the log: it tells it which event types enabled webhooks want,
// so the per-subscriber events of bulk changes are written only while someone receives them.
import { randomBytes } from 'node:crypto';
import { authorize, can, type Actor, type Authorized } from '../core/authz.ts';
import { denied, invalid, notFound } from '../core/errors.ts';
import type { Paging } from '../core/paging.ts';
import type { EventLog } from '../events/log.ts';
import { isEventType } from '../events/types.ts';
import { eventBody, unsignedHeaders } from './body.ts';
import type { Delivery, DeliveryStatus, Webhook, WebhookFields, WebhookStore } from './store.ts';

export { DELIVERY_STATUSES, type Delivery, type DeliveryStatus, type Webhook } from './store.ts';

/** How long a rotated-out secret keeps signing, as a second signature: receivers switch meanwhile. */
export const SECRET_OVERLAP_MS = 24 * 3_600_000;
const NAME_CHARS = 200;
const URL_CHARS = 2000;

/** What the service needs of the delivery worker: one delivery sent now, resolving after the attempt. */
export interface DeliveryWorker {
  deliverNow(deliveryId: number): Promise<void>;
  /** Calls `listener` after the worker disabled webhooks that kept failing. */
  onDisabled(listener: () => void): void;
}

/** A create's fields; absent ones take their defaults. */
export interface WebhookInput {
  name: string;
  url: string;
  events: string[];
  enabled?: boolean;
  description?: string;
}

/** A change: fields not given keep their value. */
export type WebhookChanges = Partial<WebhookInput>;

/** A webhook with its secret: the answer of a create and of a rotation, the only ones that show it. */
export type WebhookWithSecret = Webhook & { secret: string; previous_secret_until?: string };

/** One delivery with the request it sends: the body as signed, and the headers but the signature. */
export interface DeliveryDetail extends Delivery {
  request: { body: string; headers: Record<string, string> };
}

/** A new secret: `whsec_` + base64 of 32 random bytes (Standard Webhooks asks for 24 to 64). */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

const chars = (s: string) => [...s].length;

function checkName(name: string): string {
  if (!name) throw invalid('"name" is required');
  if (chars(name) > NAME_CHARS) throw invalid(`invalid "name": longer than ${NAME_CHARS} characters`);
  return name;
}

/** An absolute http(s) URL without credentials (the signature is how a receiver knows us). */
function checkUrl(url: string): string {
  if (chars(url) > URL_CHARS) throw invalid(`invalid "url": longer than ${URL_CHARS} characters`);
  const parsed = /^https?:\/\//i.test(url) ? URL.parse(url) : null;
  if (!parsed?.hostname) throw invalid(`invalid "url": expected an absolute http:// or https:// URL`);
  if (parsed.username || parsed.password) throw invalid('invalid "url": must not hold a user name or password');
  return url;
}

/** Known event types without repeats, or exactly ['*'] (all of them). */
function checkEvents(events: string[]): string[] {
  if (!events.length) throw invalid('"events" is required: event types, or ["*"] for all');
  if (events.includes('*')) {
    if (events.length > 1) throw invalid('invalid "events": "*" (every event) stands alone');
    return ['*'];
  }
  const unknown = events.find((t) => !isEventType(t));
  if (unknown !== undefined) throw invalid(`invalid "events": unknown event type "${unknown.slice(0, 100)}"`);
  return [...new Set(events)];
}

export class WebhookService {
  /** The event types enabled webhooks receive: read again on each change of a webhook. */
  private wanted: ReadonlySet<string>;

  constructor(private readonly store: WebhookStore, private readonly events: EventLog, private readonly worker: DeliveryWorker) {
    this.wanted = store.wantedTypes();
    events.addConsumer(() => this.wanted);
    worker.onDisabled(() => { this.wanted = this.store.wantedTypes(); });
  }

  /** Whether the actor may manage webhooks: the check of everything below. */
  manages(actor: Actor): boolean {
    return can(actor, 'webhooks:manage');
  }

  list(actor: Actor): Webhook[] {
    this.check(actor);
    return this.store.all();
  }

  get(actor: Actor, id: number): Webhook {
    this.check(actor);
    return this.existing(id);
  }

  create(actor: Actor, input: WebhookInput): WebhookWithSecret {
    this.check(actor);
    const fields: WebhookFields = {
      name: checkName(input.name),
      url: checkUrl(input.url),
      events: checkEvents(input.events),
      enabled: input.enabled ?? true,
      description: input.description ?? '',
    };
    const secret = newSecret();
    const created = this.store.create(fields, secret);
    this.wanted = this.store.wantedTypes();
    return { ...created, secret };
  }

  update(actor: Actor, id: number, changes: WebhookChanges): Webhook {
    const checked = this.authorize(actor, id);
    const cur = this.existing(id);
    this.store.update(checked, {
      name: changes.name === undefined ? cur.name : checkName(changes.name),
      url: changes.url === undefined ? cur.url : checkUrl(changes.url),
      events: changes.events === undefined ? cur.events : checkEvents(changes.events),
      enabled: changes.enabled ?? cur.enabled,
      description: changes.description ?? cur.description,
    });
    this.wanted = this.store.wantedTypes();
    return this.existing(id);
  }

  delete(actor: Actor, id: number): void {
    if (!this.store.delete(this.authorize(actor, id))) throw notFound(`webhook ${id} not found`);
    this.wanted = this.store.wantedTypes();
  }

  /** A new secret; the one it replaces keeps signing, as a second signature, for SECRET_OVERLAP_MS. */
  rotateSecret(actor: Actor, id: number): WebhookWithSecret {
    const secret = newSecret();
    const until = new Date(Date.now() + SECRET_OVERLAP_MS).toISOString();
    if (!this.store.rotateSecret(this.authorize(actor, id), secret, until)) throw notFound(`webhook ${id} not found`);
    return { ...this.existing(id), secret, previous_secret_until: until };
  }

  deliveries(actor: Actor, id: number, status: DeliveryStatus | undefined, paging: Paging): { results: Delivery[]; total: number } {
    this.check(actor);
    this.existing(id);
    return this.store.deliveries(id, status, paging);
  }

  delivery(actor: Actor, id: number, deliveryId: number): DeliveryDetail {
    this.check(actor);
    const found = this.store.delivery(id, deliveryId);
    if (!found) throw notFound(`delivery ${deliveryId} of webhook ${id} not found`);
    const { event, ...delivery } = found;
    const signedAt = delivery.attempted_at ? Math.floor(Date.parse(delivery.attempted_at) / 1000) : null;
    return { ...delivery, request: { body: eventBody(event), headers: unsignedHeaders(delivery.event_uuid, signedAt) } };
  }

  /** Makes a delivery due now: pending, its lease cleared (a manual retry, whatever its status). */
  retry(actor: Actor, id: number, deliveryId: number): DeliveryDetail {
    if (!this.store.retry(this.authorize(actor, id), deliveryId)) throw notFound(`delivery ${deliveryId} of webhook ${id} not found`);
    return this.delivery(actor, id, deliveryId);
  }

  /**
   * Records a `webhook.test` event and its delivery to this webhook alone (the dispatcher leaves
   * test events to this), sends it now and answers the delivery after the attempt.
   */
  async test(actor: Actor, id: number): Promise<DeliveryDetail> {
    const checked = this.authorize(actor, id);
    const webhook = this.existing(id);
    const deliveryId = this.store.insertDeliveryOfNewEvent(checked, () => this.events.record('webhook.test', {
      webhook: { id: webhook.id, name: webhook.name },
      message: 'A test event sent from listmgr: no change behind it.',
    }));
    await this.worker.deliverNow(deliveryId);
    return this.delivery(actor, id, deliveryId);
  }

  private existing(id: number): Webhook {
    const webhook = this.store.get(id);
    if (!webhook) throw notFound(`webhook ${id} not found`);
    return webhook;
  }

  private check(actor: Actor): void {
    if (!this.manages(actor)) throw denied('permission denied: webhooks:manage');
  }

  /** The webhook's id, branded for the store's changes, once the actor may manage webhooks. */
  private authorize(actor: Actor, id: number): Authorized<number> {
    return authorize(id, () => this.manages(actor), () => denied('permission denied: webhooks:manage'));
  }
}
