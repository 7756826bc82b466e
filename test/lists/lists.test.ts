import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

let t: TestServer;
const ids: Record<string, number> = {};

before(async () => {
  t = await startTestServer();
  const mk = async (body: Record<string, unknown>) => (await t.request('POST', '/api/lists', body)).body.data;
  ids.news = (await mk({ name: 'Weekly news', type: 'public', optin: 'single', tags: ['weekly', 'news letter'] })).id;
  ids.vip = (await mk({ name: 'VIP customers', type: 'private', optin: 'double', tags: ['weekly'] })).id;
  ids.old = (await mk({ name: 'Old news', type: 'public', optin: 'single', status: 'archived' })).id;
  await t.request('POST', '/api/subscribers', { email: 'a@example.com', name: 'A', lists: [ids.news, ids.vip], preconfirm_subscriptions: true });
  await t.request('POST', '/api/subscribers', { email: 'b@example.com', name: 'B', lists: [ids.news] });
});
after(() => t.stop());

describe('lists API', () => {
  const post = (name: string, body: Record<string, unknown>, status: number): Scenario => ({ name, method: 'POST', path: '/api/lists', body, status });
  runScenarios(() => t, [
    post('create needs a name', { type: 'public', optin: 'single' }, 400),
    post('create refuses a bad type', { name: 'x', type: 'temporary', optin: 'single' }, 400),
    post('create refuses a bad optin', { name: 'x', type: 'public', optin: 'triple' }, 400),
    post('create refuses a bad status', { name: 'x', type: 'public', optin: 'single', status: 'gone' }, 400),
    post('create refuses a single tag as a string (an array is expected)', { name: 'x', type: 'public', optin: 'single', tags: 'a' }, 400),
    { name: 'get unknown is 404', method: 'GET', path: '/api/lists/9999', status: 404 },
    { name: 'get bad id is 400', method: 'GET', path: '/api/lists/abc', status: 400 },
    { name: 'put unknown is 404', method: 'PUT', path: '/api/lists/9999', body: { name: 'x' }, status: 404 },
    { name: 'put bad enum is 400', method: 'PUT', path: () => `/api/lists/${ids.news}`, body: { type: 'nope' }, status: 400 },
    { name: 'delete unknown is 404', method: 'DELETE', path: '/api/lists/9999', status: 404 },
    { name: 'bulk delete needs ids or query', method: 'DELETE', path: '/api/lists', status: 400 },
    { name: 'bad status filter is 400', method: 'GET', path: '/api/lists?status=nope', status: 400 },
    {
      name: 'get one has counts', method: 'GET', path: () => `/api/lists/${ids.news}`, status: 200,
      after: ({ body: b }) => {
        assert.equal(b.data.subscriber_count, 2);
        assert.deepEqual(b.data.subscriber_statuses, { confirmed: 1, unconfirmed: 1 });
        assert.deepEqual(b.data.tags, ['weekly', 'news-letter']);
        assert.equal(b.data.subscription_created_at, null);
      },
    },
    {
      name: 'search by name words', method: 'GET', path: '/api/lists?query=news', status: 200,
      after: ({ body: b }) => assert.deepEqual(b.data.results.map((l: any) => l.name).sort(), ['Old news', 'Weekly news']),
    },
    {
      name: 'status filter hides archived', method: 'GET', path: '/api/lists?status=active&order_by=name&order=asc', status: 200,
      after: ({ body: b }) => assert.ok(b.data.results.every((l: any) => l.status === 'active') && !('query' in b.data)),
    },
    {
      name: 'tag filter needs all tags', method: 'GET', path: '/api/lists?tag=weekly&tag=news-letter', status: 200,
      after: ({ body: b }) => assert.deepEqual(b.data.results.map((l: any) => l.id), [ids.news]),
    },
    {
      name: 'minimal omits counts', method: 'GET', path: '/api/lists?minimal=true&per_page=1', status: 200,
      after: ({ body: b }) => {
        assert.ok(b.data.results.length >= 3);
        assert.equal(b.data.per_page, b.data.total);
        assert.ok(b.data.results.every((l: any) => !('subscriber_count' in l) && l.subscriber_statuses === null), 'statuses are null, as listmonk');
        assert.deepEqual(b.data.results.map((l: any) => l.id), [...b.data.results.map((l: any) => l.id)].sort((x: number, y: number) => x - y));
      },
    },
    {
      name: 'order by name asc, paged', method: 'GET', path: '/api/lists?order_by=name&order=ASC&per_page=2&page=1', status: 200,
      after: ({ body: b }) => {
        assert.equal(b.data.per_page, 2);
        assert.equal(b.data.results.length, 2);
        assert.ok(b.data.results[0].name <= b.data.results[1].name);
      },
    },
  ]);

  it('updates keep absent fields and rename carries into campaigns', async () => {
    const res = await t.request('PUT', `/api/lists/${ids.vip}`, { name: 'VIP', description: 'best' });
    assert.equal(res.status, 200);
    assert.equal(res.body.data.name, 'VIP');
    assert.equal(res.body.data.type, 'private');
    assert.equal(res.body.data.optin, 'double');
    assert.deepEqual(res.body.data.tags, ['weekly']);
  });

  it('bulk delete by query deletes the matches only', async () => {
    const a = (await t.request('POST', '/api/lists', { name: 'Temp one', type: 'private', optin: 'single' })).body.data.id;
    const b = (await t.request('POST', '/api/lists', { name: 'Temp two', type: 'private', optin: 'single' })).body.data.id;
    assert.equal((await t.request('DELETE', '/api/lists?query=temp')).status, 200);
    assert.equal((await t.request('GET', `/api/lists/${a}`)).status, 404);
    assert.equal((await t.request('GET', `/api/lists/${b}`)).status, 404);
    assert.equal((await t.request('GET', `/api/lists/${ids.news}`)).status, 200);
  });

  it('deleting a list removes its subscriptions and counts', async () => {
    const l = (await t.request('POST', '/api/lists', { name: 'Short-lived', type: 'public', optin: 'single' })).body.data.id;
    const s = (await t.request('POST', '/api/subscribers', { email: 'short@example.com', name: 'S', lists: [l] })).body.data.id;
    assert.equal((await t.request('DELETE', `/api/lists?id=${l}`)).status, 200);
    const sub = (await t.request('GET', `/api/subscribers/${s}`)).body.data;
    assert.deepEqual(sub.lists, []);
  });
});

