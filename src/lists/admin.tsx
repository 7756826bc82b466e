// The admin's list pages: the table of lists (/admin/lists), one list's page (/admin/lists/:id,
// `new` creates) and the subscription form builder (/admin/lists/forms). Reads go through the
// list service with the signed-in user, so each sees the lists the API would show them. The
// pages' scripts are admin.client.ts and forms.client.ts; every control names the route it calls
// and shows only when the user may call it (the example docs/architecture.md follows).
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { bind, data } from '../admin/bind.ts';
import { allRowsBox, apiFormAttrs, BulkBar, matchingRows, CopyButton, Field, fieldAttrs, formatNumber, formBusy, PageData, PageHead, Pager, rowBox, SearchToolbar, SortHeader, Tag, Time, withQuery } from '../admin/components.tsx';
import type { Actor } from '../core/authz.ts';
import { parseAdminPaging } from '../core/paging.ts';
import { accessOf, routesFor, type Input } from '../http/routes.ts';
import { pathId, q, z } from '../http/schema.ts';
import { captchaProvider, type CaptchaSettings } from '../public/captcha.ts';
import type { SettingsService } from '../settings/service.ts';
import type { ListButton, listPage as listScript, ListsQuery as ListsFilters, listsPage as listsScript } from './admin.client.ts';
import type { FormsData, formsPage as formsScript } from './forms.client.ts';
import { LIST_ORDER_COLUMNS, type List, type ListService, type OptinCounts } from './service.ts';
import { LIST_ROUTES } from './routes.ts';

/** What the list pages use. */
interface Deps extends AdminDeps {
  lists: ListService;
  settings: SettingsService;
}

const route = routesFor<Deps>();
/** The pages of lists open to a user who may see at least one list. */
const seesLists = (d: Deps, actor: Actor) => d.lists.seesAny(actor);
export const LIST_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/lists', access: 'signed-in', may: seesLists, handler: listsPage, query: listsPageQuery, raw: 'text/html', summary: 'The lists' }),
  route({ method: 'GET', path: '/admin/lists/forms', access: 'signed-in', may: seesLists, handler: formsPage, raw: 'text/html', summary: 'The subscription form builder' }),
  route({ method: 'GET', path: '/admin/lists/new', access: accessOf(LIST_ROUTES, 'POST', '/lists'), handler: newListPage, raw: 'text/html', summary: 'A form for a new list' }),
  route({ method: 'GET', path: '/admin/lists/:id', access: 'signed-in', handler: listPage, raw: 'text/html', summary: 'One list' }),
];

/** The page's filters are read leniently: a value it does not know is no filter. */
function listsPageQuery() {
  const str = () => q.first({ type: 'string' }, (v) => v?.trim() ?? '');
  return z.object({ query: str(), status: str(), type: str(), optin: str(), tag: str(), order_by: str(), order: str(), page: str(), per_page: str() });
}

type ListsQuery = ReturnType<typeof listsPageQuery>;
const STATUS_FILTERS = ['active', 'archived', 'all'] as const;
type OrderColumn = keyof typeof LIST_ORDER_COLUMNS;

function oneOf<T extends string>(v: string, allowed: readonly T[]): T | undefined {
  return (allowed as readonly string[]).includes(v) ? (v as T) : undefined;
}

function TypeTags({ list, t }: { list: List; t: AdminView['t'] }): JSX.Element {
  return (
    <>
      <Tag tone={list.type === 'public' ? 'accent' : undefined}>{t(`lists.types.${list.type}`)}</Tag>
      <Tag>{t(`lists.optins.${list.optin}`)}</Tag>
      {list.status === 'archived' ? <Tag tone="danger">{t('lists.archived')}</Tag> : null}
    </>
  );
}

const lists = bind<typeof listsScript>('listsPage');
const one = bind<typeof listScript>('listPage');
const builder = bind<typeof formsScript>('formsPage');

