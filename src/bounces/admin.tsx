// The admin's bounces page (/admin/subscribers/bounces): the bounce records, filtered by
// campaign, source or type (a click on a value filters by it), sorted, paged, with their meta
// unfolding; with bounces:manage, deleting one, the selected or all, and blocklisting the
// subscribers of the selected bounces (that is the subscriber API, so subscribers:manage too)
// or of every bounce. The browser script is admin.client.ts; every control names the route it
// calls and shows only when the user may call it.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { bind, data } from '../admin/bind.ts';
import { allRowsBox, matchingRows, Pager, PageHead, rowBox, SortHeader, Tag, Time, withQuery } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { adminPage, adminView, type AdminContext, type AdminDeps } from '../admin/page.tsx';
import { parseOrder, parseOrderBy, parseAdminPaging } from '../core/paging.ts';
import { accessOf, routesFor } from '../http/routes.ts';
import type { BounceButton, BounceRow, bouncesPage as bouncesScript } from './admin.client.ts';
import { BOUNCE_ORDER_COLUMNS, BOUNCE_TYPES, type Bounce, type BounceService, type BounceType } from './service.ts';
import { BOUNCE_ROUTES } from './routes.ts';

/** What the bounces page uses. */
interface Deps extends AdminDeps {
  bounces: BounceService;
}

const route = routesFor<Deps>();
export const BOUNCE_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/subscribers/bounces', access: accessOf(BOUNCE_ROUTES, 'GET', '/bounces'), handler: bouncesPage, raw: 'text/html', summary: 'The bounces page: bounce records by campaign, source and type' }),
];

const PATH = '/admin/subscribers/bounces';
const ui = bind<typeof bouncesScript>('bouncesPage');

interface Filters {
  campaignId?: number;
  source: string;
  type?: BounceType;
}

function readFilters(query: URLSearchParams): Filters {
  const campaign = query.get('campaign_id') ?? '';
  const type = query.get('type') ?? '';
  return {
    campaignId: /^\d{1,15}$/.test(campaign) && Number(campaign) > 0 ? Number(campaign) : undefined,
    source: query.get('source') ?? '',
    type: (BOUNCE_TYPES as readonly string[]).includes(type) ? (type as BounceType) : undefined,
  };
}

/** An active filter, with a link that removes it. */
function FilterChip({ label, value, query, param, t }: { label: string; value: string; query: URLSearchParams; param: string; t: Translate }): JSX.Element {
  return (
    <span class="chip">
      {label}: <strong>{value}</strong>
      <a href={withQuery(PATH, query, { [param]: null, page: null })} aria-label={`${t('admin.bounces.removeFilter')} ${label}: ${value}`}>×</a>
    </span>
  );
}

/** A bounce's row; `manage` when the user may delete bounces (the tick box and the actions column). */
function Row({ b, query, manage, deletable, t, lang }: { b: Bounce; query: URLSearchParams; manage: boolean; deletable: boolean; t: Translate; lang: string }): JSX.Element {
  const filter = (param: string, value: string | number) => withQuery(PATH, query, { [param]: value, page: null });
  const hasMeta = Object.keys(b.meta).length > 0;
  return (
    <tr>
      {manage ? (
        <td class="check">
          <input type="checkbox" {...rowBox(b.id)} {...data<BounceRow>({ subscriber: b.subscriber_id })} aria-label={`${t('admin.bounces.select')} ${b.email}`} />
        </td>
      ) : null}
      <td>
        <a class="address" href={`/admin/subscribers/${b.subscriber_id}`}>{b.email}</a>
        {b.subscriber_status === 'blocklisted' ? <> <Tag tone="danger">{t('subscribers.status.blocklisted')}</Tag></> : null}
      </td>
      <td data-label={t('admin.bounces.campaign')}>{b.campaign ? <a href={filter('campaign_id', b.campaign.id)} title={t('admin.bounces.filterBy')}>{b.campaign.name}</a> : <span class="muted">—</span>}</td>
      <td data-label={t('admin.bounces.source')}>{b.source ? <a href={filter('source', b.source)} title={t('admin.bounces.filterBy')}>{b.source}</a> : <span class="muted">—</span>}</td>
      <td><a href={filter('type', b.type)} class={b.type === 'soft' ? 'tag' : 'tag danger'} title={t('admin.bounces.filterBy')}>{t(`admin.bounces.type.${b.type}`)}</a></td>
      <td data-label={t('globals.fields.createdAt')}><Time value={b.created_at} lang={lang} /></td>
      <td>
        {hasMeta ? (
          <details class="meta">
            <summary>{t('admin.bounces.meta')}</summary>
            <pre>{JSON.stringify(b.meta, null, 2)}</pre>
          </details>
        ) : <span class="muted">—</span>}
      </td>
      {manage ? (
        <td>
          {deletable ? <button type="button" class="link small" {...data<BounceButton>({ id: b.id, email: b.email })} {...ui.on('click', 'deleteOne')} aria-label={`${t('globals.buttons.delete')} ${t('admin.bounces.bounceOf')} ${b.email}`}>{t('globals.buttons.delete')}</button> : null}
        </td>
      ) : null}
    </tr>
  );
}

function bouncesPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const lang = t('_.code');
  const query = new URL(c.req.url).searchParams;
  const filters = readFilters(query);
  const orderName = query.get('order_by') ?? '';
  const sortedBy = Object.hasOwn(BOUNCE_ORDER_COLUMNS, orderName) ? orderName : 'created_at';
  const order = query.get('order') ? parseOrder(query.get('order') ?? undefined) : 'DESC';
  const paging = parseAdminPaging({ page: query.get('page') ?? undefined, per_page: query.get('per_page') ?? undefined });
  const { results, total } = s.bounces.query(actor, {
    campaignId: filters.campaignId, source: filters.source, type: filters.type,
    orderBy: parseOrderBy(sortedBy, BOUNCE_ORDER_COLUMNS, 'b.created_at'), order, paging,
  });
  const manage = view.may('DELETE /api/bounces');
  const blocklistSelected = manage && view.may('PUT /api/subscribers/blocklist');
  const blocklistAll = view.may('PUT /api/bounces/blocklist');
  const filtered = filters.campaignId !== undefined || filters.source !== '' || filters.type !== undefined;
  const sort = { path: PATH, query, current: sortedBy, order: order === 'ASC' ? 'asc' as const : 'desc' as const };
  const campaignName = results.find((b) => b.campaign?.id === filters.campaignId)?.campaign?.name ?? `#${filters.campaignId}`;
  return adminPage(c, s, {
    title: t('globals.terms.bounces'),
    body: (
      <div {...ui.root()} {...matchingRows(total)}>
        <PageHead title={t('globals.terms.bounces')} count={total}>
          {total > 0 && !filtered ? (
            <>
              {blocklistAll ? <button type="button" class="secondary" {...ui.on('click', 'blocklistAll')}>{t('admin.bounces.blocklistAll')}</button> : null}
              {manage ? <button type="button" class="danger" {...ui.on('click', 'deleteAll')}>{t('globals.buttons.deleteAll')}</button> : null}
            </>
          ) : null}
        </PageHead>
        <form class="toolbar" method="get" action={PATH} role="search">
          <div>
            <label for="bounce-type">{t('globals.fields.type')}</label>
            <select id="bounce-type" name="type">
              <option value="">{t('globals.terms.all')}</option>
              {BOUNCE_TYPES.map((ty) => <option value={ty} selected={filters.type === ty}>{t(`admin.bounces.type.${ty}`)}</option>)}
            </select>
          </div>
          <div class="grow">
            <label for="bounce-source">{t('admin.bounces.source')}</label>
            <input type="search" id="bounce-source" name="source" value={filters.source} />
          </div>
          {filters.campaignId !== undefined ? <input type="hidden" name="campaign_id" value={String(filters.campaignId)} /> : null}
          <button type="submit" class="secondary">{t('admin.bounces.filter')}</button>
        </form>
        {filtered ? (
          <p class="chips">
            {filters.campaignId !== undefined ? <FilterChip label={t('admin.bounces.campaign')} value={campaignName} query={query} param="campaign_id" t={t} /> : null}
            {filters.source ? <FilterChip label={t('admin.bounces.source')} value={filters.source} query={query} param="source" t={t} /> : null}
            {filters.type ? <FilterChip label={t('globals.fields.type')} value={t(`admin.bounces.type.${filters.type}`)} query={query} param="type" t={t} /> : null}
            <a href={PATH}>{t('globals.buttons.clearAll')}</a>
          </p>
        ) : null}
        {manage ? (
          <div class="bulk" hidden {...ui.attr('hidden', 'noSelection()')} role="region" aria-label={t('admin.bounces.bulk')}>
            <strong {...ui.text('selectedLabel()')}></strong>
            <button type="button" class="danger small" {...ui.on('click', 'deleteSelected')}>{t('admin.bounces.deleteSelected')}</button>
            {blocklistSelected ? <button type="button" class="secondary small" {...ui.on('click', 'blocklistSelected')}>{t('admin.bounces.blocklistSelected')}</button> : null}
            <button type="button" class="link small" {...ui.on('click', 'clearSelection')}>{t('globals.buttons.clear')}</button>
          </div>
        ) : null}
        <div class="table-wrap">
          {results.length ? (
            <table class="cards">
              <thead>
                <tr>
                  {manage ? <th scope="col" class="check"><input type="checkbox" aria-label={t('globals.buttons.toggleSelect')} {...allRowsBox()} /></th> : null}
                  <SortHeader label={t('subscribers.email')} column="email" {...sort} />
                  <SortHeader label={t('admin.bounces.campaign')} column="campaign_name" {...sort} />
                  <SortHeader label={t('admin.bounces.source')} column="source" {...sort} />
                  <SortHeader label={t('globals.fields.type')} column="type" {...sort} />
                  <SortHeader label={t('globals.fields.createdAt')} column="created_at" {...sort} />
                  <th scope="col">{t('admin.bounces.meta')}</th>
                  {manage ? <th scope="col">{t('admin.bounces.actions')}</th> : null}
                </tr>
              </thead>
              <tbody>
                {results.map((b) => <Row b={b} query={query} manage={manage} deletable={view.may('DELETE /api/bounces/:id', { id: b.id })} t={t} lang={lang} />)}
              </tbody>
            </table>
          ) : <p class="empty">{filtered ? t('admin.bounces.noneMatching') : t('admin.bounces.none')}</p>}
        </div>
        <Pager page={paging.page} perPage={paging.perPage} total={total} path={PATH} query={query} t={t} />
      </div>
    ),
  });
}
