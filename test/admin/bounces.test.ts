// The admin's bounces page, rendered by the real server: the table with its filter links,
// filters, sort and paging, the 307/403 guards, controls only for the roles that may use them,
// and hostile e-mails, campaign names, sources and meta shown as text.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';
import { addCampaign, addSubscriber } from '../bounces/seed.ts';
import type { Seeded } from '../helpers/fixtures.ts';

const PAGE = '/admin/subscribers/bounces';
const COUNT_ALL = { soft: { count: 100, action: 'none' }, hard: { count: 100, action: 'none' }, complaint: { count: 100, action: 'none' } };

async function postBounce(t: TestServer, body: Record<string, unknown>): Promise<void> {
  const res = await t.request('POST', '/webhooks/bounce', body);
  assert.equal(res.status, 200, res.text);
}

/** The e-mails of the table's rows, in order. */
function rowEmails(html: string): string[] {
  return [...html.matchAll(/<td><a class="address" href="\/admin\/subscribers\/\d+">([^<]*)<\/a>/g)].map((m) => m[1]);
}

describe('admin bounces page', () => {
  const server = useFreshServer();
  let campaign: Seeded;
  let ann: Seeded;

  before(async () => {
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { 'bounce.enabled': true, 'bounce.webhooks_enabled': true, 'bounce.actions': COUNT_ALL })).status, 200);
    ann = addSubscriber(t, 'ann@example.com');
    addSubscriber(t, 'bob@example.com');
    addSubscriber(t, 'cy@example.com');
    campaign = addCampaign(t, 'Spring news');
    await postBounce(t, { email: 'ann@example.com', type: 'hard', source: 'ses', campaign_uuid: campaign.uuid, meta: { code: 550 }, created_at: '2026-01-01T10:00:00Z' });
    await postBounce(t, { email: 'bob@example.com', type: 'soft', source: 'api', created_at: '2026-01-02T10:00:00Z' });
    await postBounce(t, { email: 'cy@example.com', type: 'complaint', source: 'api', created_at: '2026-01-03T10:00:00Z' });
  });

  it('refuses a visitor without a session and a role without bounces:get', async () => {
    const t = server();
    const anon = await getPage(t, null, `${PAGE}?type=hard`);
    assert.equal(anon.status, 307);
    assert.equal(anon.headers.get('location'), `/admin/login?next=${encodeURIComponent(`${PAGE}?type=hard`)}`);
    const other = await userWithRole(t, ['subscribers:import']);
    const refused = await getPage(t, await adminSession(t, other.username, other.password), PAGE);
    assert.equal(refused.status, 403);
    assert.match(refused.body, /permission denied: bounces:get/);
    assert.ok(!refused.body.includes('ann@example.com'));
  });

  it('lists every bounce for an admin, newest first, each value a filter link and the meta unfolding', async () => {
    const t = server();
    const page = await getPage(t, await adminSession(t), PAGE);
    assert.equal(page.status, 200);
    assert.deepEqual(rowEmails(page.body), ['cy@example.com', 'bob@example.com', 'ann@example.com']);
    assert.ok(page.body.includes(`href="/admin/subscribers/${ann.id}"`));
    assert.ok(page.body.includes(`href="${PAGE}?campaign_id=${campaign.id}"`), 'campaign filter link');
    assert.ok(page.body.includes(`href="${PAGE}?source=ses"`), 'source filter link');
    assert.ok(page.body.includes(`href="${PAGE}?type=complaint"`), 'type filter link');
    assert.match(page.body, /<details class="meta"><summary>Meta<\/summary><pre>\{\n {2}&quot;code&quot;: 550\n\}<\/pre><\/details>/);
    assert.match(page.body, /<h1>Bounces<span class="count"> \(3\)<\/span><\/h1>/);
    // The admin may do everything: select, delete one, bulk actions, delete all, blocklist.
    for (const control of ['x-model="selected"', 'x-on:click="deleteOne"', 'x-on:click="deleteSelected"', 'x-on:click="blocklistSelected"', 'x-on:click="deleteAll"', 'x-on:click="blocklistAll"']) {
      assert.ok(page.body.includes(control), control);
    }
  });

  it('filters by type, source and campaign, sorts and pages through query parameters', async () => {
    const t = server();
    const session = await adminSession(t);
    const get = async (q: string) => rowEmails((await getPage(t, session, `${PAGE}${q}`)).body);
    assert.deepEqual(await get('?type=hard'), ['ann@example.com']);
    assert.deepEqual(await get('?source=api'), ['cy@example.com', 'bob@example.com']);
    assert.deepEqual(await get(`?campaign_id=${campaign.id}`), ['ann@example.com']);
    assert.deepEqual(await get('?source=api&type=soft'), ['bob@example.com']);
    assert.deepEqual(await get('?order_by=email&order=asc'), ['ann@example.com', 'bob@example.com', 'cy@example.com']);
    assert.deepEqual(await get('?type=nonsense'), ['cy@example.com', 'bob@example.com', 'ann@example.com']);
    const filtered = await getPage(t, session, `${PAGE}?campaign_id=${campaign.id}&type=hard`);
    assert.match(filtered.body, /Campaign: <strong>Spring news<\/strong>/);
    assert.ok(filtered.body.includes(`href="${PAGE}?type=hard"`), 'a link removing the campaign filter');
    assert.ok(!filtered.body.includes('x-on:click="deleteAll"'), 'no "delete all" while filtered: it would delete more than is shown');
    const paged = await getPage(t, session, `${PAGE}?per_page=1&page=2`);
    assert.deepEqual(rowEmails(paged.body), ['bob@example.com']);
    assert.ok(paged.body.includes('aria-current="page">2<'));
    assert.ok(paged.body.includes('rel="next"'));
  });

  it('shows a reader no controls, and blocklisting selected bounces only with subscribers:manage', async () => {
    const t = server();
    const reader = await userWithRole(t, ['bounces:get']);
    const read = await getPage(t, await adminSession(t, reader.username, reader.password), PAGE);
    assert.equal(read.status, 200);
    assert.deepEqual(rowEmails(read.body), ['cy@example.com', 'bob@example.com', 'ann@example.com']);
    for (const control of ['type="checkbox"', 'deleteOne', 'deleteSelected', 'deleteAll', 'blocklist']) assert.ok(!read.body.includes(control), control);
    const manager = await userWithRole(t, ['bounces:get', 'bounces:manage']);
    const managed = await getPage(t, await adminSession(t, manager.username, manager.password), PAGE);
    for (const control of ['deleteOne', 'deleteSelected', 'deleteAll', 'blocklistAll']) assert.ok(managed.body.includes(`x-on:click="${control}"`), control);
    assert.ok(!managed.body.includes('x-on:click="blocklistSelected"'), 'blocklisting subscribers by id needs subscribers:manage');
  });

  it('shows hostile e-mails, campaign names, sources and meta as text', async () => {
    const t = server();
    const hostile = addSubscriber(t, `${HOSTILE}@example.com`);
    const evil = addCampaign(t, HOSTILE);
    await postBounce(t, { subscriber_uuid: hostile.uuid, type: 'hard', source: HOSTILE.slice(0, 60), campaign_uuid: evil.uuid, meta: { [HOSTILE]: HOSTILE } });
    const session = await adminSession(t);
    for (const q of ['', `?source=${encodeURIComponent(HOSTILE.slice(0, 60))}`, `?campaign_id=${evil.id}`]) {
      const page = await getPage(t, session, `${PAGE}${q}`);
      assert.equal(page.status, 200);
      assertEscaped(page.body);
      assert.ok(page.body.includes('&lt;img src=x'), `the hostile values are on the page (${q})`);
    }
  });
});
