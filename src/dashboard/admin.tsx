// The admin dashboard (/admin): the counts of the audience, campaigns and messages, each tile
// linking to the page it counts, and campaign views and link clicks over the last 30 days.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { formatNumber, PageData, PageHead } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { routesFor } from '../http/routes.ts';
import type { SettingsService } from '../settings/service.ts';
import { FirstRun, type FirstRunDeps } from './first-run.tsx';
import type { DashboardService, DayCount } from './service.ts';

/** What the dashboard uses: its figures, and what the first-run checklist reads. */
interface Deps extends AdminDeps, FirstRunDeps {
  dashboard: DashboardService;
  settings: SettingsService;
}

const route = routesFor<Deps>();
export const DASHBOARD_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin', access: 'signed-in', handler: dashboardPage, raw: 'text/html', summary: 'The dashboard' }),
];

const CHART_DAYS = 30;

/** One value per day of the 30 days up to `last`, zero where nothing happened. */
export function dailySeries(points: DayCount[], last: Date): { labels: string[]; values: number[] } {
  const byDay = new Map(points.map((p) => [p.date.slice(0, 10), p.count]));
  const labels: string[] = [];
  for (let i = CHART_DAYS - 1; i >= 0; i--) labels.push(new Date(last.getTime() - i * 86_400_000).toISOString().slice(0, 10));
  return { labels, values: labels.map((d) => byDay.get(d) ?? 0) };
}

function Figure({ label, value, href }: { label: string; value: number; href?: string }): JSX.Element {
  return href ? <><dt><a href={href}>{label}</a></dt><dd>{formatNumber(value)}</dd></> : <><dt>{label}</dt><dd>{formatNumber(value)}</dd></>;
}

function Tile({ title, total, href, children }: { title: string; total: number; href?: string; children?: JSX.Element | JSX.Element[] }): JSX.Element {
  const head = (
    <>
      <div class="label">{title}</div>
      <div class="big">{formatNumber(total)}</div>
    </>
  );
  return (
    <section class="tile" aria-label={title}>
      {href ? <a href={href} class="tile-link">{head}</a> : head}
      {children ? <dl>{children}</dl> : null}
    </section>
  );
}

function Chart({ id, title, data, t }: { id: string; title: string; data: { labels: string[]; values: number[] }; t: Translate }): JSX.Element {
  const total = data.values.reduce((a, b) => a + b, 0);
  return (
    <figure class="card" data-chart={id}>
      <figcaption><strong>{title}</strong> <span class="muted">({formatNumber(total)}, {t('admin.dashboard.last30Days')})</span></figcaption>
      <div class="chart" role="img" aria-label={`${title}: ${formatNumber(total)}`}></div>
      <PageData id={id} value={{ labels: data.labels, series: [{ label: title, values: data.values }] }} />
    </figure>
  );
}

/** Paused campaigns the user may see, at most this many named (the rest counted). */
const PAUSED_SHOWN = 5;

/** A banner for campaigns that stopped sending, each with its reason and a link to its page (which says what to do). */
function PausedCampaigns({ s, view }: { s: Deps; view: AdminView }): JSX.Element | null {
  const { t, actor } = view;
  if (!view.may('GET /admin/campaigns')) return null;
  const { results, total } = s.dashboard.paused(actor, PAUSED_SHOWN);
  if (total === 0) return null;
  return (
    <section class="banner warn paused-campaigns" aria-labelledby="paused-campaigns-title">
      <h2 id="paused-campaigns-title">{t(total === 1 ? 'admin.dashboard.pausedOne' : 'admin.dashboard.pausedMany', { n: formatNumber(total) })}</h2>
      <ul>
        {results.map((camp) => (
          <li>
            <a href={`/admin/campaigns/${camp.id}`}>{camp.name}</a>: {camp.status_reason || t('admin.campaigns.pausedByHand')}
          </li>
        ))}
      </ul>
      {total > results.length ? <p><a href="/admin/campaigns?status=paused">{t('admin.dashboard.pausedAll', { n: formatNumber(total) })}</a></p> : null}
    </section>
  );
}

/** Webhooks disabled for failing, at most this many named (the rest counted). */
const DISABLED_WEBHOOKS_SHOWN = 5;

