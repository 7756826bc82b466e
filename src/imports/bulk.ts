// Bulk subscriber inserts. AFTER INSERT triggers that keep derived data (counters, the search
// index) skip the rows of a bulk batch (their WHEN clause compares with
// subscriber_bulk_insert.from_id, see sql/0040), and each BulkFiller brings its data up to
// date for the whole batch in a few set-based statements, in the same transaction.
// A module that adds such a trigger gates it the same way and adds its filler in
// ImportStore's constructor.
import type { DB } from '../db/connection.ts';
import type { Prepare } from '../db/statements.ts';
import type { SearchBacklog } from './search-backlog.ts';

export interface BulkFiller {
  fillBulk(firstId: number, lastId: number): void;
}

const SQL = {
  nextId: `SELECT max(coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'subscribers'), 0),
    coalesce((SELECT max(id) FROM subscribers), 0)) + 1`,
  setFrom: 'UPDATE subscriber_bulk_insert SET from_id = ? WHERE id = 1',
  // The audience read models of sql/0020, whose insert triggers sql/0041 gates.
  fillTotal: 'UPDATE subscriber_total SET n = n + (SELECT COUNT(*) FROM subscribers WHERE id BETWEEN ? AND ?) WHERE id = 1',
  fillListCounts: `INSERT INTO list_subscriber_counts (list_id, status, n)
    SELECT list_id, status, COUNT(*) FROM subscriber_lists WHERE subscriber_id BETWEEN ? AND ? GROUP BY list_id, status
    ON CONFLICT (list_id, status) DO UPDATE SET n = n + excluded.n`,
};

/**
 * The subscriber total and the per-list counts for a bulk-inserted id range; the range goes on
 * the search backlog, indexed after the import (search-backlog.ts).
 */
export class AudienceFiller implements BulkFiller {
  constructor(private readonly sql: Prepare, private readonly backlog: SearchBacklog) {}

  fillBulk(firstId: number, lastId: number): void {
    this.sql(SQL.fillTotal).run(firstId, lastId);
    this.sql(SQL.fillListCounts).run(firstId, lastId);
    this.backlog.add(firstId, lastId);
  }
}

/**
 * Inside a transaction: `write(firstId)` inserts subscribers with the consecutive ids
 * firstId, firstId + 1, ... (and their subscriptions) and returns how many; then the fillers
 * bring the derived data up to date for them.
 */
export function bulkInsertSubscribers(db: DB, sql: Prepare, fillers: BulkFiller[], write: (firstId: number) => number): void {
  if (!db.inTransaction) throw new Error('bulkInsertSubscribers must run inside a transaction');
  const firstId = sql<[], number>(SQL.nextId).pluck().get()!;
  sql(SQL.setFrom).run(firstId);
  let count: number;
  try {
    count = write(firstId);
  } finally {
    sql(SQL.setFrom).run(null);
  }
  if (count > 0) for (const f of fillers) f.fillBulk(firstId, firstId + count - 1);
}
