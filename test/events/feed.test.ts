// GET /api/changes (the change log as a feed, oldest first, paged with `after`), its refusals,
// and the retention prune that keeps the log to events.retention_days.
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { roleCaller, useFreshServer, withSettings, type TestServer } from '../helpers/server.ts';
import { logRead } from '../helpers/events.ts';
import type { EventType } from '../../src/events/types.ts';

const DAY_MS = 86_400_000;

/**
 * Records events through the change log, as a change does (in a transaction), dated
 * `daysAgo` days back when given; returns their ids.
 */
function recordEvents(t: TestServer, types: EventType[], daysAgo?: number): number[] {
  const { db, events } = t.server.ctx;
  const last = db.prepare('SELECT MAX(id) FROM events');
  const date = db.prepare('UPDATE events SET occurred_at = ? WHERE id = ?');
  return db.transaction(() => types.map((type, i) => {
    events.record(type, { list: { id: i, name: `List ${i}` } });
    const id = last.pluck().get() as number;
    if (daysAgo !== undefined) date.run(new Date(Date.now() - daysAgo * DAY_MS).toISOString(), id);
    return id;
  })).immediate();
}

const changes = (t: TestServer, query: string, auth?: string) => t.request('GET', `/api/changes?${query}`, undefined, auth ? { auth } : {});

