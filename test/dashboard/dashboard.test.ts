// GET /api/dashboard/counts and /charts against data written straight into the database,
// compared with the same figures computed by plain queries.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
const q = (sql: string) => t.server.ctx.db.prepare(sql).pluck().get() as number;

before(async () => {
  t = await startTestServer();
});
after(() => t.stop());

describe('dashboard on an empty database', () => {
  it('answers listmonk’s nulls and empty charts', async () => {
    assert.deepEqual((await t.request('GET', '/api/dashboard/counts')).body.data, {
      subscribers: { total: null, blocklisted: null, orphans: 0 },
      lists: { total: 0, private: 0, public: 0, optin_single: 0, optin_double: 0 },
      campaigns: { total: 0, by_status: null },
      messages: null,
    });
    assert.deepEqual((await t.request('GET', '/api/dashboard/charts')).body.data, { link_clicks: [], campaign_views: [] });
  });
});

describe('dashboard figures follow every write', () => {
  before(() => {
    t.server.ctx.db.exec(`
      INSERT INTO lists (id, uuid, name, type, optin) VALUES
        (1, 'l1', 'A', 'public', 'single'), (2, 'l2', 'B', 'private', 'double'), (3, 'l3', 'C', 'public', 'double');
      INSERT INTO subscribers (id, uuid, email, name, status) VALUES
        (1, 'u1', 'a@x.io', 'A', 'enabled'), (2, 'u2', 'b@x.io', 'B', 'blocklisted'), (3, 'u3', 'c@x.io', 'C', 'disabled'),
        (4, 'u4', 'd@x.io', 'D', 'enabled'), (5, 'u5', 'e@x.io', 'E', 'enabled');
      INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES (1, 1, 'confirmed'), (1, 2, 'unconfirmed'), (2, 1, 'unsubscribed'), (3, 3, 'confirmed');
      INSERT INTO campaigns (id, uuid, name, subject, from_email, status, sent) VALUES
        (1, 'c1', 'X', 'S', 'f@x.io', 'finished', 120), (2, 'c2', 'Y', 'S', 'f@x.io', 'finished', 30), (3, 'c3', 'Z', 'S', 'f@x.io', 'draft', 0);
      INSERT INTO links (id, uuid, url) VALUES (1, 'k1', 'https://x.io');
      INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES
        (1, 1, '2025-01-01T10:00:00.000Z'), (1, 1, '2025-02-28T23:59:00.000Z'), (1, 2, '2025-03-01T00:00:00.000Z'),
        (1, 4, '2025-03-31T08:00:00.000Z'), (2, 4, '2025-03-31T09:00:00.000Z');
      INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES (1, 1, 1, '2025-03-02T00:00:00.000Z');
    `);
  });

  it('counts match the data', async () => {
    const counts = (await t.request('GET', '/api/dashboard/counts')).body.data;
    assert.deepEqual(counts, {
      subscribers: { total: 5, blocklisted: 1, orphans: 2 },
      lists: { total: 3, private: 1, public: 2, optin_single: 1, optin_double: 2 },
      campaigns: { total: 3, by_status: { draft: 1, finished: 2 } },
      messages: 150,
    });
    assert.equal(counts.subscribers.orphans, q('SELECT COUNT(*) FROM subscribers s WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = s.id)'));
  });

  it('charts cover the 31 days ending on the latest event, per day', async () => {
    assert.deepEqual((await t.request('GET', '/api/dashboard/charts')).body.data, {
      link_clicks: [{ count: 1, date: '2025-03-02' }],
      campaign_views: [{ count: 1, date: '2025-03-01' }, { count: 2, date: '2025-03-31' }],
    });
  });

  it('stays right through status changes, unsubscribes, deletes and cascades', async () => {
    const db = t.server.ctx.db;
    db.exec(`
      UPDATE subscribers SET status = 'blocklisted' WHERE id = 4;
      INSERT INTO subscriber_lists (subscriber_id, list_id) VALUES (4, 1), (4, 2);
      DELETE FROM subscriber_lists WHERE subscriber_id = 1 AND list_id = 1;
      DELETE FROM subscriber_lists WHERE subscriber_id = 3;
      DELETE FROM subscribers WHERE id = 2;
      DELETE FROM lists WHERE id = 2;
      DELETE FROM campaign_views WHERE created_at > '2025-03-30';
    `);
    const counts = (await t.request('GET', '/api/dashboard/counts')).body.data;
    assert.deepEqual(counts.subscribers, {
      total: q('SELECT COUNT(*) FROM subscribers'),
      blocklisted: q("SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted'"),
      orphans: q('SELECT COUNT(*) FROM subscribers s WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = s.id)'),
    });
    assert.deepEqual(counts.subscribers, { total: 4, blocklisted: 1, orphans: 3 });
    assert.deepEqual((await t.request('GET', '/api/dashboard/charts')).body.data.campaign_views, [
      { count: 1, date: '2025-02-28' },
      { count: 1, date: '2025-03-01' },
    ]);
  });

  it('needs authentication', async () => {
    assert.equal((await t.request('GET', '/api/dashboard/counts', undefined, { auth: null })).status, 403);
    assert.equal((await t.request('GET', '/api/dashboard/charts', undefined, { auth: null })).status, 403);
  });
});
