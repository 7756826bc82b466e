// The subscribers pages of the admin: the table (search, segment query, list and status
// filters, sort, paging, bulk actions) and one subscriber (the form, its subscriptions,
// bounces and activity). Reads call the subscriber service with the signed-in user, so a
// page shows exactly what the API would; writes go through /api from the page's script
// (admin.client.ts). Every control names the route it calls and shows only when the user may
// call it.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { bind, data } from '../admin/bind.ts';
import { allRowsBox, apiFormAttrs, BulkBar, CopyButton, Field, fieldAttrs, formatNumber, formBusy, matchingRows, PageData, PageHead, Pager, rowBox, SortHeader, Tag, Time, withQuery } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { HelpLink } from '../help/link.tsx';
import { DomainError } from '../core/errors.ts';
import type { Actor, Permission } from '../core/authz.ts';
import { accessOf, routesFor } from '../http/routes.ts';
import { pathId } from '../http/schema.ts';
import type { List, ListService } from '../lists/service.ts';
import { SegmentError } from '../segments/index.ts';
import type { BouncesButton, QueryExample, SubscriberButton, SubscribersQuery, subscriber as subscriberScript, subscribers as subscribersScript } from './admin.client.ts';
import { SUBSCRIBER_ROUTES } from './routes.ts';
import {
  SUBSCRIBER_ORDER_COLUMNS, SUBSCRIPTION_STATUSES, type ActivityClick, type ActivityView, type Subscriber, type SubscriberQuery, type SubscriberService, type SubscriberStatus,
  type SubscriptionStatus,
} from './service.ts';

/** What the subscribers pages use. */
interface Deps extends AdminDeps {
  lists: ListService;
  subscriberService: SubscriberService;
}


const route = routesFor<Deps>();
export const SUBSCRIBERS_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/subscribers', access: accessOf(SUBSCRIBER_ROUTES, 'GET', '/subscribers'), handler: subscribersPage, raw: 'text/html', summary: 'The subscribers table' }),
  route({ method: 'GET', path: '/admin/subscribers/new', access: accessOf(SUBSCRIBER_ROUTES, 'POST', '/subscribers'), handler: newSubscriberPage, raw: 'text/html', summary: 'The new subscriber form' }),
  route({ method: 'GET', path: '/admin/subscribers/:id{[0-9]+}', access: accessOf(SUBSCRIBER_ROUTES, 'GET', '/subscribers/:id'), handler: subscriberPage, raw: 'text/html', summary: 'One subscriber: the form, subscriptions, bounces and activity' }),
];

/** The page sizes the pager offers; larger ones are not rendered as one page. */
const MAX_PER_PAGE = 500;
const DEFAULT_PER_PAGE = 20;
const PATH = '/admin/subscribers';
const table = bind<typeof subscribersScript>('subscribers');
const one = bind<typeof subscriberScript>('subscriber');

/** The lists the actor may see, by name (filters, the bulk dialog, the subscriber form). */
function visibleLists(s: Deps, actor: Actor): List[] {
  const { results } = s.lists.query(actor, { search: '', tags: [], orderBy: 'l.id', order: 'ASC', limit: -1, offset: 0, minimal: true });
  return results.sort((a, b) => a.name.localeCompare(b.name));
}

function positiveInts(values: string[]): number[] {
  return [...new Set(values.flatMap((v) => v.split(',')).map((v) => v.trim()).filter((v) => /^\d{1,15}$/.test(v)).map(Number).filter((n) => n > 0))];
}

function oneOf<T extends string>(v: string | null, allowed: readonly T[]): T | undefined {
  return allowed.find((a) => a === v);
}

/** The table's view as the URL says it; unknown values are ignored, as the API does. */
function tableQuery(params: URLSearchParams) {
  const orderKey = oneOf(params.get('order_by'), Object.keys(SUBSCRIBER_ORDER_COLUMNS) as (keyof typeof SUBSCRIBER_ORDER_COLUMNS)[]);
  const perPage = Number(params.get('per_page'));
  const page = Number(params.get('page'));
  return {
    search: (params.get('search') ?? '').trim(),
    query: params.get('query') ?? '',
    listIds: positiveInts(params.getAll('list_id')),
    subscriptionStatus: oneOf(params.get('subscription_status'), SUBSCRIPTION_STATUSES),
    status: oneOf(params.get('status'), ['enabled', 'blocklisted'] as const),
    orphans: params.get('orphans') === '1',
    orderBy: orderKey ?? 'id',
    order: params.get('order')?.toLowerCase() === 'asc' ? 'asc' as const : 'desc' as const,
    perPage: Number.isInteger(perPage) && perPage >= 1 ? Math.min(perPage, MAX_PER_PAGE) : DEFAULT_PER_PAGE,
    page: Number.isInteger(page) && page >= 1 ? page : 1,
  };
}

