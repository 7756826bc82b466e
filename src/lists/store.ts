// Lists: their queries and rules. Counts come from list_subscriber_counts (kept by triggers),
// so listing lists with counts never scans subscriptions. The lists' own rows go through
// drizzle; the reads with counts (one list, the filtered page) are named SQL. Each change
// writes its event to the change log in its transaction.
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { DB } from '../db/connection.ts';
import { jsonEach, param, preparedStatements } from '../db/index.ts';
import { lists, parseJsonText, toJsonText } from '../db/schema.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { Authorized } from '../core/authz.ts';
import { changedFields } from '../events/changes.ts';
import type { EventLog } from '../events/log.ts';

export const LIST_TYPES = ['private', 'public'] as const;
export const LIST_OPTINS = ['single', 'double'] as const;
export const LIST_STATUSES = ['active', 'archived'] as const;
export type ListType = (typeof LIST_TYPES)[number];
export type ListOptin = (typeof LIST_OPTINS)[number];
export type ListStatus = (typeof LIST_STATUSES)[number];

export type ListRow = typeof lists.$inferSelect;

export interface List {
  id: number;
  created_at: string;
  updated_at: string;
  uuid: string;
  name: string;
  type: ListType;
  optin: ListOptin;
  status: ListStatus;
  tags: string[];
  description: string;
  subscriber_count?: number;
  /** null in minimal listings, as listmonk. */
  subscriber_statuses: Record<string, number> | null;
  subscription_created_at: null;
  subscription_updated_at: null;
}

export interface ListFields {
  name: string;
  type: ListType;
  optin: ListOptin;
  status: ListStatus;
  tags: string[];
  description: string;
}

/** The fields whose changes list.updated reports. */
const LIST_FIELDS = ['name', 'type', 'optin', 'status', 'tags', 'description'] as const satisfies readonly (keyof ListFields)[];

export interface ListQuery {
  /** Lists the caller may see ('all' or ids). */
  visible: 'all' | number[];
  words: string[];
  status?: ListStatus;
  type?: ListType;
  optin?: ListOptin;
  tags: string[];
  orderBy: string;
  order: 'ASC' | 'DESC';
  limit: number;
  offset: number;
  /** Every visible list, without counts, in id order (listmonk's `minimal`). */
  minimal: boolean;
}

export const LIST_ORDER_COLUMNS = {
  name: 'l.name',
  status: 'l.status',
  created_at: 'l.created_at',
  updated_at: 'l.updated_at',
  subscriber_count: 'subscriber_count',
} as const;

const COUNTS = `(SELECT COALESCE(SUM(n), 0) FROM list_subscriber_counts c WHERE c.list_id = l.id) AS subscriber_count,
  (SELECT json_group_object(status, n) FROM list_subscriber_counts c WHERE c.list_id = l.id AND n > 0) AS subscriber_statuses`;

/**
 * A list's unconfirmed subscriptions whose subscriber may be mailed (not blocklisted), and
 * whether that subscriber had an opt-in mail queued or sent since @since (the 24-hour rule).
 */
const UNCONFIRMED = `FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id
    WHERE sl.list_id = @list AND sl.status = 'unconfirmed' AND s.status != 'blocklisted'`;
const MAILED_SINCE = `EXISTS (SELECT 1 FROM optin_mails m
    WHERE m.subscriber_id = sl.subscriber_id AND m.status IN ('queued', 'sent') AND m.created_at > @since)`;

const SQL = {
  byId: `SELECT l.*, ${COUNTS} FROM lists l WHERE l.id = ?`,
  renameInCampaigns: 'UPDATE campaign_lists SET list_name = ? WHERE list_id = ?',
  optinCounts: `SELECT COUNT(*) AS unconfirmed, COALESCE(SUM(NOT ${MAILED_SINCE}), 0) AS sendable ${UNCONFIRMED}`,
  queueOptins: `INSERT INTO optin_mails (subscriber_id, list_id, created_at, updated_at)
    SELECT sl.subscriber_id, @list, @now, @now ${UNCONFIRMED} AND NOT ${MAILED_SINCE} ORDER BY sl.subscriber_id`,
} as const;

/** How long a subscriber who was sent an opt-in mail is not sent another by the list's opt-in action. */
export const OPTIN_RESEND_MS = 24 * 3_600_000;

/** A double opt-in list's unconfirmed subscribers, and how many of them its opt-in action would mail now. */
export interface OptinCounts {
  unconfirmed: number;
  sendable: number;
}

/** The lists' own rows (drizzle, prepared once per connection). */
const statements = (db: DB) => preparedStatements(db, {
  insert: (orm) => orm.insert(lists).values({
    uuid: param('uuid'), name: param('name'), type: param('type'), optin: param('optin'), status: param('status'),
    tags: param('tags'), description: param('description'), created_at: param('now'), updated_at: param('now'),
  }).prepare(),
  update: (orm) => orm.update(lists).set({
    name: param('name'), type: param('type'), optin: param('optin'), status: param('status'), tags: param('tags'),
    description: param('description'), updated_at: param('now'),
  }).where(eq(lists.id, param('id'))).prepare(),
  delete: (orm) => orm.delete(lists).where(eq(lists.id, param('id'))).prepare(),
  existingIds: (orm) => orm.select({ id: lists.id }).from(lists).where(inArray(lists.id, jsonEach('ids'))).prepare(),
  byUuids: (orm) => orm.select().from(lists).where(inArray(lists.uuid, jsonEach('uuids'))).orderBy(asc(lists.id)).prepare(),
  publicActive: (orm) => orm.select().from(lists).where(and(eq(lists.type, 'public'), eq(lists.status, 'active'))).orderBy(asc(lists.id)).prepare(),
});

