// The database handle the app passes around: the raw better-sqlite3 connection (for named,
// prepared SQL in each domain's store) and a drizzle instance over it (for typed simple queries).
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import * as schema from './schema.ts';
import type { DB } from './connection.ts';

export type Orm = BetterSQLite3Database<typeof schema>;

export function ormFor(db: DB): Orm {
  return drizzle(db, { schema });
}

export { schema };
