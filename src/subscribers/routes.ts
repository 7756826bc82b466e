// /api/subscribers. Who may see or change which subscriber is decided by the subscriber service.
import type { Context } from 'hono';
import { sendCsv } from '../http/csv.ts';
import { ok, pageResults, streamedPage } from '../http/envelope.ts';
import { orderByQuery, orderQuery, pagingQuery } from '../http/paging.ts';
import { parsePaging } from '../core/paging.ts';
import type { Permission } from '../core/authz.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { LIMITS } from '../core/limits.ts';
import type { SettingsService } from '../settings/service.ts';
import { cleanQuery, type ListChange, type SubscriberQuery, type SubscriberSelection, type SubscriberService } from './service.ts';
import { LIST_ACTIONS, SUBSCRIBER_ORDER_COLUMNS, SUBSCRIBER_STATUSES, SUBSCRIPTION_STATUSES } from './store.ts';

// The public pages import it from here.
export { exportableSections } from './service.ts';

interface Deps {
  subscriberService: SubscriberService;
  settings: SettingsService;
}
type C = Context<AppEnv>;

const READ: Permission[] = ['subscribers:get_all', 'subscribers:get'];
const MANAGE = 'subscribers:manage';

const route = routesFor<Deps>();
// Static paths first: /subscribers/export, /subscribers/lists and /subscribers/query/* are not ids.
export const SUBSCRIBER_ROUTES = [
  route({ method: 'GET', path: '/subscribers/export', access: READ, handler: exportSubscribers, query: exportQuery, raw: 'text/csv', summary: 'The subscribers the caller may see as CSV, by list, id, search or segment' }),
  route({ method: 'GET', path: '/subscribers', access: READ, handler: querySubscribers, query: subscriberQuery, summary: 'Subscribers the caller may see, paged, by list, search or segment (per_page=all streams them)' }),
  route({ method: 'POST', path: '/subscribers', access: MANAGE, handler: createSubscriber, body: subscriberInput, summary: 'Creates a subscriber on the given lists the caller may manage, sending the opt-in mail' }),
  route({ method: 'DELETE', path: '/subscribers', access: MANAGE, handler: deleteSubscribers, query: idsQuery, summary: 'Deletes subscribers by id' }),
  route({ method: 'PUT', path: '/subscribers/blocklist', access: MANAGE, handler: blocklistSubscribers, body: idsInput, summary: 'Blocklists subscribers by id, unsubscribing them from every list' }),
  route({ method: 'PUT', path: '/subscribers/lists', access: MANAGE, handler: changeLists, body: listChangeByIds, summary: 'Adds subscribers (by id) to lists, removes or unsubscribes them' }),
  route({ method: 'PUT', path: '/subscribers/lists/:id', access: MANAGE, handler: changeListsOfOne, body: listChangeInput, summary: 'Adds one subscriber to lists, removes or unsubscribes it' }),
  route({ method: 'POST', path: '/subscribers/query/delete', access: MANAGE, handler: deleteByQuery, body: selectionInput, bodyKind: 'text:query', summary: 'Deletes the subscribers a search or segment selects (or all)' }),
  route({ method: 'PUT', path: '/subscribers/query/blocklist', access: MANAGE, handler: blocklistByQuery, body: selectionInput, bodyKind: 'text:query', summary: 'Blocklists the subscribers a search or segment selects (or all)' }),
  route({ method: 'PUT', path: '/subscribers/query/lists', access: MANAGE, handler: changeListsByQuery, body: listChangeBySelection, bodyKind: 'text:query', summary: 'Adds the subscribers a search or segment selects to lists (existing subscriptions stay), removes or unsubscribes them' }),
  route({ method: 'GET', path: '/subscribers/:id', access: READ, handler: getSubscriber, summary: 'One subscriber, with the lists the caller may not see masked' }),
  route({ method: 'GET', path: '/subscribers/:id/activity', access: READ, handler: getActivity, summary: "A subscriber's campaign views and link clicks" }),
  route({ method: 'GET', path: '/subscribers/:id/export', access: READ, handler: exportData, raw: 'application/json', summary: "A subscriber's data (the sections privacy.exportable allows), as a JSON file" }),
  route({ method: 'GET', path: '/subscribers/:id/bounces', access: 'bounces:get', handler: getBounces, summary: "A subscriber's bounces, newest first (at most 1,000)" }),
  route({ method: 'DELETE', path: '/subscribers/:id/bounces', access: 'bounces:manage', handler: deleteBounces, summary: "Deletes a subscriber's bounces" }),
  route({ method: 'POST', path: '/subscribers/:id/optin', access: MANAGE, handler: sendOptin, summary: 'Sends the opt-in mail for the subscriber’s unconfirmed double opt-in lists' }),
  route({ method: 'PUT', path: '/subscribers/:id/blocklist', access: MANAGE, handler: blocklistOne, summary: 'Blocklists one subscriber, unsubscribing it from every list' }),
  route({ method: 'PUT', path: '/subscribers/:id', access: MANAGE, handler: replaceSubscriber, body: () => subscriberChanges('replace'), summary: 'Replaces a subscriber (absent attribs and lists become empty)' }),
  route({ method: 'PATCH', path: '/subscribers/:id', access: MANAGE, handler: patchSubscriber, body: () => subscriberChanges('merge'), summary: 'Changes a subscriber (absent fields keep their value; attribs merge)' }),
  route({ method: 'DELETE', path: '/subscribers/:id', access: MANAGE, handler: deleteSubscriber, summary: 'Deletes a subscriber' }),
];

