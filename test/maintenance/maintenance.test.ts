// /api/maintenance/*: each garbage-collection type, its count, and bad input; the analytics export.
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { parseCron } from '../../src/maintenance/cron.ts';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { roleCaller, startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

let t: TestServer;
const count = (sql: string) => t.server.ctx.db.prepare(sql).pluck().get() as number;

/**
 * Two lists (single, double opt-in), five subscribers, views and clicks around 2025-01-01, with
 * the ids and uuids the exports below are compared with: written as rows, since a builder's rows
 * take the next free ids.
 */
function seed(): void {
  const db = t.server.ctx.db;
  db.exec(`
    DELETE FROM link_clicks; DELETE FROM links; DELETE FROM campaign_views; DELETE FROM campaigns;
    DELETE FROM subscribers; DELETE FROM lists;
    INSERT INTO lists (id, uuid, name, optin) VALUES (1, 'l1', 'Single', 'single'), (2, 'l2', 'Double', 'double');
    INSERT INTO subscribers (id, uuid, email, name, status) VALUES
      (1, 'u1', 'a@x.io', 'A', 'enabled'), (2, 'u2', 'b@x.io', 'B', 'blocklisted'), (3, 'u3', 'c@x.io', 'C', 'enabled'),
      (4, 'u4', 'd@x.io', 'D', 'blocklisted'), (5, 'u5', 'e@x.io', 'E', 'enabled');
    INSERT INTO subscriber_lists (subscriber_id, list_id, status, created_at) VALUES
      (1, 2, 'unconfirmed', '2024-06-01T00:00:00.000Z'), (2, 2, 'unconfirmed', '2025-06-01T00:00:00.000Z'),
      (3, 1, 'unconfirmed', '2024-06-01T00:00:00.000Z'), (5, 2, 'unsubscribed', '2024-06-01T00:00:00.000Z');
    INSERT INTO campaigns (id, uuid, name, subject, from_email) VALUES (1, 'c1', 'C', 'S', 'f@x.io');
    INSERT INTO links (id, uuid, url) VALUES (1, 'k1', 'https://x.io');
    INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES
      (1, 1, '2024-12-31T23:59:59.000Z'), (1, 1, '2025-01-01T00:00:00.000Z'), (1, 3, '2025-02-01T00:00:00.000Z');
    INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES
      (1, 1, 1, '2024-12-01T00:00:00.000Z'), (1, 1, 3, '2025-03-01T00:00:00.000Z');
  `);
}

before(async () => {
  t = await startTestServer();
});
after(() => t.stop());
beforeEach(() => seed());

describe('DELETE /api/maintenance/subscribers/{type}', () => {
  it('orphan deletes subscribers without any subscription row (unsubscribed ones are not orphans)', async () => {
    const res = await t.request('DELETE', '/api/maintenance/subscribers/orphan');
    assert.deepEqual(res.body, { data: { count: 1 } });
    assert.equal(count("SELECT COUNT(*) FROM subscribers WHERE email = 'd@x.io'"), 0);
    assert.equal(count('SELECT COUNT(*) FROM subscribers'), 4);
  });
  it('blocklisted deletes blocklisted subscribers and their subscriptions', async () => {
    const res = await t.request('DELETE', '/api/maintenance/subscribers/blocklisted');
    assert.deepEqual(res.body, { data: { count: 2 } });
    assert.equal(count("SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted'"), 0);
    assert.equal(count('SELECT COUNT(*) FROM subscriber_lists WHERE subscriber_id = 2'), 0);
    const counts = (await t.request('GET', '/api/dashboard/counts')).body.data;
    assert.deepEqual(counts.subscribers, { total: 3, blocklisted: null, orphans: 0 });
  });
  runScenarios(() => t, [{
    name: 'an unknown type is a 400 and deletes nothing', method: 'DELETE', path: '/api/maintenance/subscribers/everyone', status: 400, contains: [/orphan, blocklisted/],
    after: () => assert.equal(count('SELECT COUNT(*) FROM subscribers'), 5),
  }]);
});

describe('DELETE /api/maintenance/subscriptions/unconfirmed', () => {
  it('deletes unconfirmed subscriptions to double opt-in lists made before the date (query)', async () => {
    const res = await t.request('DELETE', '/api/maintenance/subscriptions/unconfirmed?before_date=2025-01-01T00:00:00Z');
    assert.deepEqual(res.body, { data: { count: 1 } });
    assert.equal(count('SELECT COUNT(*) FROM subscriber_lists WHERE subscriber_id = 1'), 0);
    assert.equal(count('SELECT COUNT(*) FROM subscriber_lists'), 3);
  });
  it('takes before_date from a form body, with an offset', async () => {
    const res = await t.request('DELETE', '/api/maintenance/subscriptions/unconfirmed', undefined, {
      raw: new URLSearchParams({ before_date: '2026-01-01T05:30:00+05:30' }),
    });
    assert.deepEqual(res.body, { data: { count: 2 } });
  });
});

describe('DELETE /api/maintenance/analytics/{type}', () => {
  const cases = [
    { type: 'views', views: 1, clicks: 2 },
    { type: 'clicks', views: 3, clicks: 1 },
    { type: 'all', views: 1, clicks: 1 },
  ];
  for (const c of cases) {
    it(`${c.type} deletes rows before the date`, async () => {
      const res = await t.request('DELETE', `/api/maintenance/analytics/${c.type}?before_date=2025-01-15T00:00:00.000Z`);
      assert.deepEqual(res.body, { data: true });
      assert.equal(count('SELECT COUNT(*) FROM campaign_views'), c.views);
      assert.equal(count('SELECT COUNT(*) FROM link_clicks'), c.clicks);
    });
  }
});

describe('GET /api/maintenance/analytics/{type}/export', () => {
  const exported = async (path: string, creds = t.token) => {
    const res = await fetch(`${t.url}${path}`, { headers: { authorization: `Basic ${Buffer.from(creds).toString('base64')}` } });
    return { status: res.status, type: res.headers.get('content-type'), disposition: res.headers.get('content-disposition'), text: await res.text() };
  };

  it('streams the views since the date as CSV, deleted subscribers as 0 and empty', async () => {
    assert.equal((await t.request('DELETE', '/api/subscribers/3')).status, 200);
    const res = await exported('/api/maintenance/analytics/views/export?since=2025-01-01T00:00:00Z');
    assert.equal(res.status, 200);
    assert.match(res.type ?? '', /text\/csv/);
    assert.equal(res.disposition, 'attachment; filename=campaign_views.csv');
    assert.equal(res.text, [
      'campaign_id,campaign_uuid,campaign_name,subscriber_id,subscriber_uuid,email,subscriber_name,created_at',
      '1,c1,C,1,u1,a@x.io,A,2025-01-01T00:00:00.000Z',
      '1,c1,C,0,,,,2025-02-01T00:00:00.000Z',
      '',
    ].join('\n'));
  });

  it('streams the clicks with their URL, in batches of app.batch_size', async () => {
    const f = fixtures(t.server.ctx.db);
    for (let i = 0; i < 5; i++) f.click(1, 1, 1, '2025-04-01T00:00:00.000Z');
    await withSettings(t, { 'app.batch_size': 2 }, async () => {
      const res = await exported('/api/maintenance/analytics/clicks/export?since=2025-01-01T00:00:00%2B01:00');
      const lines = res.text.trim().split('\n');
      assert.equal(lines[0], 'campaign_id,campaign_uuid,campaign_name,subscriber_id,subscriber_uuid,email,subscriber_name,url,created_at');
      assert.deepEqual(lines.slice(1), ['1,c1,C,3,u3,c@x.io,C,https://x.io,2025-03-01T00:00:00.000Z', ...Array(5).fill('1,c1,C,1,u1,a@x.io,A,https://x.io,2025-04-01T00:00:00.000Z')]);
    });
  });

  it('gives subscribers\' UUID, e-mail and name only to a caller who may read them: ids to a settings:maintain role without subscriber access', async () => {
    const maintainer = roleCaller(t, ['settings:maintain']);
    assert.equal((await t.request('GET', '/api/subscribers', undefined, { auth: maintainer })).status, 403);
    const views = await exported('/api/maintenance/analytics/views/export?since=2024-01-01T00:00:00Z', maintainer);
    assert.equal(views.status, 200);
    assert.equal(views.text, [
      'campaign_id,campaign_uuid,campaign_name,subscriber_id,subscriber_uuid,email,subscriber_name,created_at',
      '1,c1,C,1,,,,2024-12-31T23:59:59.000Z',
      '1,c1,C,1,,,,2025-01-01T00:00:00.000Z',
      '1,c1,C,3,,,,2025-02-01T00:00:00.000Z',
      '',
    ].join('\n'));
    const clicks = await exported('/api/maintenance/analytics/clicks/export?since=2024-01-01T00:00:00Z', maintainer);
    assert.deepEqual(clicks.text.trim().split('\n').slice(1), ['1,c1,C,1,,,,https://x.io,2024-12-01T00:00:00.000Z', '1,c1,C,3,,,,https://x.io,2025-03-01T00:00:00.000Z']);
  });

  it('gives a list-restricted role the personal data of its lists\' members only', async () => {
    // Subscriber 3 is on list 1, subscriber 1 on list 2 only.
    const restricted = roleCaller(t, ['settings:maintain', 'subscribers:get'], [1]);
    const res = await exported('/api/maintenance/analytics/clicks/export?since=2024-01-01T00:00:00Z', restricted);
    assert.deepEqual(res.text.trim().split('\n').slice(1), ['1,c1,C,1,,,,https://x.io,2024-12-01T00:00:00.000Z', '1,c1,C,3,u3,c@x.io,C,https://x.io,2025-03-01T00:00:00.000Z']);
    const all = roleCaller(t, ['settings:maintain', 'subscribers:get_all']);
    const full = await exported('/api/maintenance/analytics/clicks/export?since=2024-01-01T00:00:00Z', all);
    assert.deepEqual(full.text.trim().split('\n').slice(1), ['1,c1,C,1,u1,a@x.io,A,https://x.io,2024-12-01T00:00:00.000Z', '1,c1,C,3,u3,c@x.io,C,https://x.io,2025-03-01T00:00:00.000Z']);
  });

  describe('refuses a bad type or date with 400', () => runScenarios(() => t, [
    { name: 'the type "all"', method: 'GET', path: '/api/maintenance/analytics/all/export?since=2025-01-01T00:00:00Z', status: 400, contains: [/analytics type "all"/] },
    { name: 'no "since"', method: 'GET', path: '/api/maintenance/analytics/views/export', status: 400, contains: [/"since" is required/] },
    { name: 'a date without a time', method: 'GET', path: '/api/maintenance/analytics/views/export?since=2025-01-01', status: 400, contains: [/RFC 3339/] },
  ]));
});

describe('bad input changes nothing', () => {
  const refused = (path: string, message: RegExp): Scenario => ({
    name: path, method: 'DELETE', path, status: 400, contains: [message],
    after: () => assert.equal(count('SELECT COUNT(*) FROM campaign_views') + count('SELECT COUNT(*) FROM link_clicks') + count('SELECT COUNT(*) FROM subscriber_lists'), 9),
  });
  let ops = '';
  runScenarios(() => t, [
    refused('/api/maintenance/analytics/links?before_date=2025-01-01T00:00:00Z', /analytics type "links"/),
    refused('/api/maintenance/analytics/views', /"before_date" is required/),
    refused('/api/maintenance/analytics/all?before_date=2025-01-01', /RFC 3339/),
    refused('/api/maintenance/analytics/all?before_date=2025-13-45T00:00:00Z', /RFC 3339/),
    refused('/api/maintenance/subscriptions/unconfirmed?before_date=yesterday', /RFC 3339/),
    refused('/api/maintenance/subscriptions/unconfirmed', /"before_date" is required/),
    {
      name: 'needs settings:maintain', method: 'DELETE', path: '/api/maintenance/subscribers/blocklisted', auth: () => ops, status: 403,
      before: () => {
        ops = fixtures(t.server.ctx.db).apiUser('ops', { permissions: ['settings:get'] });
      },
      after: () => assert.equal(count('SELECT COUNT(*) FROM subscribers'), 5),
    },
  ]);
});

describe('cron expressions for the VACUUM schedule', () => {
  const at = (s: string) => new Date(s);
  it('matches minutes, hours, steps, ranges and days', () => {
    assert.equal(parseCron('0 2 * * *').matches(at('2025-03-04T02:00:00')), true);
    assert.equal(parseCron('0 2 * * *').matches(at('2025-03-04T02:01:00')), false);
    assert.equal(parseCron('*/15 9-17 * * 1-5').matches(at('2025-03-04T09:45:00')), true); // a Tuesday
    assert.equal(parseCron('*/15 9-17 * * 1-5').matches(at('2025-03-08T09:45:00')), false); // a Saturday
    assert.equal(parseCron('0 0 1 * 7').matches(at('2025-03-02T00:00:00')), true); // Sunday, either day field
    assert.equal(parseCron('0 3 * * *').next(at('2025-03-04T03:00:00'))!.getTime(), at('2025-03-05T03:00:00').getTime());
  });
  it('refuses malformed expressions', () => {
    for (const bad of ['0 2 * *', '60 * * * *', 'a b c d e', '5-1 * * * *', '*/0 * * * *']) assert.throws(() => parseCron(bad), Error, bad);
  });
});
