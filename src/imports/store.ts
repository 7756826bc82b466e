// The import's SQL: writing one batch of parsed rows with listmonk's upsert rules, with the
// change log's per-subscriber events of the batch while a consumer wants them (one statement
// per type and batch), and the import's end.
import { inTransaction, type DB } from '../db/connection.ts';
import type { EventLog } from '../events/log.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { Authorized } from '../core/authz.ts';
import { DashboardStore } from '../dashboard/store.ts';
import { AudienceFiller, bulkInsertSubscribers, type BulkFiller } from './bulk.ts';
import type { RowBatch, RowExtra } from './parse.ts';
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
  // Meant for new addresses only (ids firstId, firstId + 1, ... without gaps); one that is there
  // already is skipped, not replaced, and the caller sees fewer changes than rows.
  insertSubscribers: (n: number) => `INSERT INTO subscribers (id, uuid, email, name, attribs, status, created_at, updated_at)
    VALUES ${placeholders(n, '(?, ?, ?, ?, ?, ?, ?, ?)')} ON CONFLICT (email) DO NOTHING`,
  // New subscribers have no subscriptions yet: plain inserts, in primary-key order; those
  // whose row names a status or lists of its own (`except`, blocklisted ones among them) are
  // subscribed one by one after.
  subscribeNew: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    SELECT s.id, l.value, ?, 'import', ?, ? FROM subscribers s CROSS JOIN json_each(?) l WHERE s.id BETWEEN ? AND ?`,
  subscribeNewExcept: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    SELECT s.id, l.value, ?, 'import', ?, ? FROM subscribers s CROSS JOIN json_each(?) l
    WHERE s.id BETWEEN ? AND ? AND s.id NOT IN (SELECT value FROM json_each(?))`,
  subscribeKeep: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    VALUES (?, ?, ?, 'import', ?, ?) ON CONFLICT (subscriber_id, list_id) DO NOTHING`,
  subscribeOverwrite: `INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at)
    VALUES (?, ?, ?, 'import', ?, ?)
    ON CONFLICT (subscriber_id, list_id) DO UPDATE SET status = excluded.status, updated_at = excluded.updated_at
    WHERE subscriber_lists.status <> excluded.status`,
  overwriteUserinfo: 'UPDATE subscribers SET name = ?, attribs = ?, updated_at = ? WHERE id = ? AND (name IS NOT ? OR json(attribs) IS NOT json(?))',
  blocklist: "UPDATE subscribers SET status = 'blocklisted', updated_at = ? WHERE id = ? AND status <> 'blocklisted'",
  unsubscribeAll: "UPDATE subscriber_lists SET status = 'unsubscribed', updated_at = ? WHERE subscriber_id = ? AND status <> 'unsubscribed'",
  onLists: `SELECT DISTINCT subscriber_id FROM subscriber_lists
    WHERE subscriber_id IN (SELECT value FROM json_each(?)) AND list_id IN (SELECT value FROM json_each(?))`,
  existingLists: 'SELECT id FROM lists WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
  allListNames: 'SELECT id, name FROM lists ORDER BY id',
  listNames: 'SELECT id, name FROM lists WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id',
  subscriberTotal: 'SELECT n FROM subscriber_total WHERE id = 1',
  touchLists: 'UPDATE lists SET updated_at = ? WHERE id IN (SELECT value FROM json_each(?))',
  subscriberListIds: 'SELECT list_id FROM subscriber_lists WHERE subscriber_id = ?',
};

/** An import is a bulk change: its per-subscriber events are written only while a consumer wants them. */
const BULK = { bulk: true } as const;

/**
 * The events of the subscribers already there that a batch changed, collected only for the
 * types a consumer wants. subscriber.updated has no `changes`: the import overwrites names and
 * attributes without reading the old ones (a read per row would slow every re-import).
 */
interface ExistingEvents {
  updated: number[] | null;
  blocklisted: number[] | null;
  /** New subscriptions, by list. */
  added: Map<number, number[]> | null;
}

interface Row {
  email: string;
  name: string;
  attribs: string;
  extra: RowExtra | null;
}

/** What the rows of a batch did; every row is one of these. */
export interface ImportCounts {
  /** New subscribers. */
  new: number;
  /** Already on file, and the import changed them (name, attributes, a subscription, blocklisted). */
  updated: number;
  /** Already on file, and nothing changed. */
  unchanged: number;
  /** Not applied (a list-restricted importer's outsiders), with the reason in the log. */
  skipped: number;
  /** Rows of an address already on an earlier row of the import. */
  duplicates: number;
}

export const noCounts = (): ImportCounts => ({ new: 0, updated: 0, unchanged: 0, skipped: 0, duplicates: 0 });

/**
 * The subscribers an import has written so far (its own new ones, and those already there it
 * met), so that an address met again is a duplicate of the file, not a subscriber "already on
 * file". New ones are ranges of ids (they are consecutive per batch); the others a bit per id.
 */
class ImportedIds {
  private readonly ranges: number[] = [];
  private bits = new Uint8Array(1024);

  addRange(first: number, last: number): void {
    this.ranges.push(first, last);
  }

  add(id: number): void {
    if (id >> 3 >= this.bits.length) {
      const grown = new Uint8Array(Math.max(this.bits.length * 2, (id >> 3) + 1));
      grown.set(this.bits);
      this.bits = grown;
    }
    this.bits[id >> 3] |= 1 << (id & 7);
  }

  has(id: number): boolean {
    if (id >> 3 < this.bits.length && this.bits[id >> 3] & (1 << (id & 7))) return true;
    // Ranges ascend (ids only grow during an import): binary search over their starts.
    let lo = 0;
    let hi = this.ranges.length / 2 - 1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (id < this.ranges[mid * 2]) hi = mid - 1;
      else if (id > this.ranges[mid * 2 + 1]) lo = mid + 1;
      else return true;
    }
    return false;
  }
}

export class ImportStore {
  private readonly sql: Prepare;
  private readonly fillers: BulkFiller[];
  /** Made in insertion order, so the uuid index only appends (uuid7.ts). */
  private readonly uuids = new Uuid7Generator();
  /** What this import has written so far (one store per import, in its writer thread). */
  private readonly imported = new ImportedIds();
  /** An earlier batch met addresses already there: look them up before inserting. */
  private lookUpFirst = false;

  constructor(private readonly db: DB, private readonly events: EventLog) {
    this.sql = statementCache(db);
    this.fillers = [new AudienceFiller(this.sql, new SearchBacklog(db)), new DashboardStore(db)];
  }

  /** The given list ids that exist. */
  existingLists(ids: number[]): number[] {
    return this.sql<[string], number>(SQL.existingLists).pluck().all(JSON.stringify(ids));
  }

  /** The names of these lists (all of them for 'all'), oldest first. */
  listNames(ids: 'all' | number[]): { id: number; name: string }[] {
    type R = { id: number; name: string };
    return ids === 'all' ? this.sql<[], R>(SQL.allListNames).all() : this.sql<[string], R>(SQL.listNames).all(JSON.stringify(ids));
  }

  /** Whether an import of about `rows` rows is written without the name index (see LARGE_IMPORT_FROM_ROWS and NAME_INDEX_REBUILD_MAX_ROWS). */
  writesWithoutNameIndex(rows: number): boolean {
    const existing = this.sql<[], number>(SQL.subscriberTotal).pluck().get() ?? 0;
    return isLargeImport(rows) && rows * 4 >= existing && existing + rows <= NAME_INDEX_REBUILD_MAX_ROWS;
  }

  /** The import ended (finished, stopped or failed): its lists were changed, and import.finished says how. */
  recordEnd(lists: number[], finished: { import: Record<string, unknown>; counts: Record<string, number> }): void {
    inTransaction(this.db, () => {
      if (lists.length) this.sql(SQL.touchLists).run(new Date().toISOString(), JSON.stringify(lists));
      this.events.record('import.finished', finished);
    });
  }

  /**
   * Writes one batch in one transaction and answers what its rows did. New subscribers are
   * numbered in the batch's order (a large import's runs are in e-mail order, see
   * write-worker.ts), without gaps: an address already there takes no id.
   */
  writeBatch(batch: RowBatch, o: WriteOptions, log: (line: string) => void = () => {}): ImportCounts {
    const now = new Date().toISOString();
    const counts = noCounts();
    // Later duplicates of an address in the batch win only with overwrite_userinfo, as they would one by one.
    const rows = new Map<string, Row>();
    for (let i = 0; i < batch.emails.length; i++) {
      const email = batch.emails[i];
      const seen = rows.get(email);
      if (!seen) {
        rows.set(email, { email, name: batch.names[i], attribs: batch.attribs[i], extra: batch.extras[i] });
        continue;
      }
      counts.duplicates++;
      log(duplicateLine(email, o));
      if (o.overwriteUserinfo && o.mode === 'subscribe') {
        seen.name = batch.names[i];
        seen.attribs = batch.attribs[i];
      }
    }

    this.db.transaction(() => {
      const candidates = [...rows.values()];
      // Most rows of a fresh import are new: insert them all at once (in a savepoint) and look
      // nothing up. When some are there already (the insert skips them), the attempt is undone,
      // as it left their ids unused, and this batch and the next look their addresses up first.
      if (!this.lookUpFirst) {
        try {
          this.db.transaction(() => this.insertNew(candidates, now, o))();
          counts.new += candidates.length;
          return;
        } catch (e) {
          if (!(e instanceof SomeExist)) throw e;
          this.lookUpFirst = true;
        }
      }
      const existing = this.findExisting(candidates.map((r) => r.email));
      this.lookUpFirst = existing.size > 0;
      const fresh = candidates.filter((r) => !existing.has(r.email));
      this.insertNew(fresh, now, o);
      counts.new += fresh.length;
      this.writeExisting(existing, rows, o, now, counts, log);
    }).immediate();
    return counts;
  }

  /** Inserts these new subscribers with consecutive ids, and their subscriptions; SomeExist if one is there already. */
  private insertNew(rows: Row[], now: string, o: WriteOptions): void {
    if (!rows.length) return;
    bulkInsertSubscribers(this.db, this.sql, this.fillers, (firstId) => {
      const inserted = this.insertSubscribers(rows, firstId, now, o);
      if (inserted < rows.length) throw new SomeExist();
      this.subscribeNewRows(rows, firstId, now, o);
      this.imported.addRange(firstId, firstId + inserted - 1);
      this.recordNew(rows, firstId, o);
      return inserted;
    });
  }

  /**
   * subscriber.created and subscription.added of the new subscribers firstId, firstId + 1, ...
   * (`rows`), when wanted. Those whose row names no status or lists of its own have the same
   * subscriptions (subscribeNewRows), so their events are built alike.
   */
  private recordNew(rows: Row[], firstId: number, o: WriteOptions): void {
    const created = this.events.records('subscriber.created', BULK);
    const added = o.mode === 'subscribe' && this.events.records('subscription.added', BULK);
    if (!created && !added) return;
    const own: number[] = [];
    for (let k = 0; k < rows.length; k++) if (rows[k].extra) own.push(firstId + k);
    this.events.recordAlike('subscriber.created', firstId, firstId + rows.length - 1, own, BULK);
    this.events.recordSubscribers('subscriber.created', own, {}, BULK);
    if (!added) return;
    const ids = Array.from({ length: rows.length }, (_, k) => firstId + k);
    this.events.recordSubscriptions('subscription.added', ids, [...new Set(rows.flatMap((r) => listsOf(o, r.extra)))], {}, BULK);
  }

  /**
   * The subscriptions of the new subscribers firstId, firstId + 1, ... (in `rows` order): the
   * import's lists with its status in one statement, and one by one for rows with a status or
   * lists of their own.
   */
  private subscribeNewRows(rows: Row[], firstId: number, now: string, o: WriteOptions): void {
    if (o.mode !== 'subscribe') return;
    const own: number[] = [];
    for (let k = 0; k < rows.length; k++) if (rows[k].extra) own.push(firstId + k);
    const lastId = firstId + rows.length - 1;
    if (!own.length) {
      if (o.lists.length) this.sql(SQL.subscribeNew).run(o.subscriptionStatus, now, now, JSON.stringify(o.lists), firstId, lastId);
      return;
    }
    if (o.lists.length) this.sql(SQL.subscribeNewExcept).run(o.subscriptionStatus, now, now, JSON.stringify(o.lists), firstId, lastId, JSON.stringify(own));
    const insert = this.sql(SQL.subscribeKeep);
    for (let k = 0; k < rows.length; k++) {
      const extra = rows[k].extra;
      if (!extra) continue;
      const status = extra.status === 'blocklisted' ? 'unsubscribed' : extra.status ?? o.subscriptionStatus;
      for (const listId of listsOf(o, extra)) insert.run(firstId + k, listId, status, now, now);
    }
  }

  /** The rows of subscribers already there: applied as the options and the actor's lists allow, and counted. */
  private writeExisting(existing: Map<string, { id: number; status: string }>, rows: Map<string, Row>, o: WriteOptions, now: string, counts: ImportCounts, log: (line: string) => void): void {
    // Judged on the subscriptions from before this import: it never adds an outsider to a list.
    const changeable = this.changeable([...existing.values()].map((s) => s.id), o.changeable);
    const events = this.existingEvents();
    for (const [email, sub] of existing) {
      const r = rows.get(email)!;
      const mayChange = changeable === 'all' || changeable.has(sub.id);
      if (this.imported.has(sub.id)) {
        counts.duplicates++;
        log(duplicateLine(email, o));
        if (o.mode === 'subscribe' && o.overwriteUserinfo && mayChange && this.sql(SQL.overwriteUserinfo).run(r.name, r.attribs, now, sub.id, r.name, r.attribs).changes) {
          events.updated?.push(sub.id);
        }
        continue;
      }
      this.imported.add(sub.id);
      const blocklisting = o.mode === 'blocklist' || r.extra?.status === 'blocklisted';
      if (!mayChange) {
        counts.skipped++;
        log(`skipped ${email}: ${blocklisting ? 'not blocklisted' : 'not changed'}, the subscriber is on none of the lists you manage`);
        continue;
      }
      let changes = 0;
      if (blocklisting) {
        const blocked = this.sql(SQL.blocklist).run(now, sub.id).changes;
        if (blocked) events.blocklisted?.push(sub.id);
        changes += blocked;
        changes += this.sql(SQL.unsubscribeAll).run(now, sub.id).changes;
      }
      if (o.mode === 'subscribe') {
        if (o.overwriteUserinfo) {
          const overwritten = this.sql(SQL.overwriteUserinfo).run(r.name, r.attribs, now, sub.id, r.name, r.attribs).changes;
          if (overwritten) events.updated?.push(sub.id);
          changes += overwritten;
        }
        const status = sub.status === 'blocklisted' || blocklisting ? 'unsubscribed' : r.extra?.status ?? o.subscriptionStatus;
        const upsert = this.sql(o.overwriteSubscriptionStatus ? SQL.subscribeOverwrite : SQL.subscribeKeep);
        // An upsert that overwrote a status changed a subscription without adding one.
        const had = events.added && new Set(this.sql<[number], number>(SQL.subscriberListIds).pluck().all(sub.id) as number[]);
        for (const listId of listsOf(o, r.extra)) {
          const upserted = upsert.run(sub.id, listId, status, now, now).changes;
          if (upserted && had && !had.has(listId)) addTo(events.added!, listId, sub.id);
          changes += upserted;
        }
      }
      if (changes) counts.updated++;
      else counts.unchanged++;
    }
    this.recordExisting(events);
  }

  /** What writeExisting collects for the change log: nothing for the types no consumer wants. */
  private existingEvents(): ExistingEvents {
    const wanted = (type: 'subscriber.updated' | 'subscriber.blocklisted' | 'subscription.added') => this.events.records(type, BULK);
    return {
      updated: wanted('subscriber.updated') ? [] : null,
      blocklisted: wanted('subscriber.blocklisted') ? [] : null,
      added: wanted('subscription.added') ? new Map() : null,
    };
  }

  private recordExisting(e: ExistingEvents): void {
    if (e.updated) this.events.recordSubscribers('subscriber.updated', e.updated, {}, BULK);
    if (e.blocklisted) this.events.recordSubscribers('subscriber.blocklisted', e.blocklisted, {}, BULK);
    for (const [list, ids] of e.added ?? []) this.events.recordSubscriptions('subscription.added', ids, [list], {}, BULK);
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
  private insertSubscribers(rows: Row[], firstId: number, now: string, o: WriteOptions): number {
    const status = o.mode === 'blocklist' ? 'blocklisted' : 'enabled';
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
        params[p++] = r.extra?.status === 'blocklisted' ? 'blocklisted' : status;
        params[p++] = now;
        params[p++] = now;
      }
      inserted += this.sql(SQL.insertSubscribers(n)).run(...params).changes;
    }
    return inserted;
  }
}

/** The import's lists and the row's own (these only in subscribe mode; the importer checked them). */
function listsOf(o: WriteOptions, extra: RowExtra | null): number[] {
  if (!extra?.lists) return o.lists;
  return [...new Set([...o.lists, ...extra.lists])];
}

/** Adds a subscriber to a list's ids. */
function addTo(byList: Map<number, number[]>, list: number, id: number): void {
  const ids = byList.get(list);
  if (ids) ids.push(id);
  else byList.set(list, [id]);
}

/** The log line of a row whose address an earlier row of the import had. */
const duplicateLine = (email: string, o: WriteOptions) =>
  `duplicate ${email}: the address is on an earlier row; ${o.overwriteUserinfo && o.mode === 'subscribe' ? 'this row\'s name and attributes replace that row\'s' : 'the earlier row counts'}`;

/** The fast path's insert met an address already there: undo it, and look addresses up first. */
class SomeExist extends Error {}
