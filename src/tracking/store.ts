// Tracking SQL: the links registry (url → uuid, cached for the process lifetime as listmonk
// does), link clicks and view-pixel hits, with their events while a consumer wants them.
import { randomUUID } from 'node:crypto';
import { inTransaction, type DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { EventLog } from '../events/log.ts';

const SQL = {
  insertLink: 'INSERT INTO links (uuid, url) VALUES (?, ?) ON CONFLICT (url) DO NOTHING',
  linkUuid: 'SELECT uuid FROM links WHERE url = ?',
  link: 'SELECT id, url FROM links WHERE uuid = ?',
  campaignId: 'SELECT id FROM campaigns WHERE uuid = ?',
  subscriberId: 'SELECT id FROM subscribers WHERE uuid = ?',
  click: 'INSERT INTO link_clicks (campaign_id, link_id, subscriber_id) VALUES (?, ?, ?)',
  view: 'INSERT INTO campaign_views (campaign_id, subscriber_id) VALUES (?, ?)',
  // The payload of a view (link.clicked adds the link): the campaign and subscriber, null when unknown.
  viewEvent: `SELECT json_object(
      'campaign', json((SELECT json_object('id', id, 'uuid', uuid, 'name', name) FROM campaigns WHERE id = @campaign)),
      'subscriber', json((SELECT json_object('id', id, 'uuid', uuid, 'email', email) FROM subscribers WHERE id = @subscriber)))`,
};

/** Most links are repeated in every message of a campaign; a bounded cache avoids the DB. */
const MAX_CACHED_LINKS = 10_000;

export class TrackingStore {
  private readonly sql: Prepare;
  private readonly linkCache = new Map<string, string>();
  constructor(private readonly db: DB, private readonly events: EventLog) {
    this.sql = statementCache(db);
  }

  /** The uuid of a tracked URL, registering it on first use. */
  linkUuid(url: string): string {
    let uuid = this.linkCache.get(url);
    if (uuid) return uuid;
    this.sql(SQL.insertLink).run(randomUUID(), url);
    uuid = this.sql<[string], string>(SQL.linkUuid).pluck().get(url) as string;
    if (this.linkCache.size >= MAX_CACHED_LINKS) this.linkCache.clear();
    this.linkCache.set(url, uuid);
    return uuid;
  }

  /** The uuid of a URL already registered (by a send), without registering it. */
  knownLinkUuid(url: string): string | undefined {
    return this.linkCache.get(url) ?? (this.sql<[string], string>(SQL.linkUuid).pluck().get(url) as string | undefined);
  }

  link(uuid: string): { id: number; url: string } | undefined {
    return this.sql<[string], { id: number; url: string }>(SQL.link).get(uuid);
  }

  campaignId(uuid: string): number | null {
    return (this.sql<[string], number>(SQL.campaignId).pluck().get(uuid) as number | undefined) ?? null;
  }

  subscriberId(uuid: string): number | null {
    return (this.sql<[string], number>(SQL.subscriberId).pluck().get(uuid) as number | undefined) ?? null;
  }

  recordClick(campaignId: number | null, link: { id: number; url: string }, subscriberId: number | null): void {
    inTransaction(this.db, () => {
      this.sql(SQL.click).run(campaignId, link.id, subscriberId);
      if (this.events.records('link.clicked')) this.events.record('link.clicked', { ...this.viewData(campaignId, subscriberId), link });
    });
  }

  recordView(campaignId: number, subscriberId: number | null): void {
    inTransaction(this.db, () => {
      this.sql(SQL.view).run(campaignId, subscriberId);
      if (this.events.records('campaign.viewed')) this.events.record('campaign.viewed', this.viewData(campaignId, subscriberId));
    });
  }

  private viewData(campaign: number | null, subscriber: number | null): Record<string, unknown> {
    return JSON.parse(this.sql<[object], string>(SQL.viewEvent).pluck().get({ campaign, subscriber }) as string);
  }
}
