// The import's SQL: writing one batch of parsed rows with listmonk's upsert rules.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { Authorized } from '../http/permissions.ts';
import { DashboardStore } from '../dashboard/store.ts';
import { AudienceFiller, bulkInsertSubscribers, type BulkFiller } from './bulk.ts';
import type { RowBatch } from './parse.ts';
import { SearchBacklog } from './search-backlog.ts';
import { Uuid7Generator } from './uuid7.ts';

export type ImportMode = 'subscribe' | 'blocklist';
export type SubscriptionStatus = 'unconfirmed' | 'confirmed' | 'unsubscribed';

export interface WriteOptions {
  mode: ImportMode;
  /** Lists the actor may manage (Importer.writeOptions checked them). */
  lists: Authorized<number>[];
  subscriptionStatus: SubscriptionStatus;
  overwriteUserinfo: boolean;
  overwriteSubscriptionStatus: boolean;
  /**
   * The subscribers already there that the import may change (overwrite the name and
   * attributes, blocklist): 'all', or those on one of these lists, the ones a list-restricted
   * importer manages (Importer.writeOptions). The others are skipped, and logged.
   */
  changeable: 'all' | Authorized<number>[];
}

/**
 * Large imports, from this many rows, are written in runs sorted by e-mail address
 * (write-worker.ts); smaller ones in file order. A large one that brings at least a quarter of
 * the subscribers already there (rebuilding the name index sorts them all) writes without the
 * name index too (name-index.ts; 1M rows: 16.7k rows/s with it, 25.3k without) ...
 */
const LARGE_IMPORT_FROM_ROWS = 100_000;
/**
 * ... as long as the table then stays under this size: the rebuild is one statement, and the
 * server's writes wait for it (0.8-1.3 s per million rows here), beyond its 5 s busy timeout
 * for a table of several million.
 */
const NAME_INDEX_REBUILD_MAX_ROWS = 2_000_000;

/** Rows per multi-row INSERT (well under SQLite's 32766 bound parameters). */
const ROWS_PER_INSERT = 100;
const EMAILS_PER_LOOKUP = 500;

/** Whether an import of about `rows` rows is a large one (LARGE_IMPORT_FROM_ROWS). */
export const isLargeImport = (rows: number) => rows >= LARGE_IMPORT_FROM_ROWS;

const placeholders = (rows: number, perRow: string) => Array(rows).fill(perRow).join(',');

