// The database handle the app passes around: the raw better-sqlite3 connection (for named,
// prepared SQL in each domain's store) and a drizzle instance over it (for the typed plain CRUD
// of lists, templates, media, users, roles, sessions and settings; see docs/architecture.md "Database access").
import { sql, type SQL } from 'drizzle-orm';
import { drizzle, type BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import * as schema from './schema.ts';
import type { DB } from './connection.ts';

export type Orm = BetterSQLite3Database<typeof schema>;

const orms = new WeakMap<DB, Orm>();

/** The connection's drizzle instance (one per connection, shared by its stores). */
export function ormFor(db: DB): Orm {
  let orm = orms.get(db);
  if (!orm) orms.set(db, (orm = drizzle(db, { schema })));
  return orm;
}

/**
 * Drizzle statements prepared on first use and reused, as `statementCache` does for named SQL:
 * a drizzle query built per call would be compiled to SQL and prepared by SQLite on every call.
 * Values are passed at run time for the `param(name)` placeholders.
 */
export function preparedStatements<T extends Record<string, (orm: Orm) => unknown>>(db: DB, builders: T): { readonly [K in keyof T]: ReturnType<T[K]> } {
  const orm = ormFor(db);
  const out = {} as { [K in keyof T]: ReturnType<T[K]> };
  for (const name of Object.keys(builders)) {
    Object.defineProperty(out, name, {
      enumerable: true,
      configurable: true,
      get() {
        const value = builders[name](orm);
        Object.defineProperty(out, name, { enumerable: true, value });
        return value;
      },
    });
  }
  return out;
}

/** A named placeholder of a prepared drizzle statement, usable in `where`, `set` and `values`. */
export const param = (name: string): SQL => sql`${sql.placeholder(name)}`;

/** The values of a JSON array bound as the named placeholder (one prepared statement for any number of ids). */
export const jsonEach = (name: string): SQL => sql`(SELECT value FROM json_each(${sql.placeholder(name)}))`;

export { schema };