/** Where the segment translator stopped: the line of the expression and a caret under the token. */
function QueryPointer({ query, position }: { query: string; position: number }): JSX.Element | null {
  if (position < 1) return null;
  const before = query.slice(0, position - 1);
  const lineStart = before.lastIndexOf('\n') + 1;
  const lineEnd = query.indexOf('\n', lineStart);
  const line = query.slice(lineStart, lineEnd === -1 ? undefined : lineEnd);
  const column = before.length - lineStart;
  return <pre class="query-pointer" aria-hidden="true">{`${line}\n${' '.repeat(column)}^`}</pre>;
}

/**
 * Worked examples under the segment box (an attribute, a list membership, a date), each a
 * button that puts its expression in the box; the list one names a list the user may see.
 */
function QueryExamples({ list, t }: { list: List | undefined; t: Translate }): JSX.Element {
  const examples = [
    { query: "subscribers.attribs->>'city' = 'Berlin'", about: t('admin.subscribers.example.attribute') },
    {
      query: `subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = ${list?.id ?? 1} AND status = 'confirmed')`,
      about: t('admin.subscribers.example.list', { list: list?.name ?? t('admin.subscribers.example.listOne') }),
    },
    { query: "subscribers.created_at > NOW() - INTERVAL '30 days'", about: t('admin.subscribers.example.date') },
  ];
  return (
    <div class="query-examples">
      <p class="help" id="query-examples">{t('admin.subscribers.examples')}</p>
      <ul aria-labelledby="query-examples">
        {examples.map((e) => (
          <li><button type="button" class="link" {...data<QueryExample>({ example: e.query })} {...table.on('click', 'useExample')}><code>{e.query}</code></button> <span class="muted small">{e.about}</span></li>
        ))}
      </ul>
    </div>
  );
}

function subscriptionTone(st: SubscriptionStatus): 'accent' | 'danger' | undefined {
  return st === 'confirmed' ? 'accent' : st === 'unsubscribed' ? 'danger' : undefined;
}

function StatusTag({ status, t }: { status: SubscriberStatus; t: Translate }): JSX.Element {
  return <Tag tone={status === 'blocklisted' ? 'danger' : undefined}>{t(`subscribers.status.${status}`)}</Tag>;
}

/** "+2 other lists": subscriptions to lists the signed-in user may not see. */
function OtherLists({ n, t }: { n: number; t: Translate }): JSX.Element | null {
  return n ? <Tag>{t('admin.subscribers.otherLists', { n })}</Tag> : null;
}

