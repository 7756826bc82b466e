// Campaign rules: who may see or change which campaign (docs/decisions.md §18), the request object
// (listmonk's, with "null means not given"), the status machine (docs/decisions.md §37),
// previews, test sends and analytics. Routes pass the actor and typed input.
import { randomUUID } from 'node:crypto';
import { html } from 'hono/html';
import { renderHtml } from '../rendering/markup.ts';
import type { AppContext } from '../context.ts';
import { loggedIds } from '../log.ts';
import { conflict, denied, invalid, notFound, upstreamFailed } from '../core/errors.ts';
import { authorize, authorizeEach, can, permittedLists, type Actor, type Authorized } from '../core/authz.ts';
import { emailProblem, nameFromEmail } from '../mail/address.ts';
import { subscriberScope } from '../subscribers/service.ts';
import { isValidFrom, type HeaderList } from '../mail/message.ts';
import { archiveHtml, archiveLayoutFor, composer, layoutFor, loadAttachments } from './compose.ts';
import { compileCampaign, DEMO_SUBSCRIBER, renderEnv, RenderError, ZERO_UUID, type TrackedLinks } from '../rendering/message.ts';
import { archiveSubscriber } from './archive.ts';
import {
  CAMPAIGN_STATUSES, CONTENT_TYPES, toJson, type CampaignFields, type CampaignJson, type CampaignReach, type CampaignRow, type CampaignStatus,
  type Bucket, type CampaignStore, type ContentType, type EngagementRow, type SubscriberRow,
} from './store.ts';

// What callers (routes, pages) use of a campaign, without reaching the store.
export { CAMPAIGN_ORDER_BY, CAMPAIGN_STATUSES, CONTENT_TYPES, type Bucket, type CampaignJson } from './store.ts';

export const CAMPAIGN_TYPES = ['regular', 'optin'] as const;

/**
 * A campaign as a change request gives it: an absent field (undefined) keeps the stored value;
 * null clears the fields that may be cleared (send_at, altbody, archive_template_id,
 * archive_slug). `lists` is required on every save.
 */
export interface CampaignChanges {
  name?: string;
  subject?: string;
  from_email?: string;
  /** Anything but a known content type is read as richtext (listmonk). */
  content_type?: string;
  /** ISO time. */
  send_at?: string | null;
  lists?: number[];
  messenger?: string;
  body?: string;
  body_source?: string;
  altbody?: string | null;
  /** 0 means not given: a change keeps the template, a create takes the default. */
  template_id?: number;
  archive_template_id?: number | null;
  archive_slug?: string | null;
  headers?: HeaderList;
  /** Cleared when absent (listmonk). */
  attribs?: Record<string, unknown>;
  tags?: string[];
  archive?: boolean;
  archive_meta?: Record<string, unknown>;
  media?: number[];
  /** Track every literal link of the body (absent on a create: privacy.track_links). */
  track_links?: boolean;
}

/** A new campaign: a name and a subject are required; the type is set once. */
export interface CampaignInput extends CampaignChanges {
  name: string;
  subject: string;
  type?: (typeof CAMPAIGN_TYPES)[number];
}

/** A test send: the campaign as edited (unsaved), to these addresses. */
export interface CampaignTest extends Omit<CampaignChanges, 'lists'> {
  subscribers?: string[];
  /** Absent: the stored lists; null: none (refused, as on a save). */
  lists?: number[] | null;
}

export interface ArchiveChanges {
  archive?: boolean;
  /** 0 keeps the stored one. */
  archive_template_id?: number;
  archive_slug?: string | null;
  archive_meta?: Record<string, unknown>;
}

export interface CampaignQueryInput {
  statuses: string[];
  tags: string[];
  /** Text the name or subject must contain. */
  search: string;
  orderBy: string;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
  noBody: boolean;
}

/** What a preview changes of the stored campaign. */
export interface PreviewInput {
  body?: string;
  content_type?: string;
  /** 0 means the campaign's own. */
  template_id?: number;
}

export interface ArchivePreviewInput {
  /** The layout (0: the archive template, else the campaign's). */
  template_id?: number;
  /** The stand-in subscriber (else the stored archive_meta). */
  archive_meta?: Record<string, unknown>;
}

/** listmonk's slug rule: lower-case; anything but letters, marks and digits → space; spaces → "-". */
export function normaliseSlug(s: string): string | null {
  const slug = s.toLowerCase().replace(/[^\p{L}\p{M}\p{N}]/gu, ' ').trim().replace(/\s+/g, '-');
  return slug === '' ? null : slug;
}

