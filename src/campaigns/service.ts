// Campaign rules: the request object (listmonk's, with "null means not given"), per-user
// visibility (api-behaviour §3.5), the status machine (delivery.md §2, DECISIONS 13),
// previews, test sends and analytics.
import { randomUUID } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { badRequest, conflict, forbidden, HttpError, notFound } from '../http/errors.ts';
import type { Body } from '../http/body.ts';
import { filterLists, hasPerm, permittedLists, type AuthUser } from '../http/permissions.ts';
import { escapeHtml } from '../http/page.ts';
import { normaliseTags, optBool, optEnum, optHeaderList, optIdList, optInt, optObject, optString, optStringArray } from '../http/validate.ts';
import { composer, layoutFor, loadAttachments, renderEnv } from './compose.ts';
import { isValidFrom } from '../mail/message.ts';
import type { TrackingStore } from '../tracking/store.ts';
import { archiveSubscriber, compileCampaign, DEMO_SUBSCRIBER, RenderError, ZERO_UUID } from './render.ts';
import {
  CAMPAIGN_STATUSES, CONTENT_TYPES, toJson, type CampaignFields, type CampaignJson, type CampaignRow, type CampaignStatus,
  type CampaignStore, type ContentType,
} from './store.ts';

const MAX_NAME_BYTES = 2000;
const MAX_SUBJECT_BYTES = 5000;

/** listmonk's slug rule: lower-case; anything but letters, marks and digits → space; spaces → "-". */
export function normaliseSlug(s: string): string | null {
  const slug = s.toLowerCase().replace(/[^\p{L}\p{M}\p{N}]/gu, ' ').trim().replace(/\s+/g, '-');
  return slug === '' ? null : slug;
}

/** A timestamp from the client; returned in our ISO shape. */
function parseTime(key: string, v: string): string {
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw badRequest(`invalid "${key}": "${v}" is not a timestamp`);
  return new Date(t).toISOString();
}

export interface TransitionCheck {
  from: CampaignStatus;
  to: string;
  hasSendAt: boolean;
}

/** The stored status for a requested change, or a 400 that says why it is not allowed. */
export function nextStatus({ from, to, hasSendAt }: TransitionCheck): CampaignStatus {
  switch (to) {
    case 'draft':
      if (from !== 'scheduled') throw badRequest('only a scheduled campaign can be set back to draft');
      return 'draft';
    case 'scheduled':
      if (!hasSendAt) throw badRequest('the campaign needs a send_at date to be scheduled');
      if (from !== 'draft' && from !== 'paused') throw badRequest(`only draft or paused campaigns can be scheduled (this one is ${from})`);
      return 'scheduled';
    case 'running':
      if (from !== 'draft' && from !== 'paused') throw badRequest(`only draft or paused campaigns can be started (this one is ${from})`);
      return hasSendAt ? 'scheduled' : 'running';
    case 'paused':
      if (from !== 'running') throw badRequest(`only a running campaign can be paused (this one is ${from})`);
      return 'paused';
    case 'cancelled':
      if (from !== 'running' && from !== 'paused') throw badRequest(`only running or paused campaigns can be cancelled (this one is ${from})`);
      return 'cancelled';
    case 'finished':
      throw badRequest('a campaign is finished by the sending engine, not by hand');
    default:
      throw badRequest(`invalid "status": "${to}" is not one of draft, scheduled, running, paused, cancelled`);
  }
}

export interface Preview {
  contentType: string;
  body: string;
}

/** What the campaign rules need of the sending engine (delivery/ depends on campaigns/, not back). */
export interface CampaignSender {
  /** Look for campaigns to send now (one was set running). */
  wake(): void;
  /** Stop sending a campaign (pause, cancel, delete). */
  halt(id: number): void;
  /** Whether a run of the campaign is still sending. */
  isSending(id: number): boolean;
  /** Messages per minute sent for the campaign lately. */
  rate(id: number): number;
}

export class CampaignService {
  constructor(
    private readonly ctx: AppContext,
    readonly store: CampaignStore,
    private readonly tracking: TrackingStore,
    private readonly engine: CampaignSender,
  ) {}

