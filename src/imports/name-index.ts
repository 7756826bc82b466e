// The subscribers' name index (sql/0001, for ORDER BY name). Large imports write without it:
// names arrive in random order, so each insert lands on a random page of the index and every
// commit rewrites thousands of them (a third of the writer's time on 1M rows), while building
// it afterwards is one sort (about 1.3 s per million subscribers). The search indexer's thread
// (index-worker.ts) rebuilds it after the import, and at start-up after a crash.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';

const SQL = {
  exists: "SELECT 1 FROM sqlite_schema WHERE type = 'index' AND name = 'subscribers_name'",
  drop: 'DROP INDEX IF EXISTS subscribers_name',
  create: 'CREATE INDEX IF NOT EXISTS subscribers_name ON subscribers (name)',
};

export class NameIndex {
  private readonly sql: Prepare;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  missing(): boolean {
    return !this.sql(SQL.exists).get();
  }

  /** Until rebuild(), ORDER BY name sorts instead of reading the index. */
  drop(): void {
    this.sql(SQL.drop).run();
  }

  /** Builds the index if it is missing; true if it did. */
  rebuild(): boolean {
    if (!this.missing()) return false;
    // The build's sort spills to temp files: in memory (our temp_store) they added 55 MB to
    // the peak RSS for 1M subscribers, on disk none, and the build was faster (1.3 s against 1.7).
    const tempStore = this.db.pragma('temp_store', { simple: true }) as number;
    this.db.pragma('temp_store = FILE');
    try {
      this.sql(SQL.create).run();
    } finally {
      this.db.pragma(`temp_store = ${tempStore}`);
    }
    return true;
  }
}