// Inputs ------------------------------------------------------------------------------------

function filterQuery() {
  return {
    list_id: q.ids(),
    subscription_status: q.enum(SUBSCRIPTION_STATUSES),
    search: q.str(),
    query: q.str(),
  };
}

function subscriberQuery() {
  return z.object({
    ...filterQuery(),
    order_by: orderByQuery(SUBSCRIBER_ORDER_COLUMNS, 'subscribers.id'),
    order: orderQuery(),
    ...pagingQuery,
  }).meta({ id: 'SubscriberQuery' });
}

function exportQuery() {
  const { list_id, ...rest } = filterQuery();
  return z.object({ list_id, id: q.ids(), ...rest }).meta({ id: 'SubscriberExportQuery' });
}

function idsQuery() {
  return z.object({ id: q.reqIds(' (one or more subscriber IDs)') });
}

function idsInput() {
  return z.object({ ids: f.reqIntArray(' (one or more subscriber IDs)') }).meta({ id: 'SubscriberIds' });
}

// The e-mail is taken as given and checked by the service (the domain rules are settings).
// Create takes a name of any length and checks the e-mail's length; update does the reverse,
// as listmonk does.
function emailField() {
  return f.any().meta({ type: 'string', format: 'email' });
}

function subscriberInput() {
  return z.object({
    email: emailField(),
    lists: f.optIntArray(),
    preconfirm_subscriptions: f.optBool(),
    name: f.optString(),
    status: f.optEnum(SUBSCRIBER_STATUSES),
    attribs: f.optObject(),
  }).meta({ id: 'SubscriberInput' });
}

/** PUT and PATCH. `lists` may be the list objects a GET answers. */
function subscriberChanges(mode: 'replace' | 'merge') {
  return z.object({
    email: emailField(),
    name: f.optString({ maxBytes: LIMITS.name }),
    lists: f.optIdList(),
    attribs: f.optObject(),
    preconfirm_subscriptions: f.optBool(),
    status: f.optEnum(SUBSCRIBER_STATUSES),
  }).meta({ id: mode === 'replace' ? 'SubscriberReplacement' : 'SubscriberChanges' });
}