  /** null when the user sees every campaign, else the lists that make a campaign visible. */
  visibleLists(user: AuthUser, kind: 'get' | 'manage'): number[] | null {
    if (hasPerm(user, kind === 'get' ? 'campaigns:get_all' : 'campaigns:manage_all')) return null;
    const p = permittedLists(user, kind);
    return p === 'all' ? null : p;
  }

  /** The campaign if the user may see (get) or change (manage) it; 404/403 otherwise. */
  access(user: AuthUser, id: number, kind: 'get' | 'manage'): CampaignRow {
    const lists = this.visibleLists(user, kind);
    const c = this.store.get(id);
    if (!c) {
      if (lists !== null) throw forbidden(`permission denied: campaigns:${kind}`);
      throw notFound('campaign not found');
    }
    if (lists !== null && !this.store.listIds(id).some((l) => lists.includes(l))) throw forbidden(`permission denied: campaigns:${kind}`);
    return c;
  }

  json(id: number, noBody = false): CampaignJson {
    const r = this.store.raw(id);
    if (!r) throw notFound('campaign not found');
    return toJson(r, noBody);
  }

  /** Builds the stored fields from a request, over `existing` for updates. */
  private fields(user: AuthUser, b: Body, existing: CampaignRow | null): { fields: CampaignFields; listIds: number[]; mediaIds: number[] } {
    const s = this.ctx.settings;
    const name = optString(b, 'name', { maxBytes: MAX_NAME_BYTES }) ?? existing?.name ?? '';
    if (!name) throw badRequest('"name" is required');
    const subject = optString(b, 'subject', { maxBytes: MAX_SUBJECT_BYTES, trim: false }) ?? existing?.subject ?? '';
    if (!subject.trim()) throw badRequest('"subject" is required');

    let from = optString(b, 'from_email') ?? existing?.from_email ?? '';
    if (!from) from = s.str('app.from_email');
    else if (!isValidFrom(from)) throw badRequest(`invalid "from_email": "${from}" is not an e-mail address or "Name <address>"`);

    const rawType = optString(b, 'content_type');
    let contentType: ContentType = rawType !== undefined ? (CONTENT_TYPES.includes(rawType as ContentType) ? (rawType as ContentType) : 'richtext') : existing?.content_type ?? 'richtext';

    const type = existing ? existing.type : (optEnum(b, 'type', ['regular', 'optin'] as const) ?? 'regular');

    let sendAt = existing?.send_at ?? null;
    if (Object.hasOwn(b, 'send_at')) {
      const raw = b.send_at;
      if (raw === null || raw === '') sendAt = null;
      else if (typeof raw !== 'string') throw badRequest('invalid "send_at": expected a timestamp string');
      else {
        const t = parseTime('send_at', raw);
        // Re-sending the stored value (a GET echoed back) is not a new schedule.
        if (t !== existing?.send_at && Date.parse(t) <= Date.now()) throw badRequest('invalid "send_at": the date must be in the future');
        sendAt = t;
      }
    }

    const requested = optIdList(b, 'lists');
    if (!requested || !requested.length) throw badRequest('"lists" is required: give at least one list ID');
    const lists = this.store.existingLists(filterLists(user, 'get', requested));
    if (!lists.length) throw badRequest('invalid "lists": none of the given lists exists or is accessible');

    let messenger = optString(b, 'messenger') ?? existing?.messenger ?? 'email';
    if (!messenger) messenger = 'email';
    if (!this.ctx.mailer.has(messenger)) {
      if (messenger.startsWith('email-')) messenger = 'email';
      else throw badRequest(`invalid "messenger": "${messenger}" is not configured (have: ${this.ctx.mailer.names().join(', ') || 'none'})`);
    }

    let body = optString(b, 'body', { trim: false }) ?? existing?.body ?? '';
    let bodySource = optString(b, 'body_source', { trim: false }) ?? existing?.body_source ?? null;
    const altRaw = Object.hasOwn(b, 'altbody') ? optString(b, 'altbody', { trim: false }) ?? null : existing?.altbody ?? null;
    const altbody = altRaw === '' ? null : altRaw;

    // null or 0 means "not given" (clients.md): an update keeps the template, a create takes the default.
    const givenTemplate = optInt(b, 'template_id');
    let templateId = givenTemplate ? givenTemplate : existing ? existing.template_id : null;
    if (templateId === null && !existing && contentType !== 'visual') templateId = this.store.defaultTemplate()?.id ?? null;
    if (templateId !== null) {
      const t = this.store.template(templateId);
      if (!t || t.type === 'tx') templateId = null;
      else if (t.type === 'campaign_visual') {
        if (!body) body = t.body;
        bodySource = t.body_source;
        contentType = 'visual';
        templateId = null;
      }
    }
    if (contentType !== 'visual') bodySource = null;

    let archiveTemplateId = Object.hasOwn(b, 'archive_template_id') ? optInt(b, 'archive_template_id') ?? null : existing?.archive_template_id ?? null;
    if (archiveTemplateId === 0) archiveTemplateId = null;
    if (archiveTemplateId !== null && archiveTemplateId !== existing?.archive_template_id) this.checkCampaignTemplate('archive_template_id', archiveTemplateId);
    if (archiveTemplateId === null && !existing) archiveTemplateId = templateId;
    if (contentType === 'visual') archiveTemplateId = null;

    const slugRaw = Object.hasOwn(b, 'archive_slug') ? optString(b, 'archive_slug') ?? '' : existing?.archive_slug ?? '';
    const archiveSlug = this.checkSlug(slugRaw, existing?.id ?? null);

    if (type === 'optin') {
      const double = lists.filter((l) => l.optin === 'double');
      if (!double.length) throw badRequest('an opt-in campaign needs at least one double opt-in list');
      if (!existing) body = optinBody(double);
    }

    const fields: CampaignFields = {
      name, subject, from_email: from, body, body_source: bodySource, altbody, content_type: contentType, send_at: sendAt,
      headers: optHeaderList(b, 'headers') ?? existing?.headers ?? [],
      // listmonk clears attribs on update when they are absent.
      attribs: optObject(b, 'attribs') ?? {},
      tags: optStringArray(b, 'tags') !== undefined ? normaliseTags(optStringArray(b, 'tags')) : existing?.tags ?? [],
      type, messenger, template_id: templateId,
      archive: optBool(b, 'archive') ?? existing?.archive ?? false,
      archive_slug: archiveSlug, archive_template_id: archiveTemplateId,
      archive_meta: optObject(b, 'archive_meta') ?? existing?.archive_meta ?? {},
    };
    this.checkCompiles(fields);
    return { fields, listIds: lists.map((l) => l.id), mediaIds: optIdList(b, 'media') ?? [] };
  }