export class ListStore {
  private readonly sql: Prepare;
  private readonly q: ReturnType<typeof statements>;

  /** `events`: the change log each change writes to. */
  constructor(private readonly db: DB, private readonly events: EventLog) {
    this.sql = statementCache(db);
    this.q = statements(db);
  }

  get(id: number): List | null {
    const row = this.sql<[number], ListRow & CountColumns>(SQL.byId).get(id);
    return row ? toList(row, true) : null;
  }

  /** A page of lists and the total matching. */
  query(q: ListQuery): { results: List[]; total: number } {
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.visible !== 'all') {
      where.push('l.id IN (SELECT value FROM json_each(?))');
      params.push(JSON.stringify(q.visible));
    }
    for (const w of q.words) {
      where.push(`l.name LIKE ? ESCAPE '\\'`);
      params.push(`%${w.replace(/[\\%_]/g, (ch) => `\\${ch}`)}%`);
    }
    if (q.status) { where.push('l.status = ?'); params.push(q.status); }
    if (q.type) { where.push('l.type = ?'); params.push(q.type); }
    if (q.optin) { where.push('l.optin = ?'); params.push(q.optin); }
    for (const t of q.tags) {
      where.push('EXISTS (SELECT 1 FROM json_each(l.tags) WHERE value = ?)');
      params.push(t);
    }
    const whereSql = where.length ? `WHERE ${where.join(' AND ')}` : '';
    // Only the lists' own columns may be ordered by; the caller picks from LIST_ORDER_COLUMNS.
    const sql = q.minimal
      ? `SELECT l.* FROM lists l ${whereSql} ORDER BY l.id`
      : `SELECT l.*, ${COUNTS} FROM lists l ${whereSql} ORDER BY ${q.orderBy} ${q.order}, l.id ${q.order} LIMIT ? OFFSET ?`;
    const rows = this.db.prepare(sql).all(...params, ...(q.minimal ? [] : [q.limit, q.offset])) as (ListRow & CountColumns)[];
    const total = q.minimal ? rows.length : (this.db.prepare(`SELECT COUNT(*) FROM lists l ${whereSql}`).pluck().get(...params) as number);
    return { results: rows.map((r) => toList(r, !q.minimal)), total };
  }

  create(f: ListFields): List {
    return this.db.transaction(() => {
      const now = new Date().toISOString();
      const list = this.get(Number(this.q.insert.run({ uuid: randomUUID(), ...f, tags: toJsonText(f.tags), now }).lastInsertRowid))!;
      this.events.record('list.created', { list });
      return list;
    }).immediate();
  }

  /** Saves the fields; a rename is carried into campaigns' recorded list names. */
  update(id: Authorized<number>, f: ListFields): List {
    return this.db.transaction(() => {
      const was = this.get(id);
      this.q.update.run({ id, ...f, tags: toJsonText(f.tags), now: new Date().toISOString() });
      this.sql(SQL.renameInCampaigns).run(f.name, id);
      const list = this.get(id)!;
      const changes = was ? changedFields(was, list, LIST_FIELDS) : {};
      if (Object.keys(changes).length) this.events.record('list.updated', { list, changes });
      return list;
    }).immediate();
  }

  /** Deletes the lists in one transaction; returns how many existed. */
  delete(ids: Authorized<number>[]): number {
    return this.db.transaction(() => ids.reduce((n, id) => {
      // Before the row goes: the event has the list as it was.
      const list = this.get(id);
      if (!list) return n;
      this.events.record('list.deleted', { list });
      return n + this.q.delete.run({ id }).changes;
    }, 0)).immediate();
  }

  optinCounts(id: number, now = new Date()): OptinCounts {
    return this.sql<[Record<string, unknown>], OptinCounts>(SQL.optinCounts).get({ list: id, since: resendSince(now) })!;
  }

  /**
   * Queues an opt-in mail for each unconfirmed subscriber of the list not mailed one in the
   * last 24 hours (one statement: a second call cannot queue the same ones). Returns how many.
   */
  queueOptins(id: Authorized<number>, now = new Date()): number {
    return this.sql(SQL.queueOptins).run({ list: id, since: resendSince(now), now: now.toISOString() }).changes;
  }

  existingIds(ids: number[]): number[] {
    return this.q.existingIds.all({ ids: JSON.stringify(ids) }).map((r) => r.id);
  }

  rowsByUuids(uuids: string[]): ListRow[] {
    return this.q.byUuids.all({ uuids: JSON.stringify(uuids) });
  }

  /** Lists anyone may join: public and active. */
  publicLists(): ListRow[] {
    return this.q.publicActive.all();
  }
}

function resendSince(now: Date): string {
  return new Date(now.getTime() - OPTIN_RESEND_MS).toISOString();
}

interface CountColumns {
  subscriber_count?: number;
  subscriber_statuses?: string | null;
}

function toList(r: ListRow & CountColumns, withCounts: boolean): List {
  const list: List = {
    id: r.id,
    created_at: r.created_at,
    updated_at: r.updated_at,
    uuid: r.uuid,
    name: r.name,
    type: r.type,
    optin: r.optin,
    status: r.status,
    tags: parseJsonText(r.tags),
    description: r.description,
    subscription_created_at: null,
    subscription_updated_at: null,
    subscriber_statuses: null,
  };
  if (withCounts) {
    list.subscriber_count = r.subscriber_count ?? 0;
    list.subscriber_statuses = r.subscriber_statuses ? (JSON.parse(r.subscriber_statuses) as Record<string, number>) : {};
  }
  return list;
}