function listChangeFields() {
  return {
    action: f.reqEnum(LIST_ACTIONS),
    target_list_ids: f.reqIntArray(' (one or more list IDs)'),
    status: f.any().meta({ type: 'string', enum: SUBSCRIPTION_STATUSES, description: 'Required with action "add"' }),
  };
}

/** Only `add` takes a status (required); the other actions leave subscriptions unsubscribed. */
function asListChange(b: { action: ListChange['action']; target_list_ids: number[]; status?: unknown }, ctx: z.RefinementCtx): ListChange {
  if (b.action !== 'add') return { action: b.action, targets: b.target_list_ids, status: 'unsubscribed' };
  const status = f.reqEnum(SUBSCRIPTION_STATUSES).safeParse(b.status);
  if (!status.success) {
    ctx.addIssue({ code: 'custom', path: ['status'], message: status.error.issues[0].message });
    return z.NEVER;
  }
  return { action: b.action, targets: b.target_list_ids, status: status.data };
}

function listChangeInput() {
  return z.object(listChangeFields()).transform(asListChange).meta({ id: 'ListChange' });
}

function listChangeByIds() {
  return z.object({ ids: f.reqIntArray(' (one or more subscriber IDs)'), ...listChangeFields() })
    .transform((b, ctx) => ({ ids: b.ids, change: asListChange(b, ctx) })).meta({ id: 'ListChangeByIds' });
}

/** A by-query selection. A text/plain body is the `query`, the other fields come from the URL. */
function selectionFields() {
  return {
    all: f.optBool(),
    search: f.optString(),
    query: f.optString(),
    list_ids: f.optIntArray(),
    subscription_status: f.optEnum(SUBSCRIPTION_STATUSES),
  };
}

type SelectionBody = z.output<z.ZodObject<ReturnType<typeof selectionFields>>>;

function asSelection(b: SelectionBody): SubscriberSelection {
  return { all: b.all === true, search: b.search ?? '', query: b.query ?? '', listIds: b.list_ids ?? [], subscriptionStatus: b.subscription_status };
}

function selectionInput() {
  return z.object(selectionFields()).transform(asSelection).meta({ id: 'SubscriberSelection' });
}

function listChangeBySelection() {
  return z.object({ ...selectionFields(), ...listChangeFields() })
    .transform((b, ctx) => ({ selection: asSelection(b), change: asListChange(b, ctx) })).meta({ id: 'ListChangeBySelection' });
}

type FilterQuery = { list_id: number[]; subscription_status?: SubscriberQuery['subscriptionStatus']; search?: string; query?: string };

function asQuery(p: FilterQuery): SubscriberQuery {
  return { listIds: p.list_id, subscriptionStatus: p.subscription_status, search: p.search, query: p.query };
}

// Handlers ----------------------------------------------------------------------------------

/** The columns of the CSV export (listmonk's names and order). */
const CSV_HEADER = ['uuid', 'email', 'name', 'attributes', 'status', 'created_at', 'updated_at'];

async function exportSubscribers(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof exportQuery>>) {
  const next = await s.subscriberService.exportRows(c.get('user'), { ...asQuery(p), ids: p.id });
  return sendCsv(c, 'subscribers.csv', CSV_HEADER, () => next()?.map((r) => [r.uuid, r.email, r.name, r.attribs, r.status, r.created_at, r.updated_at]) ?? null, { escapeFormulas: s.settings.bool('security.csv_escape_formulas') });
}

async function querySubscribers(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof subscriberQuery>>) {
  const paging = parsePaging(p);
  const page = await s.subscriberService.page(c.get('user'), asQuery(p), { column: p.order_by, dir: p.order }, paging);
  const echo = { query: cleanQuery(p.query), search: (p.search ?? '').trim() };
  if ('batches' in page) return streamedPage(c, page.batches, page.total, paging, echo);
  return ok(c, pageResults(page.results, page.total, paging, echo));
}

