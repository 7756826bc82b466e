// The search index backlog (sql/0060): id ranges of bulk-imported subscribers that are not in
// the trigram index yet. Imports add to it; the indexer thread (index-worker.ts) drains it in
// steps, each indexing the first ids of the backlog and taking them off it in one transaction.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { SEARCHABLE_ATTRIBS } from '../subscribers/search.ts';

const SQL = {
  extend: 'UPDATE subscriber_search_backlog SET last_id = ? WHERE last_id = ?',
  add: 'INSERT INTO subscriber_search_backlog (first_id, last_id) VALUES (?, ?)',
  pendingIds: 'SELECT coalesce(sum(last_id - first_id + 1), 0) FROM subscriber_search_backlog',
  first: 'SELECT first_id AS firstId, last_id AS lastId FROM subscriber_search_backlog ORDER BY first_id LIMIT 1',
  index: `INSERT INTO subscribers_fts (rowid, name, email, attribs)
    SELECT id, name, email, ${SEARCHABLE_ATTRIBS('subscribers')} FROM subscribers WHERE id BETWEEN ? AND ?`,
  advance: 'UPDATE subscriber_search_backlog SET first_id = ? WHERE first_id = ?',
  remove: 'DELETE FROM subscriber_search_backlog WHERE first_id = ?',
};

export class SearchBacklog {
  private readonly sql: Prepare;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** Inside the import's transaction: ids firstId..lastId await indexing (a range right after the last one extends it). */
  add(firstId: number, lastId: number): void {
    if (this.sql(SQL.extend).run(lastId, firstId - 1).changes === 0) this.sql(SQL.add).run(firstId, lastId);
  }

  /** How many ids await indexing (deleted subscribers among them included). */
  pendingIds(): number {
    return this.sql<[], number>(SQL.pendingIds).pluck().get()!;
  }

  /** Indexes up to `maxIds` ids from the start of the backlog in one transaction; returns how many (0: nothing left). */
  indexStep(maxIds: number): number {
    return this.db.transaction(() => {
      const range = this.sql<[], { firstId: number; lastId: number }>(SQL.first).get();
      if (!range) return 0;
      const to = Math.min(range.lastId, range.firstId + maxIds - 1);
      this.sql(SQL.index).run(range.firstId, to);
      if (to === range.lastId) this.sql(SQL.remove).run(range.firstId);
      else this.sql(SQL.advance).run(to + 1, range.firstId);
      return to - range.firstId + 1;
    }).immediate();
  }
}