describe('list visibility for a restricted user', () => {
  let restricted: string;
  let listRole: number;
  before(() => {
    const f = fixtures(t.server.ctx.db);
    listRole = f.listRole([ids.news], undefined, 'News only');
    restricted = f.apiUser('editor', { roleId: f.role(['subscribers:get', 'subscribers:manage'], 'Editors'), listRoleId: listRole });
  });

  runScenarios(() => t, [
    {
      name: 'sees only its lists', method: 'GET', path: '/api/lists?per_page=all', auth: () => restricted, status: 200,
      after: ({ body }) => assert.deepEqual(body.data.results.map((l: any) => l.id), [ids.news]),
    },
    { name: 'cannot read a list it has no grant for', method: 'GET', path: () => `/api/lists/${ids.vip}`, auth: () => restricted, status: 403 },
    { name: 'cannot create lists', method: 'POST', path: '/api/lists', body: { name: 'x', type: 'public', optin: 'single' }, auth: () => restricted, status: 403 },
  ]);

  it('deleting by id ignores the lists it may not manage (spec)', async () => {
    const scratch = (await t.request('POST', '/api/lists', { name: 'Scratch', type: 'private', optin: 'single' })).body.data.id;
    fixtures(t.server.ctx.db).grant(listRole, [scratch]);
    assert.equal((await t.request('DELETE', `/api/lists?id=${scratch}&id=${ids.vip}`, undefined, { auth: restricted })).status, 200);
    assert.equal((await t.request('GET', `/api/lists/${scratch}`)).status, 404);
    assert.equal((await t.request('GET', `/api/lists/${ids.vip}`)).status, 200);
  });

  it('bulk delete by query skips unmanaged lists', async () => {
    assert.equal((await t.request('DELETE', '/api/lists?query=VIP', undefined, { auth: restricted })).status, 200);
    assert.equal((await t.request('GET', `/api/lists/${ids.vip}`)).status, 200);
  });

  it('sees only subscribers of its lists, with other lists masked', async () => {
    const res = await t.request('GET', '/api/subscribers?per_page=50', undefined, { auth: restricted });
    assert.equal(res.status, 200);
    const emails = res.body.data.results.map((s: any) => s.email).sort();
    assert.deepEqual(emails, ['a@example.com', 'b@example.com']);
    const a = res.body.data.results.find((s: any) => s.email === 'a@example.com');
    const vip = a.lists.find((l: any) => l.id === ids.vip);
    assert.equal(vip.name, '*Unknown');
    assert.equal(vip.restricted, true);
    assert.equal(res.body.data.total, 2);
  });
});
