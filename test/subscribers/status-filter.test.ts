// The subscription status filter without a list: "has a subscription in that status on any
// list" (the caller may see), in GET /api/subscribers, its export, the by-query changes and the
// admin's subscribers page. listmonk ignores the status unless a list is chosen.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, apiAs, getPage, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

describe('the subscription status filter without a list', () => {
  const server = useFreshServer();
  let t: TestServer;
  const L: Record<string, number> = {};

  before(async () => {
    t = server();
    await t.request('PUT', '/api/settings', { 'app.send_optin_confirmation': false });
    L.news = (await t.request('POST', '/api/lists', { name: 'News', type: 'public', optin: 'single' })).body.data.id;
    L.club = (await t.request('POST', '/api/lists', { name: 'Club', type: 'private', optin: 'double' })).body.data.id;
    const add = async (email: string, lists: number[], preconfirm: boolean) => {
      const res = await t.request('POST', '/api/subscribers', { email, lists, preconfirm_subscriptions: preconfirm });
      assert.equal(res.status, 200, res.text);
      return res.body.data.id as number;
    };
    await add('confirmed@example.com', [L.news], true);
    const gone = await add('gone@example.com', [L.news], true);
    assert.equal((await t.request('PUT', '/api/subscribers/lists', { ids: [gone], action: 'unsubscribe', target_list_ids: [L.news] })).status, 200);
    const both = await add('both@example.com', [L.news], true);
    assert.equal((await t.request('PUT', '/api/subscribers/lists', { ids: [both], action: 'add', target_list_ids: [L.club], status: 'unconfirmed' })).status, 200);
    await add('nolist@example.com', [], false);
  });

  const emails = async (query: string, creds?: string) => {
    const res = await t.request('GET', `/api/subscribers?per_page=all&${query}`, undefined, creds ? { auth: creds } : {});
    assert.equal(res.status, 200, res.text);
    const found = res.body.data.results.map((s: { email: string }) => s.email).sort();
    assert.equal(res.body.data.total, found.length);
    return found;
  };

  it('finds the subscribers with a subscription in that status on any list', async () => {
    assert.deepEqual(await emails('subscription_status=unsubscribed'), ['gone@example.com']);
    assert.deepEqual(await emails('subscription_status=unconfirmed'), ['both@example.com']);
    assert.deepEqual(await emails('subscription_status=confirmed'), ['both@example.com', 'confirmed@example.com']);
    // With a list, as before: the status of the subscription to that list.
    assert.deepEqual(await emails(`list_id=${L.club}&subscription_status=confirmed`), []);
    assert.deepEqual(await emails(`list_id=${L.news}&subscription_status=confirmed`), ['both@example.com', 'confirmed@example.com']);
    assert.equal((await t.request('GET', '/api/subscribers?subscription_status=maybe')).status, 400);
  });

  it('keeps a list-restricted role to the lists it may see', async () => {
    const role = await userWithRole(t, ['subscribers:get'], [{ id: L.club, permissions: ['list:get'] }]);
    const session = await adminSession(t, role.username, role.password);
    const res = await apiAs(t, session, 'GET', '/api/subscribers?subscription_status=confirmed');
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.results, [], 'confirmed only on News, which the role cannot see');
    const unconfirmed = await apiAs(t, session, 'GET', '/api/subscribers?subscription_status=unconfirmed');
    assert.deepEqual(unconfirmed.body.data.results.map((s: { email: string }) => s.email), ['both@example.com']);
  });

  it('exports only them', async () => {
    const res = await t.request('GET', '/api/subscribers/export?subscription_status=unsubscribed');
    assert.equal(res.status, 200);
    assert.match(res.text, /gone@example\.com/);
    assert.doesNotMatch(res.text, /confirmed@example\.com|both@example\.com|nolist@example\.com/);
  });

  it('shows only them on the admin\'s subscribers page', async () => {
    const admin = await adminSession(t);
    const page = await getPage(t, admin, '/admin/subscribers?subscription_status=unsubscribed');
    assert.equal(page.status, 200);
    assert.match(page.body, /<h1>Subscribers<span class="count"> \(1\)<\/span><\/h1>/);
    assert.ok(page.body.includes('gone@example.com'));
    assert.ok(!page.body.includes('confirmed@example.com') && !page.body.includes('nolist@example.com'));
  });

  it('changes by query only them: "all" with a status deletes the subscribers in that status, not everyone', async () => {
    const res = await t.request('POST', '/api/subscribers/query/delete', { all: true, subscription_status: 'unsubscribed' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(await emails(''), ['both@example.com', 'confirmed@example.com', 'nolist@example.com']);
  });
});
