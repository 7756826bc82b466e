// The drizzle schema mirrors the tables the migrations create: same tables, same columns.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getTableConfig, SQLiteTable } from 'drizzle-orm/sqlite-core';
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

describe('drizzle schema', () => {
  it('has a mirror for every real table', () => {
    const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'
      AND name NOT LIKE 'sqlite_%' AND name NOT LIKE 'subscribers_fts%' AND name != 'schema_migrations'`).pluck().all() as string[];
    assert.deepEqual(mirrored.map((t) => t.name).sort(), tables.sort());
  });

  for (const t of mirrored) {
    it(`${t.name} has the columns of the database table`, () => {
      const cols = (db.prepare(`SELECT name, "notnull" AS nn FROM pragma_table_info(?)`).all(t.name) as { name: string; nn: number }[]);
      assert.deepEqual(t.columns.map((c) => c.name).sort(), cols.map((c) => c.name).sort());
      for (const c of t.columns) {
        const real = cols.find((x) => x.name === c.name)!;
        if (!c.primary) assert.equal(c.notNull, real.nn === 1, `${t.name}.${c.name} NOT NULL`);
      }
    });
  }
});