const SQL = {
  findByEmails: (n: number) => `SELECT id, email, status FROM subscribers WHERE email IN (${placeholders(n, '?')})`,
  // An address already there is skipped here and handled as an existing subscriber after.
  insertSubscribers: (n: number) => `INSERT INTO subscribers (id, uuid, email, name, attribs, status, created_at, updated_at)
    VALUES ${placeholders(n, '(?, ?, ?, ?, ?, ?, ?, ?)')} ON CONFLICT (email) DO NOTHING`,
  idsBetween: 'SELECT id FROM subscribers WHERE id BETWEEN ? AND ?',
  // New subscribers have no subscriptions yet: plain inserts, in primary-key order.
  subscribeNew: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    SELECT s.id, l.value, ?, 'import', ?, ? FROM subscribers s CROSS JOIN json_each(?) l WHERE s.id BETWEEN ? AND ?`,
  subscribeKeep: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    VALUES (?, ?, ?, 'import', ?, ?) ON CONFLICT (subscriber_id, list_id) DO NOTHING`,
  subscribeOverwrite: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    VALUES (?, ?, ?, 'import', ?, ?)
    ON CONFLICT (subscriber_id, list_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at
    WHERE subscriber_lists.status <> excluded.status`,
  overwriteUserinfo: 'UPDATE subscribers SET name = ?, attribs = ?, updated_at = ? WHERE id = ?',
  blocklist: "UPDATE subscribers SET status = 'blocklisted', updated_at = ? WHERE id = ? AND status <> 'blocklisted'",
  unsubscribeAll: "UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = ? WHERE subscriber_id = ? AND status <> 'unsubscribed'",
  onLists: `SELECT DISTINCT subscriber_id FROM subscriber_lists
    WHERE subscriber_id IN (SELECT value FROM json_each(?)) AND list_id IN (SELECT value FROM json_each(?))`,
  existingLists: 'SELECT id FROM lists WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
  subscriberTotal: 'SELECT n FROM subscriber_total WHERE id = 1',
  touchLists: 'UPDATE lists SET updated_at = ? WHERE id IN (SELECT value FROM json_each(?))',
};

interface Row {
  email: string;
  name: string;
  attribs: string;
}

export class ImportStore {
  private readonly sql: Prepare;
  private readonly fillers: BulkFiller[];
  /** Made in insertion order, so the uuid index only appends (uuid7.ts). */
  private readonly uuids = new Uuid7Generator();

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
    this.fillers = [new AudienceFiller(this.sql, new SearchBacklog(db)), new DashboardStore(db)];
  }

  /** The given list ids that exist. */
  existingLists(ids: number[]): number[] {
    return this.sql<[string], number>(SQL.existingLists).pluck().all(JSON.stringify(ids));
  }

  /** Whether an import of about `rows` rows is written without the name index (see LARGE_IMPORT_FROM_ROWS and NAME_INDEX_REBUILD_MAX_ROWS). */
  writesWithoutNameIndex(rows: number): boolean {
    const existing = this.sql<[], number>(SQL.subscriberTotal).pluck().get() ?? 0;
    return isLargeImport(rows) && rows * 4 >= existing && existing + rows <= NAME_INDEX_REBUILD_MAX_ROWS;
  }

  touchLists(ids: number[]): void {
    if (ids.length) this.sql(SQL.touchLists).run(new Date().toISOString(), JSON.stringify(ids));
  }

  /**
   * Writes one batch in one transaction; every row counts as imported (duplicates included).
   * New subscribers are numbered in the batch's order (a large import's runs are in e-mail
   * order, see write-worker.ts).
   */
  writeBatch(batch: RowBatch, o: WriteOptions, log: (line: string) => void = () => {}): number {
    const now = new Date().toISOString();
    // Later duplicates of an address in the batch win only with overwrite_userinfo, as they would one by one.
    const rows = new Map<string, Row>();
    for (let i = 0; i < batch.emails.length; i++) {
      const email = batch.emails[i];
      const seen = rows.get(email);
      if (!seen) rows.set(email, { email, name: batch.names[i], attribs: batch.attribs[i] });
      else if (o.overwriteUserinfo && o.mode === 'subscribe') {
        seen.name = batch.names[i];
        seen.attribs = batch.attribs[i];
      }
    }

    this.db.transaction(() => {
      // All rows are inserted, new addresses with ids firstId + their index; the few that are
      // already there are skipped and found after (cheaper than looking every address up first).
      const candidates = [...rows.values()];
      let skipped: Row[] = [];
      bulkInsertSubscribers(this.db, this.sql, this.fillers, (firstId) => {
        const lastId = firstId + candidates.length - 1;
        const inserted = this.insertSubscribers(candidates, firstId, o.mode === 'blocklist' ? 'blocklisted' : 'enabled', now);
        if (inserted < candidates.length) {
          const ids = new Set(this.sql<[number, number], number>(SQL.idsBetween).pluck().all(firstId, lastId));
          skipped = candidates.filter((_, k) => !ids.has(firstId + k));
        }
        if (o.mode === 'subscribe' && o.lists.length && inserted) {
          this.sql(SQL.subscribeNew).run(o.subscriptionStatus, now, now, JSON.stringify(o.lists), firstId, lastId);
        }
        return candidates.length;
      });

      const existing = this.findExisting(skipped.map((r) => r.email));
      const changeable = this.changeable([...existing.values()].map((s) => s.id), o.changeable);
      for (const [email, sub] of existing) {
        const r = rows.get(email)!;
        const mayChange = changeable === 'all' || changeable.has(sub.id);
        if (o.mode === 'blocklist') {
          if (!mayChange) {
            log(`skipped ${email}: not blocklisted, the subscriber is on none of the lists you manage`);
            continue;
          }
          this.sql(SQL.blocklist).run(now, sub.id);
          this.sql(SQL.unsubscribeAll).run(now, sub.id);
          continue;
        }
        if (o.overwriteUserinfo && mayChange) this.sql(SQL.overwriteUserinfo).run(r.name, r.attribs, now, sub.id);
        else if (o.overwriteUserinfo) log(`skipped ${email}: name and attributes not overwritten, the subscriber is on none of the lists you manage`);
        const status = sub.status === 'blocklisted' ? 'unsubscribed' : o.subscriptionStatus;
        const upsert = this.sql(o.overwriteSubscriptionStatus ? SQL.subscribeOverwrite : SQL.subscribeKeep);
        for (const listId of o.lists) upsert.run(sub.id, listId, status, now, now);
      }
    }).immediate();
    return batch.emails.length;
  }

  /** Of these subscribers, those on one of the lists (all of them for 'all'). */
  private changeable(ids: number[], lists: 'all' | number[]): 'all' | Set<number> {
    if (lists === 'all') return 'all';
    if (!ids.length || !lists.length) return new Set();
    return new Set(this.sql<[string, string], number>(SQL.onLists).pluck().all(JSON.stringify(ids), JSON.stringify(lists)));
  }

  private findExisting(emails: string[]): Map<string, { id: number; status: string }> {
    const found = new Map<string, { id: number; status: string }>();
    for (let i = 0; i < emails.length; i += EMAILS_PER_LOOKUP) {
      const chunk = emails.slice(i, i + EMAILS_PER_LOOKUP);
      for (const r of this.sql<string[], { id: number; email: string; status: string }>(SQL.findByEmails(chunk.length)).all(...chunk)) {
        found.set(r.email, { id: r.id, status: r.status });
      }
    }
    return found;
  }

  /** Inserts the rows with ids firstId, firstId + 1, ...; answers how many were new. */
  private insertSubscribers(rows: Row[], firstId: number, status: string, now: string): number {
    let inserted = 0;
    for (let i = 0; i < rows.length; i += ROWS_PER_INSERT) {
      const n = Math.min(ROWS_PER_INSERT, rows.length - i);
      const params: unknown[] = new Array(n * 8);
      for (let k = 0, p = 0; k < n; k++) {
        const r = rows[i + k];
        params[p++] = firstId + i + k;
        params[p++] = this.uuids.next();
        params[p++] = r.email;
        params[p++] = r.name;
        params[p++] = r.attribs;
        params[p++] = status;
        params[p++] = now;
        params[p++] = now;
      }
      inserted += this.sql(SQL.insertSubscribers(n)).run(...params).changes;
    }
    return inserted;
  }
}
