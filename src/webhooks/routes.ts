// /api/webhooks: the endpoints the change log's events are posted to, their secrets and their
// deliveries. Every route takes webhooks:manage (webhooks are settings-level).
import type { Context } from 'hono';
import { ok, pageResults } from '../http/envelope.ts';
import { LIMITS } from '../core/limits.ts';
import { pagingQuery } from '../http/paging.ts';
import { parsePaging } from '../core/paging.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { DELIVERY_STATUSES, type WebhookService } from './service.ts';

interface Deps {
  webhooks: WebhookService;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const WEBHOOK_ROUTES = [
  route({ method: 'GET', path: '/webhooks', access: 'webhooks:manage', handler: listWebhooks, summary: 'listmgr: the webhooks (never their secrets), each with its deliveries counted by status, and over its last 100 deliveries its latest attempt and failure rate (failed attempts / attempts)' }),
  route({ method: 'POST', path: '/webhooks', access: 'webhooks:manage', handler: createWebhook, body: webhookInput, summary: 'listmgr: creates a webhook; the answer holds its signing secret (whsec_…), shown this once' }),
  route({ method: 'GET', path: '/webhooks/:id', access: 'webhooks:manage', handler: getWebhook, summary: 'listmgr: one webhook' }),
  route({ method: 'PUT', path: '/webhooks/:id', access: 'webhooks:manage', handler: updateWebhook, body: webhookChanges, summary: 'listmgr: changes a webhook (fields not given keep their value); enabling it clears why it was disabled' }),
  route({ method: 'DELETE', path: '/webhooks/:id', access: 'webhooks:manage', handler: deleteWebhook, summary: 'listmgr: deletes a webhook and its deliveries' }),
  route({ method: 'POST', path: '/webhooks/:id/secret', access: 'webhooks:manage', handler: rotateSecret, summary: 'listmgr: a new signing secret, shown this once; the old one keeps signing, as a second signature, for 24 hours' }),
  route({ method: 'POST', path: '/webhooks/:id/test', access: 'webhooks:manage', handler: testWebhook, summary: 'listmgr: sends a webhook.test event to this webhook now and answers its delivery after the attempt' }),
  route({ method: 'GET', path: '/webhooks/:id/deliveries', access: 'webhooks:manage', handler: listDeliveries, query: deliveryQuery, summary: 'listmgr: a webhook\'s deliveries, newest first, paged, by status' }),
  route({ method: 'GET', path: '/webhooks/:id/deliveries/:delivery_id', access: 'webhooks:manage', handler: getDelivery, summary: 'listmgr: one delivery, with the request it sends (its body, and its headers but the signature)' }),
  route({ method: 'POST', path: '/webhooks/:id/deliveries/:delivery_id/retry', access: 'webhooks:manage', handler: retryDelivery, summary: 'listmgr: makes a delivery due now, whatever its status, and answers it' }),
];

const EVENTS_HINT = ' (event types, or ["*"] for all)';

function webhookInput() {
  return z.object({
    name: f.reqString({ maxBytes: LIMITS.name }),
    url: f.reqString(),
    events: f.reqStringArray(EVENTS_HINT),
    enabled: f.optBool(),
    description: f.optString({ maxBytes: LIMITS.name }),
  }).meta({ id: 'WebhookInput' });
}

/** A PUT: every field optional (absent keeps the stored value), unlike a create. */
function webhookChanges() {
  return z.object({
    name: f.optString({ maxBytes: LIMITS.name }),
    url: f.optString(),
    events: f.optStringArray(),
    enabled: f.optBool(),
    description: f.optString({ maxBytes: LIMITS.name }),
  }).meta({ id: 'WebhookChanges' });
}

function deliveryQuery() {
  return z.object({ status: q.enum(DELIVERY_STATUSES), ...pagingQuery }).meta({ id: 'DeliveryQuery' });
}

function listWebhooks(c: C, s: Deps) {
  return ok(c, s.webhooks.list(c.get('user')));
}

function createWebhook(c: C, s: Deps, { body }: Input<ReturnType<typeof webhookInput>, undefined>) {
  return ok(c, s.webhooks.create(c.get('user'), body));
}

function getWebhook(c: C, s: Deps) {
  return ok(c, s.webhooks.get(c.get('user'), pathId(c)));
}

function updateWebhook(c: C, s: Deps, { body }: Input<ReturnType<typeof webhookChanges>, undefined>) {
  return ok(c, s.webhooks.update(c.get('user'), pathId(c), body));
}

function deleteWebhook(c: C, s: Deps) {
  s.webhooks.delete(c.get('user'), pathId(c));
  return ok(c, true);
}

function rotateSecret(c: C, s: Deps) {
  return ok(c, s.webhooks.rotateSecret(c.get('user'), pathId(c)));
}

async function testWebhook(c: C, s: Deps) {
  return ok(c, await s.webhooks.test(c.get('user'), pathId(c)));
}

function listDeliveries(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof deliveryQuery>>) {
  const paging = parsePaging(p);
  const { results, total } = s.webhooks.deliveries(c.get('user'), pathId(c), p.status, paging);
  return ok(c, { ...pageResults(results, total, paging), query: undefined, search: undefined });
}

function getDelivery(c: C, s: Deps) {
  return ok(c, s.webhooks.delivery(c.get('user'), pathId(c), pathId(c, 'delivery_id')));
}

function retryDelivery(c: C, s: Deps) {
  return ok(c, s.webhooks.retry(c.get('user'), pathId(c), pathId(c, 'delivery_id')));
}
