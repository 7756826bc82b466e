// Public tracking and archive pages: link clicks, the view pixel, the web view and the
// public archive (HTML, RSS, JSON). Tracking honours privacy.disable_tracking and
// privacy.individual_tracking; preview renders (zero campaign UUID) are never counted.
import type { Context } from 'hono';
import type { AppContext } from '../context.ts';
import { archiveHtml, archivePageUrl, archiveTitle, layoutFor, publishedAt } from '../campaigns/compose.ts';
import { compileCampaign, renderEnv, RenderError, toRenderSubscriber, ZERO_UUID } from '../rendering/message.ts';
import type { CampaignRow, CampaignStore } from '../campaigns/store.ts';
import { ok, pageResults } from '../http/envelope.ts';
import { notFound } from '../core/errors.ts';
import { Message, sendPage } from '../http/layout.tsx';
import { sendPreview } from '../http/preview.ts';
import { LIMITS } from '../core/limits.ts';
import { pagingQuery } from '../http/paging.ts';
import { parsePaging, type Paging } from '../core/paging.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { isUuid, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { linkUuid } from '../public/link.ts';
import { publicLook } from '../public/look.ts';
import { perClient, perClientPage, perClientTracking, perClientTrackingPage, type PublicLimitDeps } from '../public/rate-limits.ts';
import { archiveFeed, ArchiveList } from './pages.tsx';
import type { TrackingStore } from './store.ts';

