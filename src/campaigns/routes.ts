// /api/campaigns: handlers parse, call the service, answer.
import type { Context, Hono } from 'hono';
import type { Services } from '../services.ts';
import { ContentConversionError, convertContent } from '../content/convert.ts';
import { readBody, readJson } from '../http/body.ts';
import { ok, pageResults } from '../http/envelope.ts';
import { badRequest } from '../http/errors.ts';
import { parseOrder, parseOrderBy, parsePaging } from '../http/paging.ts';
import { sendPreview } from '../http/preview.ts';
import type { AppEnv } from '../http/types.ts';
import { optInt, optObject, optString, parseBool, pathId, queryIds } from '../http/validate.ts';
import { CAMPAIGN_ORDER_BY, toJson } from './store.ts';

const GET = ['campaigns:get_all', 'campaigns:get'] as const;
const MANAGE = ['campaigns:manage_all', 'campaigns:manage'] as const;

export function registerCampaignsRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const { campaigns: service, campaignStore: campaigns } = ctx;

  api.get('/campaigns', ctx.guard(GET), (c) => {
    const q = c.req.query();
    const paging = parsePaging(q);
    const statuses = c.req.queries('status') ?? [];
    for (const s of statuses) if (!service.isStatus(s)) throw badRequest(`invalid "status": "${s}"`);
    const tags = [...(c.req.queries('tag') ?? []), ...(c.req.queries('tags') ?? [])].filter(Boolean);
    const search = (q.query ?? '').trim();
    const { rows, total } = campaigns.list({
      statuses, tags, search, visibleLists: service.visibleLists(c.get('user'), 'get'),
      orderBy: parseOrderBy(q.order_by, CAMPAIGN_ORDER_BY, 'created_at'), order: parseOrder(q.order),
      limit: paging.limit, offset: paging.offset,
    });
    const noBody = parseBool(q.no_body) === true;
    return ok(c, pageResults(rows.map((r) => toJson(r, noBody)), total, paging, { query: search, zeroWhenEmpty: true }));
  });

  api.get('/campaigns/running/stats', ctx.guard(GET), (c) => {
    const raw = c.req.query('campaign_id');
    if (raw !== undefined && raw !== '' && !/^\d+$/.test(raw)) throw badRequest('invalid "campaign_id": expected an integer');
    return ok(c, service.runningStats(raw ? Number(raw) : null));
  });

  api.get('/campaigns/analytics/:type', ctx.guard('campaigns:get_analytics'), (c) =>
    ok(c, service.analytics(c.get('user'), c.req.param('type'), queryIds(c, 'id'), c.req.query('from'), c.req.query('to'))));

  api.get('/campaigns/:id', ctx.guard(GET), (c) => {
    const id = pathId(c);
    service.access(c.get('user'), id, 'get');
    return ok(c, service.json(id, parseBool(c.req.query('no_body')) === true));
  });

  const preview = async (c: Context<AppEnv>) => {
    const campaign = service.access(c.get('user'), pathId(c), 'get');
    const b = c.req.method === 'POST' ? await readBody(c) : c.req.query();
    const p = service.preview(campaign, {
      body: optString(b, 'body', { trim: false }), contentType: optString(b, 'content_type'), templateId: optInt(b, 'template_id'),
    });
    return sendPreview(c, p.body, p.contentType === 'plain' ? 'plain' : 'html');
  };
  api.get('/campaigns/:id/preview', ctx.guard(GET), preview);
  api.post('/campaigns/:id/preview', ctx.guard(GET), preview);
  api.post('/campaigns/:id/text', ctx.guard(GET), preview);

  api.post('/campaigns/:id/preview/archive', ctx.guard(GET), async (c) => {
    const campaign = service.access(c.get('user'), pathId(c), 'get');
    const b = await readBody(c);
    // A form sends archive_meta as JSON text; a JSON body may send the object itself.
    let meta = b.archive_meta;
    if (typeof meta === 'string') {
      try {
        meta = meta.trim() === '' ? undefined : JSON.parse(meta);
      } catch {
        throw badRequest('invalid "archive_meta": not valid JSON');
      }
    }
    return sendPreview(c, service.previewArchive(campaign, optInt(b, 'template_id'), optObject({ archive_meta: meta }, 'archive_meta')));
  });

  api.post('/campaigns/:id/content', ctx.guard(MANAGE), async (c) => {
    const b = await readJson(c);
    try {
      return ok(c, convertContent(b.from, b.to, b.body ?? ''));
    } catch (e) {
      if (e instanceof ContentConversionError) throw badRequest(e.message);
      throw e;
    }
  });

  api.post('/campaigns', ctx.guard(MANAGE), async (c) => ok(c, service.create(c.get('user'), await readJson(c))));
  api.put('/campaigns/:id', ctx.guard(MANAGE), async (c) => ok(c, service.update(c.get('user'), pathId(c), await readJson(c))));
  api.put('/campaigns/:id/status', ctx.guard('campaigns:send'), async (c) => ok(c, service.setStatus(c.get('user'), pathId(c), await readJson(c))));
  api.put('/campaigns/:id/archive', ctx.guard(MANAGE), async (c) => {
    service.setArchive(c.get('user'), pathId(c), await readJson(c));
    return ok(c, true);
  });
  api.post('/campaigns/:id/test', ctx.guard(MANAGE), async (c) => {
    await service.testSend(c.get('user'), pathId(c), await readBody(c));
    return ok(c, true);
  });
  // listmonk's bulk delete: ?id=1&id=2, or ?query=text, or ?all=true (query narrows all).
  api.delete('/campaigns', ctx.guard(MANAGE), (c) => {
    const ids = queryIds(c, 'id');
    const search = (c.req.query('query') ?? '').trim();
    if (ids.length) service.deleteMany(c.get('user'), { ids });
    else if (search || parseBool(c.req.query('all')) === true) service.deleteMany(c.get('user'), { search });
    else throw badRequest('give the campaigns to delete: "id" (one or more), "query", or "all=true"');
    return ok(c, true);
  });

  api.delete('/campaigns/:id', ctx.guard(MANAGE), (c) => {
    service.delete(c.get('user'), pathId(c));
    return ok(c, true);
  });
}