/**
 * A banner for webhooks the delivery worker disabled, each with its reason, for those who may
 * manage them: their events are not sent until someone looks at the endpoint and enables it.
 */
function DisabledWebhooks({ s, view }: { s: Deps; view: AdminView }): JSX.Element | null {
  const { t } = view;
  if (!view.may('GET /api/webhooks')) return null;
  const { results, total } = s.dashboard.disabledWebhooks(DISABLED_WEBHOOKS_SHOWN);
  if (total === 0) return null;
  return (
    <section class="banner warn disabled-webhooks" aria-labelledby="disabled-webhooks-title">
      <h2 id="disabled-webhooks-title">{t(total === 1 ? 'admin.dashboard.webhooksDisabledOne' : 'admin.dashboard.webhooksDisabledMany', { n: formatNumber(total) })}</h2>
      <ul>
        {results.map((w) => (
          <li>
            <a href={`/admin/settings/webhooks/${w.id}`}>{w.name}</a>: {w.reason}
          </li>
        ))}
      </ul>
      <p><a href="/admin/settings/webhooks">{t('admin.dashboard.webhooksDisabledAll')}</a></p>
    </section>
  );
}

function dashboardPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t } = view;
  const counts = s.dashboard.counts();
  const charts = s.dashboard.charts();
  const lists = view.may('GET /admin/lists');
  const subscribers = view.may('GET /admin/subscribers');
  const latest = [...charts.campaign_views, ...charts.link_clicks].map((p) => p.date.slice(0, 10)).sort().pop();
  const last = latest ? new Date(`${latest}T00:00:00Z`) : new Date();
  const byStatus = counts.campaigns.by_status ?? {};
  const today = new Date().toLocaleDateString('en-US', { weekday: 'long', year: 'numeric', month: 'long', day: 'numeric' });
  return adminPage(c, s, {
    title: t('globals.terms.dashboard'),
    islands: ['chart'],
    body: (
      <>
        <PageHead title={t('globals.terms.dashboard')}><span class="muted">{today}</span></PageHead>
        <PausedCampaigns s={s} view={view} />
        <DisabledWebhooks s={s} view={view} />
        <FirstRun s={s} view={view} />
        <div class="tiles">
          <Tile title={t('globals.terms.subscribers')} total={counts.subscribers.total ?? 0} href={subscribers ? '/admin/subscribers' : undefined}>
            <Figure label={t('subscribers.status.blocklisted')} value={counts.subscribers.blocklisted ?? 0} href={subscribers ? '/admin/subscribers?status=blocklisted' : undefined} />
            <Figure label={t('dashboard.orphanSubs')} value={counts.subscribers.orphans} href={subscribers ? '/admin/subscribers?orphans=1' : undefined} />
          </Tile>
          <Tile title={t('globals.terms.lists')} total={counts.lists.total} href={lists ? '/admin/lists' : undefined}>
            <Figure label={t('lists.types.public')} value={counts.lists.public} href={lists ? '/admin/lists?type=public' : undefined} />
            <Figure label={t('lists.types.private')} value={counts.lists.private} href={lists ? '/admin/lists?type=private' : undefined} />
            <Figure label={t('lists.optins.single')} value={counts.lists.optin_single} href={lists ? '/admin/lists?optin=single' : undefined} />
            <Figure label={t('lists.optins.double')} value={counts.lists.optin_double} href={lists ? '/admin/lists?optin=double' : undefined} />
          </Tile>
          <Tile title={t('globals.terms.campaigns')} total={counts.campaigns.total}>
            {(['running', 'scheduled', 'paused', 'draft', 'finished', 'cancelled'] as const).map((st) => <Figure label={t(`campaigns.status.${st}`)} value={byStatus[st] ?? 0} />)}
          </Tile>
          <Tile title={t('dashboard.messagesSent')} total={counts.messages ?? 0} />
        </div>
        <div class="charts">
          <Chart id="chart-views" title={t('dashboard.campaignViews')} data={dailySeries(charts.campaign_views, last)} t={t} />
          <Chart id="chart-clicks" title={t('dashboard.linkClicks')} data={dailySeries(charts.link_clicks, last)} t={t} />
        </div>
      </>
    ),
  });
}
