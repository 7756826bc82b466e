// Transactional mail SQL: tx templates and recipients by e-mail or id.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import type { SubscriberRow } from '../campaigns/store.ts';

const SQL = {
  template: `SELECT id, subject, body FROM templates WHERE id = ? AND type = 'tx'`,
  byEmail: 'SELECT * FROM subscribers WHERE email = ?',
  byId: 'SELECT * FROM subscribers WHERE id = ?',
};

export class TxStore {
  private readonly sql: Prepare;
  constructor(db: DB) {
    this.sql = statementCache(db);
  }

  template(id: number): { id: number; subject: string; body: string } | undefined {
    return this.sql<[number], { id: number; subject: string; body: string }>(SQL.template).get(id);
  }

  subscriberByEmail(email: string): SubscriberRow | undefined {
    return this.sql<[string], SubscriberRow>(SQL.byEmail).get(email);
  }

  subscriberById(id: number): SubscriberRow | undefined {
    return this.sql<[number], SubscriberRow>(SQL.byId).get(id);
  }
}
