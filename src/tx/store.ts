// Transactional mail SQL: tx templates. Recipients are looked up in the subscriber store.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';

const SQL = {
  template: `SELECT id, subject, body FROM templates WHERE id = ? AND type = 'tx'`,
};

export class TxStore {
  private readonly sql: Prepare;
  constructor(db: DB) {
    this.sql = statementCache(db);
  }

  template(id: number): { id: number; subject: string; body: string } | undefined {
    return this.sql<[number], { id: number; subject: string; body: string }>(SQL.template).get(id);
  }
}
