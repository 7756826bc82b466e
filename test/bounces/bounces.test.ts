import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { addCampaign, addList, addSubscriber, bounceCount, subscriberStatus, subscriptionStatuses, userWith } from './seed.ts';
import { fixtures, type Seeded } from '../helpers/fixtures.ts';

let t: TestServer;
let list: number;
let a: Seeded, b: Seeded, c: Seeded;
let alpha: Seeded, beta: Seeded;

const HIGH = { soft: { count: 100, action: 'none' }, hard: { count: 100, action: 'none' }, complaint: { count: 100, action: 'none' } };
const setSettings = async (s: Record<string, unknown>) => assert.equal((await t.request('PUT', '/api/settings', s)).status, 200);
const post = (body: unknown, auth?: string | null) => t.request('POST', '/webhooks/bounce', body, auth === undefined ? {} : { auth });

before(async () => {
  t = await startTestServer();
  await setSettings({ 'bounce.enabled': true, 'bounce.webhooks_enabled': true, 'bounce.actions': HIGH });
  list = addList(t, 'News');
  a = addSubscriber(t, 'a@x.org', { lists: [list] });
  b = addSubscriber(t, 'b@x.org', { lists: [list] });
  c = addSubscriber(t, 'c@x.org', { lists: [list] });
  alpha = addCampaign(t, 'Alpha');
  beta = addCampaign(t, 'Beta');
});
after(() => t.stop());

async function seedThree(): Promise<number[]> {
  fixtures(t.server.ctx.db).clearBounces();
  const sent = [
    { email: 'A@x.org', type: 'hard', campaign_uuid: beta.uuid, source: 'api', created_at: '2025-01-01T10:00:00Z', meta: { n: 1 } },
    { subscriber_uuid: b.uuid, type: 'soft', campaign_uuid: alpha.uuid, source: 'ses', created_at: '2025-01-02T10:00:00Z' },
    { email: 'c@x.org', type: 'complaint', source: 'api', created_at: '2025-01-03T10:00:00Z' },
  ];
  for (const s of sent) assert.equal((await post(s)).status, 200);
  return t.server.ctx.db.prepare('SELECT id FROM bounces ORDER BY id').pluck().all() as number[];
}

describe('GET /api/bounces', () => {
  it('answers an empty page with page and per_page 0 (listmonk quirk)', async () => {
    const res = await t.request('GET', '/api/bounces');
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { results: [], search: '', query: '', total: 0, per_page: 0, page: 0 });
  });

  /** A read over the three seeded bounces: the e-mails in order, the total, and per_page/page when given. */
  const read = (name: string, query: string | (() => string), emails: string[], total: number, perPage?: number, page?: number): Scenario => ({
    name, method: 'GET', path: () => `/api/bounces${typeof query === 'function' ? query() : query}`, status: 200, unchanged: true,
    before: seedThree,
    after: ({ body }) => {
      assert.deepEqual(body.data.results.map((r: any) => r.email), emails);
      assert.equal(body.data.total, total);
      if (perPage !== undefined) assert.equal(body.data.per_page, perPage);
      if (page !== undefined) assert.equal(body.data.page, page);
    },
  });
  const [A, B, C] = ['a@x.org', 'b@x.org', 'c@x.org'];
  runScenarios(() => t, [
    read('default order: newest first', '', [C, B, A], 3, 20, 1),
    read('order=asc', '?order=asc', [A, B, C], 3),
    read('order=ASC (any case)', '?order=ASC', [A, B, C], 3),
    read('order_by=email desc', '?order_by=email&order=desc', [C, B, A], 3),
    read('order_by=campaign_name asc (no campaign first)', '?order_by=campaign_name&order=asc', [C, B, A], 3),
    read('order_by=type asc', '?order_by=type&order=asc', [C, A, B], 3),
    read('order_by=source asc', '?order_by=source&order=asc', [A, C, B], 3),
    read('order_by=created_at asc', '?order_by=created_at&order=asc', [A, B, C], 3),
    read('unknown order_by falls back', '?order_by=drop+table', [C, B, A], 3),
    read('campaign_id filter', () => `?campaign_id=${alpha.id}`, [B], 1),
    read('invalid campaign_id is ignored', '?campaign_id=abc', [C, B, A], 3),
    read('source filter', '?source=ses', [B], 1),
    read('type filter', '?type=hard', [A], 1),
    read('type and source together', '?type=complaint&source=api', [C], 1),
    read('no match: page/per_page 0', '?source=none', [], 0, 0, 0),
    read('paging', '?per_page=1&page=2', [B], 3, 1, 2),
    // Past the end, listmonk's total (counted over the page's rows) is 0 too.
    read('a page past the end is all zeros', '?per_page=1&page=9', [], 0, 0, 0),
    read('per_page=all', '?per_page=all', [C, B, A], 3, 0, 1),
  ]);
});