function listsPage(c: AdminContext, s: Deps, { query: p }: Input<undefined, ListsQuery>) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const status = oneOf(p.status, STATUS_FILTERS) ?? 'active';
  const orderBy: OrderColumn = oneOf(p.order_by, Object.keys(LIST_ORDER_COLUMNS) as OrderColumn[]) ?? 'created_at';
  const order = p.order === 'asc' ? 'asc' : p.order === 'desc' ? 'desc' : orderBy === 'name' ? 'asc' : 'desc';
  const paging = parseAdminPaging(p);
  const { results, total } = s.lists.query(actor, {
    search: p.query, status: status === 'all' ? undefined : status, type: oneOf(p.type, ['public', 'private'] as const),
    optin: oneOf(p.optin, ['single', 'double'] as const), tags: p.tag ? [p.tag] : [],
    orderBy: LIST_ORDER_COLUMNS[orderBy], order: order === 'asc' ? 'ASC' : 'DESC', limit: paging.limit, offset: paging.offset, minimal: false,
  });
  const path = '/admin/lists';
  const query = new URL(c.req.url).searchParams;
  const sort = { path, query, current: orderBy, order } as const;
  const manages = (id: number) => view.may('DELETE /api/lists/:id', { id });
  const anyManaged = view.may('DELETE /api/lists') && results.some((l) => manages(l.id));
  const filters = [p.type && `${t('lists.type')}: ${p.type}`, p.optin && `${t('lists.optin')}: ${p.optin}`, p.tag && `${t('globals.terms.tag')}: ${p.tag}`].filter(Boolean);
  return adminPage(c, s, {
    title: t('globals.terms.lists'),
    body: (
      <div {...lists.root()} {...matchingRows(total)}>
        <PageHead title={t('globals.terms.lists')} count={total}>
          {view.may('GET /admin/lists/new') ? <a class="button" href="/admin/lists/new">+ {t('lists.newList')}</a> : null}
        </PageHead>
        <SearchToolbar
          path={path} t={t} keep={{ type: p.type, optin: p.optin, tag: p.tag }}
          search={{ id: 'list-search', label: t('admin.lists.search'), value: p.query, placeholder: t('admin.lists.searchPlaceholder') }}
          status={{ id: 'list-status', value: status, options: STATUS_FILTERS.map((v) => ({ value: v, label: t(`admin.lists.status.${v}`) })) }}
        />
        {filters.length ? (
          <p class="small">{t('admin.filteredBy')} {filters.map((f) => <Tag tone="accent">{f}</Tag>)} <a href={withQuery(path, query, { type: null, optin: null, tag: null, page: null })}>{t('admin.clearFilters')}</a></p>
        ) : null}
        {anyManaged ? (
          <BulkBar t={t} matchingLabel={t('admin.selectAllMatching', { n: formatNumber(total) })}>
            <button type="button" class="danger small" {...lists.on('click', 'deleteSelected')}>{t('globals.buttons.delete')}</button>
          </BulkBar>
        ) : null}
        <PageData<ListsFilters> id="lists-query" value={{ query: p.query, status, type: p.type, optin: p.optin, tag: p.tag }} />
        <div class="table-wrap">
          <table class="cards">
            <thead>
              <tr>
                {anyManaged ? <th scope="col" class="check"><input type="checkbox" aria-label={t('admin.selectPage')} {...allRowsBox()} /></th> : null}
                <SortHeader label={t('globals.fields.name')} column="name" {...sort} />
                <th scope="col">{t('globals.fields.type')}</th>
                <SortHeader label={t('globals.terms.subscribers')} column="subscriber_count" class="num" {...sort} />
                <th scope="col" class="hide-narrow">{t('admin.lists.subscriptions')}</th>
                <SortHeader label={t('globals.fields.createdAt')} column="created_at" class="hide-narrow" {...sort} />
                <SortHeader label={t('globals.fields.updatedAt')} column="updated_at" class="hide-narrow" {...sort} />
                <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              {results.length === 0 ? (
                <tr><td colspan={8} class="empty">{p.query || filters.length ? t('admin.lists.noMatch') : t('admin.lists.none')}</td></tr>
              ) : results.map((l) => (
                <tr>
                  {anyManaged ? <td class="check">{manages(l.id) ? <input type="checkbox" {...rowBox(l.id)} aria-label={t('admin.selectRow', { name: l.name })} /> : null}</td> : null}
                  <td>
                    <a href={`/admin/lists/${l.id}`}><strong>{l.name}</strong></a>
                    <div>{l.tags.map((tag) => <a href={withQuery(path, query, { tag, page: null })} class="tag">{tag}</a>)}</div>
                    {l.description ? <div class="muted small">{l.description}</div> : null}
                  </td>
                  <td><TypeTags list={l} t={t} /></td>
                  <td class="num" data-label={t('globals.terms.subscribers')}><a href={`/admin/subscribers?list_id=${l.id}`}>{formatNumber(l.subscriber_count ?? 0)}</a></td>
                  <td class="hide-narrow small">
                    {(['unconfirmed', 'confirmed', 'unsubscribed'] as const).map((st) => (
                      <div><a href={`/admin/subscribers?list_id=${l.id}&subscription_status=${st}`}>{t(`subscribers.status.${st}`)}</a>: {formatNumber(l.subscriber_statuses?.[st] ?? 0)}</div>
                    ))}
                  </td>
                  <td class="hide-narrow"><Time value={l.created_at} /></td>
                  <td class="hide-narrow"><Time value={l.updated_at} /></td>
                  <td>
                    <div class="row-actions">
                      {view.may('GET /admin/campaigns/new') ? <a href={`/admin/campaigns/new?list_id=${l.id}`}>{t('admin.lists.newCampaign')}</a> : null}
                      {view.may('GET /admin/subscribers/import') && manages(l.id) ? <a href={`/admin/subscribers/import?list_id=${l.id}`}>{t('globals.terms.import')}</a> : null}
                      {l.optin === 'double' && view.may('POST /api/lists/:id/optin', { id: l.id }) && (l.subscriber_statuses?.unconfirmed ?? 0) > 0 ? (
                        <button type="button" class="link" {...data<ListButton>({ id: l.id, name: l.name })} aria-label={t('admin.lists.optin.send')} {...lists.on('click', 'sendOptin')}>{t('admin.lists.optin.sendShort')}</button>
                      ) : null}
                      {manages(l.id) ? <button type="button" class="link" {...data<ListButton>({ id: l.id, name: l.name })} {...lists.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button> : null}
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <Pager page={paging.page} perPage={paging.perPage} total={total} path={path} query={query} t={t} />
      </div>
    ),
  });
}

function ListForm({ list, view, editable }: { list: List | null; view: AdminView; editable: boolean }): JSX.Element {
  const { t } = view;
  const fields = { disabled: !editable };
  return (
    <form
      class="card"
      {...(list
        ? apiFormAttrs('PUT /api/lists/:id', { id: list.id }, { done: `/admin/lists/${list.id}`, flash: t('admin.saved') })
        : apiFormAttrs('POST /api/lists', {}, { done: '/admin/lists/{id}', flash: t('admin.lists.created') }))}
    >
      <Field id="list-name" label={t('globals.fields.name')}>
        <input type="text" id="list-name" name="name" value={list?.name ?? ''} required maxlength={200} {...fields} />
      </Field>
      <div class="grid2">
        <Field id="list-type" label={t('lists.type')} help={t('lists.typeHelp')}>
          <select id="list-type" name="type" {...fields}>
            {(['private', 'public'] as const).map((v) => <option value={v} selected={list?.type === v}>{t(`lists.types.${v}`)}</option>)}
          </select>
        </Field>
        <Field id="list-optin" label={t('lists.optin')} help={t('lists.optinHelp')}>
          <select id="list-optin" name="optin" {...fields}>
            {(['single', 'double'] as const).map((v) => <option value={v} selected={list?.optin === v}>{t(`lists.optins.${v}`)}</option>)}
          </select>
        </Field>
      </div>
      <Field id="list-tags" label={t('globals.terms.tags')} help={t('admin.lists.tagsHelp')}>
        <input type="text" id="list-tags" name="tags" {...fieldAttrs({ kind: 'tags' })} value={list?.tags.join(', ') ?? ''} {...fields} />
      </Field>
      <Field id="list-description" label={t('globals.fields.description')}>
        <textarea id="list-description" name="description" {...fields}>{list?.description ?? ''}</textarea>
      </Field>
      <div class="field">
        <label class="check-label"><input type="checkbox" name="status" value="archived" {...fieldAttrs({ kind: 'switch', off: 'active' })} checked={list?.status === 'archived'} {...fields} /> {t('lists.archived')}</label>
        <p class="help">{t('lists.archivedHelp')}</p>
      </div>
      <p class="alert" data-error-for="_form" role="alert"></p>
      {editable ? (
        <div class="actions">
          <button type="submit" {...formBusy()}>{list ? t('globals.buttons.saveChanges') : t('lists.newList')}</button>
          <a class="button secondary" href="/admin/lists">{t('globals.buttons.cancel')}</a>
        </div>
      ) : <p class="muted">{t('admin.lists.readOnly')}</p>}
    </form>
  );
}

function newListPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  return adminPage(c, s, {
    title: view.t('lists.newList'),
    body: (
      <>
        <a class="back" href="/admin/lists">← {view.t('menu.allLists')}</a>
        <PageHead title={view.t('lists.newList')} />
        <ListForm list={null} view={view} editable />
      </>
    ),
  });
}

/**
 * A double opt-in list's opt-in action: how many subscribers have not confirmed, how many of
 * them it would mail now (not mailed in the last 24 hours), and the button that asks first.
 */
function OptinSection({ list, counts, t }: { list: List; counts: OptinCounts; t: AdminView['t'] }): JSX.Element {
  return (
    <section class="card" id="optin" aria-labelledby="optin-title">
      <h2 id="optin-title">{t('admin.lists.optin.title')}</h2>
      <p class="help">{t('admin.lists.optin.about')}</p>
      {counts.unconfirmed === 0 ? <p>{t('admin.lists.optin.allConfirmed')}</p> : (
        <>
          <p data-optin-counts>{t('admin.lists.optin.counts', { unconfirmed: formatNumber(counts.unconfirmed), sendable: formatNumber(counts.sendable) })}</p>
          {counts.sendable === 0 ? <p class="muted">{t('admin.lists.optin.allSentRecently')}</p> : (
            <>
              <div class="actions">
                <button type="button" {...data<ListButton>({ id: list.id, name: list.name })} {...one.on('click', 'sendOptin')}>{t('admin.lists.optin.send')}</button>
              </div>
              <p class="help">{t('admin.lists.optin.throttled')}</p>
            </>
          )}
        </>
      )}
    </section>
  );
}

/**
 * Where readers join the list: its public subscription page (the form with this list ticked),
 * or why it has none (private, archived, or the public form switched off).
 */
function PublicPage({ list, view, rootUrl, formOn }: { list: List; view: AdminView; rootUrl: string; formOn: boolean }): JSX.Element {
  const { t } = view;
  if (list.type !== 'public') return <p class="help">{t('admin.lists.noPublicPagePrivate')}</p>;
  if (list.status !== 'active') return <p class="help">{t('admin.lists.noPublicPageArchived')}</p>;
  const url = `${rootUrl}/subscription/form?l=${list.uuid}`;
  return (
    <p class="inline public-page">
      <span>{t('admin.lists.publicPage')} <a href={url}>{url}</a></span>
      <CopyButton value={url} label={t('admin.lists.publicPage')} t={t} />
      {formOn ? null : <span class="help">{t('admin.forms.publicPageOff')}</span>}
    </p>
  );
}

function listPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const list = s.lists.get(actor, pathId(c));
  const manages = view.may('PUT /api/lists/:id', { id: list.id });
  return adminPage(c, s, {
    title: list.name,
    body: (
      <div {...one.root()}>
        <a class="back" href="/admin/lists">← {t('menu.allLists')}</a>
        <PageHead title={list.name}>
          {view.may('DELETE /api/lists/:id', { id: list.id }) ? <button type="button" class="danger" {...data<ListButton>({ id: list.id, name: list.name })} {...one.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button> : null}
        </PageHead>
        <div class="ids">
          <span>{t('globals.fields.id')}: <code>{list.id}</code> <CopyButton value={String(list.id)} label={t('globals.fields.id')} t={t} /></span>
          <span>{t('globals.fields.uuid')}: <code>{list.uuid}</code> <CopyButton value={list.uuid} label={t('globals.fields.uuid')} t={t} /></span>
          <span><TypeTags list={list} t={t} /></span>
        </div>
        <p class="inline">
          <a href={`/admin/subscribers?list_id=${list.id}`}>{t('admin.lists.viewSubscribers', { n: formatNumber(list.subscriber_count ?? 0) })}</a>
          {view.may('GET /admin/subscribers/import') && manages ? <a href={`/admin/subscribers/import?list_id=${list.id}`}>{t('admin.lists.importInto')}</a> : null}
          {view.may('GET /admin/campaigns/new') ? <a href={`/admin/campaigns/new?list_id=${list.id}`}>{t('admin.lists.newCampaignFor')}</a> : null}
        </p>
        <PublicPage list={list} view={view} rootUrl={s.settings.rootUrl()} formOn={s.settings.bool('app.enable_public_subscription_page')} />
        {list.optin === 'double' && view.may('POST /api/lists/:id/optin', { id: list.id }) ? <OptinSection list={list} counts={s.lists.optinCounts(actor, list.id)} t={t} /> : null}
        <ListForm list={list} view={view} editable={manages} />
      </div>
    ),
  });
}

function formsPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const { results } = s.lists.query(actor, { search: '', status: 'active', type: 'public', tags: [], orderBy: 'l.name', order: 'ASC', limit: -1, offset: 0, minimal: false });
  const captcha = s.settings.get<CaptchaSettings>('security.captcha');
  const provider = captchaProvider(captcha);
  const root = s.settings.rootUrl();
  const redirects = s.settings.get<string[]>('security.trusted_urls').filter((u) => u !== '*');
  const enabled = s.settings.bool('app.enable_public_subscription_page');
  return adminPage(c, s, {
    title: t('forms.title'),
    body: (
      <div {...builder.root()}>
        <PageHead title={t('forms.title')} />
        {enabled ? null : <p class="banner warn">{t('admin.forms.publicPageOff')}</p>}
        <PageData<FormsData> id="forms-data" value={{
          root, captcha: provider, hcaptchaKey: provider === 'hcaptcha' ? captcha.hcaptcha.key : '',
          lists: results.map((l) => ({ uuid: l.uuid, name: l.name })),
          labels: { email: t('subscribers.email'), name: t('globals.fields.name'), subscribe: t('admin.forms.subscribe') },
          accent: s.settings.str('app.accent_color'),
        }} />
        <div class="grid2">
          <section class="card">
            <h2>{t('forms.publicLists')}</h2>
            {results.length === 0 ? (
              <p class="muted">{t('admin.forms.noPublicLists')} {view.may('GET /admin/lists/new') ? <a href="/admin/lists/new">{t('lists.newList')}</a> : null}</p>
            ) : (
              <fieldset>
                <legend>{t('forms.selectHelp')}</legend>
                {results.map((l) => <label class="check-label"><input type="checkbox" value={l.uuid} {...builder.model('chosen')} /> {l.name}</label>)}
              </fieldset>
            )}
            <div class="field">
              <label for="form-redirect">{t('admin.forms.redirect')}</label>
              <select id="form-redirect" {...builder.model('redirect')}>
                <option value="">{t('admin.forms.noRedirect')}</option>
                {redirects.map((u) => <option value={u}>{u}</option>)}
              </select>
              <p class="help">{t('admin.forms.redirectHelp')}</p>
            </div>
            <p>{t('admin.forms.hosted')} <a href={`${root}/subscription/form`}>{`${root}/subscription/form`}</a> <CopyButton value={`${root}/subscription/form`} label={t('admin.forms.hosted')} t={t} /></p>
          </section>
          <section class="card">
            <h2>{t('forms.formHTML')}</h2>
            <p class="help">{t('admin.forms.snippetHelp')}</p>
            <label for="form-snippet" class="visually-hidden">{t('forms.formHTML')}</label>
            <label class="check-label"><input type="checkbox" {...builder.model('styled')} /> {t('admin.forms.styled')}</label>
            <p class="help">{t('admin.forms.styledHelp')}</p>
            <textarea id="form-snippet" readonly rows={14} {...builder.attr('value', 'snippet()')}></textarea>
            <div class="actions"><button type="button" class="secondary" {...builder.on('click', 'copySnippet')}>{t('globals.buttons.copy')}</button></div>
          </section>
        </div>
        <section class="card">
          <h2>{t('admin.forms.preview')}</h2>
          <iframe class="form-preview" id="form-preview" title={t('admin.forms.preview')} sandbox=""></iframe>
        </section>
      </div>
    ),
  });
}
