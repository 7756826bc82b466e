// /api/bounces (list, get, delete, blocklist), the bounce webhook POST /webhooks/bounce and the
// provider webhooks POST /webhooks/service/{ses|sendgrid|postmark|forwardemail|azure|lettermint}.
// The switches (bounce.enabled, bounce.webhooks_enabled, each provider's) are read on every request.
import type { Context, MiddlewareHandler } from 'hono';
import { ok, pageResults } from '../http/envelope.ts';
import { invalid, notFound } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';
import { orderByQuery, orderQuery, pagingQuery } from '../http/paging.ts';
import { parsePaging } from '../core/paging.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, isUuid, pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import type { SettingsService } from '../settings/service.ts';
import { validateEmail, type DomainRules } from '../mail/address.ts';
import type { BounceService } from './service.ts';
import { BOUNCE_ORDER_COLUMNS, BOUNCE_TYPES, type BounceInput } from './store.ts';

interface Deps {
  bounces: BounceService;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const BOUNCE_ROUTES = [
  route({ method: 'GET', path: '/bounces', access: 'bounces:get', handler: queryBounces, query: bounceQuery, summary: 'Bounce records, paged, by campaign, source or type' }),
  route({ method: 'GET', path: '/bounces/scan', access: ['bounces:get', 'settings:get'], handler: lastScan, summary: 'The last scan of the bounce mailbox since the server started (when, what it found, or its error); null before the first' }),
  route({ method: 'POST', path: '/bounces/scan', access: ['bounces:manage', 'settings:manage'], handler: scanNow, summary: 'Scans the bounce mailbox now, with the saved settings, and answers the scan\'s record (a failing mailbox is `ok: false` with its error); 400 when no mailbox is enabled' }),
  route({ method: 'GET', path: '/bounces/:id', access: 'bounces:get', handler: getBounce, summary: 'One bounce record' }),
  route({ method: 'DELETE', path: '/bounces', access: 'bounces:manage', handler: deleteBounces, query: deleteQuery, summary: 'Deletes bounce records by id, or all of them' }),
  route({ method: 'DELETE', path: '/bounces/:id', access: 'bounces:manage', handler: deleteBounce, summary: 'Deletes one bounce record' }),
  route({ method: 'PUT', path: '/bounces/blocklist', access: 'bounces:manage', handler: blocklistBounced, summary: 'Blocklists every subscriber with a bounce record and unsubscribes them from every list' }),
];

/** Mounted on the root app, behind `webhookGate`. */
export const BOUNCE_WEBHOOK_ROUTES = [
  route({ method: 'POST', path: '/webhooks/bounce', access: 'webhooks:post_bounce', handler: postBounce, body: bounceWebhookInput, summary: 'Records a bounce reported by a mail server or script' }),
  route({
    method: 'POST', path: '/webhooks/service/:service', access: 'public', handler: postProviderNotification,
    describedBody: { contentType: 'application/json' },
    summary: 'Records the bounces in a provider\'s notification (SES, SendGrid, Postmark, ForwardEmail, Azure, Lettermint), verified as that provider signs it; an Event Grid subscription check is answered with its validationResponse',
  }),
];

/**
 * What runs before the webhook table: while bounce.webhooks_enabled is off the webhooks answer
 * 404, as if absent (listmonk registers them only when on).
 */
export function webhookGate(settings: SettingsService): MiddlewareHandler<AppEnv> {
  return async (_c, next) => {
    if (!settings.bool('bounce.webhooks_enabled')) throw notFound('bounce webhooks are disabled (bounce.webhooks_enabled)');
    await next();
  };
}

/**
 * A bounce concerns an address we already mailed: the domain allow/block lists decide who may
 * subscribe, not whose bounces count (listmonk refuses bounces of blocklisted domains).
 */
const ANY_DOMAIN: DomainRules = { allow: [], block: [] };

function bounceQuery() {
  return z.object({
    // Anything but an id is ignored, as listmonk does.
    campaign_id: q.first({ type: 'integer', minimum: 0 }, (v) => (/^\d{1,15}$/.test(v ?? '') ? Number(v) : undefined)),
    source: q.str(),
    type: q.enum(BOUNCE_TYPES),
    order_by: orderByQuery(BOUNCE_ORDER_COLUMNS, 'b.created_at'),
    order: orderQuery(),
    ...pagingQuery,
  }).meta({ id: 'BounceQuery' });
}

function deleteQuery() {
  return z.object({ id: q.ids(), all: q.bool() });
}

/** The body of POST /webhooks/bounce: email or subscriber_uuid, type, and optionally campaign_uuid, source, meta, created_at. */
function bounceWebhookInput() {
  return z.object({
    email: f.optString(),
    subscriber_uuid: f.optString(),
    type: f.reqEnum(BOUNCE_TYPES),
    meta: f.optObject(),
    created_at: f.optString(),
    campaign_uuid: f.optString(),
    source: f.optString({ maxBytes: LIMITS.bounceSource }),
  }).meta({ id: 'BounceWebhookInput' }).transform((b): BounceInput => {
    const subscriberUuid = b.subscriber_uuid ?? '';
    if (!b.email && !subscriberUuid) throw invalid('"email" or "subscriber_uuid" is required');
    if (subscriberUuid && !isUuid(subscriberUuid)) throw invalid('invalid "subscriber_uuid": not a UUID');
    let createdAt: string | undefined;
    if (b.created_at) {
      const d = new Date(b.created_at);
      if (Number.isNaN(d.getTime())) throw invalid('invalid "created_at": expected an ISO 8601 timestamp');
      createdAt = d.toISOString();
    }
    return {
      email: b.email ? validateEmail(b.email, ANY_DOMAIN) : undefined,
      subscriberUuid: subscriberUuid.toLowerCase() || undefined,
      campaignUuid: b.campaign_uuid || undefined,
      type: b.type,
      source: b.source ?? '',
      meta: b.meta ?? {},
      createdAt,
    };
  });
}

function queryBounces(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof bounceQuery>>) {
  const paging = parsePaging(p);
  const { results, total } = s.bounces.query(c.get('user'), { campaignId: p.campaign_id, source: p.source ?? '', type: p.type, orderBy: p.order_by, order: p.order, paging });
  return ok(c, pageResults(results, total, paging, { zeroWhenEmpty: true }));
}

function lastScan(c: C, s: Deps) {
  return ok(c, s.bounces.lastScan(c.get('user')));
}

async function scanNow(c: C, s: Deps) {
  return ok(c, await s.bounces.scanNow(c.get('user')));
}

function getBounce(c: C, s: Deps) {
  return ok(c, s.bounces.get(c.get('user'), pathId(c)));
}

function deleteBounces(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof deleteQuery>>) {
  s.bounces.deleteMany(c.get('user'), { ids: p.id, all: p.all === true });
  return ok(c, true);
}

function deleteBounce(c: C, s: Deps) {
  s.bounces.delete(c.get('user'), pathId(c));
  return ok(c, true);
}

function blocklistBounced(c: C, s: Deps) {
  s.bounces.blocklistBounced(c.get('user'));
  return ok(c, true);
}

function postBounce(c: C, s: Deps, { body }: Input<ReturnType<typeof bounceWebhookInput>, undefined>) {
  s.bounces.recordPosted(c.get('user'), body);
  return ok(c, true);
}

/** The provider verifies the raw bytes it signed, so the body is handed over unparsed. */
async function postProviderNotification(c: C, s: Deps) {
  const raw = Buffer.from(await c.req.arrayBuffer());
  const reply = await s.bounces.receive(c.req.param('service') ?? '', { raw, header: (n) => c.req.header(n), query: (n) => c.req.query(n) });
  return reply ? c.json(reply) : ok(c, true);
}