/** A timestamp from the client; returned in our ISO shape. */
function parseTime(key: string, v: string): string {
  const t = Date.parse(v);
  if (Number.isNaN(t)) throw invalid(`invalid "${key}": "${v}" is not a timestamp`);
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
      if (from !== 'scheduled') throw invalid('only a scheduled campaign can be set back to draft');
      return 'draft';
    case 'scheduled':
      if (!hasSendAt) throw invalid('the campaign needs a send_at date to be scheduled');
      if (from !== 'draft' && from !== 'paused') throw invalid(`only draft or paused campaigns can be scheduled (this one is ${from})`);
      return 'scheduled';
    case 'running':
      if (from !== 'draft' && from !== 'paused') throw invalid(`only draft or paused campaigns can be started (this one is ${from})`);
      return hasSendAt ? 'scheduled' : 'running';
    case 'paused':
      if (from !== 'running') throw invalid(`only a running campaign can be paused (this one is ${from})`);
      return 'paused';
    case 'cancelled':
      if (from !== 'running' && from !== 'paused') throw invalid(`only running or paused campaigns can be cancelled (this one is ${from})`);
      return 'cancelled';
    case 'finished':
      throw invalid('a campaign is finished by the sending engine, not by hand');
    default:
      throw invalid(`invalid "status": "${to}" is not one of draft, scheduled, running, paused, cancelled`);
  }
}

export interface Preview {
  contentType: string;
  body: string;
}

/**
 * A campaign's send record with its rates (docs/admin.md, "Analytics"), each a fraction of 1, or null
 * where it cannot be computed: nothing sent yet, or (views and clicks) no individual tracking,
 * where a view or click is recorded without its subscriber and unique readers are not known.
 */
export interface CampaignRates extends Omit<CampaignReach, 'viewers' | 'clickers'> {
  viewers: number | null;
  clickers: number | null;
  open_rate: number | null;
  click_rate: number | null;
  click_to_open: number | null;
  bounce_rate: number | null;
  unsubscribe_rate: number | null;
  /**
   * With individual tracking off: views and clicks per message sent (at most 1), from every
   * view and click counted without the subscriber, so approximate (a reader opening twice
   * counts twice; mail apps that load no images count none). Null when tracking is individual
   * (the exact rates above apply) or nothing was sent.
   */
  approx_open_rate: number | null;
  approx_click_rate: number | null;
}

export type EngagementType = 'views' | 'clicks';
export const ENGAGEMENT_TYPES: readonly EngagementType[] = ['views', 'clicks'];

/** The most addresses one test send may go to. */
export const TEST_RECIPIENTS = 10;

/** Rows per batch of the who-viewed / who-clicked CSV export. */
const EXPORT_BATCH = 1000;

/** Who a campaign to some lists would reach, and why the other members of the lists are left out. */
export interface AudienceBreakdown {
  /** Subscribers it would be sent to (its to_send when started). */
  count: number;
  /** Subscribers with a subscription (in any status) to any of the lists, each once. */
  members: number;
  excluded: {
    /** Regular campaigns: only unconfirmed on the double opt-in lists among them. */
    unconfirmed: number;
    /** Unsubscribed from every one of the lists. */
    unsubscribed: number;
    blocklisted: number;
    /** Opt-in campaigns: subscribed, with no unconfirmed double opt-in subscription to confirm. */
    nothing_to_confirm: number;
  };
  /** Regular campaigns: the double opt-in lists among them with unconfirmed subscribers (their opt-in action reaches them). */
  optin_lists: { id: number; name: string; unconfirmed: number; /** Whether the caller may run the list's opt-in action. */ manage?: boolean }[];
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
  /** Who a campaign to these lists would be sent to now (its to_send when started), and who not and why. */
  audience(listIds: number[], optin: boolean): AudienceBreakdown;
}

/** A campaign the actor may change: its id is the checked one store changes take. */
type ManageableCampaign = CampaignRow & { id: Authorized<number> };

