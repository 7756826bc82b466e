import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCampaign, addList, addSubscriber, bounceCount, subscriberStatus, subscriptionStatuses, userWith, type Seeded } from './seed.ts';

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
  t.server.ctx.db.prepare('DELETE FROM bounces').run();
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

  const cases: { name: string; query: string; emails: string[]; total: number; perPage?: number; page?: number }[] = [
    { name: 'default order: newest first', query: '', emails: ['c@x.org', 'b@x.org', 'a@x.org'], total: 3, perPage: 20, page: 1 },
    { name: 'order=asc', query: '?order=asc', emails: ['a@x.org', 'b@x.org', 'c@x.org'], total: 3 },
    { name: 'order=ASC (any case)', query: '?order=ASC', emails: ['a@x.org', 'b@x.org', 'c@x.org'], total: 3 },
    { name: 'order_by=email desc', query: '?order_by=email&order=desc', emails: ['c@x.org', 'b@x.org', 'a@x.org'], total: 3 },
    { name: 'order_by=campaign_name asc (no campaign first)', query: '?order_by=campaign_name&order=asc', emails: ['c@x.org', 'b@x.org', 'a@x.org'], total: 3 },
    { name: 'order_by=type asc', query: '?order_by=type&order=asc', emails: ['c@x.org', 'a@x.org', 'b@x.org'], total: 3 },
    { name: 'order_by=source asc', query: '?order_by=source&order=asc', emails: ['a@x.org', 'c@x.org', 'b@x.org'], total: 3 },
    { name: 'order_by=created_at asc', query: '?order_by=created_at&order=asc', emails: ['a@x.org', 'b@x.org', 'c@x.org'], total: 3 },
    { name: 'unknown order_by falls back', query: '?order_by=drop+table', emails: ['c@x.org', 'b@x.org', 'a@x.org'], total: 3 },
    { name: 'campaign_id filter', query: `?campaign_id=CAMPAIGN`, emails: ['b@x.org'], total: 1 },
    { name: 'invalid campaign_id is ignored', query: '?campaign_id=abc', emails: ['c@x.org', 'b@x.org', 'a@x.org'], total: 3 },
    { name: 'source filter', query: '?source=ses', emails: ['b@x.org'], total: 1 },
    { name: 'no match: page/per_page 0', query: '?source=none', emails: [], total: 0, perPage: 0, page: 0 },
    { name: 'paging', query: '?per_page=1&page=2', emails: ['b@x.org'], total: 3, perPage: 1, page: 2 },
    // Past the end, listmonk's total (counted over the page's rows) is 0 too.
    { name: 'a page past the end is all zeros', query: '?per_page=1&page=9', emails: [], total: 0, perPage: 0, page: 0 },
    { name: 'per_page=all', query: '?per_page=all', emails: ['c@x.org', 'b@x.org', 'a@x.org'], total: 3, perPage: 0, page: 1 },
  ];
  for (const s of cases) {
    it(s.name, async () => {
      await seedThree();
      const res = await t.request('GET', `/api/bounces${s.query.replace('CAMPAIGN', String(alpha.id))}`);
      assert.equal(res.status, 200);
      assert.deepEqual(res.body.data.results.map((r: any) => r.email), s.emails);
      assert.equal(res.body.data.total, s.total);
      if (s.perPage !== undefined) assert.equal(res.body.data.per_page, s.perPage);
      if (s.page !== undefined) assert.equal(res.body.data.page, s.page);
    });
  }
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

  const errors = [
    { name: 'GET unknown id', method: 'GET', path: '/api/bounces/99999', status: 404 },
    { name: 'GET invalid id', method: 'GET', path: '/api/bounces/x1', status: 400 },
    { name: 'DELETE unknown id', method: 'DELETE', path: '/api/bounces/99999', status: 404 },
    { name: 'DELETE without ids or all', method: 'DELETE', path: '/api/bounces', status: 400 },
    { name: 'DELETE with all=false', method: 'DELETE', path: '/api/bounces?all=false', status: 400 },
    { name: 'DELETE with a bad id', method: 'DELETE', path: '/api/bounces?id=abc', status: 400 },
  ];
  for (const e of errors) {
    it(`${e.name} → ${e.status}, nothing deleted`, async () => {
      await seedThree();
      const res = await t.request(e.method, e.path);
      assert.equal(res.status, e.status);
      assert.equal(typeof res.body.message, 'string');
      assert.equal(bounceCount(t), 3);
    });
  }

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
    t.server.ctx.db.prepare('DELETE FROM bounces').run();
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

describe('bounce permissions', () => {
  it('bounces:get reads, bounces:manage changes', async () => {
    const [first] = await seedThree();
    const reader = userWith(t, 'bounce-reader', ['bounces:get']);
    const nobody = userWith(t, 'bounce-nobody', ['lists:get_all']);
    const table = [
      { auth: reader, method: 'GET', path: '/api/bounces', status: 200 },
      { auth: reader, method: 'GET', path: `/api/bounces/${first}`, status: 200 },
      { auth: reader, method: 'DELETE', path: `/api/bounces/${first}`, status: 403 },
      { auth: reader, method: 'DELETE', path: '/api/bounces?all=true', status: 403 },
      { auth: reader, method: 'PUT', path: '/api/bounces/blocklist', status: 403 },
      { auth: nobody, method: 'GET', path: '/api/bounces', status: 403 },
      { auth: null, method: 'GET', path: '/api/bounces', status: 403 },
    ];
    for (const s of table) {
      const res = await t.request(s.method, s.path, undefined, { auth: s.auth });
      assert.equal(res.status, s.status, `${s.method} ${s.path}`);
    }
    assert.equal(bounceCount(t), 3);
  });
});

