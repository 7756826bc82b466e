// Prepared statements, compiled once per connection and reused (stores name their SQL as
// constants and run it through this cache).
import type { Statement } from 'better-sqlite3';
import type { DB } from './connection.ts';

export type Prepare = <P extends unknown[] = unknown[], R = unknown>(sql: string) => Statement<P, R>;

export function statementCache(db: DB): Prepare {
  const cache = new Map<string, Statement<unknown[], unknown>>();
  return <P extends unknown[], R>(sql: string) => {
    let s = cache.get(sql);
    if (!s) {
      s = db.prepare(sql);
      cache.set(sql, s);
    }
    return s as unknown as Statement<P, R>;
  };
}
