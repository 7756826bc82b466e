// /api/subscribers: parse, check access, call the store, answer.
import type { Context, Hono } from 'hono';
import type { Services } from '../services.ts';
import { readBodyOrText, readJson, type Body } from '../http/body.ts';
import { sendCsv } from '../http/csv.ts';
import { ok, pageResults } from '../http/envelope.ts';
import { badRequest, HttpError, notFound } from '../http/errors.ts';
import { parseOrder, parseOrderBy, parsePaging, type Paging } from '../http/paging.ts';
import type { AuthUser } from '../http/permissions.ts';
import type { AppEnv } from '../http/types.ts';
import { optBool, optEnum, optIdList, optIntArray, optObject, optString, pathId, queryIds, reqEnum } from '../http/validate.ts';
import { filterManageable, manageableLists, maskSubscriber } from './access.ts';
import { domainRules, nameFromEmail, validateEmail } from './email.ts';
import { sendOptin, sendOptinQuietly } from './optin.ts';
import { assertSubscriberAccess, buildFilter, cleanQuery } from './service.ts';
import {
  LIST_ACTIONS, SUBSCRIBER_ORDER_COLUMNS, SUBSCRIBER_STATUSES, SUBSCRIPTION_STATUSES,
  type Subscriber, type SubscriberFields, type SubscriberStore, type SubscriptionSource,
} from './store.ts';

const MAX_NAME_BYTES = 2000;
/** Rows per chunk when streaming per_page=all and CSV exports. */
const STREAM_BATCH = 500;

const READ = ['subscribers:get_all', 'subscribers:get'] as const;
/** The columns of the CSV export (listmonk's names and order). */
const CSV_HEADER = ['uuid', 'email', 'name', 'attributes', 'status', 'created_at', 'updated_at'];

function sourceOf(user: AuthUser): SubscriptionSource {
  return user.via === 'session' ? 'admin' : 'api';
}

