// /api/lists. Who may see or change which list is decided by the list service.
import type { Context } from 'hono';
import { ok, pageResults } from '../http/envelope.ts';
import { LIMITS } from '../core/limits.ts';
import { orderByQuery, orderQuery, pagingQuery } from '../http/paging.ts';
import { parsePaging } from '../core/paging.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, normaliseTags, pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import type { Actor } from '../core/authz.ts';
import type { ListService } from './service.ts';
import { LIST_OPTINS, LIST_ORDER_COLUMNS, LIST_STATUSES, LIST_TYPES } from './store.ts';

interface Deps {
  lists: ListService;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
/** The routes that change one list ask the list service whether the caller manages it. */
const managesList = (d: Deps, actor: Actor, p: Readonly<Record<string, string>>) => d.lists.manages(actor, Number(p.id));
export const LIST_ROUTES = [
  route({ method: 'GET', path: '/lists', access: 'signed-in', handler: queryLists, query: listQuery, summary: 'Lists the caller may see, paged, with subscriber counts' }),
  route({ method: 'GET', path: '/lists/:id', access: 'signed-in', handler: getList, summary: 'One list' }),
  route({ method: 'POST', path: '/lists', access: 'lists:manage_all', handler: createList, body: listInput, summary: 'Creates a list' }),
  route({ method: 'PUT', path: '/lists/:id', access: 'signed-in', may: managesList, handler: updateList, body: listChanges, summary: 'Changes a list (fields not given keep their value)' }),
  route({ method: 'DELETE', path: '/lists/:id', access: 'signed-in', may: managesList, handler: deleteList, summary: 'Deletes a list' }),
  route({ method: 'GET', path: '/lists/:id/optin', access: 'signed-in', may: managesList, handler: getOptin, summary: 'listmgr: a double opt-in list\'s unconfirmed subscribers, and how many of them its opt-in action would mail now (not mailed one in the last 24 hours)' }),
  route({ method: 'POST', path: '/lists/:id/optin', access: 'signed-in', may: managesList, handler: sendOptin, summary: 'listmgr: queues the opt-in confirmation mail for a double opt-in list\'s unconfirmed subscribers, each at most once per 24 hours, sent under the campaign rate limits' }),
  route({ method: 'DELETE', path: '/lists', access: 'signed-in', handler: deleteLists, query: deleteQuery, summary: 'Deletes lists by id, by name search, or all the caller may manage' }),
];

function listQuery() {
  return z.object({
    query: q.str(),
    status: q.enum(LIST_STATUSES),
    type: q.enum(LIST_TYPES),
    optin: q.enum(LIST_OPTINS),
    tag: q.all(),
    order_by: orderByQuery(LIST_ORDER_COLUMNS, 'l.created_at'),
    order: orderQuery(),
    minimal: q.bool(),
    ...pagingQuery,
  }).meta({ id: 'ListQuery' });
}

function listInput() {
  return z.object({
    name: f.reqString({ maxBytes: LIMITS.name }),
    type: f.reqEnum(LIST_TYPES),
    optin: f.reqEnum(LIST_OPTINS),
    status: f.optEnum(LIST_STATUSES),
    tags: f.optTags(),
    description: f.optString(),
  }).meta({ id: 'ListInput' });
}

/** A PUT: every field optional (absent or empty keeps the stored value), unlike a create. */
function listChanges() {
  return z.object({
    name: f.optString({ maxBytes: LIMITS.name }),
    type: f.optEnum(LIST_TYPES),
    optin: f.optEnum(LIST_OPTINS),
    status: f.optEnum(LIST_STATUSES),
    tags: f.optTags(),
    description: f.optString(),
  }).meta({ id: 'ListChanges' });
}

function deleteQuery() {
  return z.object({ id: q.ids(), query: q.str(), all: q.str() });
}

type ListQuery = ReturnType<typeof listQuery>;

function queryLists(c: C, s: Deps, { query: p }: Input<undefined, ListQuery>) {
  const paging = parsePaging(p);
  const minimal = p.minimal === true;
  const { results, total } = s.lists.query(c.get('user'), {
    search: p.query ?? '', status: p.status, type: p.type, optin: p.optin, tags: normaliseTags(p.tag),
    orderBy: p.order_by, order: p.order, limit: paging.limit, offset: paging.offset, minimal,
  });
  const page = pageResults(results, total, minimal ? { ...paging, all: false, page: 1, perPage: total } : paging, { query: minimal ? '' : (p.query ?? '').trim() });
  return ok(c, { ...page, query: undefined });
}

function getList(c: C, s: Deps) {
  return ok(c, s.lists.get(c.get('user'), pathId(c)));
}

function createList(c: C, s: Deps, { body }: Input<ReturnType<typeof listInput>, undefined>) {
  return ok(c, s.lists.create(c.get('user'), { ...body, status: body.status ?? 'active', tags: body.tags ?? [], description: body.description ?? '' }));
}

function updateList(c: C, s: Deps, { body }: Input<ReturnType<typeof listChanges>, undefined>) {
  return ok(c, s.lists.update(c.get('user'), pathId(c), body));
}

function getOptin(c: C, s: Deps) {
  return ok(c, s.lists.optinCounts(c.get('user'), pathId(c)));
}

function sendOptin(c: C, s: Deps) {
  return ok(c, s.lists.queueOptins(c.get('user'), pathId(c)));
}

function deleteList(c: C, s: Deps) {
  s.lists.delete(c.get('user'), pathId(c));
  return ok(c, true);
}

function deleteLists(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof deleteQuery>>) {
  s.lists.deleteMany(c.get('user'), { ids: p.id, search: p.query ?? '', all: p.all === 'true' });
  return ok(c, true);
}
