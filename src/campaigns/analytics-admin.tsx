// The admin's campaign analytics: the chosen campaigns' views, clicks and bounces over a date
// range with their rates (/admin/campaigns/analytics, the campaigns searched by name and kept in
// the URL), and one campaign's readers: who opened it and who clicked which link
// (/admin/campaigns/:id/analytics), exportable as CSV. Reads go through the campaign service
// with the signed-in user, which decides which campaigns and which subscribers they may see.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { bind } from '../admin/bind.ts';
import { Field, formatNumber, PageData, PageHead, Pager, Time } from '../admin/components.tsx';
import { parseAdminPaging } from '../core/paging.ts';
import { accessOf, routesFor, type Input } from '../http/routes.ts';
import { pathId, q, z } from '../http/schema.ts';
import type { SettingsService } from '../settings/service.ts';
import type { campaignPicker, Choice } from './analytics-admin.client.ts';
import { ENGAGEMENT_TYPES, type Bucket, type CampaignRates, type CampaignService, type EngagementType } from './service.ts';
import { CAMPAIGN_ROUTES } from './routes.ts';

/** What the analytics pages use. */
interface Deps extends AdminDeps {
  campaigns: CampaignService;
  settings: SettingsService;
}

const route = routesFor<Deps>();

/** Mounted before the campaign pages: /admin/campaigns/:id would take /admin/campaigns/analytics. */
export const CAMPAIGN_ANALYTICS_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/campaigns/analytics', access: accessOf(CAMPAIGN_ROUTES, 'GET', '/campaigns/analytics/:type'), handler: analyticsPage, query: analyticsPageQuery, raw: 'text/html', summary: 'Views, clicks and bounces of chosen campaigns over a date range, their rates and top links' }),
  route({ method: 'GET', path: '/admin/campaigns/:id/analytics', access: accessOf(CAMPAIGN_ROUTES, 'GET', '/campaigns/analytics/:type'), handler: readersPage, query: readersPageQuery, raw: 'text/html', summary: 'Who opened a campaign and who clicked which link, paged' }),
];

function analyticsPageQuery() {
  const day = () => q.first({ type: 'string', format: 'date' }, (v) => (v && /^\d{4}-\d{2}-\d{2}$/.test(v.trim()) ? v.trim() : ''));
  return z.object({ id: q.ids(), from: day(), to: day() });
}

const ANALYTICS_DAYS = 30;
const METRICS = [
  { type: 'views', label: 'campaigns.views' },
  { type: 'clicks', label: 'campaigns.clicks' },
  { type: 'bounces', label: 'globals.terms.bounces' },
] as const;

/** Buckets of several campaigns as chart series: one label per bucket, one series per campaign. */
function series(buckets: Bucket[], campaigns: { id: number; name: string }[]): { labels: string[]; series: { label: string; values: number[] }[] } {
  const labels = [...new Set(buckets.map((b) => b.timestamp))].sort();
  const at = new Map(labels.map((l, i) => [l, i]));
  return {
    labels,
    series: campaigns.map((c) => {
      const values = labels.map(() => 0);
      for (const b of buckets) if (b.campaign_id === c.id) values[at.get(b.timestamp)!] += b.count;
      return { label: c.name, values };
    }),
  };
}

/** "41.2%", or a dash where the rate cannot be computed (docs/admin.md says when). */
function Rate({ value }: { value: number | null }): JSX.Element {
  return value === null ? <span class="muted">—</span> : <span>{`${(value * 100).toFixed(1)}%`}</span>;
}

/** A count with its rate beside it: "412 · 41.2%"; a dash for a count that is not known. */
function CountRate({ n, rate }: { n: number | null; rate: number | null }): JSX.Element {
  if (n === null) return <span class="muted">—</span>;
  return <>{formatNumber(n)} <span class="muted small">· <Rate value={rate} /></span></>;
}

/**
 * An anonymous figure (individual tracking off): "≈ 41.2%" with the count it comes from
 * ("412 views"); a dash when nothing was sent.
 */
function ApproxRate({ n, rate, unit, t }: { n: number; rate: number | null; unit: 'views' | 'clicks'; t: AdminView['t'] }): JSX.Element {
  if (rate === null) return <span class="muted">—</span>;
  return (
    <span class="approx">
      <abbr title={t('admin.analytics.approxTitle')}>≈</abbr> <Rate value={rate} />
      <span class="muted small"> · {t(`admin.analytics.approx.${unit}`, { n: formatNumber(n) })}</span>
    </span>
  );
}

