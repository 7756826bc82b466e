// The search backlog (sql/0060): imported rows reach the trigram index after the import, on
// the indexer thread; until then search and segments still find them, and changes made to them
// meanwhile are what gets indexed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { DB } from '../../src/db/connection.ts';
import { ImportStore, type WriteOptions } from '../../src/imports/store.ts';
import { EventLog } from '../../src/events/log.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const ROWS = 300;
const write: WriteOptions = { mode: 'subscribe', lists: [], subscriptionStatus: 'confirmed', overwriteUserinfo: false, overwriteSubscriptionStatus: false, changeable: 'all' };

/** Writes ROWS subscribers the way the import's writer does, leaving them on the backlog. */
function bulkWrite(db: DB, prefix: string): void {
  const n = Array.from({ length: ROWS }, (_, i) => i);
  new ImportStore(db, new EventLog(db)).writeBatch({
    emails: n.map((i) => `${prefix}${i}@backlog.example`),
    names: n.map((i) => `Backlog Person ${i}`),
    attribs: n.map((i) => JSON.stringify({ city: `Tromsø${i % 5}`, n: i })),
    extras: n.map(() => null),
  }, write);
}

const pending = (db: DB) => db.prepare('SELECT coalesce(sum(last_id - first_id + 1), 0) FROM subscriber_search_backlog').pluck().get() as number;
const indexed = (db: DB, phrase: string) => (db.prepare('SELECT rowid FROM subscribers_fts WHERE subscribers_fts MATCH ? ORDER BY rowid').pluck().all(`"${phrase}"`) as number[]);
const idOf = (db: DB, email: string) => db.prepare('SELECT id FROM subscribers WHERE email = ?').pluck().get(email) as number;

/** Who "Backlog Person 12" finds: persons 12 and 120-129. */
const twelves = ['bl12', ...Array.from({ length: 10 }, (_, i) => `bl12${i}`)].map((p) => `${p}@backlog.example`).sort();

async function waitIndexed(db: DB): Promise<void> {
  while (pending(db) > 0) await new Promise((r) => setTimeout(r, 20));
}

async function searchEmails(t: TestServer, params: Record<string, string>): Promise<string[]> {
  const res = await t.request('GET', `/api/subscribers?per_page=all&${new URLSearchParams(params)}`);
  assert.equal(res.status, 200, res.text);
  return (res.body.data.results as { email: string }[]).map((s) => s.email).sort();
}

describe('rows on the search backlog', () => {
  let t: TestServer;
  let db: DB;
  before(async () => {
    t = await startTestServer();
    db = t.server.ctx.db;
    bulkWrite(db, 'bl');
  });
  after(() => t.stop());

  it('are listed on the backlog and not in the index', () => {
    assert.equal(pending(db), ROWS);
    assert.deepEqual(indexed(db, 'Backlog Person'), []);
  });

  it('are found by search on name, e-mail and attribute values', async () => {
    assert.deepEqual(await searchEmails(t, { search: 'Backlog Person 12' }), twelves);
    assert.deepEqual(await searchEmails(t, { search: 'bl7@backlog' }), ['bl7@backlog.example']);
    assert.equal((await searchEmails(t, { search: 'Tromsø3' })).length, ROWS / 5);
    // Attribute keys are not searchable, on the backlog as in the index.
    assert.deepEqual(await searchEmails(t, { search: 'city' }), []);
  });

  it('are found by a segment on an attribute value', async () => {
    const found = await searchEmails(t, { query: "subscribers.attribs->>'city' = 'Tromsø2'" });
    assert.equal(found.length, ROWS / 5);
    assert.ok(found.includes('bl2@backlog.example'));
  });

  it('are indexed after the next import with the changes made to them meanwhile', async () => {
    const renamed = idOf(db, 'bl5@backlog.example');
    const deleted = idOf(db, 'bl6@backlog.example');
    assert.equal((await t.request('PUT', `/api/subscribers/${renamed}`, { email: 'bl5@backlog.example', name: 'Quite Renamed', status: 'enabled', lists: [] })).status, 200);
    assert.equal((await t.request('DELETE', `/api/subscribers/${deleted}`)).status, 200);

    // The end of an import starts the indexer.
    const form = new FormData();
    form.set('params', JSON.stringify({ mode: 'blocklist', delim: ',' }));
    form.set('file', new Blob(['email\nlate@backlog.example\n']), 'late.csv');
    assert.equal((await t.request('POST', '/api/import/subscribers', undefined, { raw: form })).status, 200);
    await waitIndexed(db);

    const all = db.prepare("SELECT id FROM subscribers WHERE email LIKE '%@backlog.example' ORDER BY id").pluck().all() as number[];
    assert.equal(all.length, ROWS);
    assert.deepEqual(indexed(db, 'backlog.example'), all);
    assert.deepEqual(indexed(db, 'Quite Renamed'), [renamed]);
    assert.ok(!indexed(db, 'Backlog Person 5').includes(renamed));
    assert.deepEqual(await searchEmails(t, { search: 'Backlog Person 12' }), twelves);
    assert.equal((await searchEmails(t, { search: 'Tromsø3' })).length, ROWS / 5);
  });
});

describe('a backlog left by a restart', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ setup: (db) => bulkWrite(db, 'rs') });
  });
  after(() => t.stop());

  it('is indexed when the server starts', async () => {
    const db = t.server.ctx.db;
    await waitIndexed(db);
    assert.equal(indexed(db, 'rs1').length, 111); // rs1, rs10-rs19, rs100-rs199
    assert.equal(indexed(db, 'backlog.example').length, ROWS);
  });
});