describe('GET/DELETE /api/bounces/{id}', () => {
  it('returns the bounce record', async () => {
    const [first] = await seedThree();
    const res = await t.request('GET', `/api/bounces/${first}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, {
      id: first, type: 'hard', source: 'api', meta: { n: 1 }, created_at: '2025-01-01T10:00:00.000Z',
      email: 'a@x.org', subscriber_uuid: a.uuid, subscriber_id: a.id, subscriber_status: 'enabled',
      campaign: { id: beta.id, name: 'Beta' },
    });
    const none = await t.request('GET', `/api/bounces/${first + 2}`);
    assert.equal(none.body.data.campaign, null);
  });

  const refused = (name: string, method: string, path: string, status: number): Scenario => ({
    name: `${name} → ${status}, nothing deleted`, method, path, status, before: seedThree, after: () => assert.equal(bounceCount(t), 3),
  });
  runScenarios(() => t, [
    refused('GET unknown id', 'GET', '/api/bounces/99999', 404),
    refused('GET invalid id', 'GET', '/api/bounces/x1', 400),
    refused('GET with an unknown type', 'GET', '/api/bounces?type=bogus', 400),
    refused('DELETE unknown id', 'DELETE', '/api/bounces/99999', 404),
    refused('DELETE without ids or all', 'DELETE', '/api/bounces', 400),
    refused('DELETE with all=false', 'DELETE', '/api/bounces?all=false', 400),
    refused('DELETE with a bad id', 'DELETE', '/api/bounces?id=abc', 400),
  ]);

  it('DELETE /api/bounces/{id} removes one', async () => {
    const [first] = await seedThree();
    const res = await t.request('DELETE', `/api/bounces/${first}`);
    assert.deepEqual(res.body, { data: true });
    assert.equal(bounceCount(t), 2);
    assert.equal((await t.request('GET', `/api/bounces/${first}`)).status, 404);
  });

  it('DELETE /api/bounces?id=..&id=.. removes those', async () => {
    const [x, y, z] = await seedThree();
    assert.deepEqual((await t.request('DELETE', `/api/bounces?id=${x}&id=${y}`)).body, { data: true });
    assert.deepEqual(t.server.ctx.db.prepare('SELECT id FROM bounces').pluck().all(), [z]);
  });

  it('DELETE /api/bounces?all=true removes all', async () => {
    await seedThree();
    assert.deepEqual((await t.request('DELETE', '/api/bounces?all=true')).body, { data: true });
    assert.equal(bounceCount(t), 0);
  });
});

describe('PUT /api/bounces/blocklist', () => {
  it('blocklists every bounced subscriber and unsubscribes their lists, no one else', async () => {
    fixtures(t.server.ctx.db).clearBounces();
    const bounced = addSubscriber(t, 'bounced@x.org', { lists: [list] });
    const clean = addSubscriber(t, 'clean@x.org', { lists: [list] });
    assert.equal((await post({ email: 'bounced@x.org', type: 'soft', source: 'api' })).status, 200);
    const res = await t.request('PUT', '/api/bounces/blocklist');
    assert.deepEqual(res.body, { data: true });
    assert.equal(subscriberStatus(t, bounced.id), 'blocklisted');
    assert.deepEqual(subscriptionStatuses(t, bounced.id), ['unsubscribed']);
    assert.equal(subscriberStatus(t, clean.id), 'enabled');
    assert.deepEqual(subscriptionStatuses(t, clean.id), ['confirmed']);
  });
});

describe('bounce permissions: bounces:get reads, bounces:manage changes', () => {
  let first = 0;
  let reader = '';
  let nobody = '';
  before(async () => {
    [first] = await seedThree();
    reader = userWith(t, 'bounce-reader', ['bounces:get']);
    nobody = userWith(t, 'bounce-nobody', ['lists:get_all']);
  });
  const asReader = () => reader;
  runScenarios(() => t, [
    { name: 'a reader lists', auth: asReader, method: 'GET', path: '/api/bounces', status: 200 },
    { name: 'a reader reads one', auth: asReader, method: 'GET', path: () => `/api/bounces/${first}`, status: 200 },
    { name: 'a reader cannot delete one', auth: asReader, method: 'DELETE', path: () => `/api/bounces/${first}`, status: 403 },
    { name: 'a reader cannot delete all', auth: asReader, method: 'DELETE', path: '/api/bounces?all=true', status: 403 },
    { name: 'a reader cannot blocklist', auth: asReader, method: 'PUT', path: '/api/bounces/blocklist', status: 403 },
    { name: 'without bounces:get no list', auth: () => nobody, method: 'GET', path: '/api/bounces', status: 403 },
    { name: 'without credentials no list', auth: null, method: 'GET', path: '/api/bounces', status: 403 },
  ]);
  it('nothing was deleted', () => assert.equal(bounceCount(t), 3));
});

describe('POST /webhooks/bounce', () => {
  const refused = (name: string, send: Pick<Scenario, 'body' | 'raw' | 'headers'>, message: RegExp): Scenario => ({
    name: `refuses ${name} with 400 and records nothing`, method: 'POST', path: '/webhooks/bounce', ...send, status: 400, contains: [message],
    before: () => {
      fixtures(t.server.ctx.db).clearBounces();
    },
    after: () => assert.equal(bounceCount(t), 0),
  });
  runScenarios(() => t, [
    refused('neither email nor subscriber_uuid', { body: { type: 'hard' } }, /"email" or "subscriber_uuid"/),
    refused('malformed subscriber_uuid', { body: { subscriber_uuid: 'nope', type: 'hard' } }, /not a UUID/),
    refused('invalid e-mail', { body: { email: 'not-an-email', type: 'hard' } }, /not a valid e-mail/),
    refused('e-mail with a display name', { body: { email: 'A <a@x.org>', type: 'hard' } }, /not a valid e-mail/),
    refused('e-mail with an empty domain label', { body: { email: 'a@x..org', type: 'hard' } }, /not a valid e-mail/),
    refused('e-mail not a string', { body: { email: 42, type: 'hard' } }, /"email"/),
    refused('missing type', { body: { email: 'a@x.org' } }, /"type" is required/),
    refused('unknown type', { body: { email: 'a@x.org', type: 'bouncy' } }, /"bouncy" is not one of/),
    refused('meta not an object', { body: { email: 'a@x.org', type: 'hard', meta: [1] } }, /"meta"/),
    refused('bad created_at', { body: { email: 'a@x.org', type: 'hard', created_at: 'yesterday' } }, /created_at/),
    refused('invalid JSON', { raw: '{"email": ', headers: { 'content-type': 'application/json' } }, /invalid JSON/),
  ]);

  it('records by subscriber UUID with the campaign, meta and time; unknown subscribers are ignored', async () => {
    fixtures(t.server.ctx.db).clearBounces();
    const res = await post({ subscriber_uuid: c.uuid, campaign_uuid: alpha.uuid, type: 'soft', source: 'my-mta', meta: { code: 421 }, created_at: '2025-02-03T04:05:06+01:00' });
    assert.deepEqual(res.body, { data: true });
    const row = t.server.ctx.db.prepare('SELECT * FROM bounces').get() as any;
    assert.equal(row.subscriber_id, c.id);
    assert.equal(row.campaign_id, alpha.id);
    assert.equal(row.source, 'my-mta');
    assert.equal(row.created_at, '2025-02-03T03:05:06.000Z');
    assert.deepEqual(JSON.parse(row.meta), { code: 421 });
    assert.deepEqual((await post({ email: 'stranger@x.org', type: 'hard' })).body, { data: true });
    assert.equal(bounceCount(t), 1);
  });

  it('records bounces of addresses on a blocklisted domain (the domain rules govern subscribing only)', async () => {
    fixtures(t.server.ctx.db).clearBounces();
    const sub = addSubscriber(t, 'old@blocked.example');
    await withSettings(t, { 'privacy.domain_blocklist': ['blocked.example'] }, async () => {
      assert.equal((await post({ email: ' OLD@blocked.example ', type: 'hard' })).status, 200);
      assert.equal(bounceCount(t, sub.id), 1);
    });
  });

  describe('needs credentials with webhooks:post_bounce', () => {
    let poster = '';
    let reader = '';
    before(() => {
      poster = userWith(t, 'bounce-poster', ['webhooks:post_bounce']);
      reader = userWith(t, 'bounce-reader-2', ['bounces:get']);
    });
    const bounce = { method: 'POST', path: '/webhooks/bounce', body: { email: 'a@x.org', type: 'soft' } };
    runScenarios(() => t, [
      { name: 'none', ...bounce, auth: null, status: 403 },
      { name: 'without the permission', ...bounce, auth: () => reader, status: 403, contains: [/webhooks:post_bounce/] },
      { name: 'with it', ...bounce, auth: () => poster, status: 200 },
    ]);
  });

  it('answers 404 with webhooks off and 503 with bounce processing off, read at each request', async () => {
    fixtures(t.server.ctx.db).clearBounces();
    await withSettings(t, { 'bounce.webhooks_enabled': false }, async () => {
      for (const path of ['/webhooks/bounce', '/webhooks/service/ses']) {
        assert.equal((await t.request('POST', path, { email: 'a@x.org', type: 'hard' })).status, 404, path);
      }
    });
    await withSettings(t, { 'bounce.enabled': false }, async () => {
      for (const path of ['/webhooks/bounce', '/webhooks/service/ses']) {
        const res = await t.request('POST', path, { email: 'a@x.org', type: 'hard' });
        assert.equal(res.status, 503, path);
        assert.match(res.body.message, /disabled/);
      }
    });
    assert.equal(bounceCount(t), 0);
    assert.equal((await post({ email: 'a@x.org', type: 'hard' })).status, 200);
    assert.equal(bounceCount(t), 1);
  });
});

describe('bounce actions', () => {
  const cases: {
    name: string; type: 'soft' | 'hard' | 'complaint'; rule: { count: number; action: string }; sends: number;
    expect: { stored: number; status: string | null; subscriptions: string[] }[];
  }[] = [
    {
      name: 'none: recording stops at the count', type: 'soft', rule: { count: 2, action: 'none' }, sends: 3,
      expect: [
        { stored: 1, status: 'enabled', subscriptions: ['confirmed'] },
        { stored: 2, status: 'enabled', subscriptions: ['confirmed'] },
        { stored: 2, status: 'enabled', subscriptions: ['confirmed'] },
      ],
    },
    {
      name: 'unsubscribe at the 2nd bounce', type: 'soft', rule: { count: 2, action: 'unsubscribe' }, sends: 3,
      expect: [
        { stored: 1, status: 'enabled', subscriptions: ['confirmed'] },
        { stored: 2, status: 'enabled', subscriptions: ['unsubscribed'] },
        { stored: 2, status: 'enabled', subscriptions: ['unsubscribed'] },
      ],
    },
    {
      name: 'blocklist at the 1st hard bounce (subscriptions untouched, as listmonk)', type: 'hard', rule: { count: 1, action: 'blocklist' }, sends: 2,
      expect: [
        { stored: 1, status: 'blocklisted', subscriptions: ['confirmed'] },
        { stored: 1, status: 'blocklisted', subscriptions: ['confirmed'] },
      ],
    },
    {
      name: 'delete at the 2nd complaint', type: 'complaint', rule: { count: 2, action: 'delete' }, sends: 2,
      expect: [
        { stored: 1, status: 'enabled', subscriptions: ['confirmed'] },
        { stored: 0, status: null, subscriptions: [] },
      ],
    },
  ];
  for (const s of cases) {
    it(s.name, () => withSettings(t, { 'bounce.actions': { ...HIGH, [s.type]: s.rule } }, async () => {
      const email = `action-${s.type}-${s.rule.action}@x.org`;
      const sub = addSubscriber(t, email, { lists: [list] });
      for (let i = 0; i < s.sends; i++) {
        assert.equal((await post({ email, type: s.type, source: 'api' })).status, 200);
        const want = s.expect[i];
        assert.equal(bounceCount(t, sub.id), want.stored, `bounces after #${i + 1}`);
        assert.equal(subscriberStatus(t, sub.id) ?? null, want.status, `status after #${i + 1}`);
        assert.deepEqual(subscriptionStatuses(t, sub.id), want.subscriptions, `subscriptions after #${i + 1}`);
      }
    }));
  }

  it('counts each type on its own', () => withSettings(t, { 'bounce.actions': { ...HIGH, hard: { count: 2, action: 'blocklist' } } }, async () => {
    const sub = addSubscriber(t, 'mixed@x.org');
    for (const type of ['soft', 'soft', 'complaint', 'hard']) await post({ email: 'mixed@x.org', type });
    assert.equal(subscriberStatus(t, sub.id), 'enabled');
    await post({ email: 'mixed@x.org', type: 'hard' });
    assert.equal(subscriberStatus(t, sub.id), 'blocklisted');
  }));
});
