// The change log's reads and its pruning: GET /api/changes pages through it oldest first, for
// scripts that poll instead of receiving webhooks, and the retention schedule deletes what is
// older than events.retention_days. (Events are written by log.ts, in their change's transaction.)
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { EventActor } from '../core/actor.ts';
import type { EventType } from './types.ts';

/** An event as the feed gives it. */
export interface ChangeEvent {
  id: number;
  uuid: string;
  type: EventType;
  occurred_at: string;
  actor: EventActor;
  data: Record<string, unknown>;
}

/** A page of the feed: `after` is where the next page starts (the last id given, or the one asked after). */
export interface ChangesPage {
  results: ChangeEvent[];
  after: number;
  has_more: boolean;
}

interface EventRow {
  id: number;
  uuid: string;
  type: EventType;
  occurred_at: string;
  actor: string;
  data: string;
}

const COLUMNS = 'id, uuid, type, occurred_at, actor, data';
const SQL = {
  after: `SELECT ${COLUMNS} FROM events WHERE id > :after ORDER BY id LIMIT :limit`,
  afterOfTypes: `SELECT ${COLUMNS} FROM events WHERE id > :after AND type IN (SELECT value FROM json_each(:types)) ORDER BY id LIMIT :limit`,
  // occurred_at is indexed; a batch at a time, so that requests get the write lock in between.
  pruneBatch: 'DELETE FROM events WHERE id IN (SELECT id FROM events WHERE occurred_at < :before ORDER BY occurred_at LIMIT :limit)',
} as const;

export class EventStore {
  private readonly sql: Prepare;

  constructor(db: DB) {
    this.sql = statementCache(db);
  }

  /** Up to `limit` events after the id `after`, oldest first, of the given types (all when none). */
  changes(after: number, types: readonly EventType[], limit: number): ChangesPage {
    // One more than asked, to know whether there are more.
    const params = { after, limit: limit + 1 };
    const rows = types.length
      ? this.sql<[object], EventRow>(SQL.afterOfTypes).all({ ...params, types: JSON.stringify(types) })
      : this.sql<[object], EventRow>(SQL.after).all(params);
    const results = rows.slice(0, limit).map((r) => ({ ...r, actor: JSON.parse(r.actor) as EventActor, data: JSON.parse(r.data) as Record<string, unknown> }));
    return { results, after: results.at(-1)?.id ?? after, has_more: rows.length > limit };
  }

  /** Deletes up to `limit` events that occurred before `before` (their deliveries go with them); returns how many. */
  pruneBatch(before: string, limit: number): number {
    return this.sql(SQL.pruneBatch).run({ before, limit }).changes;
  }
}
