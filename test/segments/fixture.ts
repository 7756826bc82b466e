// A real SQLite file with the project schema and a handful of subscribers whose attribs
// cover nested objects, arrays, numbers, numeric strings, booleans and JSON null.
import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { registerSegmentFunctions, translateSegment } from '../../src/segments/index.ts';

/** The moment NOW() stands for in the tests. */
export const NOW = new Date('2025-06-15T12:00:00.000Z');

export const UUID_4 = 'b3a1c6a4-5a0e-4c53-9c7e-2f4d6f0a0004';

const SUBSCRIBERS = [
  {
    id: 1, name: 'Anna Schmidt', email: 'anna@example.com', status: 'enabled', created_at: '2025-06-10T08:00:00.000Z',
    attribs: { city: 'Berlin', age: 30, vip: true, tags: ['vip', 'beta'], address: { zip: '10115', street: 'Main' }, score: 9.5 },
  },
  {
    id: 2, name: 'Bob Brown', email: 'bob@gmail.com', status: 'enabled', created_at: '2025-05-01T00:00:00.000Z',
    attribs: { city: 'Porto', age: '45', vip: false, tags: ['news'], address: { zip: '4000' }, signup: '2025-02-03 10:00:00' },
  },
  {
    id: 3, name: 'andré Ölz', email: 'andre@gmail.com', status: 'blocklisted', created_at: '2025-06-14T23:59:59.999Z',
    attribs: { city: 'berlin', age: 22, tags: [], x: null, score: null },
  },
  {
    id: 4, name: 'Carol', email: 'carol@example.org', status: 'disabled', created_at: '2024-12-31T12:00:00.000Z',
    attribs: { vip: 'true', age: 30.5, nested: { deep: { k: [1, 2, { z: 'y' }] } } },
  },
  {
    id: 5, name: 'ÉMILE Dupont', email: 'emile@example.fr', status: 'enabled', created_at: '2025-06-15T11:00:00.000Z',
    attribs: { signup: '2024-12-01', 'we"ird': 'k' },
  },
  {
    id: 6, name: 'Zed', email: 'x@y.z', status: 'enabled', created_at: '2025-01-31T10:00:00.000Z',
    attribs: { city: 'Berlin', age: 30, x: 1 },
  },
];

export interface Fixture {
  db: Database.Database;
  /** Translates the expression and answers the ids of the subscribers it selects. */
  ids(expression: string): number[];
  /** Every row of every table, to show that nothing changed. */
  snapshot(): string;
  close(): void;
}

export function openFixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-segments-'));
  const db = new Database(join(dir, 'test.db'));
  db.exec(readFileSync(new URL('../../sql/0001_init.sql', import.meta.url), 'utf8'));
  registerSegmentFunctions(db);

  const insertSubscriber = db.prepare(
    'INSERT INTO subscribers (id, uuid, email, name, attribs, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)',
  );
  db.transaction(() => {
    for (const s of SUBSCRIBERS) {
      const uuid = s.id === 4 ? UUID_4 : `00000000-0000-4000-8000-00000000000${s.id}`;
      insertSubscriber.run(s.id, uuid, s.email, s.name, JSON.stringify(s.attribs), s.status, s.created_at, s.created_at);
    }
    db.exec(`
      INSERT INTO lists (id, uuid, name) VALUES (1, 'l-1', 'Newsletter'), (2, 'l-2', 'Beta');
      INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES
        (1, 1, 'confirmed'), (2, 1, 'unconfirmed'), (3, 2, 'confirmed'), (1, 2, 'unsubscribed');
      INSERT INTO campaigns (id, uuid, name, subject, from_email) VALUES
        (1, 'c-1', 'One', 'One', 'a@b.c'), (2, 'c-2', 'Two', 'Two', 'a@b.c'), (3, 'c-3', 'Three', 'Three', 'a@b.c');
      INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES (3, 1, 'Newsletter');
      INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES
        (3, 2, '2025-06-01T10:00:00.000Z'), (3, 5, '2025-06-02T10:00:00.000Z'), (1, 1, '2025-06-03T10:00:00.000Z');
      INSERT INTO links (id, uuid, url) VALUES (1, 'k-1', 'https://example.com/a'), (2, 'k-2', 'https://other.net/');
      INSERT INTO link_clicks (campaign_id, link_id, subscriber_id) VALUES (3, 1, 4), (3, 2, 6);
      INSERT INTO bounces (subscriber_id, campaign_id, type) VALUES (2, 3, 'hard'), (6, 3, 'soft');
      INSERT INTO roles (id, type, name) VALUES (1, 'user', 'Super Admin');
      INSERT INTO users (username, password, email, name, type, user_role_id) VALUES ('admin', 'secret-hash', 'admin@x.y', 'Admin', 'user', 1);
    `);
  })();

  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  return {
    db,
    ids(expression) {
      const { sql, params } = translateSegment(expression, { now: NOW });
      return db.prepare(`SELECT id FROM subscribers WHERE ${sql} ORDER BY id`).pluck().all(...params) as number[];
    },
    snapshot() {
      const schema = db.prepare('SELECT type, name, sql FROM sqlite_master ORDER BY name').all();
      const rows = tables.map((t) => db.prepare(`SELECT * FROM "${t}"`).all());
      return JSON.stringify({ schema, rows });
    },
    close() {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