export function registerSubscriberRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const { subscribers: store } = ctx;

  const load = (c: Context<AppEnv>, id: number): Subscriber => {
    assertSubscriberAccess(store, c.get('user'), [id]);
    const s = store.get(id);
    if (!s) throw notFound(`subscriber ${id} not found`);
    return s;
  };

  // Static paths first: /subscribers/export and /subscribers/lists are not ids.
  api.get('/subscribers/export', ctx.guard(READ), (c) => {
    const filter = buildFilter(c.get('user'), {
      listIds: queryIds(c, 'list_id'), ids: queryIds(c, 'id'), subscriptionStatus: c.req.query('subscription_status'),
      search: c.req.query('search'), query: c.req.query('query'),
    });
    const ids = store.matchingIds(filter);
    let i = 0;
    // Rows deleted meanwhile drop out of their batch; the export ends after the last id.
    return sendCsv(c, 'subscribers.csv', CSV_HEADER, () => (i >= ids.length ? null : store.rawRowsInOrder(ids.slice(i, (i += STREAM_BATCH)))
      .map((r) => [r.uuid, r.email, r.name, r.attribs, r.status, r.created_at, r.updated_at])));
  });

  api.get('/subscribers', ctx.guard(READ), (c) => {
    const user = c.get('user');
    const q = c.req.query();
    const filter = buildFilter(user, { listIds: queryIds(c, 'list_id'), subscriptionStatus: q.subscription_status, search: q.search, query: q.query });
    const order = { column: parseOrderBy(q.order_by, SUBSCRIBER_ORDER_COLUMNS, 'subscribers.id'), dir: parseOrder(q.order) };
    const paging = parsePaging(q);
    const echo = { query: cleanQuery(q.query), search: (q.search ?? '').trim() };
    // Large pages (per_page=all, or a huge number as some clients send) are streamed.
    if (paging.all || paging.perPage > STREAM_BATCH) {
      const ids = store.matchingIds(filter, order);
      const pageIds = paging.all ? ids : ids.slice(paging.offset, paging.offset + paging.limit);
      return streamPage(c, store, pageIds, ids.length, paging, user, echo);
    }
    const { results, total } = store.page(filter, order, paging.limit, paging.offset);
    return ok(c, pageResults(results.map((s) => maskSubscriber(s, user)), total, paging, echo));
  });

  api.post('/subscribers', ctx.guard('subscribers:manage'), async (c) => {
    const user = c.get('user');
    const b = await readJson(c);
    const email = validateEmail(b.email, domainRules(ctx.settings));
    const lists = filterManageable(user, optIntArray(b, 'lists') ?? []);
    const preconfirm = optBool(b, 'preconfirm_subscriptions') ?? false;
    const fields: SubscriberFields = {
      email,
      name: optString(b, 'name') || nameFromEmail(email, 'title'),
      status: optEnum(b, 'status', SUBSCRIBER_STATUSES) ?? 'enabled',
      attribs: optObject(b, 'attribs') ?? {},
    };
    const id = store.create(fields, lists, { preconfirm, source: sourceOf(user) });
    if (!preconfirm && lists.length) await sendOptinQuietly(ctx, store, id, lists);
    const created = store.get(id)!;
    return ok(c, { ...created, lists: created.lists.map((l) => l.id) });
  });

  api.delete('/subscribers', ctx.guard('subscribers:manage'), (c) => {
    const ids = queryIds(c, 'id');
    if (!ids.length) throw badRequest('"id" is required (one or more subscriber IDs)');
    assertSubscriberAccess(store, c.get('user'), ids);
    store.delete(ids);
    return ok(c, true);
  });

  api.put('/subscribers/blocklist', ctx.guard('subscribers:manage'), async (c) => {
    const ids = optIntArray(await readJson(c), 'ids') ?? [];
    if (!ids.length) throw badRequest('"ids" is required (one or more subscriber IDs)');
    assertSubscriberAccess(store, c.get('user'), ids);
    store.blocklist(ids);
    return ok(c, true);
  });

  // By ids; with a path id, that subscriber (listmonk's form of the call).
  const listsByIds = async (c: Context<AppEnv>, pathSubscriber: number | null) => {
    const user = c.get('user');
    const b = await readJson(c);
    const ids = pathSubscriber !== null ? [pathSubscriber] : optIntArray(b, 'ids') ?? [];
    if (!ids.length) throw badRequest('"ids" is required (one or more subscriber IDs)');
    const change = listChange(user, b);
    assertSubscriberAccess(store, user, ids);
    const existing = store.existingIds(ids);
    if (pathSubscriber !== null && !existing.length) throw notFound(`subscriber ${pathSubscriber} not found`);
    store.changeLists(existing, change.action, change.targets, { status: change.status, overwrite: true, source: sourceOf(user) });
    return ok(c, true);
  };
  api.put('/subscribers/lists', ctx.guard('subscribers:manage'), (c) => listsByIds(c, null));
  api.put('/subscribers/lists/:id', ctx.guard('subscribers:manage'), (c) => listsByIds(c, pathId(c)));

  // By query: the matching ids are selected on the read-only connection, then changed by id
  // in one transaction.
  const byQuery = async (c: Context<AppEnv>, needsSelection: boolean) => {
    const user = c.get('user');
    const b = await readBodyOrText(c, 'query');
    const all = optBool(b, 'all') === true;
    const search = all ? '' : optString(b, 'search') ?? '';
    const query = all ? '' : optString(b, 'query') ?? '';
    if (needsSelection && !all && !search && !cleanQuery(query)) throw badRequest('a "query" or "search" is required (or "all": true)');
    const filter = buildFilter(user, {
      listIds: optIntArray(b, 'list_ids') ?? [], subscriptionStatus: optString(b, 'subscription_status'), search, query,
    });
    return { b, user, filter };
  };

  api.post('/subscribers/query/delete', ctx.guard('subscribers:manage'), async (c) => {
    const { filter } = await byQuery(c, true);
    if (filter.lists === null && !filter.search && !filter.segment) store.deleteAll();
    else store.delete(store.matchingIds(filter));
    return ok(c, true);
  });

  api.put('/subscribers/query/blocklist', ctx.guard('subscribers:manage'), async (c) => {
    const { filter } = await byQuery(c, true);
    store.blocklist(store.matchingIds(filter));
    return ok(c, true);
  });

  api.put('/subscribers/query/lists', ctx.guard('subscribers:manage'), async (c) => {
    const { b, user, filter } = await byQuery(c, false);
    const change = listChange(user, b);
    store.changeLists(store.matchingIds(filter), change.action, change.targets, { status: change.status, overwrite: false, source: sourceOf(user) });
    return ok(c, true);
  });

  api.get('/subscribers/:id', ctx.guard(READ), (c) => ok(c, maskSubscriber(load(c, pathId(c)), c.get('user'))));

  api.get('/subscribers/:id/activity', ctx.guard(READ), (c) => {
    const id = pathId(c);
    load(c, id);
    return ok(c, store.activity(id));
  });

  api.get('/subscribers/:id/export', ctx.guard(READ), (c) => {
    const id = pathId(c);
    load(c, id);
    const data = store.exportData(id, exportableSections(ctx));
    c.header('Content-Disposition', 'attachment; filename="data.json"');
    c.header('Cache-Control', 'no-cache, no-store');
    c.header('Content-Type', 'application/json; charset=utf-8');
    return c.body(JSON.stringify(data, null, 2));
  });

  api.get('/subscribers/:id/bounces', ctx.guard('bounces:get'), (c) => {
    const id = pathId(c);
    load(c, id);
    return ok(c, store.bounces(id));
  });

  api.delete('/subscribers/:id/bounces', ctx.guard('bounces:manage'), (c) => {
    const id = pathId(c);
    load(c, id);
    store.deleteBounces(id);
    return ok(c, true);
  });

  api.post('/subscribers/:id/optin', ctx.guard('subscribers:manage'), async (c) => {
    const id = pathId(c);
    load(c, id);
    try {
      await sendOptin(ctx, store, id, null);
    } catch (e) {
      throw new HttpError(502, `could not send the opt-in e-mail: ${(e as Error).message}`);
    }
    return ok(c, true);
  });

  api.put('/subscribers/:id/blocklist', ctx.guard('subscribers:manage'), (c) => {
    const id = pathId(c);
    load(c, id);
    store.blocklist([id]);
    return ok(c, true);
  });

  // PUT replaces (every field; absent lists remove all); PATCH merges over the stored record.
  const save = async (c: Context<AppEnv>, mode: 'put' | 'patch') => {
    const user = c.get('user');
    const id = pathId(c);
    const b = await readJson(c);
    const current = load(c, id);
    const rules = domainRules(ctx.settings);
    const email = mode === 'put' || b.email !== undefined ? validateEmail(b.email, rules, { checkLength: false }) : current.email;
    const name = optString(b, 'name', { maxBytes: MAX_NAME_BYTES });
    const requested = optIdList(b, 'lists');
    const lists = mode === 'put' ? filterManageable(user, requested ?? []) : requested === undefined ? null : filterManageable(user, requested);
    const attribs = optObject(b, 'attribs');
    const preconfirm = optBool(b, 'preconfirm_subscriptions') ?? false;
    const fields: SubscriberFields = {
      email,
      name: name || current.name,
      status: optEnum(b, 'status', SUBSCRIBER_STATUSES) ?? current.status,
      attribs: mode === 'put' ? attribs ?? {} : { ...current.attribs, ...attribs },
    };
    store.update(id, fields, lists, { preconfirm, source: sourceOf(user), manageable: manageableLists(user) });
    if (!preconfirm && lists?.length) await sendOptinQuietly(ctx, store, id, lists);
    return ok(c, maskSubscriber(store.get(id)!, user));
  };
  api.put('/subscribers/:id', ctx.guard('subscribers:manage'), (c) => save(c, 'put'));
  api.patch('/subscribers/:id', ctx.guard('subscribers:manage'), (c) => save(c, 'patch'));

  api.delete('/subscribers/:id', ctx.guard('subscribers:manage'), (c) => {
    const id = pathId(c);
    load(c, id);
    store.delete([id]);
    return ok(c, true);
  });
}

