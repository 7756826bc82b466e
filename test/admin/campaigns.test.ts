// The admin's campaign pages, rendered by the real server: the table with its state-dependent
// actions, a campaign's page (editable or read-only), roles, and hostile values as text.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

describe('admin campaign pages', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  let listId: number;
  const ids: Record<string, number> = {};

  before(async () => {
    t = server();
    admin = await adminSession(t);
    listId = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data.id;
    for (const [key, body] of Object.entries({
      draft: { name: 'October issue', subject: 'News of October', lists: [listId], content_type: 'html', body: '<p>Hi</p>', tags: ['monthly'] },
      scheduled: { name: 'Later issue', subject: 'Later', lists: [listId], send_at: new Date(Date.now() + 86_400_000).toISOString() },
      hostile: { name: HOSTILE, subject: HOSTILE, lists: [listId], tags: [HOSTILE], body: HOSTILE },
    })) {
      const res = await t.request('POST', '/api/campaigns', body);
      assert.equal(res.status, 200, res.text);
      ids[key] = res.body.data.id;
    }
    assert.equal((await t.request('PUT', `/api/campaigns/${ids.scheduled}/status`, { status: 'scheduled' })).status, 200);
  });

  it('lists campaigns with the actions their state allows', async () => {
    const res = await getPage(t, admin, '/admin/campaigns');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h1>Campaigns<span class="count"> \(3\)<\/span><\/h1>/);
    const row = (id: number) => new RegExp(`<tr data-campaign="${id}">(.*?)</tr>`, 's').exec(res.body)![1];
    assert.match(row(ids.draft), /data-status="running"/);
    assert.match(row(ids.scheduled), /data-status="draft"/);
    assert.doesNotMatch(row(ids.scheduled), /data-status="running"/);
    assert.ok(row(ids.draft).includes(`href="/admin/lists/${listId}"`));
    assert.ok(res.body.includes('href="/admin/campaigns/new"'));
    const filtered = await getPage(t, admin, '/admin/campaigns?status=scheduled');
    assert.match(filtered.body, /\(1\)<\/span>/);
    const found = await getPage(t, admin, '/admin/campaigns?query=october');
    assert.ok(found.body.includes('October issue') && !found.body.includes('Later issue'));
    assert.equal((await getPage(t, admin, '/admin/campaigns?status=nope&order_by=evil&page=x')).status, 200);
  });

  it('shows a draft as an editable form, and a new-campaign form with the list chosen', async () => {
    const res = await getPage(t, admin, `/admin/campaigns/${ids.draft}`);
    assert.equal(res.status, 200);
    assert.match(res.body, /data-method="PUT" data-action="\/api\/campaigns\/\d+"/);
    assert.match(res.body, /<textarea id="c-body" name="body"[^>]*>&lt;p&gt;Hi&lt;\/p&gt;<\/textarea>/);
    assert.match(res.body, /Save changes/);
    const fresh = await getPage(t, admin, `/admin/campaigns/new?list_id=${listId}`);
    assert.match(fresh.body, new RegExp(`<option value="${listId}" selected="">Readers</option>`));
    assert.equal((await getPage(t, admin, '/admin/campaigns/99999')).status, 404);
  });

  it('escapes hostile names, subjects, tags and bodies on every campaign page', async () => {
    for (const path of ['/admin/campaigns', `/admin/campaigns/${ids.hostile}`]) {
      const res = await getPage(t, admin, path);
      assert.equal(res.status, 200, path);
      assertEscaped(res.body);
    }
  });

  it('hides every change from a read-only role, and refuses roles without campaign access', async () => {
    const reader = await userWithRole(t, ['campaigns:get_all']);
    const session = await adminSession(t, reader.username, reader.password);
    const list = await getPage(t, session, '/admin/campaigns');
    assert.equal(list.status, 200);
    for (const control of ['data-status=', 'x-on:click="cloneOne"', 'x-on:click="deleteOne"', 'href="/admin/campaigns/new"', 'deleteSelected']) {
      assert.ok(!list.body.includes(control), control);
    }
    const page = await getPage(t, session, `/admin/campaigns/${ids.draft}`);
    assert.ok(!page.body.includes('Save changes') && page.body.includes('disabled=""'));
    assert.equal((await getPage(t, session, '/admin/campaigns/new')).status, 403);
    const nobody = await userWithRole(t, ['bounces:get']);
    assert.equal((await getPage(t, await adminSession(t, nobody.username, nobody.password), '/admin/campaigns')).status, 403);
    assert.equal((await getPage(t, null, '/admin/campaigns')).status, 307);
  });
});
