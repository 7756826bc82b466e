// Public tracking and archive pages: link clicks, the view pixel, the web view and the
// public archive (HTML, RSS, JSON). Tracking honours privacy.disable_tracking and
// privacy.individual_tracking; preview renders (zero campaign UUID) are never counted.
import type { Context, Hono } from 'hono';
import type { Services } from '../services.ts';
import { layoutFor, renderEnv, toRenderSubscriber } from '../delivery/compose.ts';
import { archiveSubscriber, compileCampaign, RenderError, ZERO_UUID, type RenderSubscriber } from '../campaigns/render.ts';
import type { CampaignRow } from '../campaigns/store.ts';
import { ok, pageResults } from '../http/envelope.ts';
import { Message, sendPage } from '../http/layout.tsx';
import { sendPreview } from '../http/preview.ts';
import { parsePaging } from '../http/paging.ts';
import type { AppEnv } from '../http/types.ts';
import { publicLook } from '../public/look.ts';
import { archiveFeed, ArchiveList } from './pages.tsx';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** A 1×1 transparent PNG. */
const PIXEL = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

export function registerTrackingPages(app: Hono<AppEnv>, ctx: Services): void {
  const { campaignStore: campaigns, tracking } = ctx;
  const errorPage = (c: Context, status: 400 | 404 | 500, title: string, text: string) =>
    sendPage(c, { ...publicLook(ctx.settings), title, body: Message({ title, text }) }, status);
  const badLink = (c: Context) => errorPage(c, 400, 'Invalid link', 'This link is not valid.');

  // These two GETs record a click or a view.
  const writes = ctx.foregroundWrites.track;
  app.get('/link/:link/:camp/:sub', writes, (c) => {
    const { link, camp, sub } = c.req.param();
    if (![link, camp, sub].every((u) => UUID.test(u))) return badLink(c);
    const l = tracking.link(link);
    if (!l) return badLink(c);
    if (!ctx.settings.bool('privacy.disable_tracking') && camp !== ZERO_UUID) {
      const subscriberId = ctx.settings.bool('privacy.individual_tracking') ? tracking.subscriberId(sub) : null;
      tracking.recordClick(tracking.campaignId(camp), l.id, subscriberId);
    }
    c.header('X-Robots-Tag', 'noindex');
    return c.redirect(l.url, 307);
  });

  app.get('/campaign/:camp/:sub/px.png', writes, (c) => {
    const { camp, sub } = c.req.param();
    if (!UUID.test(camp) || !UUID.test(sub)) return badLink(c);
    const individual = ctx.settings.bool('privacy.individual_tracking');
    if (!ctx.settings.bool('privacy.disable_tracking') && camp !== ZERO_UUID && !(individual && sub === ZERO_UUID)) {
      const campaignId = tracking.campaignId(camp);
      if (campaignId !== null) tracking.recordView(campaignId, individual ? tracking.subscriberId(sub) : null);
    }
    return c.body(new Uint8Array(PIXEL), 200, { 'Content-Type': 'image/png', 'Cache-Control': 'no-cache', 'X-Robots-Tag': 'noindex' });
  });

  /** A campaign as a page: a subscriber's web view (noindex), or an archive entry (indexable). */
  const render = (c: Context, campaign: CampaignRow, sub: RenderSubscriber, templateId: number | null, indexable = false) => {
    try {
      const compiled = compileCampaign(campaign, layoutFor(campaigns, campaign, templateId), renderEnv(ctx, tracking));
      if (!indexable) c.header('X-Robots-Tag', 'noindex');
      return sendPreview(c, compiled.render(sub).html);
    } catch (e) {
      if (!(e instanceof RenderError)) throw e;
      ctx.log.error(`campaign ${campaign.id}: ${e.message}`);
      return errorPage(c, 500, 'Error', 'This message could not be displayed.');
    }
  };

  // Web view: only for subscribers the campaign was sent to (docs/decisions.md §35).
  app.get('/campaign/:camp/:sub', (c) => {
    const { camp, sub } = c.req.param();
    if (!UUID.test(camp) || !UUID.test(sub)) return badLink(c);
    const campaign = campaigns.byUuid(camp);
    const subscriber = campaigns.subscriberByUuid(sub);
    if (!campaign || !subscriber || !campaigns.wasAddressed(campaign.id, subscriber.id)) {
      return errorPage(c, 404, 'Not found', 'This message is not available.');
    }
    return render(c, campaign, toRenderSubscriber(subscriber), campaign.template_id);
  });

  const archiveEnabled = () => ctx.settings.bool('app.enable_public_archive');
  const entryUrl = (c: CampaignRow) => `${ctx.settings.rootUrl()}/archive/${c.archive_slug ?? c.uuid}`;
  const metaSubscriber = (c: CampaignRow): RenderSubscriber => archiveSubscriber(c.archive_meta);
  const archiveSubject = (c: CampaignRow) => {
    if (!c.subject.includes('{{')) return c.subject;
    try {
      return compileCampaign({ ...c, body: '' }, null, renderEnv(ctx, tracking)).render(metaSubscriber(c)).subject;
    } catch {
      return c.subject;
    }
  };
  const archiveHtml = (c: CampaignRow) => compileCampaign(c, layoutFor(campaigns, c, c.archive_template_id ?? c.template_id), renderEnv(ctx, tracking)).render(metaSubscriber(c)).html;
  const published = (c: CampaignRow) => c.send_at ?? c.created_at;

  app.get('/archive', (c) => {
    if (!archiveEnabled()) return errorPage(c, 404, 'Not found', 'The archive is not available.');
    const paging = parsePaging(c.req.query());
    const { rows, total } = campaigns.archived(paging.limit, paging.offset);
    const entries = rows.map((r) => ({ url: entryUrl(r), subject: archiveSubject(r), date: published(r).slice(0, 10) }));
    const pages = paging.all ? 1 : Math.ceil(total / paging.perPage);
    // The page size the reader chose stays in the links.
    const perPage = c.req.query('per_page') ? `&per_page=${paging.all ? 'all' : paging.perPage}` : '';
    const link = (page: number) => `?page=${page}${perPage}`;
    const body = ArchiveList({ entries, newer: paging.page > 1 ? link(paging.page - 1) : null, older: paging.page < pages ? link(paging.page + 1) : null });
    return sendPage(c, { ...publicLook(ctx.settings), indexable: true, title: 'Archive', body });
  });

  app.get('/archive.xml', (c) => {
    if (!archiveEnabled()) return errorPage(c, 404, 'Not found', 'The archive is not available.');
    const paging = parsePaging(c.req.query());
    const { rows } = campaigns.archived(paging.limit, paging.offset);
    const withContent = ctx.settings.bool('app.enable_public_archive_rss_content');
    const items = rows.map((r) => {
      let content: string | null = null;
      if (withContent) {
        try {
          content = archiveHtml(r);
        } catch {
          content = null;
        }
      }
      return { title: archiveSubject(r), link: entryUrl(r), pubDate: new Date(published(r)).toUTCString(), content };
    });
    const xml = archiveFeed({ title: ctx.settings.str('app.site_name'), link: ctx.settings.rootUrl() }, items);
    return c.body(xml, 200, { 'Content-Type': 'application/rss+xml; charset=utf-8' });
  });

  const showArchived = (c: Context, campaign: CampaignRow | undefined) => {
    if (!archiveEnabled() || !campaign) return errorPage(c, 404, 'Not found', 'This message is not in the archive.');
    return render(c, campaign, metaSubscriber(campaign), campaign.archive_template_id ?? campaign.template_id, true);
  };
  app.get('/archive/latest', (c) => showArchived(c, campaigns.archived(1, 0).rows[0]));
  app.get('/archive/:id', (c) => showArchived(c, campaigns.archivedOne(c.req.param('id'))));

  app.get('/api/public/archive', (c) => {
    if (!archiveEnabled()) return c.json({ message: 'the public archive is disabled' }, 404);
    const paging = parsePaging(c.req.query());
    const { rows, total } = campaigns.archived(paging.limit, paging.offset);
    const results = rows.map((r) => ({ uuid: r.uuid, subject: archiveSubject(r), content: '', created_at: r.created_at, send_at: r.send_at, url: entryUrl(r) }));
    return ok(c, pageResults(results, total, paging, { zeroWhenEmpty: true }));
  });
}
