// Compiling a campaign once and turning it into one message per subscriber: its template,
// its archive page, attachments from the uploads folder, headers (src/mail/message.ts).
// Previews, test sends, web views and the sending engine (delivery/) compose campaigns through
// here; rendering itself, which tx and templates share, is rendering/message.ts.
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { AppContext } from '../context.ts';
import type { Attachment, OutgoingMessage } from '../mail/types.ts';
import { buildCampaignMessage, textEncodingFor } from '../mail/message.ts';
import {
  compileCampaign, renderEnv, RenderError, toRenderSubscriber, ZERO_UUID, type CompiledCampaign, type RenderEnv, type TrackedLinks, type TrackingMode,
} from '../rendering/message.ts';
import { renderArchive } from './archive.ts';
import type { ArchivePageInfo } from '../templating/index.ts';
import type { CampaignRow, CampaignStore, SubscriberRow } from './store.ts';

/** The layout a campaign renders in: its template, else the default one; visual content has none. */
export function layoutFor(store: CampaignStore, c: Pick<CampaignRow, 'content_type'>, templateId: number | null): string | null {
  if (c.content_type === 'visual') return null;
  const t = (templateId !== null ? store.template(templateId) : undefined) ?? store.defaultTemplate();
  return t && t.type === 'campaign' ? t.body : null;
}

/** A campaign's page in the public archive. */
export function archivePageUrl(rootUrl: string, c: Pick<CampaignRow, 'archive_slug' | 'uuid'>): string {
  return `${rootUrl}/archive/${c.archive_slug ?? c.uuid}`;
}

/** The archive page's layout: its archive template, else the shipped archive template, else its mail template. */
export function archiveLayoutFor(store: CampaignStore, c: Pick<CampaignRow, 'content_type' | 'archive_template_id' | 'template_id'>): string | null {
  return layoutFor(store, c, c.archive_template_id ?? store.archiveTemplateId() ?? c.template_id);
}

/** The day an issue went out (its start, else its schedule, else its creation): the archive's date and order. */
export function publishedAt(c: Pick<CampaignRow, 'started_at' | 'send_at' | 'created_at'>): string {
  return c.started_at ?? c.send_at ?? c.created_at;
}

/** The subject as the archive shows it: rendered for the archive's reader (as written if that fails). */
export function archiveTitle(ctx: AppContext, tracking: TrackedLinks, c: CampaignRow): string {
  if (!c.subject.includes('{{')) return c.subject;
  try {
    return renderArchive(compileCampaign({ ...c, body: '' }, null, renderEnv(ctx, tracking, 'view')), c.archive_meta).subject;
  } catch {
    return c.subject;
  }
}

/** What `ArchivePage` gives an issue's page: the site, the issue's date, its neighbours, a subscribe link for its lists. */
function archivePage(ctx: AppContext, store: CampaignStore, tracking: TrackedLinks, c: CampaignRow, rootUrl: string): ArchivePageInfo {
  const { newer, older } = store.archiveNeighbours(c);
  const link = (n: CampaignRow | null) => (n ? { url: archivePageUrl(rootUrl, n), title: archiveTitle(ctx, tracking, n) } : null);
  const lists = store.publicListUuids(c.id);
  const form = `${rootUrl}/subscription/form`;
  return {
    siteName: ctx.settings.str('app.site_name'), indexURL: `${rootUrl}/archive`, date: publishedAt(c).slice(0, 10),
    newer: link(newer), older: link(older),
    subscribeURL: ctx.settings.bool('app.enable_public_subscription_page') ? (lists.length ? `${form}?${lists.map((u) => `l=${u}`).join('&')}` : form) : '',
  };
}

/** What an archive page renders with: no subscriber, so no unsubscribe, web view or view pixel (RenderContext.publicPageURL). */
export function archiveEnv(ctx: AppContext, store: CampaignStore, tracking: TrackedLinks, mode: TrackingMode, c: CampaignRow): RenderEnv {
  const env = renderEnv(ctx, tracking, mode);
  return { ...env, publicPageUrl: archivePageUrl(env.rootUrl, c), archivePage: archivePage(ctx, store, tracking, c, env.rootUrl) };
}

/**
 * A campaign's archive page (its HTML), laid out in its archive template; a preview gives
 * another layout or stand-in subscriber, and renders under the zero campaign UUID.
 */
export function archiveHtml(ctx: AppContext, store: CampaignStore, tracking: TrackedLinks, mode: TrackingMode, c: CampaignRow, over: { layout?: string | null; meta?: Record<string, unknown> } = {}): string {
  const layout = over.layout !== undefined ? over.layout : archiveLayoutFor(store, c);
  const rendered = mode === 'preview' ? { ...c, uuid: ZERO_UUID } : c;
  return renderArchive(compileCampaign(rendered, layout, archiveEnv(ctx, store, tracking, mode, c)), over.meta ?? c.archive_meta).html;
}

/** Reads the campaign's media files once; every message shares the same Buffers. */
export function loadAttachments(ctx: AppContext, store: CampaignStore, campaignId: number): Attachment[] {
  return store.mediaFiles(campaignId).map((m) => {
    try {
      return { filename: m.filename, content: readFileSync(join(ctx.config.uploadsPath, basename(m.filename))), contentType: m.content_type };
    } catch (e) {
      throw new RenderError(`attachment "${m.filename}" cannot be read: ${(e as Error).message}`);
    }
  });
}

export interface Composer {
  compiled: CompiledCampaign;
  message(sub: SubscriberRow): OutgoingMessage;
}

/** Compiles the campaign (throws RenderError) and returns a per-subscriber message builder. */
export function composer(ctx: AppContext, store: CampaignStore, tracking: TrackedLinks, c: CampaignRow, attachments: Attachment[]): Composer {
  const env = renderEnv(ctx, tracking, 'send');
  const compiled = compileCampaign(c, layoutFor(store, c, c.template_id), env);
  const unsubHeader = ctx.settings.bool('privacy.unsubscribe_header');
  const mailto = ctx.settings.str('privacy.unsubscribe_mailto');
  const campaignMeta = { from_email: c.from_email, uuid: c.uuid, name: c.name, headers: c.headers, tags: c.tags };
  // Every message of a campaign is mostly the same text: its transfer encoding is chosen once,
  // from the first one, instead of nodemailer scanning each message.
  let textEncoding: OutgoingMessage['textEncoding'] | null = null;
  return {
    compiled,
    message(row) {
      const sub = toRenderSubscriber(row);
      const r = compiled.render(sub, true);
      if (textEncoding === null) textEncoding = textEncodingFor(r.html);
      const msg = buildCampaignMessage({
        from: c.from_email, to: sub.email, campaignUuid: c.uuid, subscriberUuid: sub.uuid, contentType: c.content_type,
        subject: r.subject, html: r.html, altbody: r.altbody, headers: r.headers,
        unsubscribeUrl: unsubHeader ? `${env.rootUrl}/subscription/${c.uuid}/${sub.uuid}` : null,
        unsubscribeMailto: mailto, attachments,
        meta: {
          content_type: c.content_type,
          recipient: { uuid: sub.uuid, email: sub.email, name: sub.name, attribs: sub.attribs, status: sub.status },
          campaign: campaignMeta,
        },
      });
      if (textEncoding) msg.textEncoding = textEncoding;
      return msg;
    },
  };
}
