// Tracking SQL: the links registry (url → uuid, cached for the process lifetime as listmonk
// does), link clicks and view-pixel hits.
import { randomUUID } from 'node:crypto';
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';

const SQL = {
  insertLink: 'INSERT INTO links (uuid, url) VALUES (?, ?) ON CONFLICT (url) DO NOTHING',
  linkUuid: 'SELECT uuid FROM links WHERE url = ?',
  link: 'SELECT id, url FROM links WHERE uuid = ?',
  campaignId: 'SELECT id FROM campaigns WHERE uuid = ?',
  subscriberId: 'SELECT id FROM subscribers WHERE uuid = ?',
  click: 'INSERT INTO link_clicks (campaign_id, link_id, subscriber_id) VALUES (?, ?, ?)',
  view: 'INSERT INTO campaign_views (campaign_id, subscriber_id) VALUES (?, ?)',
};

/** Most links are repeated in every message of a campaign; a bounded cache avoids the DB. */
const MAX_CACHED_LINKS = 10_000;

export class TrackingStore {
  private readonly sql: Prepare;
  private readonly linkCache = new Map<string, string>();
  constructor(db: DB) {
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

  recordClick(campaignId: number | null, linkId: number, subscriberId: number | null): void {
    this.sql(SQL.click).run(campaignId, linkId, subscriberId);
  }

  recordView(campaignId: number, subscriberId: number | null): void {
    this.sql(SQL.view).run(campaignId, subscriberId);
  }
}