  private checkSlug(raw: string, ownId: number | null): string | null {
    const slug = normaliseSlug(raw);
    if (slug === 'latest') throw badRequest('invalid "archive_slug": "latest" is reserved');
    if (slug !== null) {
      const owner = this.store.slugOwner(slug);
      if (owner !== undefined && owner !== ownId) throw conflict(`archive_slug "${slug}" is already used by campaign ${owner}`);
    }
    return slug;
  }

  private checkCompiles(f: CampaignFields): void {
    try {
      compileCampaign({ ...f, id: 0, uuid: ZERO_UUID, created_at: '', updated_at: '', started_at: null, to_send: 0, sent: 0 },
        layoutFor(this.store, f, f.template_id), renderEnv(this.ctx, this.tracking));
    } catch (e) {
      if (e instanceof RenderError) throw badRequest(`the campaign does not compile: ${e.message}`);
      throw e;
    }
  }

  create(user: AuthUser, b: Body): CampaignJson {
    const { fields, listIds, mediaIds } = this.fields(user, b, null);
    return this.json(this.store.insert(randomUUID(), fields, listIds, mediaIds));
  }

  update(user: AuthUser, id: number, b: Body): CampaignJson {
    const c = this.access(user, id, 'manage');
    if (!['draft', 'scheduled', 'paused'].includes(c.status)) throw badRequest(`a ${c.status} campaign cannot be edited (only draft, scheduled or paused ones)`);
    const { fields, listIds, mediaIds } = this.fields(user, b, c);
    this.store.update(id, fields, listIds, mediaIds);
    return this.json(id);
  }

  delete(user: AuthUser, id: number): void {
    const c = this.access(user, id, 'manage');
    if (c.status === 'running' || this.engine.isSending(id)) throw badRequest('a running campaign cannot be deleted: pause or cancel it first');
    this.store.delete(id);
  }