async function subscribersPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const params = new URL(c.req.url).searchParams;
  const q = tableQuery(params);
  const bulk = { lists: view.may('PUT /api/subscribers/lists'), blocklist: view.may('PUT /api/subscribers/blocklist'), delete: view.may('DELETE /api/subscribers') };
  const anyBulk = bulk.lists || bulk.blocklist || bulk.delete;
  const sqlQuery = s.subscriberService.queriesSegments(actor);
  const lists = visibleLists(s, actor);
  const listName = new Map(lists.map((l) => [l.id, l.name]));
  const filter: SubscriberQuery = {
    listIds: q.listIds, subscriptionStatus: q.subscriptionStatus, search: q.search,
    query: sqlQuery ? q.query : '', status: q.status, orphans: q.orphans,
  };
  let page: { total: number; results: Subscriber[] } = { total: 0, results: [] };
  let queryError: { message: string; position: number } | null = null;
  try {
    const found = await s.subscriberService.page(actor, filter, { column: SUBSCRIBER_ORDER_COLUMNS[q.orderBy as keyof typeof SUBSCRIBER_ORDER_COLUMNS] ?? 'subscribers.id', dir: q.order === 'asc' ? 'ASC' : 'DESC' },
      { page: q.page, perPage: q.perPage, all: false, limit: q.perPage, offset: (q.page - 1) * q.perPage });
    if ('results' in found) page = found;
  } catch (err) {
    if (err instanceof SegmentError) queryError = { message: `${t('admin.subscribers.queryError')}: ${err.message}`, position: err.position };
    else if (err instanceof DomainError && err.kind === 'invalid' && filter.query) queryError = { message: err.message, position: 0 };
    else throw err;
  }
  const oneList = q.listIds.length === 1 ? listName.get(q.listIds[0]) : undefined;
  const title = oneList ?? t('globals.terms.subscribers');
  // The API's by-query changes and export select by list, search and segment only.
  const byQuery = !q.status && !q.orphans;
  const selectionQuery = { search: q.search, query: filter.query ?? '', list_ids: q.listIds, subscription_status: q.subscriptionStatus ?? null };
  const exportParams = new URLSearchParams();
  for (const id of q.listIds) exportParams.append('list_id', String(id));
  if (q.subscriptionStatus) exportParams.set('subscription_status', q.subscriptionStatus);
  if (q.search) exportParams.set('search', q.search);
  if (filter.query) exportParams.set('query', filter.query);
  const manageableLists = lists.filter((l) => s.lists.manages(actor, l.id));
  const sortHeader = (label: string, column: string, cls?: string) => <SortHeader label={label} column={column} path={PATH} query={params} current={q.orderBy} order={q.order} class={cls} />;

  return adminPage(c, s, {
    title,
    body: (
      <div {...table.root()} {...matchingRows(page.total)}>
        <PageData<SubscribersQuery> id="subscribers-query" value={selectionQuery} />
        <PageHead title={title} count={queryError ? undefined : page.total}>
          {byQuery && !queryError ? <a class="button secondary" href={`/api/subscribers/export?${exportParams.toString()}`} download="subscribers.csv">{t('admin.subscribers.exportCsv')}</a> : null}
          {view.may('GET /admin/subscribers/new') ? <a class="button" href="/admin/subscribers/new">{t('subscribers.newSubscriber')}</a> : null}
        </PageHead>
        {q.status || q.orphans ? (
          <p class="banner">
            {q.orphans ? t('admin.subscribers.showingOrphans') : t('admin.subscribers.showingStatus', { status: t(`subscribers.status.${q.status}`) })}{' '}
            <a href={withQuery(PATH, params, { status: null, orphans: null, page: null })}>{t('admin.subscribers.showAll')}</a>
          </p>
        ) : null}
        <form method="get" action={PATH} class="card search-form" role="search">
          {q.status ? <input type="hidden" name="status" value={q.status} /> : null}
          {q.orphans ? <input type="hidden" name="orphans" value="1" /> : null}
          {params.get('order_by') ? <input type="hidden" name="order_by" value={q.orderBy} /> : null}
          {params.get('order') ? <input type="hidden" name="order" value={q.order} /> : null}
          {params.get('per_page') ? <input type="hidden" name="per_page" value={String(q.perPage)} /> : null}
          <div class="toolbar">
            <div class="grow">
              <label for="search">{t('admin.subscribers.search')}</label>
              <input type="search" id="search" name="search" value={q.search} placeholder={t('subscribers.queryPlaceholder')} />
            </div>
            <div>
              <label for="subscription_status">{t('admin.subscribers.subscriptionStatus')}</label>
              <select id="subscription_status" name="subscription_status">
                <option value="">{t('globals.terms.all')}</option>
                {SUBSCRIPTION_STATUSES.map((st) => <option value={st} selected={q.subscriptionStatus === st}>{t(`subscribers.status.${st}`)}</option>)}
              </select>
            </div>
            <button type="submit">{t('admin.subscribers.searchButton')}</button>
            <a class="button secondary" href={PATH}>{t('subscribers.reset')}</a>
          </div>
          {lists.length ? (
            <details open={q.listIds.length > 0 || undefined}>
              <summary>{t('admin.subscribers.listFilter')}{q.listIds.length ? ` (${formatNumber(q.listIds.length)})` : ''}</summary>
              <fieldset class="plain list-choices">
                <legend class="visually-hidden">{t('admin.subscribers.listFilter')}</legend>
                {lists.map((l) => <label class="check-label"><input type="checkbox" name="list_id" value={String(l.id)} checked={q.listIds.includes(l.id)} /> <span class="choice-text">{l.name}</span></label>)}
              </fieldset>
              <p class="help">{t('admin.subscribers.listsFilterHelp')}</p>
            </details>
          ) : null}
          {sqlQuery ? (
            <details open={filter.query !== '' || undefined}>
              <summary>{t('subscribers.advancedQuery')}</summary>
              <div class="field">
                <label for="query">{t('admin.subscribers.segment')}</label>
                <textarea id="query" name="query" rows={3} aria-describedby="query-help query-error" aria-invalid={queryError ? 'true' : undefined} placeholder="subscribers.attribs->>'city' = 'Berlin'">{filter.query}</textarea>
                <p class="help" id="query-help">{t('subscribers.advancedQueryHelp')} <HelpLink topic="segments" t={t} /></p>
                <p class="field-error" id="query-error" role="alert">{queryError?.message ?? ''}</p>
                {queryError ? <QueryPointer query={filter.query ?? ''} position={queryError.position} /> : null}
                <QueryExamples list={lists[0]} t={t} />
              </div>
            </details>
          ) : null}
        </form>
        {anyBulk ? (
          <BulkBar t={t} matchingLabel={byQuery ? t('admin.subscribers.selectMatching', { num: formatNumber(page.total) }) : undefined}>
            {bulk.lists ? <button type="button" class="secondary small" {...table.on('click', 'openLists')}>{t('subscribers.manageLists')}</button> : null}
            {bulk.blocklist ? <button type="button" class="secondary small" {...table.on('click', 'blocklistSelected')}>{t('admin.subscribers.blocklist')}</button> : null}
            {bulk.delete ? <button type="button" class="danger small" {...table.on('click', 'deleteSelected')}>{t('globals.buttons.delete')}</button> : null}
          </BulkBar>
        ) : null}
        <div class="table-wrap">
          <table class="cards">
            <caption class="visually-hidden">{title}</caption>
            <thead>
              <tr>
                {anyBulk ? <th scope="col" class="check"><input type="checkbox" aria-label={t('globals.buttons.toggleSelect')} {...allRowsBox()} /></th> : null}
                {sortHeader(t('subscribers.email'), 'email')}
                {sortHeader(t('globals.fields.name'), 'name')}
                <th scope="col" class="num">{t('globals.terms.lists')}</th>
                {sortHeader(t('globals.fields.createdAt'), 'created_at', 'hide-narrow')}
                {sortHeader(t('globals.fields.updatedAt'), 'updated_at', 'hide-narrow')}
                <th scope="col"><span class="visually-hidden">{t('admin.subscribers.actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              {page.results.length === 0 ? (
                <tr><td colspan={7} class="empty">{queryError ? t('admin.subscribers.fixQuery') : t('globals.messages.emptyState')}</td></tr>
              ) : page.results.map((sub) => (
                <tr>
                  {anyBulk ? <td class="check"><input type="checkbox" {...rowBox(sub.id)} aria-label={t('admin.subscribers.selectRow', { email: sub.email })} /></td> : null}
                  <td>
                    <a class="address" href={`/admin/subscribers/${sub.id}`}><strong>{sub.email}</strong></a>{' '}
                    {sub.status !== 'enabled' ? <StatusTag status={sub.status} t={t} /> : null}
                    <div>
                      {sub.lists.filter((l) => !l.restricted).map((l) => (
                        <Tag tone={subscriptionTone(l.subscription_status)}>{l.name} <span class="muted">· {t(`subscribers.status.${l.subscription_status}`)}</span></Tag>
                      ))}
                      {/* Lists the user may not see are masked by the service: counted, not named. */}
                      <OtherLists n={sub.lists.filter((l) => l.restricted).length} t={t} />
                    </div>
                  </td>
                  <td>{sub.name}</td>
                  <td class="num" data-label={t('globals.terms.lists')}>{formatNumber(sub.lists.filter((l) => l.subscription_status !== 'unsubscribed').length)}</td>
                  <td class="hide-narrow"><Time value={sub.created_at} /></td>
                  <td class="hide-narrow"><Time value={sub.updated_at} /></td>
                  <td class="nowrap">
                    <div class="row-actions">
                      <a href={`/api/subscribers/${sub.id}/export`} download={`subscriber-${sub.id}.json`} aria-label={`${t('subscribers.downloadData')}: ${sub.email}`}>{t('subscribers.downloadData')}</a>
                      {view.may('DELETE /api/subscribers/:id', { id: sub.id }) ? <button type="button" class="link" {...data<SubscriberButton>({ id: sub.id, email: sub.email })} {...table.on('click', 'deleteOne')} aria-label={`${t('globals.buttons.delete')}: ${sub.email}`}>{t('globals.buttons.delete')}</button> : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager page={q.page} perPage={q.perPage} total={page.total} path={PATH} query={params} t={t} />
        {bulk.lists ? <ListsDialog lists={manageableLists} t={t} /> : null}
      </div>
    ),
  });
}

/** The bulk "manage lists" dialog: the action, the target lists and the new subscriptions' status. */
function ListsDialog({ lists, t }: { lists: List[]; t: Translate }): JSX.Element {
  return (
    <dialog id="lists-dialog" aria-labelledby="lists-dialog-title">
      <form {...table.on('submit.prevent', 'applyLists')}>
        <h2 id="lists-dialog-title">{t('subscribers.manageLists')}</h2>
        <p class="muted" {...table.text('selectedLabel()')}></p>
        <fieldset>
          <legend>{t('admin.subscribers.action')}</legend>
          <div class="inline">
            <label class="check-label"><input type="radio" name="action" value="add" checked {...table.model('listAction')} /> {t('globals.buttons.add')}</label>
            <label class="check-label"><input type="radio" name="action" value="remove" {...table.model('listAction')} /> {t('globals.buttons.remove')}</label>
            <label class="check-label"><input type="radio" name="action" value="unsubscribe" {...table.model('listAction')} /> {t('subscribers.markUnsubscribed')}</label>
          </div>
        </fieldset>
        <fieldset>
          <legend>{t('globals.terms.lists')}</legend>
          {lists.length === 0 ? <p class="muted">{t('globals.messages.emptyState')}</p> : lists.map((l) => (
            <label class="check-label"><input type="checkbox" name="target_list_ids" value={String(l.id)} /> <span class="choice-text">{l.name} <Tag>{t(`lists.optins.${l.optin}`)}</Tag></span></label>
          ))}
        </fieldset>
        <div class="field" {...table.show('adding()')}>
          <label for="bulk-status">{t('admin.subscribers.subscriptionStatus')}</label>
          <select id="bulk-status" name="status">
            <option value="unconfirmed">{t('subscribers.status.unconfirmed')}</option>
            <option value="confirmed">{t('subscribers.status.confirmed')} ({t('subscribers.preconfirm')})</option>
            <option value="unsubscribed">{t('subscribers.status.unsubscribed')}</option>
          </select>
        </div>
        <p class="alert" role="alert" data-error-for="_form"></p>
        <div class="actions">
          <button type="submit">{t('globals.buttons.save')}</button>
          <button type="button" class="secondary" {...table.on('click', 'closeLists')}>{t('globals.buttons.cancel')}</button>
        </div>
      </form>
    </dialog>
  );
}

// One subscriber ---------------------------------------------------------------------------

const TABS = ['subscriptions', 'bounces', 'activity'] as const;
type TabName = (typeof TABS)[number];

function newSubscriberPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const title = t('subscribers.newSubscriber');
  return adminPage(c, s, {
    title,
    body: (
      <>
        <p><a href={PATH}>← {t('globals.terms.subscribers')}</a></p>
        <PageHead title={title} />
        <SubscriberForm sub={null} lists={visibleLists(s, actor)} manages={(id) => s.lists.manages(actor, id)} view={view} />
      </>
    ),
  });
}

function subscriberPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const sub = s.subscriberService.get(actor, pathId(c));
  const id = { id: sub.id };
  const tabs = TABS.filter((name) => name !== 'bounces' || view.may('GET /api/subscribers/:id/bounces', id));
  const tab: TabName = oneOf(c.req.query('tab') ?? null, tabs) ?? 'subscriptions';
  const base = `${PATH}/${sub.id}`;
  return adminPage(c, s, {
    title: sub.email,
    body: (
      <div {...one.root()} {...data<SubscriberButton>({ id: sub.id, email: sub.email })}>
        <p><a href={PATH}>← {t('globals.terms.subscribers')}</a></p>
        <PageHead title={sub.email}>
          <StatusTag status={sub.status} t={t} />
          <a class="button secondary" href={`/api/subscribers/${sub.id}/export`} download={`subscriber-${sub.id}.json`}>{t('subscribers.downloadData')}</a>
          {view.may('POST /api/subscribers/:id/optin', id) ? <button type="button" class="secondary" {...one.on('click', 'sendOptin')}>{t('subscribers.sendOptinConfirm')}</button> : null}
          {view.may('DELETE /api/subscribers/:id', id) ? <button type="button" class="danger" {...one.on('click', 'remove')}>{t('globals.buttons.delete')}</button> : null}
        </PageHead>
        <div class="ids">
          <span>{t('globals.fields.id')}: <code>{sub.id}</code> <CopyButton value={String(sub.id)} label={t('globals.fields.id')} t={t} /></span>
          <span>{t('globals.fields.uuid')}: <code>{sub.uuid}</code> <CopyButton value={sub.uuid} label={t('globals.fields.uuid')} t={t} /></span>
          <span>{t('globals.fields.createdAt')}: <Time value={sub.created_at} /></span>
          <span>{t('globals.fields.updatedAt')}: <Time value={sub.updated_at} /></span>
        </div>
        <SubscriberForm sub={sub} lists={visibleLists(s, actor)} manages={(listId) => s.lists.manages(actor, listId)} view={view} />
        <nav class="tabs" aria-label={t('admin.subscribers.sections')}>
          {tabs.map((name) => (
            <a href={`${base}?tab=${name}`} aria-current={tab === name ? 'page' : undefined}>{t(`admin.subscribers.tab.${name}`)}</a>
          ))}
        </nav>
        {tab === 'subscriptions' ? <SubscriptionsTab sub={sub} t={t} /> : null}
        {tab === 'bounces' ? <BouncesTab bounces={s.subscriberService.bounces(actor, sub.id) as BounceRow[]} manage={view.may('DELETE /api/subscribers/:id/bounces', id)} t={t} /> : null}
        {tab === 'activity' ? <ActivityTab activity={s.subscriberService.activity(actor, sub.id)} t={t} /> : null}
      </div>
    ),
  });
}

/**
 * The subscriber's fields, lists and attributes; read-only for a user who may not send it. A
 * list the user may not manage (`manages`) cannot be ticked or unticked.
 */
function SubscriberForm({ sub, lists, manages, view }: { sub: Subscriber | null; lists: List[]; manages: (listId: number) => boolean; view: AdminView }): JSX.Element {
  const { t } = view;
  const manage = sub ? view.may('PUT /api/subscribers/:id', { id: sub.id }) : view.may('POST /api/subscribers');
  const subscribed = new Map((sub?.lists ?? []).map((l) => [l.id, l.subscription_status]));
  const statuses: SubscriberStatus[] = sub?.status === 'disabled' ? ['enabled', 'disabled', 'blocklisted'] : ['enabled', 'blocklisted'];
  return (
    <form
      class="card"
      {...(sub
        ? apiFormAttrs('PUT /api/subscribers/:id', { id: sub.id }, { done: `${PATH}/${sub.id}`, flash: t('globals.messages.updated', { name: sub.email }) })
        : apiFormAttrs('POST /api/subscribers', {}, { done: `${PATH}/{id}`, flash: t('admin.subscribers.created') }))}
    >
      <fieldset class="plain" disabled={!manage || undefined}>
        <legend class="visually-hidden">{t('globals.terms.subscriber')}</legend>
        <div class="grid2">
          <Field id="email" label={t('subscribers.email')}>
            <input type="email" id="email" name="email" value={sub?.email ?? ''} required autocomplete="off" {...fieldAttrs({ errorKeys: 'e-mail,address' })} />
          </Field>
          <Field id="name" label={t('globals.fields.name')}>
            <input type="text" id="name" name="name" value={sub?.name ?? ''} autocomplete="off" />
          </Field>
        </div>
        <Field id="status" label={t('globals.fields.status')} help={t('subscribers.blocklistedHelp')}>
          <select id="status" name="status">
            {statuses.map((st) => <option value={st} selected={(sub?.status ?? 'enabled') === st}>{t(`subscribers.status.${st}`)}</option>)}
          </select>
        </Field>
        <fieldset>
          <legend>{t('subscribers.lists')}</legend>
          <p class="muted small">{t('subscribers.listsHelp')}</p>
          {lists.length === 0 ? <p class="muted">{t('globals.messages.emptyState')}</p> : (
            <div class="list-choices">
              {lists.map((l) => {
                const st = subscribed.get(l.id);
                return (
                  <label class="check-label">
                    <input type="checkbox" name="lists" {...fieldAttrs({ kind: 'ints' })} value={String(l.id)} checked={st !== undefined} disabled={!manages(l.id) || undefined} />
                    <span class="choice-text">
                      {l.name} {st ? <Tag tone={subscriptionTone(st)}>{t(`subscribers.status.${st}`)}</Tag> : null}
                      <span class="muted small">{t(`lists.optins.${l.optin}`)}</span>
                    </span>
                  </label>
                );
              })}
            </div>
          )}
          <p class="field-error" id="lists-error" data-error-for="lists" role="alert"></p>
        </fieldset>
        <div class="field">
          <label class="check-label">
            <input type="checkbox" id="preconfirm" name="preconfirm_subscriptions" {...fieldAttrs({ kind: 'bool' })} value="true" aria-describedby="preconfirm-help" /> {t('subscribers.preconfirm')}
          </label>
          <p class="help" id="preconfirm-help">{t('subscribers.preconfirmHelp')}</p>
        </div>
        <Field id="attribs" label={t('globals.terms.attribs')} help={`${t('subscribers.attribsHelp')} {"city": "Berlin", "projects": 3}`}>
          <textarea id="attribs" name="attribs" {...fieldAttrs({ kind: 'json' })} rows={8} spellcheck={false} aria-describedby="attribs-help attribs-error">{JSON.stringify(sub?.attribs ?? {}, null, 2)}</textarea>
        </Field>
      </fieldset>
      <p class="alert" role="alert" data-error-for="_form"></p>
      {manage ? (
        <div class="actions">
          <button type="submit" {...formBusy()}>{sub ? t('globals.buttons.saveChanges') : t('globals.buttons.save')}</button>
        </div>
      ) : null}
    </form>
  );
}

function SubscriptionsTab({ sub, t }: { sub: Subscriber; t: Translate }): JSX.Element {
  if (!sub.lists.length) return <p class="muted">{t('admin.subscribers.noSubscriptions')}</p>;
  return (
    <div class="table-wrap">
      <table>
        <thead>
          <tr>
            <th scope="col">{t('globals.terms.lists')}</th>
            <th scope="col">{t('lists.optin')}</th>
            <th scope="col">{t('globals.fields.status')}</th>
            <th scope="col">{t('admin.subscribers.source')}</th>
            <th scope="col">{t('globals.fields.createdAt')}</th>
            <th scope="col">{t('globals.fields.updatedAt')}</th>
            <th scope="col">{t('admin.subscribers.consent')}</th>
          </tr>
        </thead>
        <tbody>
          {sub.lists.map((l) => {
            const meta = Object.entries(l.subscription_meta ?? {});
            return (
              <tr>
                <td>{l.restricted ? <span class="muted">{t('admin.subscribers.hiddenList')}</span> : <a href={`${PATH}?list_id=${l.id}`}>{l.name}</a>}</td>
                <td>{l.optin ? t(`lists.optins.${l.optin}`) : '—'}</td>
                <td><Tag tone={subscriptionTone(l.subscription_status)}>{t(`subscribers.status.${l.subscription_status}`)}</Tag></td>
                <td>{l.subscription_source || <span class="muted">—</span>}</td>
                <td><Time value={l.subscription_created_at} /></td>
                <td><Time value={l.subscription_updated_at} /></td>
                <td>
                  {meta.length ? <dl class="meta">{meta.map(([k, v]) => <><dt>{k}</dt><dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd></>)}</dl> : <span class="muted">—</span>}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}

interface BounceRow {
  id: number;
  type: string;
  source: string;
  meta: unknown;
  created_at: string;
  campaign: { id: number; name: string } | null;
}

function BouncesTab({ bounces, manage, t }: { bounces: BounceRow[]; manage: boolean; t: Translate }): JSX.Element {
  return (
    <>
      {manage && bounces.length ? (
        <div class="actions"><button type="button" class="danger small" {...one.on('click', 'deleteBounces')} {...data<BouncesButton>({ count: bounces.length })}>{t('admin.subscribers.deleteBounces')}</button></div>
      ) : null}
      {!bounces.length ? <p class="muted">{t('admin.subscribers.noBounces')}</p> : (
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('globals.fields.type')}</th>
                <th scope="col">{t('admin.subscribers.source')}</th>
                <th scope="col">{t('globals.terms.campaigns')}</th>
                <th scope="col">{t('globals.fields.createdAt')}</th>
                <th scope="col">{t('admin.subscribers.meta')}</th>
              </tr>
            </thead>
            <tbody>
              {bounces.map((b) => (
                <tr>
                  <td><Tag tone={b.type === 'hard' || b.type === 'complaint' ? 'danger' : undefined}>{b.type}</Tag></td>
                  <td>{b.source}</td>
                  <td>{b.campaign?.name ?? <span class="muted">—</span>}</td>
                  <td><Time value={b.created_at} /></td>
                  <td><details><summary>{t('admin.subscribers.meta')}</summary><pre>{JSON.stringify(b.meta, null, 2)}</pre></details></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}

interface Activity {
  campaign_views: ActivityView[];
  link_clicks: ActivityClick[];
}

/** Views and clicks of campaigns the viewer may not see are counted, shown as "a campaign you cannot see". */
function ActivityTab({ activity, t }: { activity: Activity; t: Translate }): JSX.Element {
  const hidden = <span class="muted" data-restricted>{t('admin.subscribers.hiddenCampaign')}</span>;
  const views = activity.campaign_views.reduce((n, v) => n + v.view_count, 0);
  const clicks = activity.link_clicks.reduce((n, v) => n + v.click_count, 0);
  return (
    <>
      <div class="tiles">
        <section class="tile" aria-label={t('admin.subscribers.campaignsViewed')}><div class="label">{t('admin.subscribers.campaignsViewed')}</div><div class="big">{formatNumber(activity.campaign_views.length)}</div></section>
        <section class="tile" aria-label={t('campaigns.views')}><div class="label">{t('campaigns.views')}</div><div class="big">{formatNumber(views)}</div></section>
        <section class="tile" aria-label={t('campaigns.clicks')}><div class="label">{t('campaigns.clicks')}</div><div class="big">{formatNumber(clicks)}</div></section>
      </div>
      <h2>{t('campaigns.views')}</h2>
      {!activity.campaign_views.length ? <p class="muted">{t('globals.messages.emptyState')}</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">{t('globals.terms.campaigns')}</th><th scope="col" class="num">{t('campaigns.views')}</th><th scope="col">{t('admin.subscribers.lastSeen')}</th></tr></thead>
            <tbody>
              {activity.campaign_views.map((v) => <tr><td>{v.restricted ? hidden : <>{v.name} <span class="muted small">{v.subject}</span></>}</td><td class="num">{formatNumber(v.view_count)}</td><td><Time value={v.last_viewed_at} /></td></tr>)}
            </tbody>
          </table>
        </div>
      )}
      <h2>{t('campaigns.clicks')}</h2>
      {!activity.link_clicks.length ? <p class="muted">{t('globals.messages.emptyState')}</p> : (
        <div class="table-wrap">
          <table>
            <thead><tr><th scope="col">{t('globals.terms.url')}</th><th scope="col">{t('globals.terms.campaigns')}</th><th scope="col" class="num">{t('campaigns.clicks')}</th><th scope="col">{t('admin.subscribers.lastSeen')}</th></tr></thead>
            <tbody>
              {activity.link_clicks.map((k) => (
                <tr>
                  <td class="break">{k.restricted ? <span class="muted">—</span> : k.url}</td>
                  <td>{k.restricted ? hidden : k.campaign_name ?? <span class="muted">—</span>}</td>
                  <td class="num">{formatNumber(k.click_count)}</td><td><Time value={k.last_clicked_at} /></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
