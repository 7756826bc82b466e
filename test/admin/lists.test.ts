// The admin's list pages, rendered by the real server: what each role sees, what it may do,
// and hostile list values shown as text everywhere they appear.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

describe('admin list pages', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  const ids: Record<string, number> = {};

  before(async () => {
    t = server();
    admin = await adminSession(t);
    for (const [key, body] of Object.entries({
      news: { name: 'News', type: 'public', optin: 'double', tags: ['weekly'], description: 'The weekly news' },
      staff: { name: 'Staff', type: 'private', optin: 'single', tags: ['internal'] },
      hostile: { name: HOSTILE, type: 'public', optin: 'single', tags: [HOSTILE], description: HOSTILE },
      old: { name: 'Old letters', type: 'private', optin: 'single', status: 'archived' },
    })) {
      const res = await t.request('POST', '/api/lists', body);
      assert.equal(res.status, 200, res.text);
      ids[key] = res.body.data.id;
    }
    const sub = await t.request('POST', '/api/subscribers', { email: 'a@example.com', name: 'A', lists: [ids.news], preconfirm_subscriptions: true });
    assert.equal(sub.status, 200, sub.text);
  });

  it('lists the active lists with their counts, links and actions for an admin', async () => {
    const res = await getPage(t, admin, '/admin/lists');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h1>Lists<span class="count"> \(3\)<\/span><\/h1>/);
    assert.ok(res.body.includes(`href="/admin/lists/${ids.news}"`));
    assert.ok(!res.body.includes('Old letters'), 'archived lists are not in the default view');
    assert.ok(res.body.includes(`href="/admin/subscribers?list_id=${ids.news}"`));
    assert.ok(res.body.includes(`href="/admin/subscribers?list_id=${ids.news}&amp;subscription_status=confirmed"`));
    assert.ok(res.body.includes(`href="/admin/subscribers/import?list_id=${ids.news}"`));
    assert.ok(res.body.includes('href="/admin/lists/new"'));
    assert.match(res.body, /x-on:click="deleteSelected"/);
  });

  it('offers a double opt-in list\'s managers its opt-in action, with how many it would mail', async () => {
    const optin = 'Send opt-in confirmation to unconfirmed subscribers';
    const page = async (session: string) => (await getPage(t, session, `/admin/lists/${ids.news}`)).body;
    // Every subscriber confirmed: the section says so, with no button.
    assert.match(await page(admin), /<section class="card" id="optin"[^>]*>.*Every subscriber of this list has confirmed/s);
    assert.ok(!(await page(admin)).includes(optin));
    assert.ok(!(await getPage(t, admin, '/admin/lists')).body.includes(optin), 'no row action without unconfirmed subscribers');
    await t.request('PUT', '/api/settings', { 'app.send_optin_confirmation': false });
    for (const e of ['u1@example.com', 'u2@example.com']) assert.equal((await t.request('POST', '/api/subscribers', { email: e, lists: [ids.news] })).status, 200);
    const body = await page(admin);
    assert.match(body, /Unconfirmed subscribers: 2\. Of them, not sent an opt-in mail in the last 24 hours: 2\./);
    assert.match(body, new RegExp(`<button type="button" data-id="${ids.news}" data-name="News" x-on:click="sendOptin">${optin}</button>`));
    const row = /<tr>(?:(?!<\/tr>).)*>News<(?:(?!<\/tr>).)*<\/tr>/s.exec((await getPage(t, admin, '/admin/lists')).body)![0];
    assert.ok(row.includes(`aria-label="${optin}" x-on:click="sendOptin">Send opt-in confirmation</button>`), 'the row of a double opt-in list with unconfirmed subscribers');
    // Single opt-in lists and lists the user may only see have no opt-in action.
    assert.ok(!(await getPage(t, admin, `/admin/lists/${ids.staff}`)).body.includes('id="optin"'));
    const reader = await userWithRole(t, ['subscribers:get'], [{ id: ids.news, permissions: ['list:get'] }]);
    const readerSession = await adminSession(t, reader.username, reader.password);
    assert.ok(!(await page(readerSession)).includes('id="optin"'));
    assert.ok(!(await getPage(t, readerSession, '/admin/lists')).body.includes(optin));
  });

  it('filters by status, type, tag and search, and sorts by a column', async () => {
    assert.ok((await getPage(t, admin, '/admin/lists?status=archived')).body.includes('Old letters'));
    const all = await getPage(t, admin, '/admin/lists?status=all');
    assert.match(all.body, /\(4\)<\/span>/);
    const pub = await getPage(t, admin, '/admin/lists?type=public');
    assert.ok(pub.body.includes('>News<') && !pub.body.includes('>Staff<'));
    const tagged = await getPage(t, admin, '/admin/lists?tag=internal');
    assert.ok(tagged.body.includes('>Staff<') && !tagged.body.includes('>News<'));
    const found = await getPage(t, admin, '/admin/lists?query=news');
    assert.ok(found.body.includes('>News<') && !found.body.includes('>Staff<'));
    const byName = await getPage(t, admin, '/admin/lists?order_by=name&order=asc');
    assert.ok(byName.body.indexOf('>News<') < byName.body.indexOf('>Staff<'));
    assert.match(byName.body, /aria-sort="ascending"/);
    const unknown = await getPage(t, admin, '/admin/lists?status=nope&order_by=x;DROP&page=abc');
    assert.equal(unknown.status, 200, 'unknown filter values are no filter');
  });

  it('shows a list with its ID, UUID and an editable form; a new-list form', async () => {
    const list = await t.request('GET', `/api/lists/${ids.news}`);
    const res = await getPage(t, admin, `/admin/lists/${ids.news}`);
    assert.equal(res.status, 200);
    assert.ok(res.body.includes(list.body.data.uuid));
    assert.match(res.body, /data-method="PUT" data-action="\/api\/lists\/\d+"/);
    assert.match(res.body, /<input type="text" id="list-tags" name="tags" data-kind="tags" value="weekly"/);
    const fresh = await getPage(t, admin, '/admin/lists/new');
    assert.match(fresh.body, /data-method="POST" data-action="\/api\/lists"/);
    assert.equal((await getPage(t, admin, '/admin/lists/999999')).status, 404);
    assert.equal((await getPage(t, admin, '/admin/lists/abc')).status, 400);
  });

  it('builds the form snippet from the public lists only, with the captcha the settings ask for', async () => {
    const res = await getPage(t, admin, '/admin/lists/forms');
    assert.equal(res.status, 200);
    const data = JSON.parse(/<script type="application\/json" id="forms-data">(.*?)<\/script>/s.exec(res.body)![1]);
    assert.deepEqual(data.lists.map((l: { name: string }) => l.name).sort(), [HOSTILE, 'News'].sort());
    assert.equal(data.captcha, null);
    assert.match(res.body, /<iframe class="form-preview" id="form-preview" title="Preview" sandbox=""><\/iframe>/);
  });

  it('shows hostile names, tags and descriptions as text on every list page', async () => {
    for (const path of ['/admin/lists', `/admin/lists/${ids.hostile}`, '/admin/lists/forms', `/admin/lists?tag=${encodeURIComponent(HOSTILE)}`]) {
      const res = await getPage(t, admin, path);
      assert.equal(res.status, 200, path);
      assertEscaped(res.body);
    }
  });

  it('refuses without a session and without any list permission', async () => {
    assert.equal((await getPage(t, null, '/admin/lists')).status, 307);
    const nobody = await userWithRole(t, ['bounces:get']);
    const session = await adminSession(t, nobody.username, nobody.password);
    for (const path of ['/admin/lists', '/admin/lists/forms', `/admin/lists/${ids.news}`, '/admin/lists/new']) {
      assert.equal((await getPage(t, session, path)).status, 403, path);
    }
  });

  it('shows a list manager limited to one list only that list, and no create or bulk controls', async () => {
    const manager = await userWithRole(t, ['subscribers:get'], [{ id: ids.staff, permissions: ['list:get', 'list:manage'] }]);
    const session = await adminSession(t, manager.username, manager.password);
    const res = await getPage(t, session, '/admin/lists');
    assert.equal(res.status, 200);
    assert.match(res.body, /\(1\)<\/span>/);
    assert.ok(res.body.includes('>Staff<') && !res.body.includes('>News<'));
    assert.ok(!res.body.includes('href="/admin/lists/new"'));
    assert.equal((await getPage(t, session, `/admin/lists/${ids.news}`)).status, 403);
    const own = await getPage(t, session, `/admin/lists/${ids.staff}`);
    assert.match(own.body, /Save changes/);
    const reader = await userWithRole(t, ['subscribers:get'], [{ id: ids.staff, permissions: ['list:get'] }]);
    const readerPage = await getPage(t, await adminSession(t, reader.username, reader.password), `/admin/lists/${ids.staff}`);
    assert.equal(readerPage.status, 200);
    assert.ok(!readerPage.body.includes('Save changes') && !readerPage.body.includes('x-on:click="deleteOne"'));
    assert.match(readerPage.body, /id="list-name" name="name" value="Staff" required="" maxlength="200" disabled=""/);
  });
});