/** The send record of each campaign with its rates (all time, not the date range). */
function RatesTable({ rates, names, t, readersLink }: { rates: CampaignRates[]; names: Map<number, string>; t: AdminView['t']; readersLink: boolean }): JSX.Element {
  return (
    <>
      <div class="table-wrap rates-wrap">
        <table class="rates">
          <thead>
            <tr>
              <th scope="col">{t('globals.terms.campaign')}</th>
              <th scope="col" class="num">{t('campaigns.sent')}</th>
              <th scope="col" class="num">{t('admin.analytics.opened')}</th>
              <th scope="col" class="num">{t('admin.analytics.clicked')}</th>
              <th scope="col" class="num">{t('admin.analytics.clickToOpen')}</th>
              <th scope="col" class="num">{t('admin.analytics.bounced')}</th>
              <th scope="col" class="num">{t('admin.analytics.unsubscribed')}</th>
            </tr>
          </thead>
          <tbody>
            {rates.map((r) => (
              <tr data-rates={String(r.campaign_id)}>
                <td>
                  <a href={`/admin/campaigns/${r.campaign_id}`}>{names.get(r.campaign_id) ?? ''}</a>
                  {readersLink ? <div class="small"><a href={`/admin/campaigns/${r.campaign_id}/analytics`}>{t('admin.analytics.readers')}</a></div> : null}
                </td>
                <td class="num">{formatNumber(r.sent)}</td>
                <td class="num" data-rate="open">{r.viewers === null ? <ApproxRate n={r.views} rate={r.approx_open_rate} unit="views" t={t} /> : <CountRate n={r.viewers} rate={r.open_rate} />}</td>
                <td class="num" data-rate="click">{r.clickers === null ? <ApproxRate n={r.clicks} rate={r.approx_click_rate} unit="clicks" t={t} /> : <CountRate n={r.clickers} rate={r.click_rate} />}</td>
                <td class="num" data-rate="cto"><Rate value={r.click_to_open} /></td>
                <td class="num" data-rate="bounce"><CountRate n={r.bounced} rate={r.bounce_rate} /></td>
                <td class="num" data-rate="unsubscribe"><CountRate n={r.unsubscribed} rate={r.unsubscribe_rate} /></td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {rates.some((r) => r.approx_open_rate !== null) ? <p class="help" data-approx>{t('admin.analytics.approxHelp')}</p> : null}
    </>
  );
}

/** A tracked URL, a link (in a new tab) when it is http(s): a `javascript:` one stays text. */
function UrlLink({ url }: { url: string }): JSX.Element {
  return /^https?:\/\//i.test(url) ? <a href={url} target="_blank" rel="noopener noreferrer">{url}</a> : <span>{url}</span>;
}

/** The notice of how tracking is set, when it limits what the page can show. */
function TrackingNotice({ s, t }: { s: Deps; t: AdminView['t'] }): JSX.Element | null {
  if (s.settings.bool('privacy.disable_tracking')) return <p class="banner warn">{t('admin.analytics.trackingOff')}</p>;
  if (!s.settings.bool('privacy.individual_tracking')) return <p class="banner">{t('admin.analytics.anonymous')}</p>;
  return null;
}

const picker = bind<typeof campaignPicker>('campaignPicker');

/**
 * The campaigns to analyse: the chosen ones (from the URL) as removable chips, and a search
 * box that finds campaigns by name through the API (the page's `campaignPicker`); each chosen
 * campaign is a hidden `id` field of the form, so the URL keeps the choice.
 */
function CampaignPicker({ chosen, t }: { chosen: Choice[]; t: AdminView['t'] }): JSX.Element {
  const choice = picker.list('chosen', 'c');
  const found = picker.list('results', 'r');
  return (
    <fieldset class="picker" {...picker.root()}>
      <legend>{t('globals.terms.campaigns')}</legend>
      <PageData<Choice[]> id="analytics-chosen" value={chosen} />
      <ul class="chips picker-chosen" aria-label={t('admin.analytics.chosen')}>
        <template {...choice.each('id')}>
          <li class="chip">
            <input type="hidden" name="id" {...choice.attr('value', 'id')} />
            <span {...choice.text('name')}></span>
            <button type="button" class="link" {...choice.attrOf('aria-label', 'removeLabel')} {...choice.on('click', 'remove', 'id')}>×</button>
          </li>
        </template>
      </ul>
      <label for="analytics-campaign-search">{t('admin.campaigns.search')}</label>
      <input
        type="search" id="analytics-campaign-search" role="combobox" autocomplete="off" aria-autocomplete="list"
        aria-controls="analytics-campaign-results" {...picker.attr('aria-expanded', 'open')} aria-describedby="analytics-campaign-search-help"
        placeholder={t('admin.analytics.searchPlaceholder')}
        {...picker.on('input', 'search')} {...picker.on('focus', 'search')} {...picker.on('keydown', 'keydown')}
      />
      <p class="help" id="analytics-campaign-search-help">{t('admin.analytics.campaignsHelp')}</p>
      <ul id="analytics-campaign-results" class="picker-results" role="listbox" aria-multiselectable="true" aria-label={t('admin.analytics.found')} {...picker.show('open')} x-cloak>
        <template {...found.each('id')}>
          <li role="option" {...found.attrOf('aria-selected', 'isChosen')}>
            <button type="button" class="link" {...found.on('click', 'toggle')}><span {...found.text('name')}></span> <span class="muted small" {...found.text('status')}></span></button>
          </li>
        </template>
        <li class="muted small" {...picker.show('noResults()')}>{t('admin.campaigns.noMatch')}</li>
      </ul>
    </fieldset>
  );
}

function analyticsPage(c: AdminContext, s: Deps, { query: p }: Input<undefined, ReturnType<typeof analyticsPageQuery>>) {
  const { t, actor } = adminView(c, s);
  const today = new Date().toISOString().slice(0, 10);
  const to = p.to || today;
  const from = p.from || new Date(Date.parse(`${to}T00:00:00Z`) - (ANALYTICS_DAYS - 1) * 86_400_000).toISOString().slice(0, 10);
  const chosen = s.campaigns.visibleAmong(actor, p.id);
  const range = { from: `${from}T00:00:00.000Z`, to: `${to}T23:59:59.999Z` };
  const ids = chosen.map((r) => r.id);
  const metrics = ids.length ? METRICS.map((m) => ({ ...m, data: series(s.campaigns.chart(actor, m.type, ids, from, to), chosen) })) : [];
  const links = ids.length ? (s.campaigns.analytics(actor, 'links', { ids, ...range }) as { url: string; count: number }[]) : [];
  const rates = s.campaigns.rates(actor, ids);
  const names = new Map(chosen.map((r) => [r.id, r.name]));
  const topLink = Math.max(1, ...links.map((l) => l.count));
  return adminPage(c, s, {
    title: t('globals.terms.analytics'),
    islands: ['chart'],
    body: (
      <>
        <PageHead title={t('globals.terms.analytics')} />
        <TrackingNotice s={s} t={t} />
        <form class="card" method="get" action="/admin/campaigns/analytics">
          <CampaignPicker chosen={chosen.map((r) => ({ id: r.id, name: r.name }))} t={t} />
          <div class="grid2">
            <Field id="analytics-from" label={t('admin.analytics.from')}>
              <input type="date" id="analytics-from" name="from" value={from} />
            </Field>
            <Field id="analytics-to" label={t('admin.analytics.to')}>
              <input type="date" id="analytics-to" name="to" value={to} />
            </Field>
          </div>
          <button type="submit">{t('admin.analytics.show')}</button>
        </form>
        {ids.length === 0 ? <p class="muted">{t('admin.analytics.choose')}</p> : (
          <>
            <div class="charts">
              {metrics.map((m) => {
                const total = m.data.series.reduce((a, x) => a + x.values.reduce((b, v) => b + v, 0), 0);
                return (
                  <figure class="card" data-chart={total ? `chart-${m.type}` : undefined}>
                    <figcaption><strong>{t(m.label)}</strong> <span class="muted">({formatNumber(total)})</span></figcaption>
                    {total ? (
                      <>
                        <div class="chart" role="img" aria-label={`${t(m.label)}: ${formatNumber(total)}`}></div>
                        <PageData id={`chart-${m.type}`} value={m.data} />
                      </>
                    ) : <p class="muted">{t('admin.analytics.nothing')}</p>}
                  </figure>
                );
              })}
            </div>
            <h2>{t('admin.analytics.perCampaign')}</h2>
            <div class="table-wrap">
              <table>
                <thead><tr><th scope="col">{t('globals.terms.campaign')}</th>{metrics.map((m) => <th scope="col" class="num">{t(m.label)}</th>)}</tr></thead>
                <tbody>
                  {chosen.map((camp, i) => (
                    <tr>
                      <td><a href={`/admin/campaigns/${camp.id}`}>{camp.name}</a></td>
                      {metrics.map((m) => <td class="num">{formatNumber(m.data.series[i].values.reduce((a, v) => a + v, 0))}</td>)}
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            <h2>{t('admin.analytics.rates')}</h2>
            <p class="help">{t('admin.analytics.ratesHelp')}</p>
            <RatesTable rates={rates} names={names} t={t} readersLink />
            <h2>{t('admin.analytics.links')}</h2>
            {links.length === 0 ? <p class="muted">{t('admin.analytics.noClicks')}</p> : (
              <div class="table-wrap">
                <table>
                  <thead><tr><th scope="col">{t('globals.terms.url')}</th><th scope="col" class="num">{t('campaigns.clicks')}</th><th scope="col" class="hide-narrow"><span class="visually-hidden">{t('admin.analytics.share')}</span></th></tr></thead>
                  <tbody>
                    {links.map((l) => (
                      <tr>
                        <td class="break"><UrlLink url={l.url} /></td>
                        <td class="num">{formatNumber(l.count)}</td>
                        <td class="hide-narrow"><meter min="0" max={String(topLink)} value={String(l.count)}>{formatNumber(l.count)}</meter></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </>
        )}
      </>
    ),
  });
}

function readersPageQuery() {
  const str = () => q.first({ type: 'string' }, (v) => v?.trim() ?? '');
  return z.object({ type: str(), page: str(), per_page: str() });
}

function readersPage(c: AdminContext, s: Deps, { query: p }: Input<undefined, ReturnType<typeof readersPageQuery>>) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const campaign = s.campaigns.get(actor, pathId(c), true);
  const type: EngagementType = (ENGAGEMENT_TYPES as readonly string[]).includes(p.type) ? (p.type as EngagementType) : 'views';
  const paging = parseAdminPaging(p);
  // The readers are shown to whoever may export them (who may read subscribers).
  const page = view.may('GET /api/campaigns/:id/analytics/:type/export', { id: campaign.id, type }) ? s.campaigns.engagement(actor, campaign.id, type, paging) : null;
  const rates = s.campaigns.rates(actor, [campaign.id]);
  const individual = s.campaigns.individualTracking();
  const path = `/admin/campaigns/${campaign.id}/analytics`;
  const query = new URL(c.req.url).searchParams;
  const title = t('admin.analytics.readersOf', { name: campaign.name });
  return adminPage(c, s, {
    title,
    body: (
      <>
        <a class="back" href={`/admin/campaigns/analytics?id=${campaign.id}`}>← {t('globals.terms.analytics')}</a>
        <PageHead title={title} />
        <TrackingNotice s={s} t={t} />
        <RatesTable rates={rates} names={new Map([[campaign.id, campaign.name]])} t={t} readersLink={false} />
        <nav class="tabs" aria-label={t('admin.analytics.readers')}>
          {ENGAGEMENT_TYPES.map((name) => (
            <a href={`${path}?type=${name}`} aria-current={type === name ? 'page' : undefined}>{t(`admin.analytics.tab.${name}`)}</a>
          ))}
        </nav>
        {page === null ? <p class="banner">{t('admin.analytics.noSubscriberAccess')}</p>
          : page.total === 0 && !individual ? <p class="banner" data-empty="anonymous">{t('admin.analytics.notIndividual')}</p>
          : page.total === 0 ? <p class="muted" data-empty="none">{t(`admin.analytics.none.${type}`)}</p> : (
            <>
              <div class="page-head">
                <p class="muted">{t(`admin.analytics.count.${type}`, { n: formatNumber(page.total) })}</p>
                <a class="button secondary" href={`/api/campaigns/${campaign.id}/analytics/${type}/export`} download={`campaign-${campaign.id}-${type}.csv`}>{t('admin.analytics.exportCsv')}</a>
              </div>
              <div class="table-wrap">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">{t('globals.terms.subscriber')}</th>
                      {type === 'clicks' ? <th scope="col">{t('globals.terms.url')}</th> : null}
                      <th scope="col" class="num">{t(type === 'clicks' ? 'campaigns.clicks' : 'campaigns.views')}</th>
                      <th scope="col" class="hide-narrow">{t('admin.analytics.first')}</th>
                      <th scope="col">{t('admin.analytics.last')}</th>
                    </tr>
                  </thead>
                  <tbody>
                    {page.rows.map((r) => (
                      <tr>
                        <td><a href={`/admin/subscribers/${r.subscriber_id}`}>{r.email}</a><div class="small muted">{r.name}</div></td>
                        {type === 'clicks' ? <td class="break"><UrlLink url={r.url ?? ''} /></td> : null}
                        <td class="num">{formatNumber(r.count)}</td>
                        <td class="hide-narrow"><Time value={r.first} /></td>
                        <td><Time value={r.last} /></td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
              <Pager page={paging.page} perPage={paging.perPage} total={page.total} path={path} query={query} t={t} />
            </>
          )}
      </>
    ),
  });
}

