// Campaign SQL: rows, their lists and media, the templates and subscribers campaigns refer to,
// and the analytics reads. Every statement is named here.
import type { SubscriberRow } from '../subscribers/store.ts';
import type { DB } from '../db/connection.ts';
import { inTransaction } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { HeaderList } from '../mail/message.ts';
import type { Authorized } from '../core/authz.ts';
import { markdownToHtml } from '../content/convert.ts';
import type { EventLog } from '../events/log.ts';

export const CAMPAIGN_STATUSES = ['draft', 'scheduled', 'running', 'paused', 'cancelled', 'finished'] as const;
export type CampaignStatus = (typeof CAMPAIGN_STATUSES)[number];
export const CONTENT_TYPES = ['richtext', 'html', 'markdown', 'plain', 'visual'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

/** A campaign row with its JSON columns decoded. */
export interface CampaignRow extends CampaignFields {
  id: number;
  uuid: string;
  status: CampaignStatus;
  /** Why the engine paused the campaign ('' when it did not). */
  status_reason: string;
  to_send: number;
  sent: number;
  /** Recipients whose message failed (campaign_sends rows in status 'failed'). */
  failed: number;
  /** Recipients the mail server deferred, waiting to be tried again (while the campaign is sent). */
  deferred: number;
  /** 1 while a finished campaign is sent again to its failed recipients only. */
  retrying_failed: number;
  max_subscriber_id: number;
  last_subscriber_id: number;
  started_at: string | null;
  created_at: string;
  updated_at: string;
}

/** The campaign object of the API (listmonk's shape and key order). */
export interface CampaignJson {
  id: number;
  created_at: string;
  updated_at: string;
  views: number;
  clicks: number;
  bounces: number;
  lists: { id: number | null; name: string }[];
  media: { id: number | null; filename: string }[];
  started_at: string | null;
  to_send: number;
  sent: number;
  /** listmgr: recipients whose message failed (docs/decisions.md §97). */
  failed: number;
  /** listmgr: recipients the mail server deferred, waiting to be tried again while the campaign is sent (docs/decisions.md §97). */
  deferred: number;
  uuid: string;
  type: string;
  name: string;
  subject: string;
  from_email: string;
  body: string;
  body_source: string | null;
  altbody: string | null;
  send_at: string | null;
  status: CampaignStatus;
  /** listmgr: why the sending engine paused the campaign ('' otherwise; docs/decisions.md §97). */
  status_reason: string;
  content_type: ContentType;
  tags: string[];
  headers: HeaderList;
  attribs: Record<string, unknown>;
  template_id: number | null;
  messenger: string;
  archive: boolean;
  archive_slug: string | null;
  archive_template_id: number | null;
  archive_meta: Record<string, unknown>;
  /** Every literal link of the body is tracked (templating.md). */
  track_links: boolean;
}

/** Writable columns (create and update). */
export interface CampaignFields {
  name: string;
  subject: string;
  from_email: string;
  body: string;
  body_source: string | null;
  altbody: string | null;
  content_type: ContentType;
  send_at: string | null;
  headers: HeaderList;
  attribs: Record<string, unknown>;
  tags: string[];
  type: 'regular' | 'optin';
  messenger: string;
  template_id: number | null;
  archive: boolean;
  archive_slug: string | null;
  archive_template_id: number | null;
  archive_meta: Record<string, unknown>;
  track_links: boolean;
}

export interface ListFilter {
  statuses: string[];
  tags: string[];
  search: string;
  /** null: every campaign; else only campaigns linked to one of these lists. */
  visibleLists: number[] | null;
  orderBy: string;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
}

/** A list a campaign is saved with. */
export interface CampaignListRow {
  id: number;
  name: string;
  optin: 'single' | 'double';
  uuid: string;
  type: 'public' | 'private';
}

export interface TemplateRow {
  id: number;
  type: 'campaign' | 'campaign_visual' | 'tx';
  subject: string;
  body: string;
  body_source: string | null;
}

export interface MediaRow {
  id: number;
  filename: string;
  content_type: string;
}

/** Subscriber rows as the subscribers store reads them. */
export type { SubscriberRow } from '../subscribers/store.ts';

export interface Bucket {
  campaign_id: number;
  count: number;
  timestamp: string;
}

/** A campaign's send record: messages sent, and the subscribers who viewed, clicked, bounced or left through it. */
export interface CampaignReach {
  campaign_id: number;
  sent: number;
  /** Subscribers whose view was recorded with them (individual tracking). */
  viewers: number;
  clickers: number;
  /** Subscribers with a bounce from the campaign (each once, whatever the number of bounces). */
  bounced: number;
  /** Subscribers who left through the campaign's unsubscribe link (sql/0078). */
  unsubscribed: number;
  /** Every view and click recorded, with or without the subscriber (anonymous tracking counts these only). */
  views: number;
  clicks: number;
}

/** One subscriber's views of a campaign, or clicks on one of its links (url set). */
export interface EngagementRow {
  subscriber_id: number;
  uuid: string;
  email: string;
  name: string;
  url: string | null;
  count: number;
  first: string;
  last: string;
}

const CAMPAIGN_COLUMNS = `c.*,
  (SELECT COALESCE(SUM(d.n), 0) FROM campaign_daily d WHERE d.campaign_id = c.id AND d.kind = 'views') AS views,
  (SELECT COALESCE(SUM(d.n), 0) FROM campaign_daily d WHERE d.campaign_id = c.id AND d.kind = 'clicks') AS clicks,
  (SELECT COUNT(*) FROM bounces b WHERE b.campaign_id = c.id) AS bounces,
  (SELECT json_group_array(json_object('id', cl.list_id, 'name', cl.list_name)) FROM (SELECT * FROM campaign_lists WHERE campaign_id = c.id ORDER BY id) cl) AS list_json,
  (SELECT json_group_array(json_object('id', cm.media_id, 'filename', cm.filename)) FROM (SELECT * FROM campaign_media WHERE campaign_id = c.id ORDER BY id) cm) AS media_json`;

const VISIBLE = `(? IS NULL OR EXISTS (SELECT 1 FROM campaign_lists cl WHERE cl.campaign_id = c.id AND cl.list_id IN (SELECT value FROM json_each(?))))`;
const FILTER = `(SELECT COUNT(*) FROM json_each(?)) = 0 OR c.status IN (SELECT value FROM json_each(?))`;
const TAGS = `NOT EXISTS (SELECT 1 FROM json_each(?) t WHERE NOT EXISTS (SELECT 1 FROM json_each(c.tags) ct WHERE ct.value = t.value))`;
const SEARCH = `(? = '' OR c.name LIKE ? ESCAPE '\\' OR c.subject LIKE ? ESCAPE '\\')`;
/** The subscriber of a view or click (`v`) is one the caller may see: @lists null, or on one of those lists. */
const SUBSCRIBER_VISIBLE = `(@lists IS NULL OR EXISTS (SELECT 1 FROM subscriber_lists sl
  WHERE sl.subscriber_id = v.subscriber_id AND sl.list_id IN (SELECT value FROM json_each(@lists))))`;

/** In the public archive: published, a regular campaign, and sending or sent. */
const ARCHIVED = `c.archive = 1 AND c.type = 'regular' AND c.status IN ('running', 'paused', 'finished')`;
/** The day an issue went out (its start; else its schedule, else its creation), the archive's order. */
const PUBLISHED = 'COALESCE(c.started_at, c.send_at, c.created_at)';
/** Matches @query, an FTS5 query (archiveSearchQuery), over the subject and text. */
const MATCHING = 'c.id IN (SELECT rowid FROM campaign_search WHERE campaign_search MATCH @query)';

const SQL = {
  byId: `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns c WHERE c.id = ?`,
  byUuid: `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns c WHERE c.uuid = ?`,
  count: `SELECT COUNT(*) FROM campaigns c WHERE (${FILTER}) AND ${TAGS} AND ${SEARCH} AND ${VISIBLE}`,
  insert: `INSERT INTO campaigns (uuid, name, subject, from_email, body, body_source, altbody, content_type, send_at, headers,
      attribs, tags, type, messenger, template_id, archive, archive_slug, archive_template_id, archive_meta, track_links, status)
    VALUES (@uuid, @name, @subject, @from_email, @body, @body_source, @altbody, @content_type, @send_at, @headers,
      @attribs, @tags, @type, @messenger, @template_id, @archive, @archive_slug, @archive_template_id, @archive_meta, @track_links, 'draft')`,
  update: `UPDATE campaigns SET name = @name, subject = @subject, from_email = @from_email, body = @body, body_source = @body_source,
      altbody = @altbody, content_type = @content_type, send_at = @send_at, headers = @headers, attribs = @attribs, tags = @tags,
      messenger = @messenger, template_id = @template_id, archive = @archive, archive_slug = @archive_slug,
      archive_template_id = @archive_template_id, archive_meta = @archive_meta, track_links = @track_links,
      status = CASE WHEN status = 'scheduled' AND @send_at IS NULL THEN 'draft' ELSE status END,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    WHERE id = @id`,
  deleteLists: 'DELETE FROM campaign_lists WHERE campaign_id = ?',
  insertList: 'INSERT INTO campaign_lists (campaign_id, list_id, list_name) SELECT ?, id, name FROM lists WHERE id = ?',
  deleteMedia: 'DELETE FROM campaign_media WHERE campaign_id = ?',
  insertMedia: 'INSERT INTO campaign_media (campaign_id, media_id, filename) SELECT ?, id, filename FROM media WHERE id = ?',
  delete: 'DELETE FROM campaigns WHERE id = ?',
  // Bulk delete: by ids (@ids non-null), else by name/subject search ('' = all), within @visible.
  matching: `SELECT c.id, c.status FROM campaigns c
    WHERE (? IS NULL OR c.id IN (SELECT value FROM json_each(?))) AND ${SEARCH} AND ${VISIBLE} ORDER BY c.id`,
  setStatus: `UPDATE campaigns SET status = ?, status_reason = '', updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  retryFailed: `UPDATE campaigns SET status = 'running', status_reason = '', retrying_failed = 1, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
    WHERE id = ? AND status = 'finished'`,
  setArchive: `UPDATE campaigns SET archive = ?, archive_slug = ?, archive_template_id = ?, archive_meta = ?,
      updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  slugOwner: 'SELECT id FROM campaigns WHERE archive_slug = ?',
  listIds: 'SELECT list_id FROM campaign_lists WHERE campaign_id = ? AND list_id IS NOT NULL',
  existingLists: 'SELECT id, name, optin, uuid, type FROM lists WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
  template: 'SELECT id, type, subject, body, body_source FROM templates WHERE id = ?',
  defaultTemplate: `SELECT id, type, subject, body, body_source FROM templates WHERE is_default = 1 AND type = 'campaign'`,
  // The archive template install creates (src/templates/defaults), while it keeps its name.
  archiveTemplateId: `SELECT id FROM templates WHERE type = 'campaign' AND name = 'Default archive template' ORDER BY id LIMIT 1`,
  mediaFiles: 'SELECT media_id AS id, filename, COALESCE((SELECT content_type FROM media m WHERE m.id = cm.media_id), \'application/octet-stream\') AS content_type FROM campaign_media cm WHERE campaign_id = ? ORDER BY id',
  subscribersByEmail: 'SELECT * FROM subscribers WHERE email IN (SELECT value FROM json_each(?)) ORDER BY id',
  subscriberByUuid: 'SELECT * FROM subscribers WHERE uuid = ?',
  subscriberListIds: 'SELECT list_id FROM subscriber_lists WHERE subscriber_id = ?',
  running: `SELECT id, status, to_send, sent, failed, deferred, started_at, updated_at FROM campaigns WHERE status = 'running' AND (? IS NULL OR id = ?) ORDER BY id`,
  wasAddressed: `SELECT 1 FROM campaign_sends WHERE campaign_id = ? AND subscriber_id = ? AND status = 'sent'`,
  views: `SELECT campaign_id, COUNT(*) AS count, strftime(?, created_at) AS timestamp FROM campaign_views
    WHERE campaign_id IN (SELECT value FROM json_each(?)) AND created_at >= ? AND created_at <= ? GROUP BY campaign_id, timestamp ORDER BY timestamp, campaign_id`,
  // Unique counts group by subscriber: read from the (campaign, subscriber, …) indexes alone
  // (sql/0078; the planner took the date index and read every row: 35 ms instead of 180 ms warm,
  // 570 ms cold, for 100,000 views).
  viewsUnique: `SELECT campaign_id, COUNT(*) AS count, strftime(?, first) AS timestamp FROM (
      SELECT campaign_id, subscriber_id, MIN(created_at) AS first FROM campaign_views INDEXED BY campaign_views_campaign_subscriber
      WHERE campaign_id IN (SELECT value FROM json_each(?)) AND created_at >= ? AND created_at <= ? AND subscriber_id IS NOT NULL
      GROUP BY campaign_id, subscriber_id) GROUP BY campaign_id, timestamp ORDER BY timestamp, campaign_id`,
  clicks: `SELECT campaign_id, COUNT(*) AS count, strftime(?, created_at) AS timestamp FROM link_clicks
    WHERE campaign_id IN (SELECT value FROM json_each(?)) AND created_at >= ? AND created_at <= ? GROUP BY campaign_id, timestamp ORDER BY timestamp, campaign_id`,
  clicksUnique: `SELECT campaign_id, COUNT(*) AS count, strftime(?, first) AS timestamp FROM (
      SELECT campaign_id, subscriber_id, MIN(created_at) AS first FROM link_clicks INDEXED BY link_clicks_campaign_subscriber
      WHERE campaign_id IN (SELECT value FROM json_each(?)) AND created_at >= ? AND created_at <= ? AND subscriber_id IS NOT NULL
      GROUP BY campaign_id, subscriber_id) GROUP BY campaign_id, timestamp ORDER BY timestamp, campaign_id`,
  bounces: `SELECT campaign_id, COUNT(*) AS count, strftime(?, created_at) AS timestamp FROM bounces
    WHERE campaign_id IN (SELECT value FROM json_each(?)) AND created_at >= ? AND created_at <= ? GROUP BY campaign_id, timestamp ORDER BY timestamp, campaign_id`,
  // Every view or click per day, from the per-day counts (sql/0079): a few rows a day.
  daily: `SELECT campaign_id, n AS count, day || 'T00:00:00.000Z' AS timestamp FROM campaign_daily
    WHERE campaign_id IN (SELECT value FROM json_each(?)) AND kind = ? AND day >= ? AND day <= ? ORDER BY timestamp, campaign_id`,
  // The top links too (covering: 11 ms instead of 33 ms for 20,000 clicks).
  links: `SELECT l.url, COUNT(*) AS count FROM link_clicks k INDEXED BY link_clicks_campaign_subscriber JOIN links l ON l.id = k.link_id
    WHERE k.campaign_id IN (SELECT value FROM json_each(?)) AND k.created_at >= ? AND k.created_at <= ? GROUP BY l.url ORDER BY count DESC, l.url LIMIT 50`,
  linksUnique: `SELECT l.url, COUNT(DISTINCT k.subscriber_id) AS count FROM link_clicks k INDEXED BY link_clicks_campaign_subscriber JOIN links l ON l.id = k.link_id
    WHERE k.campaign_id IN (SELECT value FROM json_each(?)) AND k.created_at >= ? AND k.created_at <= ? AND k.subscriber_id IS NOT NULL
    GROUP BY l.url ORDER BY count DESC, l.url LIMIT 50`,
  reach: `SELECT c.id AS campaign_id, c.sent,
      (SELECT COUNT(DISTINCT v.subscriber_id) FROM campaign_views v WHERE v.campaign_id = c.id) AS viewers,
      (SELECT COUNT(DISTINCT k.subscriber_id) FROM link_clicks k WHERE k.campaign_id = c.id) AS clickers,
      (SELECT COUNT(DISTINCT b.subscriber_id) FROM bounces b WHERE b.campaign_id = c.id) AS bounced,
      (SELECT COUNT(*) FROM campaign_unsubscribes u WHERE u.campaign_id = c.id) AS unsubscribed,
      (SELECT COUNT(*) FROM campaign_views v WHERE v.campaign_id = c.id) AS views,
      (SELECT COUNT(*) FROM link_clicks k WHERE k.campaign_id = c.id) AS clicks
    FROM campaigns c WHERE c.id IN (SELECT value FROM json_each(?)) ORDER BY c.id`,
  // Who viewed / clicked: grouped on the (campaign, subscriber) indexes, the page's subscribers
  // joined last. @lists: null, or the lists whose members the caller may see.
  viewers: `SELECT g.subscriber_id, s.uuid, s.email, s.name, NULL AS url, g.count, g.first, g.last FROM (
      SELECT subscriber_id, COUNT(*) AS count, MIN(created_at) AS first, MAX(created_at) AS last FROM campaign_views v
      WHERE campaign_id = @campaign AND subscriber_id IS NOT NULL AND ${SUBSCRIBER_VISIBLE}
      GROUP BY subscriber_id ORDER BY last DESC, subscriber_id LIMIT @limit OFFSET @offset
    ) g JOIN subscribers s ON s.id = g.subscriber_id ORDER BY g.last DESC, g.subscriber_id`,
  viewersCount: `SELECT COUNT(DISTINCT subscriber_id) FROM campaign_views v
    WHERE campaign_id = @campaign AND subscriber_id IS NOT NULL AND ${SUBSCRIBER_VISIBLE}`,
  clickers: `SELECT g.subscriber_id, s.uuid, s.email, s.name, l.url, g.count, g.first, g.last FROM (
      SELECT subscriber_id, link_id, COUNT(*) AS count, MIN(created_at) AS first, MAX(created_at) AS last FROM link_clicks v
      WHERE campaign_id = @campaign AND subscriber_id IS NOT NULL AND ${SUBSCRIBER_VISIBLE}
      GROUP BY subscriber_id, link_id ORDER BY last DESC, subscriber_id, link_id LIMIT @limit OFFSET @offset
    ) g JOIN subscribers s ON s.id = g.subscriber_id JOIN links l ON l.id = g.link_id ORDER BY g.last DESC, g.subscriber_id, g.link_id`,
  clickersCount: `SELECT COUNT(*) FROM (SELECT 1 FROM link_clicks v
    WHERE campaign_id = @campaign AND subscriber_id IS NOT NULL AND ${SUBSCRIBER_VISIBLE} GROUP BY subscriber_id, link_id)`,
  // The CSV export, in batches after the last (subscriber, link) of the previous one.
  viewersAfter: `SELECT g.subscriber_id, s.uuid, s.email, s.name, NULL AS url, g.count, g.first, g.last FROM (
      SELECT subscriber_id, COUNT(*) AS count, MIN(created_at) AS first, MAX(created_at) AS last FROM campaign_views v
      WHERE campaign_id = @campaign AND subscriber_id > @after AND ${SUBSCRIBER_VISIBLE}
      GROUP BY subscriber_id ORDER BY subscriber_id LIMIT @limit
    ) g JOIN subscribers s ON s.id = g.subscriber_id ORDER BY g.subscriber_id`,
  clickersAfter: `SELECT g.subscriber_id, g.link_id, s.uuid, s.email, s.name, l.url, g.count, g.first, g.last FROM (
      SELECT subscriber_id, link_id, COUNT(*) AS count, MIN(created_at) AS first, MAX(created_at) AS last FROM link_clicks v
      WHERE campaign_id = @campaign AND subscriber_id IS NOT NULL AND (subscriber_id, link_id) > (@after, @afterLink) AND ${SUBSCRIBER_VISIBLE}
      GROUP BY subscriber_id, link_id ORDER BY subscriber_id, link_id LIMIT @limit
    ) g JOIN subscribers s ON s.id = g.subscriber_id JOIN links l ON l.id = g.link_id ORDER BY g.subscriber_id, g.link_id`,
  archived: `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns c WHERE ${ARCHIVED}
    ORDER BY ${PUBLISHED} DESC, c.id DESC LIMIT ? OFFSET ?`,
  archivedCount: `SELECT COUNT(*) FROM campaigns c WHERE ${ARCHIVED}`,
  archivedMatching: `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns c WHERE ${ARCHIVED} AND ${MATCHING}
    ORDER BY ${PUBLISHED} DESC, c.id DESC LIMIT @limit OFFSET @offset`,
  archivedMatchingCount: `SELECT COUNT(*) FROM campaigns c WHERE ${ARCHIVED} AND ${MATCHING}`,
  archivedOne: `SELECT ${CAMPAIGN_COLUMNS} FROM campaigns c WHERE (c.uuid = ? OR c.archive_slug = ?) AND ${ARCHIVED}`,
  // The issues before and after one in the archive's order (newest first).
  archivedNewer: `SELECT c.id FROM campaigns c WHERE ${ARCHIVED}
    AND (${PUBLISHED}, c.id) > (@published, @id) ORDER BY ${PUBLISHED} ASC, c.id ASC LIMIT 1`,
  archivedOlder: `SELECT c.id FROM campaigns c WHERE ${ARCHIVED}
    AND (${PUBLISHED}, c.id) < (@published, @id) ORDER BY ${PUBLISHED} DESC, c.id DESC LIMIT 1`,
  publicListUuids: `SELECT l.uuid FROM campaign_lists cl JOIN lists l ON l.id = cl.list_id
    WHERE cl.campaign_id = ? AND l.type = 'public' AND l.status = 'active' ORDER BY cl.id`,
  // campaign_search's triggers index the stored body and note the campaign; the store replaces
  // the body with its text and clears the note.
  searchText: 'UPDATE campaign_search SET body = ? WHERE rowid = ?',
  searchDone: 'DELETE FROM campaign_search_pending WHERE campaign_id = ?',
  searchPending: `SELECT c.id, c.body, c.content_type FROM campaign_search_pending p JOIN campaigns c ON c.id = p.campaign_id
    WHERE p.campaign_id > ? ORDER BY p.campaign_id LIMIT ?`,
};

const ORDER_COLUMNS: Record<string, string> = { name: 'c.name', status: 'c.status', created_at: 'c.created_at', updated_at: 'c.updated_at' };
export const CAMPAIGN_ORDER_BY = { name: 'name', status: 'status', created_at: 'created_at', updated_at: 'updated_at' } as const;

type RawRow = Record<string, unknown>;

/** The change log's events of a campaign (campaigns store and the sending engine's store record them). */
export type CampaignEvent = 'campaign.created' | 'campaign.started' | 'campaign.paused' | 'campaign.finished' | 'campaign.cancelled';

/** The event a person's status change is, when it is one (back to draft, or scheduling, is not). */
const STATUS_EVENTS: Partial<Record<CampaignStatus, CampaignEvent>> = { running: 'campaign.started', paused: 'campaign.paused', cancelled: 'campaign.cancelled' };

type DecodedRow = CampaignRow & { views: number; clicks: number; bounces: number; list_json: string; media_json: string };

function decode(r: RawRow): DecodedRow {
  return {
    ...(r as unknown as DecodedRow),
    headers: JSON.parse(r.headers as string),
    attribs: JSON.parse(r.attribs as string),
    tags: JSON.parse(r.tags as string),
    archive_meta: JSON.parse(r.archive_meta as string),
    archive: r.archive === 1,
    track_links: r.track_links === 1,
  };
}

export function toJson(r: RawRow, noBody = false): CampaignJson {
  const d = decode(r);
  return {
    id: d.id, created_at: d.created_at, updated_at: d.updated_at,
    views: d.views, clicks: d.clicks, bounces: d.bounces,
    lists: JSON.parse(d.list_json), media: JSON.parse(d.media_json),
    started_at: d.started_at, to_send: d.to_send, sent: d.sent, failed: d.failed, deferred: d.deferred, uuid: d.uuid, type: d.type, name: d.name,
    subject: d.subject, from_email: d.from_email, body: noBody ? '' : d.body,
    body_source: noBody ? null : d.body_source, altbody: d.altbody, send_at: d.send_at, status: d.status, status_reason: d.status_reason,
    content_type: d.content_type, tags: d.tags, headers: d.headers, attribs: d.attribs, template_id: d.template_id,
    messenger: d.messenger, archive: d.archive, archive_slug: d.archive_slug,
    archive_template_id: d.archive_template_id, archive_meta: d.archive_meta, track_links: d.track_links,
  };
}

function params(f: CampaignFields): Record<string, unknown> {
  return {
    ...(f as unknown as Record<string, unknown>),
    headers: JSON.stringify(f.headers), attribs: JSON.stringify(f.attribs), tags: JSON.stringify(f.tags),
    archive: f.archive ? 1 : 0, archive_meta: JSON.stringify(f.archive_meta), track_links: f.track_links ? 1 : 0,
  };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/**
 * A campaign's words for the archive's search: what a reader sees of its body, without markup,
 * link targets or template actions (entities decoded).
 */
function searchableText(f: Pick<CampaignFields, 'body' | 'content_type'>): string {
  const html = f.content_type === 'markdown' ? markdownToHtml(f.body) : f.body;
  return html
    .replace(/\{\{[\s\S]*?\}\}/g, ' ')
    .replace(/<(script|style|head)\b[\s\S]*?<\/\1\s*>/gi, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (m, e: string) => {
      if (e[0] !== '#') return ENTITIES[e.toLowerCase()] ?? ' ';
      const code = e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1));
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
    })
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * A reader's search as an FTS5 query: each word quoted (so no FTS5 syntax reaches SQLite) and
 * matched as a prefix, all of them required; null when there is no word.
 */
export function archiveSearchQuery(search: string): string | null {
  const words = search.split(/[^\p{L}\p{M}\p{N}]+/u).filter(Boolean).slice(0, 20);
  return words.length ? words.map((w) => `"${w}"*`).join(' ') : null;
}

/** Escapes LIKE wildcards so a search is a plain substring. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (ch) => '\\' + ch)}%`;

export class CampaignStore {
  private readonly sql: Prepare;
  constructor(private readonly db: DB, private readonly events: EventLog) {
    this.sql = statementCache(db);
  }

  /**
   * Records an event of the campaign inside its change's transaction: `{campaign, ...extra}`,
   * the campaign as GET /api/campaigns/:id gives it now; a finished one with its `sent` and
   * `failed` counts.
   */
  recordEvent(type: CampaignEvent, id: number, extra: Record<string, unknown> = {}): void {
    const r = this.raw(id);
    if (!r) return;
    const campaign = toJson(r);
    const counts = type === 'campaign.finished' ? { sent: campaign.sent, failed: campaign.failed } : {};
    this.events.record(type, { campaign, ...counts, ...extra });
  }

  list(f: ListFilter): { rows: RawRow[]; total: number } {
    const visible = f.visibleLists === null ? null : JSON.stringify(f.visibleLists);
    const statuses = JSON.stringify(f.statuses);
    const like = likePattern(f.search);
    const args = [statuses, statuses, JSON.stringify(f.tags), f.search, like, like, visible, visible];
    const order = `${ORDER_COLUMNS[f.orderBy] ?? 'c.created_at'} ${f.order}, c.id ${f.order}`;
    const rows = this.sql<unknown[], RawRow>(`SELECT ${CAMPAIGN_COLUMNS} FROM campaigns c WHERE (${FILTER}) AND ${TAGS} AND ${SEARCH} AND ${VISIBLE}
      ORDER BY ${order} LIMIT ? OFFSET ?`).all(...args, f.limit, f.offset);
    const total = this.sql<unknown[], number>(SQL.count).pluck().get(...args) as number;
    return { rows, total };
  }

  raw(id: number): RawRow | undefined {
    return this.sql<[number], RawRow>(SQL.byId).get(id);
  }

  get(id: number): CampaignRow | undefined {
    const r = this.raw(id);
    return r ? decode(r) : undefined;
  }

  byUuid(uuid: string): CampaignRow | undefined {
    const r = this.sql<[string], RawRow>(SQL.byUuid).get(uuid);
    return r ? decode(r) : undefined;
  }

  insert(uuid: string, f: CampaignFields, listIds: number[], mediaIds: number[]): number {
    return inTransaction(this.db, () => {
      const id = Number(this.sql(SQL.insert).run({ ...params(f), uuid }).lastInsertRowid);
      this.link(id, listIds, mediaIds);
      this.indexText(id, f);
      this.recordEvent('campaign.created', id);
      return id;
    });
  }

  update(id: Authorized<number>, f: CampaignFields, listIds: number[], mediaIds: number[]): void {
    inTransaction(this.db, () => {
      this.sql(SQL.update).run({ ...params(f), id });
      this.indexText(id, f);
      this.sql(SQL.deleteLists).run(id);
      this.sql(SQL.deleteMedia).run(id);
      this.link(id, listIds, mediaIds);
    });
  }

  /** The campaign's text in the archive's search, in place of the body its trigger indexed. */
  private indexText(id: number, f: Pick<CampaignFields, 'body' | 'content_type'>): void {
    this.sql(SQL.searchText).run(searchableText(f), id);
    this.sql(SQL.searchDone).run(id);
  }

  /**
   * Indexes the text of the campaigns other writers (the listmonk import, the migration that
   * built the index) left indexed as their stored body; in batches. Answers how many.
   */
  indexPendingText(batch = 200): number {
    let after = 0;
    let done = 0;
    for (;;) {
      const rows = this.sql<[number, number], { id: number; body: string; content_type: ContentType }>(SQL.searchPending).all(after, batch);
      if (!rows.length) return done;
      inTransaction(this.db, () => {
        for (const r of rows) this.indexText(r.id, r);
      });
      done += rows.length;
      after = rows[rows.length - 1].id;
    }
  }

  private link(id: number, listIds: number[], mediaIds: number[]): void {
    for (const l of listIds) this.sql(SQL.insertList).run(id, l);
    for (const m of mediaIds) this.sql(SQL.insertMedia).run(id, m);
  }

  delete(id: Authorized<number>): void {
    this.sql(SQL.delete).run(id);
  }

  /** Campaigns a bulk delete selects: `ids`, else those whose name or subject contains `search` ('' = all). */
  matching(ids: number[] | null, search: string, visibleLists: number[] | null): { id: number; status: CampaignStatus }[] {
    const idJson = ids === null ? null : JSON.stringify(ids);
    const visible = visibleLists === null ? null : JSON.stringify(visibleLists);
    const like = likePattern(search);
    return this.sql<unknown[], { id: number; status: CampaignStatus }>(SQL.matching).all(idJson, idJson, search, like, like, visible, visible);
  }

  deleteMany(ids: Authorized<number>[]): void {
    inTransaction(this.db, () => {
      for (const id of ids) this.sql(SQL.delete).run(id);
    });
  }

  /** finished → running in the mode that walks the failed recipients only (the delivery engine's): a start. */
  retryFailed(id: Authorized<number>): void {
    inTransaction(this.db, () => {
      if (this.sql(SQL.retryFailed).run(id).changes) this.recordEvent('campaign.started', id);
    });
  }

  /**
   * A person's status change (the reason of an engine's pause is cleared). Starting, pausing
   * (the event's `reason` says by whom) and cancelling are events.
   */
  setStatus(id: Authorized<number>, status: CampaignStatus, reason = ''): void {
    inTransaction(this.db, () => {
      this.sql(SQL.setStatus).run(status, id);
      const type = STATUS_EVENTS[status];
      if (type) this.recordEvent(type, id, type === 'campaign.paused' ? { reason } : {});
    });
  }

  setArchive(id: Authorized<number>, archive: boolean, slug: string | null, templateId: number | null, meta: Record<string, unknown>): void {
    this.sql(SQL.setArchive).run(archive ? 1 : 0, slug, templateId, JSON.stringify(meta), id);
  }

  slugOwner(slug: string): number | undefined {
    return this.sql<[string], number>(SQL.slugOwner).pluck().get(slug) as number | undefined;
  }

  listIds(id: number): number[] {
    return this.sql<[number], number>(SQL.listIds).pluck().all(id) as number[];
  }

  existingLists(ids: number[]): CampaignListRow[] {
    return this.sql<[string], CampaignListRow>(SQL.existingLists).all(JSON.stringify(ids));
  }

  template(id: number): TemplateRow | undefined {
    return this.sql<[number], TemplateRow>(SQL.template).get(id);
  }

  defaultTemplate(): TemplateRow | undefined {
    return this.sql<[], TemplateRow>(SQL.defaultTemplate).get();
  }

  /** The shipped archive template's id, null when it was deleted or renamed. */
  archiveTemplateId(): number | null {
    return this.sql<[], number>(SQL.archiveTemplateId).pluck().get() ?? null;
  }

  mediaFiles(campaignId: number): MediaRow[] {
    return this.sql<[number], MediaRow>(SQL.mediaFiles).all(campaignId);
  }

  subscribersByEmail(emails: string[]): SubscriberRow[] {
    return this.sql<[string], SubscriberRow>(SQL.subscribersByEmail).all(JSON.stringify(emails));
  }

  subscriberByUuid(uuid: string): SubscriberRow | undefined {
    return this.sql<[string], SubscriberRow>(SQL.subscriberByUuid).get(uuid);
  }

  subscriberListIds(id: number): number[] {
    return this.sql<[number], number>(SQL.subscriberListIds).pluck().all(id) as number[];
  }

  /** Whether the campaign reached this subscriber (the web view's access rule). */
  wasAddressed(campaignId: number, subscriberId: number): boolean {
    return this.sql(SQL.wasAddressed).get(campaignId, subscriberId) !== undefined;
  }

  running(onlyId: number | null): { id: number; status: string; to_send: number; sent: number; failed: number; deferred: number; started_at: string | null; updated_at: string }[] {
    return this.sql<[number | null, number | null], never>(SQL.running).all(onlyId, onlyId);
  }

  /** Count buckets per campaign; `unique` counts each subscriber once, in its first bucket. */
  analytics(type: 'views' | 'clicks' | 'bounces', ids: number[], from: string, to: string, byDay: boolean, unique: boolean): Bucket[] {
    const fmt = byDay ? '%Y-%m-%dT00:00:00.000Z' : '%Y-%m-%dT%H:00:00.000Z';
    const sql = type === 'views' ? (unique ? SQL.viewsUnique : SQL.views) : type === 'clicks' ? (unique ? SQL.clicksUnique : SQL.clicks) : SQL.bounces;
    return this.sql<unknown[], Bucket>(sql).all(fmt, JSON.stringify(ids), from, to);
  }

  /** Every view or click per UTC day from `fromDay` to `toDay` (YYYY-MM-DD, both included). */
  daily(type: 'views' | 'clicks', ids: number[], fromDay: string, toDay: string): Bucket[] {
    return this.sql<unknown[], Bucket>(SQL.daily).all(JSON.stringify(ids), type, fromDay, toDay);
  }

  topLinks(ids: number[], from: string, to: string, unique: boolean): { url: string; count: number }[] {
    return this.sql<unknown[], { url: string; count: number }>(unique ? SQL.linksUnique : SQL.links).all(JSON.stringify(ids), from, to);
  }

  /** The send record of each campaign (all time), in id order. */
  reach(ids: number[]): CampaignReach[] {
    return this.sql<[string], CampaignReach>(SQL.reach).all(JSON.stringify(ids));
  }

  /**
   * A page of the subscribers who viewed the campaign (each with their count), or of the
   * (subscriber, link) pairs of its clicks; the most recent first. `lists`: null for every
   * subscriber, else only those on these lists.
   */
  engagement(type: 'views' | 'clicks', campaignId: number, lists: number[] | null, limit: number, offset: number): { rows: EngagementRow[]; total: number } {
    const p = { campaign: campaignId, lists: lists === null ? null : JSON.stringify(lists) };
    const rows = this.sql<[object], EngagementRow>(type === 'views' ? SQL.viewers : SQL.clickers).all({ ...p, limit, offset });
    const total = this.sql<[object], number>(type === 'views' ? SQL.viewersCount : SQL.clickersCount).pluck().get(p) as number;
    return { rows, total };
  }

  /** The same rows as `engagement`, all of them, `batch` at a time in subscriber order (the CSV export). */
  engagementBatches(type: 'views' | 'clicks', campaignId: number, lists: number[] | null, batch: number): () => EngagementRow[] | null {
    const p = { campaign: campaignId, lists: lists === null ? null : JSON.stringify(lists), limit: batch };
    let after = 0;
    let afterLink = 0;
    let done = false;
    return () => {
      if (done) return null;
      const rows = this.sql<[object], EngagementRow & { link_id?: number }>(type === 'views' ? SQL.viewersAfter : SQL.clickersAfter).all({ ...p, after, ...(type === 'clicks' ? { afterLink } : {}) });
      if (rows.length < batch) done = true;
      if (!rows.length) return null;
      const last = rows[rows.length - 1];
      after = last.subscriber_id;
      afterLink = last.link_id ?? 0;
      return rows;
    };
  }

  /** A page of the archive, newest first; `query` (words) keeps the issues whose subject or text has them all. */
  archived(limit: number, offset: number, query = ''): { rows: CampaignRow[]; total: number } {
    const match = archiveSearchQuery(query);
    if (match === null) {
      const rows = this.sql<[number, number], RawRow>(SQL.archived).all(limit, offset).map(decode);
      return { rows, total: this.sql<[], number>(SQL.archivedCount).pluck().get() as number };
    }
    const rows = this.sql<[object], RawRow>(SQL.archivedMatching).all({ query: match, limit, offset }).map(decode);
    return { rows, total: this.sql<[object], number>(SQL.archivedMatchingCount).pluck().get({ query: match }) as number };
  }

  /** The archived issues just newer and just older than `c`, in the archive's order. */
  archiveNeighbours(c: Pick<CampaignRow, 'id' | 'started_at' | 'send_at' | 'created_at'>): { newer: CampaignRow | null; older: CampaignRow | null } {
    const at = { published: c.started_at ?? c.send_at ?? c.created_at, id: c.id };
    const read = (sql: string) => {
      const id = this.sql<[object], number>(sql).pluck().get(at) as number | undefined;
      return id === undefined ? null : this.get(id) ?? null;
    };
    return { newer: read(SQL.archivedNewer), older: read(SQL.archivedOlder) };
  }

  /** The UUIDs of the campaign's lists a reader can subscribe to (public and active). */
  publicListUuids(id: number): string[] {
    return this.sql<[number], string>(SQL.publicListUuids).pluck().all(id) as string[];
  }

  archivedOne(idOrSlug: string): CampaignRow | undefined {
    const r = this.sql<[string, string], RawRow>(SQL.archivedOne).get(idOrSlug, idOrSlug);
    return r ? decode(r) : undefined;
  }
}