describe('POST /webhooks/bounce', () => {
  const bad: { name: string; body?: unknown; raw?: string; message: RegExp }[] = [
    { name: 'neither email nor subscriber_uuid', body: { type: 'hard' }, message: /"email" or "subscriber_uuid"/ },
    { name: 'malformed subscriber_uuid', body: { subscriber_uuid: 'nope', type: 'hard' }, message: /not a UUID/ },
    { name: 'invalid e-mail', body: { email: 'not-an-email', type: 'hard' }, message: /not a valid e-mail/ },
    { name: 'e-mail with a display name', body: { email: 'A <a@x.org>', type: 'hard' }, message: /not a valid e-mail/ },
    { name: 'e-mail with an empty domain label', body: { email: 'a@x..org', type: 'hard' }, message: /not a valid e-mail/ },
    { name: 'e-mail not a string', body: { email: 42, type: 'hard' }, message: /"email"/ },
    { name: 'missing type', body: { email: 'a@x.org' }, message: /"type" is required/ },
    { name: 'unknown type', body: { email: 'a@x.org', type: 'bouncy' }, message: /"bouncy" is not one of/ },
    { name: 'meta not an object', body: { email: 'a@x.org', type: 'hard', meta: [1] }, message: /"meta"/ },
    { name: 'bad created_at', body: { email: 'a@x.org', type: 'hard', created_at: 'yesterday' }, message: /created_at/ },
    { name: 'invalid JSON', raw: '{"email": ', message: /invalid JSON/ },
  ];
  for (const s of bad) {
    it(`refuses ${s.name} with 400 and records nothing`, async () => {
      t.server.ctx.db.prepare('DELETE FROM bounces').run();
      const res = s.raw !== undefined
        ? await t.request('POST', '/webhooks/bounce', undefined, { raw: s.raw, headers: { 'content-type': 'application/json' } })
        : await post(s.body);
      assert.equal(res.status, 400);
      assert.match(res.body.message, s.message);
      assert.equal(bounceCount(t), 0);
    });
  }

  it('records by subscriber UUID with the campaign, meta and time; unknown subscribers are ignored', async () => {
    t.server.ctx.db.prepare('DELETE FROM bounces').run();
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
    t.server.ctx.db.prepare('DELETE FROM bounces').run();
    const sub = addSubscriber(t, 'old@blocked.example');
    await setSettings({ 'privacy.domain_blocklist': ['blocked.example'] });
    try {
      assert.equal((await post({ email: ' OLD@blocked.example ', type: 'hard' })).status, 200);
      assert.equal(bounceCount(t, sub.id), 1);
    } finally {
      await setSettings({ 'privacy.domain_blocklist': [] });
    }
  });

  it('needs credentials with webhooks:post_bounce', async () => {
    const poster = userWith(t, 'bounce-poster', ['webhooks:post_bounce']);
    const reader = userWith(t, 'bounce-reader-2', ['bounces:get']);
    assert.equal((await post({ email: 'a@x.org', type: 'soft' }, null)).status, 403);
    const denied = await post({ email: 'a@x.org', type: 'soft' }, reader);
    assert.equal(denied.status, 403);
    assert.match(denied.body.message, /webhooks:post_bounce/);
    assert.equal((await post({ email: 'a@x.org', type: 'soft' }, poster)).status, 200);
  });

  it('answers 404 with webhooks off and 503 with bounce processing off, read at each request', async () => {
    t.server.ctx.db.prepare('DELETE FROM bounces').run();
    await setSettings({ 'bounce.webhooks_enabled': false });
    for (const path of ['/webhooks/bounce', '/webhooks/service/ses']) {
      assert.equal((await t.request('POST', path, { email: 'a@x.org', type: 'hard' })).status, 404, path);
    }
    await setSettings({ 'bounce.webhooks_enabled': true, 'bounce.enabled': false });
    for (const path of ['/webhooks/bounce', '/webhooks/service/ses']) {
      const res = await t.request('POST', path, { email: 'a@x.org', type: 'hard' });
      assert.equal(res.status, 503, path);
      assert.match(res.body.message, /disabled/);
    }
    assert.equal(bounceCount(t), 0);
    await setSettings({ 'bounce.enabled': true });
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
    it(s.name, async () => {
      await setSettings({ 'bounce.actions': { ...HIGH, [s.type]: s.rule } });
      const email = `action-${s.type}-${s.rule.action}@x.org`;
      const sub = addSubscriber(t, email, { lists: [list] });
      for (let i = 0; i < s.sends; i++) {
        assert.equal((await post({ email, type: s.type, source: 'api' })).status, 200);
        const want = s.expect[i];
        assert.equal(bounceCount(t, sub.id), want.stored, `bounces after #${i + 1}`);
        assert.equal(subscriberStatus(t, sub.id) ?? null, want.status, `status after #${i + 1}`);
        assert.deepEqual(subscriptionStatuses(t, sub.id), want.subscriptions, `subscriptions after #${i + 1}`);
      }
    });
  }

  it('counts each type on its own', async () => {
    await setSettings({ 'bounce.actions': { ...HIGH, hard: { count: 2, action: 'blocklist' } } });
    const sub = addSubscriber(t, 'mixed@x.org');
    for (const type of ['soft', 'soft', 'complaint', 'hard']) await post({ email: 'mixed@x.org', type });
    assert.equal(subscriberStatus(t, sub.id), 'enabled');
    await post({ email: 'mixed@x.org', type: 'hard' });
    assert.equal(subscriberStatus(t, sub.id), 'blocklisted');
  });
});