  /**
   * Bulk delete: the campaigns with the given ids, or whose name or subject contains `search`
   * ('' = all), among those the user may manage; unknown ids are ignored. A running campaign
   * is never deleted (as the single delete): if the selection holds one, nothing is deleted
   * and the 400 names it, so the caller can pause or cancel it first.
   */
  deleteMany(user: AuthUser, sel: { ids: number[] } | { search: string }): void {
    const rows = this.store.matching('ids' in sel ? sel.ids : null, 'search' in sel ? sel.search : '', this.visibleLists(user, 'manage'));
    const running = rows.filter((r) => r.status === 'running' || this.engine.isSending(r.id)).map((r) => r.id);
    if (running.length) throw badRequest(`running campaigns cannot be deleted: pause or cancel them first (IDs ${running.join(', ')})`);
    this.store.deleteMany(rows.map((r) => r.id));
  }

  setStatus(user: AuthUser, id: number, b: Body): CampaignJson {
    const c = this.access(user, id, 'manage');
    const to = optString(b, 'status') ?? '';
    if (!to) throw badRequest('"status" is required');
    const next = nextStatus({ from: c.status, to, hasSendAt: c.send_at !== null });
    this.store.setStatus(id, next);
    if (next === 'paused' || next === 'cancelled') this.engine.halt(id);
    if (next === 'running' || next === 'scheduled') this.engine.wake();
    return this.json(id);
  }

  /** Archive pages and previews are laid out in a campaign template (listmonk's rule for the archive); other ids are refused. */
  private checkCampaignTemplate(field: string, id: number): void {
    if (this.store.template(id)?.type !== 'campaign') throw badRequest(`invalid "${field}": template ${id} not found or not a campaign template`);
  }

  setArchive(user: AuthUser, id: number, b: Body): void {
    const c = this.access(user, id, 'manage');
    const archive = optBool(b, 'archive') ?? c.archive;
    const tpl = optInt(b, 'archive_template_id');
    if (tpl) this.checkCampaignTemplate('archive_template_id', tpl);
    const slug = Object.hasOwn(b, 'archive_slug') ? this.checkSlug(optString(b, 'archive_slug') ?? '', id) : c.archive_slug;
    this.store.setArchive(id, archive, slug, tpl ? tpl : c.archive_template_id, optObject(b, 'archive_meta') ?? c.archive_meta);
  }

  /** Renders with the demo subscriber and the zero campaign UUID, so nothing is counted. */
  preview(c: CampaignRow, over: { body?: string; contentType?: string; templateId?: number }): Preview {
    const contentType = over.contentType && CONTENT_TYPES.includes(over.contentType as ContentType) ? over.contentType : c.content_type;
    const templateId = over.templateId && over.templateId > 0 && contentType !== 'visual' ? over.templateId : c.template_id;
    if (templateId !== c.template_id && templateId !== null) this.checkCampaignTemplate('template_id', templateId);
    const camp = { ...c, uuid: ZERO_UUID, body: over.body ?? c.body, content_type: contentType as ContentType };
    try {
      const compiled = compileCampaign(camp, layoutFor(this.store, camp, templateId), renderEnv(this.ctx, this.tracking));
      return { contentType, body: compiled.render(DEMO_SUBSCRIBER).html };
    } catch (e) {
      if (e instanceof RenderError) throw badRequest(`the campaign does not render: ${e.message}`);
      throw e;
    }
  }

  /**
   * The archive page as it would be published, with `meta` (else the stored archive_meta) as
   * the subscriber and `templateId` (else the archive template) as the layout; rendered
   * under the zero campaign UUID, so its links and pixel count nothing.
   */
  previewArchive(c: CampaignRow, templateId: number | undefined, meta: Record<string, unknown> | undefined): string {
    const camp = { ...c, uuid: ZERO_UUID };
    if (templateId && templateId > 0) this.checkCampaignTemplate('template_id', templateId);
    const layoutId = templateId && templateId > 0 ? templateId : c.archive_template_id ?? c.template_id;
    try {
      return compileCampaign(camp, layoutFor(this.store, camp, layoutId), renderEnv(this.ctx, this.tracking)).render(archiveSubscriber(meta ?? c.archive_meta)).html;
    } catch (e) {
      if (e instanceof RenderError) throw badRequest(`the archive page does not render: ${e.message}`);
      throw e;
    }
  }

