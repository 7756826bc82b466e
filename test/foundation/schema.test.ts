// The drizzle schema mirrors the tables the migrations create, for the tables queried through
// drizzle: every mirrored table exists with exactly these columns, each with the same type,
// NOT NULL, default (drizzle writes the mirror's default into inserts), primary key and, for
// enum columns, the values of its CHECK constraint.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { is, SQL } from 'drizzle-orm';
import { getTableConfig, SQLiteSyncDialect, SQLiteTable } from 'drizzle-orm/sqlite-core';
import { closeDatabase, openDatabase, type DB } from '../../src/db/connection.ts';
import { migrate } from '../../src/db/migrate.ts';
import * as schema from '../../src/db/schema.ts';

let dir: string;
let db: DB;
before(() => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-schema-'));
  db = openDatabase(join(dir, 'x.db'));
  migrate(db);
});
after(() => {
  closeDatabase(db);
  rmSync(dir, { recursive: true, force: true });
});

const mirrored = (Object.values(schema) as unknown[]).filter((v): v is SQLiteTable => v instanceof SQLiteTable).map((t) => getTableConfig(t));
const dialect = new SQLiteSyncDialect();

interface RealColumn { name: string; type: string; notnull: number; dflt_value: string | null; pk: number }

/** A default as PRAGMA table_info shows it: the SQL text, without the parentheses around an expression. */
function defaultSql(value: unknown): string | null {
  if (value === undefined) return null;
  if (is(value, SQL)) return dialect.sqlToQuery(value).sql.replace(/^\((.*)\)$/s, '$1');
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `'${value.replace(/'/g, "''")}'`;
  throw new Error(`unexpected default ${String(value)}`);
}

describe('drizzle schema', () => {
  it('mirrors the tables the stores query through drizzle', () => {
    assert.deepEqual(mirrored.map((t) => t.name).sort(), ['lists', 'media', 'password_resets', 'role_lists', 'roles', 'sessions', 'settings', 'templates', 'users']);
  });

  for (const t of mirrored) {
    it(`${t.name} has the columns of the database table`, () => {
      const real = db.prepare('SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_info(?) ORDER BY cid').all(t.name) as RealColumn[];
      assert.ok(real.length > 0, `no table ${t.name}`);
      assert.deepEqual(t.columns.map((c) => c.name), real.map((c) => c.name), 'column names in table order');
      const compositeKey = t.primaryKeys.flatMap((k) => k.columns.map((c) => c.name));
      const createSql = db.prepare(`SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?`).pluck().get(t.name) as string;
      for (const c of t.columns) {
        const r = real.find((x) => x.name === c.name)!;
        const where = `${t.name}.${c.name}`;
        assert.equal(c.getSQLType().toUpperCase(), r.type, `${where} type`);
        assert.equal(c.primary || compositeKey.includes(c.name), r.pk > 0, `${where} primary key`);
        if (!c.primary) assert.equal(c.notNull, r.notnull === 1, `${where} NOT NULL`);
        assert.equal(defaultSql(c.default), r.dflt_value, `${where} default`);
        const check = new RegExp(`CHECK \\(${c.name} IN \\(('[^)]*)\\)\\)`).exec(createSql);
        const realEnum = check ? check[1].split(',').map((v) => v.trim().replace(/^'|'$/g, '')).sort() : undefined;
        const mirrorEnum = c.enumValues?.length ? [...c.enumValues].sort() : undefined;
        assert.deepEqual(mirrorEnum, realEnum, `${where} enum values`);
      }
    });
  }
});