interface Deps extends PublicLimitDeps {
  campaignStore: CampaignStore;
  tracking: TrackingStore;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const ARCHIVE_ROUTES = [
  route({ method: 'GET', path: '/public/archive', access: 'public', limit: perClient, handler: archiveApi, query: archiveQuery, summary: 'The public archive\'s campaigns, newest first, paged (404 when the archive is off)' }),
];

/** Served from the site root. */
export const TRACKING_PAGES = [
  // These two GETs record a click or a view.
  route({ method: 'GET', path: '/link/:link/:camp/:sub', access: 'public', limit: perClientTrackingPage, writes: true, handler: followLink, raw: 'text/html', summary: 'Records a click (as the privacy settings allow) and redirects to the link\'s URL' }),
  route({ method: 'GET', path: '/campaign/:camp/:sub/px.png', access: 'public', limit: perClientTracking, writes: true, handler: viewPixel, raw: 'image/png', summary: 'The view-tracking pixel: records a view (as the privacy settings allow)' }),
  route({ method: 'GET', path: '/campaign/:camp/:sub', access: 'public', limit: perClientPage, handler: webView, raw: 'text/html', summary: 'A campaign as a page, for a subscriber it was sent to' }),
  route({ method: 'GET', path: '/archive', access: 'public', limit: perClientPage, handler: archivePage, query: archiveQuery, raw: 'text/html', summary: 'The public archive, paged' }),
  route({ method: 'GET', path: '/archive.xml', access: 'public', limit: perClientPage, handler: archiveRss, query: archiveQuery, raw: 'application/rss+xml', summary: 'The public archive as an RSS feed' }),
  route({ method: 'GET', path: '/archive/latest', access: 'public', limit: perClientPage, handler: latestArchived, raw: 'text/html', summary: 'The newest campaign in the archive' }),
  route({ method: 'GET', path: '/archive/:id', access: 'public', limit: perClientPage, handler: archived, raw: 'text/html', summary: 'A campaign in the archive, by UUID or archive slug' }),
];

/** A 1×1 transparent PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

function archiveQuery() {
  // listmgr: `q` searches the subjects and texts (every word, as a prefix).
  return z.object({ ...pagingQuery, q: q.str() });
}

type ArchiveQuery = Input<undefined, ReturnType<typeof archiveQuery>>;

/** The page asked for, at most LIMITS.archivePageItems campaigns (`per_page=all` included): each is rendered. */
function archivePaging(query: ArchiveQuery['query']): Paging {
  const paging = parsePaging(query);
  if (!paging.all && paging.perPage <= LIMITS.archivePageItems) return paging;
  const perPage = LIMITS.archivePageItems;
  return { page: paging.page, perPage, all: false, limit: perPage, offset: (paging.page - 1) * perPage };
}

function errorPage(c: C, s: Deps, status: 400 | 404 | 500, title: string, text: string) {
  return sendPage(c, { ...publicLook(s.settings), title, body: Message({ title, text }) }, status);
}

function badLink(c: C, s: Deps) {
  return errorPage(c, s, 400, 'Invalid link', 'This link is not valid.');
}

// ---- tracking ----

/** The link's UUID segments, less any punctuation a mail client's linkifier took into the URL. */
function uuidParams(c: C): { link: string; camp: string; sub: string } {
  const p = c.req.param() as Record<string, string | undefined>;
  return { link: linkUuid(p.link), camp: linkUuid(p.camp), sub: linkUuid(p.sub) };
}

function followLink(c: C, s: Deps) {
  const { link, camp, sub } = uuidParams(c);
  if (![link, camp, sub].every(isUuid)) return badLink(c, s);
  const l = s.tracking.link(link);
  if (!l) return badLink(c, s);
  if (!s.settings.bool('privacy.disable_tracking') && camp !== ZERO_UUID) {
    const subscriberId = s.settings.bool('privacy.individual_tracking') ? s.tracking.subscriberId(sub) : null;
    s.tracking.recordClick(s.tracking.campaignId(camp), l, subscriberId);
  }
  c.header('X-Robots-Tag', 'noindex');
  return c.redirect(l.url, 307);
}

function viewPixel(c: C, s: Deps) {
  const { camp, sub } = c.req.param();
  if (!isUuid(camp) || !isUuid(sub)) return badLink(c, s);
  const individual = s.settings.bool('privacy.individual_tracking');
  if (!s.settings.bool('privacy.disable_tracking') && camp !== ZERO_UUID && !(individual && sub === ZERO_UUID)) {
    const campaignId = s.tracking.campaignId(camp);
    if (campaignId !== null) s.tracking.recordView(campaignId, individual ? s.tracking.subscriberId(sub) : null);
  }
  return c.body(new Uint8Array(PIXEL), 200, { 'Content-Type': 'image/png', 'Cache-Control': 'no-cache', 'X-Robots-Tag': 'noindex' });
}

// ---- campaigns as pages ----

/** A campaign as a page: a subscriber's web view (noindex), or an archive entry (indexable). */
function renderCampaign(c: C, s: Deps, campaign: CampaignRow, render: () => string, indexable = false) {
  try {
    const html = render();
    if (!indexable) c.header('X-Robots-Tag', 'noindex');
    return sendPreview(c, html);
  } catch (e) {
    // A page, not the API's 400: the reader did nothing wrong.
    if (!(e instanceof RenderError)) throw e;
    s.log.error(`campaign ${campaign.id}: ${e.message}`);
    return errorPage(c, s, 500, 'Error', 'This message could not be displayed.');
  }
}

// Web view: only for subscribers the campaign was sent to (docs/decisions.md §35).
function webView(c: C, s: Deps) {
  const { camp, sub } = uuidParams(c);
  if (!isUuid(camp) || !isUuid(sub)) return badLink(c, s);
  const campaign = s.campaignStore.byUuid(camp);
  const subscriber = s.campaignStore.subscriberByUuid(sub);
  if (!campaign || !subscriber || !s.campaignStore.wasAddressed(campaign.id, subscriber.id)) {
    return errorPage(c, s, 404, 'Not found', 'This message is not available.');
  }
  return renderCampaign(c, s, campaign, () => compileCampaign(campaign, layoutFor(s.campaignStore, campaign, campaign.template_id), renderEnv(s, s.tracking, 'view')).render(toRenderSubscriber(subscriber)).html);
}

// ---- the archive ----

const archiveEnabled = (s: Deps) => s.settings.bool('app.enable_public_archive');
const entryUrl = (s: Deps, c: CampaignRow) => archivePageUrl(s.settings.rootUrl(), c);
const title = (s: Deps, c: CampaignRow) => archiveTitle(s, s.tracking, c);

function archivePage(c: C, s: Deps, { query }: ArchiveQuery) {
  if (!archiveEnabled(s)) return errorPage(c, s, 404, 'Not found', 'The archive is not available.');
  const paging = archivePaging(query);
  const search = (query.q ?? '').trim().slice(0, LIMITS.archiveSearchChars);
  const { rows, total } = s.campaignStore.archived(paging.limit, paging.offset, search);
  const entries = rows.map((r) => ({ url: entryUrl(s, r), subject: title(s, r), date: publishedAt(r).slice(0, 10) }));
  const pages = paging.all ? 1 : Math.ceil(total / paging.perPage);
  // The search and the page size the reader chose stay in the links.
  const kept = new URLSearchParams();
  if (search) kept.set('q', search);
  if (query.per_page) kept.set('per_page', paging.all ? 'all' : String(paging.perPage));
  const link = (page: number) => `?${new URLSearchParams([['page', String(page)], ...kept]).toString()}`;
  const subscribe = s.settings.bool('app.enable_public_subscription_page') ? '/subscription/form' : null;
  const body = ArchiveList({ entries, search, total, newer: paging.page > 1 ? link(paging.page - 1) : null, older: paging.page < pages ? link(paging.page + 1) : null, subscribe });
  return sendPage(c, { ...publicLook(s.settings), indexable: !search, title: 'Archive', body, feedUrl: '/archive.xml' });
}

function archiveRss(c: C, s: Deps, { query }: ArchiveQuery) {
  if (!archiveEnabled(s)) return errorPage(c, s, 404, 'Not found', 'The archive is not available.');
  const paging = archivePaging(query);
  const { rows } = s.campaignStore.archived(paging.limit, paging.offset);
  const withContent = s.settings.bool('app.enable_public_archive_rss_content');
  const items = rows.map((r) => {
    let content: string | null = null;
    if (withContent) {
      try {
        content = archiveHtml(s, s.campaignStore, s.tracking, 'view', r);
      } catch {
        content = null;
      }
    }
    return { title: title(s, r), link: entryUrl(s, r), pubDate: new Date(publishedAt(r)).toUTCString(), content };
  });
  const root = s.settings.rootUrl();
  const xml = archiveFeed({ title: s.settings.str('app.site_name') || 'Archive', link: `${root}/archive`, self: `${root}/archive.xml` }, items);
  return c.body(xml, 200, { 'Content-Type': 'application/rss+xml; charset=utf-8' });
}

function showArchived(c: C, s: Deps, campaign: CampaignRow | undefined) {
  if (!archiveEnabled(s) || !campaign) return errorPage(c, s, 404, 'Not found', 'This message is not in the archive.');
  return renderCampaign(c, s, campaign, () => archiveHtml(s, s.campaignStore, s.tracking, 'view', campaign), true);
}

function latestArchived(c: C, s: Deps) {
  return showArchived(c, s, s.campaignStore.archived(1, 0).rows[0]);
}

function archived(c: C, s: Deps) {
  return showArchived(c, s, s.campaignStore.archivedOne(c.req.param('id') ?? ''));
}

function archiveApi(c: C, s: Deps, { query }: ArchiveQuery) {
  if (!archiveEnabled(s)) throw notFound('the public archive is disabled');
  const paging = archivePaging(query);
  const { rows, total } = s.campaignStore.archived(paging.limit, paging.offset, (query.q ?? '').slice(0, LIMITS.archiveSearchChars));
  const results = rows.map((r) => ({ uuid: r.uuid, subject: title(s, r), content: '', created_at: r.created_at, send_at: r.send_at, url: entryUrl(s, r) }));
  return ok(c, pageResults(results, total, paging, { zeroWhenEmpty: true }));
}