  /** Sends the (possibly edited, unsaved) campaign to existing subscribers; nothing is counted. */
  async testSend(user: AuthUser, id: number, b: Body): Promise<void> {
    const c = this.access(user, id, 'manage');
    const emails = (optStringArray(b, 'subscribers') ?? []).map((e) => e.trim().toLowerCase()).filter(Boolean);
    if (!emails.length) throw badRequest('"subscribers" is required: give the e-mail addresses of existing subscribers');
    // A bare form (template_id only) tests the stored campaign on its stored lists.
    const { fields } = this.fields(user, { lists: this.store.listIds(id), ...b }, c);
    const lists = permittedLists(user, 'get');
    const subs = this.store.subscribersByEmail(emails)
      .filter((s) => lists === 'all' || this.store.subscriberListIds(s.id).some((l) => lists.includes(l)));
    if (!subs.length) throw badRequest('none of the given addresses belongs to a subscriber you can access');
    const camp: CampaignRow = { ...c, ...fields, template_id: optInt(b, 'template_id') ?? fields.template_id };
    let compose;
    try {
      compose = composer(this.ctx, this.store, this.tracking, camp, loadAttachments(this.ctx, this.store, c.id));
    } catch (e) {
      if (e instanceof RenderError) throw badRequest(`the campaign does not render: ${e.message}`);
      throw e;
    }
    for (const s of subs) {
      let message;
      try {
        message = compose.message(s);
      } catch (e) {
        if (e instanceof RenderError) throw badRequest(`the campaign does not render for ${s.email}: ${e.message}`);
        throw e;
      }
      try {
        await this.ctx.mailer.send(camp.messenger, message);
      } catch (e) {
        throw new HttpError(502, `test message to ${s.email} failed: ${(e as Error).message}`);
      }
    }
  }

  runningStats(onlyId: number | null): Record<string, unknown>[] {
    return this.store.running(onlyId).map((r) => {
      const minutes = r.started_at ? Math.floor((Date.parse(r.updated_at) - Date.parse(r.started_at)) / 60_000) : 0;
      let netRate = Math.floor(r.sent / Math.max(1, minutes));
      if (netRate > r.sent || netRate > r.to_send) netRate = r.sent;
      return { id: r.id, status: r.status, to_send: r.to_send, sent: r.sent, started_at: r.started_at, updated_at: r.updated_at, rate: this.engine.rate(r.id), net_rate: netRate };
    });
  }

  analytics(user: AuthUser, type: string, ids: number[], fromRaw: string | undefined, toRaw: string | undefined): unknown[] {
    if (!['views', 'clicks', 'bounces', 'links'].includes(type)) throw badRequest(`invalid analytics type "${type}": one of views, clicks, bounces, links`);
    if (!ids.length) throw badRequest('"id" is required: one or more campaign IDs');
    const range = (key: string, v: string | undefined) => {
      if (!v || v.length < 10 || v.length > 30) throw badRequest(`invalid "${key}": give a date (2025-03-01) or a timestamp`);
      return parseTime(key, v);
    };
    const from = range('from', fromRaw);
    const to = range('to', toRaw);
    for (const id of ids) this.access(user, id, 'get');
    const unique = this.ctx.settings.bool('privacy.individual_tracking');
    if (type === 'links') return this.store.topLinks(ids, from, to, unique);
    const byDay = Date.parse(to) - Date.parse(from) >= 7 * 24 * 3600_000;
    return this.store.analytics(type as 'views' | 'clicks' | 'bounces', ids, from, to, byDay, unique && type !== 'bounces');
  }

  isStatus(s: string): s is CampaignStatus {
    return (CAMPAIGN_STATUSES as readonly string[]).includes(s);
  }
}

/** The body of a new opt-in campaign: a confirm button for the double opt-in lists. */
function optinBody(lists: { name: string; uuid: string }[]): string {
  const params = lists.map((l) => `l=${encodeURIComponent(l.uuid)}`).join('&amp;');
  return `<p>Hi {{ .Subscriber.FirstName }},</p>
<p>You have been added to the following mailing lists:</p>
<ul>
${lists.map((l) => `  <li>${escapeHtml(l.name)}</li>`).join('\n')}
</ul>
<p>Confirm your subscription by clicking the button below.</p>
<p><a class="button" href="{{ OptinURL . }}${params}">Confirm subscription</a></p>`;
}