/** action, target lists (kept to manageable ones; 403 if none) and status of a list change. */
function listChange(user: AuthUser, b: Body) {
  const action = reqEnum(b, 'action', LIST_ACTIONS);
  const requested = optIntArray(b, 'target_list_ids') ?? [];
  if (!requested.length) throw badRequest('"target_list_ids" is required (one or more list IDs)');
  const targets = filterManageable(user, requested);
  const status = action === 'add' ? reqEnum(b, 'status', SUBSCRIPTION_STATUSES) : 'unsubscribed';
  return { action, targets, status };
}

export function exportableSections(ctx: Pick<Services, 'settings'>): string[] {
  const v = ctx.settings.get<unknown>('privacy.exportable');
  return Array.isArray(v) ? v.map(String) : [];
}

/** per_page=all: the page object streamed in batches, never the whole result in memory. */
function streamPage(c: Context<AppEnv>, store: SubscriberStore, ids: number[], total: number, paging: Paging, user: AuthUser, echo: { query: string; search: string }): Response {
  const enc = new TextEncoder();
  let i = 0;
  let wrote = false;
  c.header('Content-Type', 'application/json; charset=utf-8');
  return c.body(new ReadableStream<Uint8Array>({
    start(ctl) {
      ctl.enqueue(enc.encode('{"data":{"results":['));
    },
    pull(ctl) {
      // Rows deleted meanwhile leave a batch empty: move on until something is written.
      while (i < ids.length) {
        const batch = store.rowsInOrder(ids.slice(i, (i += STREAM_BATCH))).map((s) => JSON.stringify(maskSubscriber(s, user)));
        if (!batch.length) continue;
        ctl.enqueue(enc.encode((wrote ? ',' : '') + batch.join(',')));
        wrote = true;
        return;
      }
      ctl.enqueue(enc.encode(`],"search":${JSON.stringify(echo.search)},"query":${JSON.stringify(echo.query)},"total":${total},"per_page":${paging.all ? 0 : paging.perPage},"page":${paging.page}}}`));
      ctl.close();
    },
  }));
}
