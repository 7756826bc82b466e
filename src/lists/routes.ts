// /api/lists: thin handlers over ListStore. Who may see or change which list is decided here
// from the caller's grants (permittedLists / canAccessList), never by the client.
import type { Context, Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { readJson, type Body } from '../http/body.ts';
import { ok, pageResults } from '../http/envelope.ts';
import { badRequest, forbidden, notFound } from '../http/errors.ts';
import { parseOrder, parseOrderBy, parsePaging } from '../http/paging.ts';
import { canAccessList, permittedLists, type AuthUser } from '../http/permissions.ts';
import type { AppEnv } from '../http/types.ts';
import { normaliseTags, optEnum, optString, optStringArray, parseBool, pathId, queryIds, reqEnum, reqString } from '../http/validate.ts';
import { LIST_OPTINS, LIST_ORDER_COLUMNS, LIST_STATUSES, LIST_TYPES, ListStore, type ListFields } from './store.ts';

const MAX_NAME_BYTES = 2000;

/** The words of a list search (`query`): every word must occur in the name. */
function searchWords(q: string | undefined): string[] {
  return (q ?? '').trim().split(/\s+/).filter((w) => w !== '');
}

function enumParam<T extends string>(c: Context, key: string, allowed: readonly T[]): T | undefined {
  return optEnum({ [key]: c.req.query(key) }, key, allowed);
}

export function registerListRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const lists = new ListStore(ctx.db);

  const mustSee = (user: AuthUser, id: number, kind: 'get' | 'manage') => {
    if (!canAccessList(user, kind, id)) throw forbidden(`permission denied: you do not have ${kind === 'get' ? 'access to' : 'manage rights on'} list ${id}`);
  };

  api.get('/lists', ctx.auth(), (c) => {
    const q = c.req.query();
    const paging = parsePaging(q);
    const minimal = parseBool(q.minimal) === true;
    const { results, total } = lists.query({
      visible: permittedLists(c.get('user'), 'get'),
      words: minimal ? [] : searchWords(q.query),
      status: enumParam(c, 'status', LIST_STATUSES),
      type: minimal ? undefined : enumParam(c, 'type', LIST_TYPES),
      optin: minimal ? undefined : enumParam(c, 'optin', LIST_OPTINS),
      tags: minimal ? [] : normaliseTags(c.req.queries('tag') ?? []),
      orderBy: parseOrderBy(q.order_by, LIST_ORDER_COLUMNS, 'l.created_at'),
      order: parseOrder(q.order),
      limit: paging.limit,
      offset: paging.offset,
      minimal,
    });
    const page = pageResults(results, total, minimal ? { ...paging, all: false, page: 1, perPage: total } : paging, { query: minimal ? '' : (q.query ?? '').trim() });
    return ok(c, { ...page, query: undefined });
  });

  api.get('/lists/:id', ctx.auth(), (c) => {
    const id = pathId(c);
    mustSee(c.get('user'), id, 'get');
    const list = lists.get(id);
    if (!list) throw notFound(`list ${id} not found`);
    return ok(c, list);
  });

  api.post('/lists', ctx.auth('lists:manage_all'), async (c) => {
    const b = await readJson(c);
    return ok(c, lists.create({
      name: reqString(b, 'name', { maxBytes: MAX_NAME_BYTES }),
      type: reqEnum(b, 'type', LIST_TYPES),
      optin: reqEnum(b, 'optin', LIST_OPTINS),
      status: optEnum(b, 'status', LIST_STATUSES) ?? 'active',
      tags: normaliseTags(optStringArray(b, 'tags')),
      description: optString(b, 'description') ?? '',
    }));
  });

  api.put('/lists/:id', ctx.auth(), async (c) => {
    const id = pathId(c);
    mustSee(c.get('user'), id, 'manage');
    const b = await readJson(c);
    const current = lists.get(id);
    if (!current) throw notFound(`list ${id} not found`);
    return ok(c, lists.update(id, mergeFields(b, current)));
  });

  api.delete('/lists/:id', ctx.auth(), (c) => {
    const id = pathId(c);
    mustSee(c.get('user'), id, 'manage');
    if (!lists.delete([id])) throw notFound(`list ${id} not found`);
    return ok(c, true);
  });

  // By ids: all or nothing on list:manage. By query (or all=true): silently limited to the
  // lists the caller may manage.
  api.delete('/lists', ctx.auth(), (c) => {
    const user = c.get('user');
    const ids = queryIds(c, 'id');
    if (ids.length) {
      // The spec: listed lists the caller may not manage are ignored (listmonk refuses them all).
      lists.delete(ids.filter((id) => canAccessList(user, 'manage', id)));
      return ok(c, true);
    }
    const query = (c.req.query('query') ?? '').trim();
    const all = c.req.query('all') === 'true';
    if (!query && !all) throw badRequest('give "id" (repeatable), "query", or "all=true"');
    const manageable = permittedLists(user, 'manage');
    const { results } = lists.query({
      visible: manageable, words: all ? [] : searchWords(query), tags: [], orderBy: 'l.id', order: 'ASC',
      limit: -1, offset: 0, minimal: true,
    });
    lists.delete(results.map((l) => l.id));
    return ok(c, true);
  });
}

/** PUT: fields present replace the stored ones; absent or empty keep them. */
function mergeFields(b: Body, cur: ListFields): ListFields {
  const name = optString(b, 'name', { maxBytes: MAX_NAME_BYTES });
  const tags = optStringArray(b, 'tags');
  return {
    name: name || cur.name,
    type: optEnum(b, 'type', LIST_TYPES) ?? cur.type,
    optin: optEnum(b, 'optin', LIST_OPTINS) ?? cur.optin,
    status: optEnum(b, 'status', LIST_STATUSES) ?? cur.status,
    tags: tags === undefined ? cur.tags : normaliseTags(tags),
    description: optString(b, 'description') ?? cur.description,
  };
}
