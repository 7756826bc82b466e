// /api/bounces (list, get, delete, blocklist), the bounce webhook POST /webhooks/bounce and the
// provider webhooks POST /webhooks/service/{ses|sendgrid|postmark|forwardemail|azure|lettermint}.
// The switches (bounce.enabled, bounce.webhooks_enabled, each provider's) are read on every request.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { Services } from '../services.ts';
import { readJson } from '../http/body.ts';
import { ok, pageResults } from '../http/envelope.ts';
import { HttpError, badRequest, notFound } from '../http/errors.ts';
import { parseOrder, parseOrderBy, parsePaging } from '../http/paging.ts';
import type { AppEnv } from '../http/types.ts';
import { isUuid, optObject, optString, parseBool, pathId, queryIds, reqEnum } from '../http/validate.ts';
import { validateEmail, type DomainRules } from '../subscribers/email.ts';
import { BOUNCE_ORDER_COLUMNS, BOUNCE_TYPES, type BounceInput } from './store.ts';

/** Largest webhook body (SendGrid and Event Grid post batches of events). */
const MAX_WEBHOOK_BODY = 10 * 1024 * 1024;
/**
 * A bounce concerns an address we already mailed: the domain allow/block lists decide who may
 * subscribe, not whose bounces count (listmonk refuses bounces of blocklisted domains).
 */
const ANY_DOMAIN: DomainRules = { allow: [], block: [] };

export function registerBounceRoutes(app: Hono<AppEnv>, api: Hono<AppEnv>, ctx: Services): void {
  const { guard, settings } = ctx;
  const bounces = ctx.bounces;
  const store = bounces.store;

  api.get('/bounces', guard('bounces:get'), (c) => {
    const q = c.req.query();
    const paging = parsePaging(q);
    const campaignId = /^\d{1,15}$/.test(q.campaign_id ?? '') ? Number(q.campaign_id) : undefined; // invalid: ignored, as listmonk
    const orderBy = parseOrderBy(q.order_by, BOUNCE_ORDER_COLUMNS, 'b.created_at');
    const { results, total } = store.query({ campaignId, source: q.source ?? '' }, paging, orderBy, parseOrder(q.order));
    return ok(c, pageResults(results, total, paging, { zeroWhenEmpty: true }));
  });

  api.get('/bounces/:id', guard('bounces:get'), (c) => {
    const b = store.get(pathId(c));
    if (!b) throw notFound('bounce not found');
    return ok(c, b);
  });

  api.delete('/bounces', guard('bounces:manage'), (c) => {
    const all = parseBool(c.req.query('all')) === true;
    const ids = queryIds(c, 'id');
    if (!all && !ids.length) throw badRequest('give bounce ids (?id=1&id=2) or all=true');
    const n = all ? store.deleteAll() : store.deleteMany(ids);
    ctx.log.info(`${n} bounce(s) deleted by ${c.get('user').username}`);
    return ok(c, true);
  });

  api.delete('/bounces/:id', guard('bounces:manage'), (c) => {
    if (!store.delete(pathId(c))) throw notFound('bounce not found');
    return ok(c, true);
  });

  api.put('/bounces/blocklist', guard('bounces:manage'), (c) => {
    const n = store.blocklistBounced();
    ctx.log.info(`${n} bounced subscriber(s) blocklisted by ${c.get('user').username}`);
    return ok(c, true);
  });

  // --- webhooks (root routes) ---

  const webhooksOn: MiddlewareHandler<AppEnv> = async (_c, next) => {
    if (!settings.bool('bounce.webhooks_enabled')) throw notFound('bounce webhooks are disabled (bounce.webhooks_enabled)');
    await next();
  };
  const bouncesOn: MiddlewareHandler<AppEnv> = async (_c, next) => {
    if (!settings.bool('bounce.enabled')) throw new HttpError(503, 'bounce processing is disabled (bounce.enabled)');
    await next();
  };
  const limit = bodyLimit({
    maxSize: MAX_WEBHOOK_BODY,
    onError: (c) => c.json({ message: `request body too large (limit ${MAX_WEBHOOK_BODY / 1024 / 1024} MB)` }, 413),
  });

  app.post('/webhooks/bounce', webhooksOn, guard('webhooks:post_bounce'), bouncesOn, limit, async (c) => {
    bounces.record(await webhookBounce(c));
    return ok(c, true);
  });

  app.post('/webhooks/service/:service', webhooksOn, bouncesOn, limit, async (c) => {
    const raw = Buffer.from(await c.req.arrayBuffer());
    const reply = await bounces.receive(c.req.param('service'), { raw, header: (n) => c.req.header(n), query: (n) => c.req.query(n) });
    return reply ? c.json(reply) : ok(c, true);
  });
}

/** The body of POST /webhooks/bounce: email or subscriber_uuid, type, and optionally campaign_uuid, source, meta, created_at. */
async function webhookBounce(c: Context<AppEnv>): Promise<BounceInput> {
  const body = await readJson(c);
  const rawEmail = optString(body, 'email') ?? '';
  const subscriberUuid = optString(body, 'subscriber_uuid') ?? '';
  if (!rawEmail && !subscriberUuid) throw badRequest('"email" or "subscriber_uuid" is required');
  if (subscriberUuid && !isUuid(subscriberUuid)) throw badRequest('invalid "subscriber_uuid": not a UUID');
  const email = rawEmail ? validateEmail(rawEmail, ANY_DOMAIN) : undefined;
  const type = reqEnum(body, 'type', BOUNCE_TYPES);
  const meta = optObject(body, 'meta') ?? {};
  const createdRaw = optString(body, 'created_at');
  let createdAt: string | undefined;
  if (createdRaw) {
    const d = new Date(createdRaw);
    if (Number.isNaN(d.getTime())) throw badRequest('invalid "created_at": expected an ISO 8601 timestamp');
    createdAt = d.toISOString();
  }
  return {
    email,
    subscriberUuid: subscriberUuid.toLowerCase() || undefined,
    campaignUuid: optString(body, 'campaign_uuid') || undefined,
    type,
    source: optString(body, 'source', { maxBytes: 200 }) ?? '',
    meta,
    createdAt,
  };
}