async function createSubscriber(c: C, s: Deps, { body }: Input<ReturnType<typeof subscriberInput>, undefined>) {
  const { preconfirm_subscriptions: preconfirm, ...fields } = body;
  const created = await s.subscriberService.create(c.get('user'), { ...fields, preconfirm });
  return ok(c, { ...created, lists: created.lists.map((l) => l.id) });
}

function deleteSubscribers(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof idsQuery>>) {
  s.subscriberService.delete(c.get('user'), p.id);
  return ok(c, true);
}

function blocklistSubscribers(c: C, s: Deps, { body }: Input<ReturnType<typeof idsInput>, undefined>) {
  s.subscriberService.blocklist(c.get('user'), body.ids);
  return ok(c, true);
}

function changeLists(c: C, s: Deps, { body }: Input<ReturnType<typeof listChangeByIds>, undefined>) {
  s.subscriberService.changeLists(c.get('user'), body.ids, body.change);
  return ok(c, true);
}

function changeListsOfOne(c: C, s: Deps, { body }: Input<ReturnType<typeof listChangeInput>, undefined>) {
  s.subscriberService.changeListsOf(c.get('user'), pathId(c), body);
  return ok(c, true);
}

async function deleteByQuery(c: C, s: Deps, { body }: Input<ReturnType<typeof selectionInput>, undefined>) {
  await s.subscriberService.deleteMatching(c.get('user'), body);
  return ok(c, true);
}

async function blocklistByQuery(c: C, s: Deps, { body }: Input<ReturnType<typeof selectionInput>, undefined>) {
  await s.subscriberService.blocklistMatching(c.get('user'), body);
  return ok(c, true);
}

async function changeListsByQuery(c: C, s: Deps, { body }: Input<ReturnType<typeof listChangeBySelection>, undefined>) {
  await s.subscriberService.changeListsOfMatching(c.get('user'), body.selection, body.change);
  return ok(c, true);
}

function getSubscriber(c: C, s: Deps) {
  return ok(c, s.subscriberService.get(c.get('user'), pathId(c)));
}

function getActivity(c: C, s: Deps) {
  return ok(c, s.subscriberService.activity(c.get('user'), pathId(c)));
}

function exportData(c: C, s: Deps) {
  const data = s.subscriberService.exportData(c.get('user'), pathId(c));
  c.header('Content-Disposition', 'attachment; filename="data.json"');
  c.header('Cache-Control', 'no-cache, no-store');
  c.header('Content-Type', 'application/json; charset=utf-8');
  return c.body(JSON.stringify(data, null, 2));
}

function getBounces(c: C, s: Deps) {
  return ok(c, s.subscriberService.bounces(c.get('user'), pathId(c)));
}

function deleteBounces(c: C, s: Deps) {
  s.subscriberService.deleteBounces(c.get('user'), pathId(c));
  return ok(c, true);
}

async function sendOptin(c: C, s: Deps) {
  await s.subscriberService.sendOptin(c.get('user'), pathId(c));
  return ok(c, true);
}

function blocklistOne(c: C, s: Deps) {
  s.subscriberService.blocklistOne(c.get('user'), pathId(c));
  return ok(c, true);
}

type Changes = Input<ReturnType<typeof subscriberChanges>, undefined>;

async function replaceSubscriber(c: C, s: Deps, { body: { preconfirm_subscriptions: preconfirm, ...fields } }: Changes) {
  return ok(c, await s.subscriberService.update(c.get('user'), pathId(c), { ...fields, preconfirm }, 'replace'));
}

async function patchSubscriber(c: C, s: Deps, { body: { preconfirm_subscriptions: preconfirm, ...fields } }: Changes) {
  return ok(c, await s.subscriberService.update(c.get('user'), pathId(c), { ...fields, preconfirm }, 'merge'));
}

function deleteSubscriber(c: C, s: Deps) {
  s.subscriberService.deleteOne(c.get('user'), pathId(c));
  return ok(c, true);
}