export class CampaignService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: CampaignStore,
    private readonly tracking: TrackedLinks,
    private readonly engine: CampaignSender,
  ) {}

  /**
   * The lists that make a campaign visible to the actor, or null for every campaign:
   * campaigns:get_all (manage_all) covers every campaign, else a campaign is visible when one
   * of its lists is (list:get or list:manage grants; list:manage ones to change it).
   */
  private scope(actor: Actor, kind: 'get' | 'manage'): number[] | null {
    if (can(actor, kind === 'get' ? 'campaigns:get_all' : 'campaigns:manage_all')) return null;
    const p = permittedLists(actor, kind);
    return p === 'all' ? null : p;
  }

  /** Whether the campaign is in a scope (see scope()): every campaign, or one on one of its lists. */
  private inScope(lists: number[] | null, id: number): boolean {
    return lists === null || this.store.listIds(id).some((l) => lists.includes(l));
  }

  /** Whether the actor may see the campaign: the check of every read below. */
  sees(actor: Actor, id: number): boolean {
    return this.inScope(this.scope(actor, 'get'), id);
  }

  /** Whether the actor may change (and delete, start, test) the campaign: the check of every change below. */
  manages(actor: Actor, id: number): boolean {
    return this.inScope(this.scope(actor, 'manage'), id);
  }

  /** The campaign; 404, or 403 to an actor limited to some lists (whether the id exists is not theirs to learn). */
  private found(id: number, lists: number[] | null, kind: 'get' | 'manage'): CampaignRow {
    const c = this.store.get(id);
    if (c) return c;
    if (lists !== null) throw denied(`permission denied: campaigns:${kind}`);
    throw notFound('campaign not found');
  }

  /** The campaign if the actor may see it; 404/403 otherwise. */
  private visible(actor: Actor, id: number): CampaignRow {
    const c = this.found(id, this.scope(actor, 'get'), 'get');
    if (!this.sees(actor, id)) throw denied('permission denied: campaigns:get');
    return c;
  }

  /** The campaign if the actor may change it, its id authorised for that; 404/403 otherwise. */
  private manageable(actor: Actor, id: number): ManageableCampaign {
    const c = this.found(id, this.scope(actor, 'manage'), 'manage');
    return { ...c, id: authorize(c.id, (id) => this.manages(actor, id), () => denied('permission denied: campaigns:manage')) };
  }

  private json(id: number, noBody = false): CampaignJson {
    const r = this.store.raw(id);
    if (!r) throw notFound('campaign not found');
    return toJson(r, noBody);
  }

  /** A page of the campaigns the actor may see, with the total. */
  query(actor: Actor, q: CampaignQueryInput): { results: CampaignJson[]; total: number } {
    for (const s of q.statuses) if (!(CAMPAIGN_STATUSES as readonly string[]).includes(s)) throw invalid(`invalid "status": "${s}"`);
    const { rows, total } = this.store.list({
      statuses: q.statuses, tags: q.tags, search: q.search, visibleLists: this.scope(actor, 'get'),
      orderBy: q.orderBy, order: q.order, limit: q.limit, offset: q.offset,
    });
    return { results: rows.map((r) => toJson(r, q.noBody)), total };
  }

  /**
   * The subscribers a campaign to these lists would reach if started now, counted as the
   * sending engine counts to_send; lists the actor may not see or that do not exist are left out.
   */
  audience(actor: Actor, listIds: number[], type: (typeof CAMPAIGN_TYPES)[number]): AudienceBreakdown & { lists: number } {
    const lists = listIds.length ? this.store.existingLists(listIds.filter((id) => can(actor, 'list:get', id))).map((l) => l.id) : [];
    const none = { count: 0, members: 0, excluded: { unconfirmed: 0, unsubscribed: 0, blocklisted: 0, nothing_to_confirm: 0 }, optin_lists: [] };
    const a = lists.length ? this.engine.audience(lists, type === 'optin') : none;
    return { ...a, optin_lists: a.optin_lists.map((l) => ({ ...l, manage: can(actor, 'list:manage', l.id) })), lists: lists.length };
  }

  /** The campaigns among `ids` that exist and the actor may see, without bodies, in id order (others are left out). */
  visibleAmong(actor: Actor, ids: number[]): CampaignJson[] {
    if (!ids.length) return [];
    return this.store.matching(ids, '', this.scope(actor, 'get')).map((r) => this.json(r.id, true));
  }

  get(actor: Actor, id: number, noBody = false): CampaignJson {
    this.visible(actor, id);
    return this.json(id, noBody);
  }

  /** The stored fields of a request, over `existing` for a change. */
  private fields(actor: Actor, c: CampaignChanges & { type?: CampaignInput['type'] }, existing: CampaignRow | null): { fields: CampaignFields; listIds: number[]; mediaIds: number[] } {
    const s = this.ctx.settings;
    const name = c.name ?? existing?.name ?? '';
    if (!name) throw invalid('"name" is required');
    const subject = c.subject ?? existing?.subject ?? '';
    if (!subject.trim()) throw invalid('"subject" is required');

    let from = c.from_email ?? existing?.from_email ?? '';
    if (!from) from = s.str('app.from_email');
    else if (!isValidFrom(from)) throw invalid(`invalid "from_email": "${from}" is not an e-mail address or "Name <address>"`);

    let contentType: ContentType = c.content_type !== undefined ? (CONTENT_TYPES.includes(c.content_type as ContentType) ? (c.content_type as ContentType) : 'richtext') : existing?.content_type ?? 'richtext';

    const type = existing ? existing.type : (c.type ?? 'regular');

    let sendAt = existing?.send_at ?? null;
    if (c.send_at !== undefined) {
      // Re-sending the stored value (a GET echoed back) is not a new schedule.
      if (c.send_at !== null && c.send_at !== existing?.send_at && Date.parse(c.send_at) <= Date.now()) throw invalid('invalid "send_at": the date must be in the future');
      sendAt = c.send_at;
    }

    if (!c.lists || !c.lists.length) throw invalid('"lists" is required: give at least one list ID');
    const lists = this.store.existingLists(c.lists.filter((id) => can(actor, 'list:get', id)));
    if (!lists.length) throw invalid('invalid "lists": none of the given lists exists or is accessible');

    let messenger = c.messenger ?? existing?.messenger ?? 'email';
    if (!messenger) messenger = 'email';
    // "email" is always accepted: a campaign can be written before SMTP is set up (starting it cannot).
    if (messenger !== 'email' && !this.ctx.mailer.has(messenger)) {
      if (messenger.startsWith('email-')) messenger = 'email';
      else throw invalid(`invalid "messenger": "${messenger}" is not configured (have: ${this.ctx.mailer.names().join(', ') || 'none'})`);
    }

    let body = c.body ?? existing?.body ?? '';
    let bodySource = c.body_source ?? existing?.body_source ?? null;
    const altRaw = c.altbody !== undefined ? c.altbody : existing?.altbody ?? null;
    const altbody = altRaw === '' ? null : altRaw;

    // null or 0 means "not given" (docs/decisions.md §2): an update keeps the template, a create takes the default.
    let templateId = c.template_id ? c.template_id : existing ? existing.template_id : null;
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

    let archiveTemplateId = c.archive_template_id !== undefined ? c.archive_template_id : existing?.archive_template_id ?? null;
    if (archiveTemplateId === 0) archiveTemplateId = null;
    if (archiveTemplateId !== null && archiveTemplateId !== existing?.archive_template_id) this.checkCampaignTemplate('archive_template_id', archiveTemplateId);
    if (archiveTemplateId === null && !existing) archiveTemplateId = this.store.archiveTemplateId() ?? templateId;
    if (contentType === 'visual') archiveTemplateId = null;

    // A new campaign without one gets a free slug made from its subject (listmonk's admin sends
    // the subject as the slug); a given one must be free.
    const slugRaw = c.archive_slug !== undefined ? c.archive_slug ?? '' : existing?.archive_slug ?? '';
    const archiveSlug = !existing && c.archive_slug === undefined ? this.freeSlug(subject) : this.checkSlug(slugRaw, existing?.id ?? null);
    // Published by default when every list is public and the setting is on (listmgr).
    const archiveByDefault = type === 'regular' && this.ctx.settings.bool('app.archive_new_campaigns') && lists.every((l) => l.type === 'public');

    if (type === 'optin') {
      const double = lists.filter((l) => l.optin === 'double');
      if (!double.length) throw invalid('an opt-in campaign needs at least one double opt-in list');
      if (!existing) body = optinBody(double);
    }

    const fields: CampaignFields = {
      name, subject, from_email: from, body, body_source: bodySource, altbody, content_type: contentType, send_at: sendAt,
      headers: c.headers ?? existing?.headers ?? [],
      // listmonk clears attribs on update when they are absent.
      attribs: c.attribs ?? {},
      tags: c.tags ?? existing?.tags ?? [],
      type, messenger, template_id: templateId,
      archive: c.archive ?? existing?.archive ?? archiveByDefault,
      archive_slug: archiveSlug, archive_template_id: archiveTemplateId,
      archive_meta: c.archive_meta ?? existing?.archive_meta ?? {},
      track_links: c.track_links ?? existing?.track_links ?? this.ctx.settings.bool('privacy.track_links'),
    };
    this.checkCompiles(fields);
    return { fields, listIds: lists.map((l) => l.id), mediaIds: c.media ?? [] };
  }

  /** The subject's slug (template actions left out), numbered -2, -3… past the ones taken; null when it has no letter or digit. */
  private freeSlug(subject: string): string | null {
    const base = normaliseSlug(subject.replace(/\{\{[\s\S]*?\}\}/g, ' ').slice(0, 200));
    if (base === null) return null;
    let slug = base;
    for (let n = 2; slug === 'latest' || this.store.slugOwner(slug) !== undefined; n++) slug = `${base}-${n}`;
    return slug;
  }

  private checkSlug(raw: string, ownId: number | null): string | null {
    const slug = normaliseSlug(raw);
    if (slug === 'latest') throw invalid('invalid "archive_slug": "latest" is reserved');
    if (slug !== null) {
      const owner = this.store.slugOwner(slug);
      if (owner !== undefined && owner !== ownId) throw conflict(`archive_slug "${slug}" is already used by campaign ${owner}`);
    }
    return slug;
  }

  private checkCompiles(f: CampaignFields): void {
    RenderError.describing('the campaign does not compile', () =>
      compileCampaign({ ...f, id: 0, uuid: ZERO_UUID, created_at: '', updated_at: '', started_at: null, to_send: 0, sent: 0 },
        layoutFor(this.store, f, f.template_id), renderEnv(this.ctx, this.tracking, 'preview')));
  }

  create(actor: Actor, input: CampaignInput): CampaignJson {
    if (!can(actor, 'campaigns:manage_all') && !can(actor, 'campaigns:manage')) throw denied('permission denied: campaigns:manage');
    const { fields, listIds, mediaIds } = this.fields(actor, input, null);
    return this.json(this.store.insert(randomUUID(), fields, listIds, mediaIds));
  }

  update(actor: Actor, id: number, changes: CampaignChanges): CampaignJson {
    const c = this.manageable(actor, id);
    if (!['draft', 'scheduled', 'paused'].includes(c.status)) throw invalid(`a ${c.status} campaign cannot be edited (only draft, scheduled or paused ones)`);
    const { fields, listIds, mediaIds } = this.fields(actor, changes, c);
    this.store.update(c.id, fields, listIds, mediaIds);
    return this.json(id);
  }

  delete(actor: Actor, id: number): void {
    const c = this.manageable(actor, id);
    if (c.status === 'running' || this.engine.isSending(id)) throw invalid('a running campaign cannot be deleted: pause or cancel it first');
    this.store.delete(c.id);
  }

  /**
   * Bulk delete (listmonk's): the campaigns with the given ids, else those whose name or
   * subject contains `search` (every one with `all`), among those the actor may manage;
   * unknown ids are ignored. A running campaign is never deleted (as the single delete): if
   * the selection holds one, nothing is deleted and the 400 names it, so the caller can pause
   * or cancel it first.
   */
  deleteMany(actor: Actor, by: { ids: number[]; search: string; all: boolean }): void {
    if (!by.ids.length && !by.search && !by.all) throw invalid('give the campaigns to delete: "id" (one or more), "query", or "all=true"');
    const scope = this.scope(actor, 'manage');
    const rows = this.store.matching(by.ids.length ? by.ids : null, by.ids.length ? '' : by.search, scope);
    const running = rows.filter((r) => r.status === 'running' || this.engine.isSending(r.id)).map((r) => r.id);
    if (running.length) throw invalid(`running campaigns cannot be deleted: pause or cancel them first (IDs ${running.join(', ')})`);
    this.store.deleteMany(authorizeEach(rows.map((r) => r.id), (id) => this.inScope(scope, id)));
  }

  /**
   * A status change. `running` on a finished campaign with failed recipients sends it again to
   * those recipients only (docs/decisions.md §98). Starting or scheduling needs a messenger that
   * can send: without one the 400 says what to set up.
   */
  setStatus(actor: Actor, id: number, status: string): CampaignJson {
    const c = this.manageable(actor, id);
    const retry = c.status === 'finished' && status === 'running';
    if (retry && c.failed === 0) throw invalid('this finished campaign has no failed recipients to send to again');
    const next = retry ? 'running' : nextStatus({ from: c.status, to: status, hasSendAt: c.send_at !== null });
    const unavailable = next === 'running' || next === 'scheduled' ? this.ctx.mailer.unavailable(c.messenger) : null;
    if (unavailable) throw invalid(`the campaign cannot be started: ${unavailable}`);
    if (retry) this.store.retryFailed(c.id);
    else this.store.setStatus(c.id, next, next === 'paused' ? `paused by ${actor.username}` : '');
    this.ctx.log.info(`campaign ${c.id} "${c.name}": ${c.status} → ${retry ? 'running (its failed recipients)' : next} by ${actor.username}`);
    if (next === 'paused' || next === 'cancelled') this.engine.halt(id);
    if (next === 'running' || next === 'scheduled') this.engine.wake();
    return this.json(id);
  }

  /** Archive pages and previews are laid out in a campaign template (listmonk's rule for the archive); other ids are refused. */
  private checkCampaignTemplate(field: string, id: number): void {
    if (this.store.template(id)?.type !== 'campaign') throw invalid(`invalid "${field}": template ${id} not found or not a campaign template`);
  }

  setArchive(actor: Actor, id: number, changes: ArchiveChanges): void {
    const c = this.manageable(actor, id);
    const archive = changes.archive ?? c.archive;
    const tpl = changes.archive_template_id;
    if (tpl) this.checkCampaignTemplate('archive_template_id', tpl);
    const slug = changes.archive_slug !== undefined ? this.checkSlug(changes.archive_slug ?? '', id) : c.archive_slug;
    this.store.setArchive(c.id, archive, slug, tpl ? tpl : c.archive_template_id, changes.archive_meta ?? c.archive_meta);
  }

  /** Renders with the demo subscriber and the zero campaign UUID, so nothing is counted. */
  preview(actor: Actor, id: number, over: PreviewInput): Preview {
    const c = this.visible(actor, id);
    const contentType = over.content_type && CONTENT_TYPES.includes(over.content_type as ContentType) ? over.content_type : c.content_type;
    const templateId = over.template_id && over.template_id > 0 && contentType !== 'visual' ? over.template_id : c.template_id;
    if (templateId !== c.template_id && templateId !== null) this.checkCampaignTemplate('template_id', templateId);
    const camp = { ...c, uuid: ZERO_UUID, body: over.body ?? c.body, content_type: contentType as ContentType };
    return RenderError.describing('the campaign does not render', () => {
      const compiled = compileCampaign(camp, layoutFor(this.store, camp, templateId), renderEnv(this.ctx, this.tracking, 'preview'));
      return { contentType, body: compiled.render(DEMO_SUBSCRIBER).html };
    });
  }

  /**
   * The archive page as it would be published, with `archive_meta` (else the stored one) as
   * the subscriber and `template_id` (else the archive template) as the layout; rendered
   * under the zero campaign UUID, so its links and pixel count nothing.
   */
  previewArchive(actor: Actor, id: number, over: ArchivePreviewInput): string {
    const c = this.visible(actor, id);
    const templateId = over.template_id;
    if (templateId && templateId > 0) this.checkCampaignTemplate('template_id', templateId);
    const layout = templateId && templateId > 0 ? layoutFor(this.store, c, templateId) : archiveLayoutFor(this.store, c);
    return RenderError.describing('the archive page does not render', () =>
      archiveHtml(this.ctx, this.store, this.tracking, 'preview', c, { layout, meta: over.archive_meta }));
  }

  /**
   * Sends the (possibly edited, unsaved) campaign to at most TEST_RECIPIENTS addresses; nothing
   * is counted. A subscriber the actor may see gets their own message; any other address gets
   * a stand-in subscriber (its name from the part before `@`, the attributes of the campaign's
   * archive subscriber), which only a user who may send campaigns (`campaigns:send`) may mail.
   */
  async testSend(actor: Actor, id: number, input: CampaignTest): Promise<void> {
    const c = this.manageable(actor, id);
    const emails = [...new Set((input.subscribers ?? []).map((e) => e.trim().toLowerCase()).filter(Boolean))];
    if (!emails.length) throw invalid('"subscribers" is required: give one or more e-mail addresses');
    if (emails.length > TEST_RECIPIENTS) throw invalid(`"subscribers": at most ${TEST_RECIPIENTS} addresses per test, not ${emails.length}`);
    for (const e of emails) {
      const problem = emailProblem(e, { allow: [], block: [] });
      if (problem) throw invalid(`"subscribers": ${problem}`);
    }
    // A bare form (template_id only) tests the stored campaign on its stored lists.
    const { fields } = this.fields(actor, { ...input, lists: input.lists === undefined ? this.store.listIds(id) : input.lists ?? undefined }, c);
    const lists = permittedLists(actor, 'get');
    const known = new Map(this.store.subscribersByEmail(emails)
      .filter((s) => lists === 'all' || this.store.subscriberListIds(s.id).some((l) => lists.includes(l)))
      .map((s) => [s.email, s]));
    const others = emails.filter((e) => !known.has(e));
    if (others.length && !can(actor, 'campaigns:send')) {
      throw denied(`"subscribers": ${others.join(', ')} ${others.length === 1 ? 'is not a subscriber' : 'are not subscribers'} you can access; a test to any address needs the campaigns:send permission`);
    }
    const camp: CampaignRow = { ...c, ...fields, template_id: input.template_id ?? fields.template_id };
    const unavailable = this.ctx.mailer.unavailable(camp.messenger);
    if (unavailable) throw invalid(`the test message cannot be sent: ${unavailable}`);
    const compose = RenderError.describing('the campaign does not render', () =>
      composer(this.ctx, this.store, this.tracking, camp, loadAttachments(this.ctx, this.store, c.id)));
    const attribs = JSON.stringify(archiveSubscriber(camp.archive_meta ?? {}).attribs);
    const now = new Date().toISOString();
    const subs = emails.map((email): SubscriberRow => known.get(email)
      ?? { id: 0, uuid: ZERO_UUID, email, name: nameFromEmail(email, 'local'), attribs, status: 'enabled', created_at: now, updated_at: now });
    for (const s of subs) {
      const message = RenderError.describing(`the campaign does not render for ${s.email}`, () => compose.message(s));
      try {
        await this.ctx.mailer.deliverWithin(camp.messenger, message, `campaign ${c.id}: test message to ${s.email}`);
      } catch (e) {
        throw upstreamFailed(`test message to ${s.email} failed: ${(e as Error).message}`);
      }
    }
    this.ctx.log.info(`campaign ${c.id} "${c.name}": test sent to ${loggedIds('subscriber', [...known.values()].map((x) => x.id))}${others.length ? ` and ${others.length} other address(es)` : ''} by ${actor.username}`);
  }

  runningStats(onlyId: number | null): Record<string, unknown>[] {
    return this.store.running(onlyId).map((r) => {
      const minutes = r.started_at ? Math.floor((Date.parse(r.updated_at) - Date.parse(r.started_at)) / 60_000) : 0;
      let netRate = Math.floor(r.sent / Math.max(1, minutes));
      if (netRate > r.sent || netRate > r.to_send) netRate = r.sent;
      return { id: r.id, status: r.status, to_send: r.to_send, sent: r.sent, failed: r.failed, deferred: r.deferred, started_at: r.started_at, updated_at: r.updated_at, rate: this.engine.rate(r.id), net_rate: netRate };
    });
  }

  analytics(actor: Actor, type: string, q: { ids: number[]; from?: string; to?: string }): unknown[] {
    if (!['views', 'clicks', 'bounces', 'links'].includes(type)) throw invalid(`invalid analytics type "${type}": one of views, clicks, bounces, links`);
    if (!q.ids.length) throw invalid('"id" is required: one or more campaign IDs');
    const range = (key: string, v: string | undefined) => {
      if (!v || v.length < 10 || v.length > 30) throw invalid(`invalid "${key}": give a date (2025-03-01) or a timestamp`);
      return parseTime(key, v);
    };
    const from = range('from', q.from);
    const to = range('to', q.to);
    for (const id of q.ids) this.visible(actor, id);
    const unique = this.ctx.settings.bool('privacy.individual_tracking');
    if (type === 'links') return this.store.topLinks(q.ids, from, to, unique);
    const byDay = Date.parse(to) - Date.parse(from) >= 7 * 24 * 3600_000;
    return this.store.analytics(type as 'views' | 'clicks' | 'bounces', q.ids, from, to, byDay, unique && type !== 'bounces');
  }

  /**
   * The admin's charts from `fromDay` to `toDay` (YYYY-MM-DD, whole UTC days): every view, click
   * or bounce counted (the rates count subscribers), per day (views and clicks from the per-day
   * counts), or per hour when the range is shorter than a week.
   */
  chart(actor: Actor, type: 'views' | 'clicks' | 'bounces', ids: number[], fromDay: string, toDay: string): Bucket[] {
    for (const id of ids) this.visible(actor, id);
    const from = `${fromDay}T00:00:00.000Z`;
    const to = `${toDay}T23:59:59.999Z`;
    const byDay = Date.parse(to) - Date.parse(from) >= 7 * 24 * 3600_000;
    if (type === 'bounces' || !byDay) return this.store.analytics(type, ids, from, to, byDay, false);
    return this.store.daily(type, ids, fromDay, toDay);
  }

  /** Whether views and clicks are recorded with their subscriber (else who opened is not known). */
  individualTracking(): boolean {
    return !this.ctx.settings.bool('privacy.disable_tracking') && this.ctx.settings.bool('privacy.individual_tracking');
  }

  /** The rates of each campaign (all time, in id order) the actor may see; 403 on one it may not. */
  rates(actor: Actor, ids: number[]): CampaignRates[] {
    for (const id of ids) this.visible(actor, id);
    const individual = this.individualTracking();
    const ratio = (n: number | null, of: number | null) => (n === null || !of ? null : n / of);
    return this.store.reach(ids).map((r) => {
      const viewers = individual ? r.viewers : null;
      const clickers = individual ? r.clickers : null;
      const approx = (n: number) => (individual ? null : ratio(Math.min(n, r.sent), r.sent));
      return {
        ...r, viewers, clickers,
        open_rate: ratio(viewers, r.sent), click_rate: ratio(clickers, r.sent), click_to_open: ratio(clickers, viewers),
        bounce_rate: ratio(r.bounced, r.sent), unsubscribe_rate: ratio(r.unsubscribed, r.sent),
        approx_open_rate: approx(r.views), approx_click_rate: approx(r.clicks),
      };
    });
  }

  /** Whether the actor may see a campaign's readers (with the campaign): it takes subscriber read access. */
  private readsSubscribers(actor: Actor): boolean {
    return can(actor, 'subscribers:get_all') || can(actor, 'subscribers:get');
  }

  /** Whether the actor may see who of the campaign's readers opened or clicked it (engagementScope's checks). */
  seesReaders(actor: Actor, id: number): boolean {
    return this.sees(actor, id) && this.readsSubscribers(actor);
  }

  /**
   * Who of the campaign's readers the actor may see: it needs the campaign (as `get`) and
   * subscriber read access, and a caller restricted to some lists sees only their members, as
   * everywhere else (subscriberScope).
   */
  private engagementScope(actor: Actor, id: number, type: string): { type: EngagementType; lists: number[] | null } {
    if (!(ENGAGEMENT_TYPES as readonly string[]).includes(type)) throw invalid(`invalid type "${type}": one of views, clicks`);
    this.visible(actor, id);
    if (!this.readsSubscribers(actor)) throw denied('permission denied: subscribers:get');
    return { type: type as EngagementType, lists: subscriberScope(actor) };
  }

  /** A page of who viewed (each subscriber with their count) or clicked (each subscriber and link), most recent first. */
  engagement(actor: Actor, id: number, type: string, page: { limit: number; offset: number }): { rows: EngagementRow[]; total: number } {
    const scope = this.engagementScope(actor, id, type);
    return this.store.engagement(scope.type, id, scope.lists, page.limit, page.offset);
  }

  /** Every row of `engagement`, batch by batch in subscriber order (the CSV export). */
  engagementExport(actor: Actor, id: number, type: string): () => EngagementRow[] | null {
    const scope = this.engagementScope(actor, id, type);
    return this.store.engagementBatches(scope.type, id, scope.lists, EXPORT_BATCH);
  }
}

/** The body of a new opt-in campaign: a confirm button for the double opt-in lists. */
function optinBody(lists: { name: string; uuid: string }[]): string {
  const params = lists.map((l) => `l=${encodeURIComponent(l.uuid)}`).join('&');
  const items = lists.map((l) => html`  <li>${l.name}</li>\n`);
  return renderHtml(html`<p>Hi {{ .Subscriber.FirstName }},</p>
<p>You have been added to the following mailing lists:</p>
<ul>
${items}</ul>
<p>Confirm your subscription by clicking the button below.</p>
<p><a class="button" href="{{ OptinURL . }}${params}">Confirm subscription</a></p>`);
}