describe('GET /api/changes', () => {
  const server = useFreshServer();
  let start: number;
  let ids: number[];
  const TYPES: EventType[] = ['list.created', 'list.updated', 'list.deleted'];

  before(() => {
    const t = server();
    start = t.server.ctx.db.prepare('SELECT COALESCE(MAX(id), 0) FROM events').pluck().get() as number;
    ids = recordEvents(t, Array.from({ length: 25 }, (_, i) => TYPES[i % 3]));
  });

  it('pages through the log oldest first with `after`: 3 pages of 10, 10 and 5', async () => {
    const t = server();
    let after = start;
    const seen: number[] = [];
    const more: boolean[] = [];
    for (let page = 0; page < 3; page++) {
      const res = await changes(t, `after=${after}&limit=10`);
      assert.equal(res.status, 200, res.text);
      const { results, has_more } = res.body.data;
      assert.equal(res.body.data.after, results.at(-1).id);
      seen.push(...results.map((e: any) => e.id));
      more.push(has_more);
      after = res.body.data.after;
    }
    assert.deepEqual(seen, ids);
    assert.deepEqual(more, [true, true, false]);
    const end = await changes(t, `after=${after}&limit=10`);
    assert.deepEqual(end.body.data, { results: [], after, has_more: false }, 'past the end: nothing, and the same `after`');
  });

  it('gives each event as recorded: id, uuid, type, occurred_at, actor and data', async () => {
    const t = server();
    const res = await changes(t, `after=${start}&limit=1`);
    const [e] = res.body.data.results;
    assert.deepEqual(Object.keys(e), ['id', 'uuid', 'type', 'occurred_at', 'actor', 'data']);
    assert.deepEqual([e.id, e.type, e.actor, e.data], [ids[0], 'list.created', { type: 'system' }, { list: { id: 0, name: 'List 0' } }]);
    assert.match(e.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.match(e.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('gives 100 by default', async () => {
    const t = server();
    // Of a type the other tests here do not read.
    recordEvents(t, Array.from({ length: 110 }, () => 'bounce.recorded'));
    const res = await changes(t, `after=${start}`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.results.length, 100);
    assert.equal(res.body.data.results[0].id, ids[0]);
    assert.equal(res.body.data.has_more, true);
  });

  it('filters by type, comma-separated or repeated', async () => {
    const t = server();
    const created = ids.filter((_, i) => i % 3 === 0);
    const deleted = ids.filter((_, i) => i % 3 === 2);
    const one = await changes(t, `after=${start}&types=list.created&limit=1000`);
    assert.deepEqual(one.body.data.results.map((e: any) => e.id), created);
    assert.ok(one.body.data.results.every((e: any) => e.type === 'list.created'));
    const two = await changes(t, `after=${start}&types=list.created,list.deleted&limit=5`);
    assert.deepEqual(two.body.data.results.map((e: any) => e.id), [...created, ...deleted].sort((a, b) => a - b).slice(0, 5));
    assert.equal(two.body.data.has_more, true);
    const repeated = await changes(t, `after=${start}&types=list.created&types=list.deleted&limit=1000`);
    assert.equal(repeated.body.data.results.length, created.length + deleted.length);
  });

  const refused = (name: string, query: string, message: RegExp): Scenario => ({ name, method: 'GET', path: `/api/changes?${query}`, status: 400, contains: [message], before: logRead });
  runScenarios(server, [
    refused('an unknown type: 400 naming it', 'types=list.created,list.exploded', /invalid "types": unknown event type "list.exploded"/),
    refused('a limit of 0: 400', 'limit=0', /invalid "limit": must be at least 1/),
    refused('a limit over 1,000: 400', 'limit=1001', /invalid "limit": must be at most 1000/),
    refused('a limit that is not a number: 400', 'limit=ten', /invalid "limit": expected an integer/),
    refused('an after that is not a number: 400', 'after=last', /invalid "after": expected an integer/),
    refused('a negative after: 400', 'after=-1', /invalid "after": must be at least 0/),
  ]);

  it('takes events:get: 403 without it, 200 with a role that grants it', async () => {
    const t = server();
    const without = await changes(t, 'after=0', roleCaller(t, ['webhooks:manage', 'settings:get', 'subscribers:get_all']));
    assert.equal(without.status, 403, without.text);
    assert.match(without.body.message, /permission denied: events:get/);
    const withIt = await changes(t, 'after=0', roleCaller(t, ['events:get']));
    assert.equal(withIt.status, 200, withIt.text);
  });
});

describe('the change log\'s retention', () => {
  const server = useFreshServer();

  it('prunes only the events older than events.retention_days, with their deliveries', async () => {
    const t = server();
    const { db, eventRetention } = t.server.ctx;
    const old = recordEvents(t, ['list.created', 'list.updated', 'list.deleted'], 31);
    const recent = [...recordEvents(t, ['list.created', 'list.updated'], 29), ...recordEvents(t, ['list.deleted'])];
    const webhook = Number(db.prepare(`INSERT INTO webhooks (uuid, name, url, events, secret) VALUES ('3d5c8c9a-0000-4000-8000-000000000001', 'Old', 'https://example.com/', '["*"]', 'whsec_x')`).run().lastInsertRowid);
    const deliver = db.prepare('INSERT INTO webhook_deliveries (webhook_id, event_id, status) VALUES (?, ?, ?)');
    deliver.run(webhook, old[0], 'delivered');
    deliver.run(webhook, recent[0], 'delivered');

    assert.equal(await eventRetention.prune(), old.length);
    const left = db.prepare(`SELECT id FROM events WHERE id IN (SELECT value FROM json_each(?)) ORDER BY id`).pluck().all(JSON.stringify([...old, ...recent]));
    assert.deepEqual(left, recent);
    assert.deepEqual(db.prepare('SELECT event_id FROM webhook_deliveries WHERE webhook_id = ?').pluck().all(webhook), [recent[0]], 'the old event\'s delivery went with it');
    assert.equal(await eventRetention.prune(), 0, 'nothing left to prune');
  });

  it('reads the retention at each run, and keeps it within 2 to 3650 days', async () => {
    const t = server();
    const old = recordEvents(t, ['list.created'], 40);
    await withSettings(t, { 'events.retention_days': 60 }, async () => {
      assert.equal(await t.server.ctx.eventRetention.prune(), 0);
    });
    for (const days of [1, 3651, 'soon']) {
      const res = await t.request('PUT', '/api/settings', { 'events.retention_days': days });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.message, /events\.retention_days/);
    }
    assert.equal((await t.request('GET', '/api/settings')).body.data['events.retention_days'], 30);
    assert.equal(await t.server.ctx.eventRetention.prune(), old.length);
  });
});
