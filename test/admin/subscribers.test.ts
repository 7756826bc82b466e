// The subscribers pages of the admin: the table and one subscriber render for an admin from the
// subscriber service, need a session, show a restricted role neither the controls it lacks nor
// the subscribers it may not see, write hostile values as text, and show a segment query's
// error under the box with the query kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

async function makeList(t: TestServer, name: string): Promise<number> {
  const res = await t.request('POST', '/api/lists', { name, type: 'private', optin: 'single', tags: [] });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

async function makeSubscriber(t: TestServer, email: string, lists: number[], extra: Record<string, unknown> = {}): Promise<number> {
  const res = await t.request('POST', '/api/subscribers', { email, name: 'Someone', lists, preconfirm_subscriptions: true, ...extra });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

describe('admin subscribers pages', () => {
  const server = useFreshServer();

  it('lists subscribers for an admin with their lists, the total and the bulk controls', async () => {
    const t = server();
    const list = await makeList(t, 'Readers of Tuesdays');
    const id = await makeSubscriber(t, 'tuesday@example.com', [list], { attribs: { city: 'Lyon' } });
    const session = await adminSession(t);
    const page = await getPage(t, session, '/admin/subscribers');
    assert.equal(page.status, 200);
    assert.ok(page.body.includes(`href="/admin/subscribers/${id}"`));
    assert.ok(page.body.includes('tuesday@example.com'));
    assert.ok(page.body.includes('Readers of Tuesdays'));
    assert.ok(page.body.includes(`href="/api/subscribers/${id}/export"`));
    for (const control of ['x-on:click="deleteSelected"', 'x-on:click="openLists"', 'x-on:click="blocklistSelected"', 'id="query"', 'href="/admin/subscribers/new"']) {
      assert.ok(page.body.includes(control), control);
    }
    const total = (await t.request('GET', '/api/subscribers?per_page=1')).body.data.total;
    assert.match(page.body, new RegExp(`<span class="count"> \\(${total}\\)</span>`));

    await makeSubscriber(t, 'aardvark@example.com', [list]);
    const sorted = await getPage(t, session, `/admin/subscribers?list_id=${list}&order_by=email&order=asc`);
    assert.match(sorted.body, /<th scope="col" aria-sort="ascending"><a href="[^"]*order=desc[^"]*">E-mail ▲<\/a><\/th>/);
    assert.ok(sorted.body.indexOf('aardvark@example.com') < sorted.body.indexOf('tuesday@example.com'));
    const desc = await getPage(t, session, `/admin/subscribers?list_id=${list}&order_by=email&order=desc`);
    assert.ok(desc.body.indexOf('aardvark@example.com') > desc.body.indexOf('tuesday@example.com'));
    const second = await getPage(t, session, `/admin/subscribers?list_id=${list}&order_by=email&order=asc&per_page=1&page=2`);
    assert.ok(second.body.includes('tuesday@example.com') && !second.body.includes('aardvark@example.com'));
    assert.match(second.body, /aria-current="page">2</);
    await t.request('DELETE', `/api/subscribers?id=${(await t.request('GET', '/api/subscribers?search=aardvark')).body.data.results[0].id}`);

    const filtered = await getPage(t, session, `/admin/subscribers?list_id=${list}`);
    assert.match(filtered.body, /<h1>Readers of Tuesdays<span class="count"> \(1\)<\/span><\/h1>/);
    const searched = await getPage(t, session, '/admin/subscribers?search=tuesday');
    assert.match(searched.body, /<span class="count"> \(1\)<\/span>/);
    const segment = await getPage(t, session, `/admin/subscribers?query=${encodeURIComponent("subscribers.attribs->>'city' = 'Lyon'")}`);
    assert.equal(segment.status, 200);
    assert.match(segment.body, /<span class="count"> \(1\)<\/span>/);
    assert.ok(segment.body.includes('tuesday@example.com'));
  });

  it('filters by subscriber status and orphans, as the dashboard links', async () => {
    const t = server();
    const orphan = await makeSubscriber(t, 'orphan@example.com', []);
    const blocked = await makeSubscriber(t, 'blocked@example.com', [], { status: 'blocklisted' });
    const list = await makeList(t, 'Someone\'s list');
    await makeSubscriber(t, 'member@example.com', [list]);
    const session = await adminSession(t);
    const orphans = await getPage(t, session, '/admin/subscribers?orphans=1&per_page=500');
    assert.ok(orphans.body.includes(`/admin/subscribers/${orphan}"`));
    assert.ok(!orphans.body.includes('member@example.com'));
    assert.ok(!orphans.body.includes('x-on:click="selectMatching"'), 'no "all matching" the API could not select');
    const blocklisted = await getPage(t, session, '/admin/subscribers?status=blocklisted&per_page=500');
    assert.ok(blocklisted.body.includes(`/admin/subscribers/${blocked}"`));
    assert.ok(!blocklisted.body.includes('orphan@example.com'));
    assert.match(blocklisted.body, /<span class="count"> \(1\)<\/span>/);
  });

  it('shows a bad segment query\'s message under the box, pointing at the token, with the text kept', async () => {
    const t = server();
    const session = await adminSession(t);
    const bad = "subscribers.name = 'x' AND ;; nope";
    const page = await getPage(t, session, `/admin/subscribers?query=${encodeURIComponent(bad)}`);
    assert.equal(page.status, 200);
    const alert = /<p class="field-error" id="query-error" role="alert">([^<]+)<\/p>/.exec(page.body);
    assert.ok(alert, 'the message is beside the box');
    assert.match(alert[1], /at position \d+/);
    assert.ok(page.body.includes('subscribers.name = &#39;x&#39; AND ;; nope</textarea>') || page.body.includes("subscribers.name = 'x' AND ;; nope</textarea>"), 'the text stays in the box');
    assert.match(page.body, /<pre class="query-pointer" aria-hidden="true">[^<]*\n +\^<\/pre>/);
    assert.match(page.body, /<details open="">|<details open>/);
  });

  it('helps with the segment box: three worked examples, the guide, and a message that suggests the right form', async () => {
    const t = server();
    const session = await adminSession(t);
    const list = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'private', optin: 'single' })).body.data.id;
    const page = await getPage(t, session, '/admin/subscribers');
    const unescape = (text: string) => text.replaceAll('&#39;', "'").replaceAll('&gt;', '>').replaceAll('&quot;', '"');
    const examples = [...page.body.matchAll(/<button type="button" class="link" data-example="([^"]+)" x-on:click="useExample">/g)].map((m) => unescape(m[1]));
    assert.deepEqual(examples, [
      "subscribers.attribs->>'city' = 'Berlin'",
      `subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = ${list} AND status = 'confirmed')`,
      "subscribers.created_at > NOW() - INTERVAL '30 days'",
    ]);
    // Each example is a valid expression.
    for (const query of examples) assert.equal((await t.request('GET', `/api/subscribers?query=${encodeURIComponent(query)}`)).status, 200, query);
    assert.match(page.body, /id="query-help">[^<]*<a class="help-link" href="\/admin\/help\/segments"/);
    const bad = await getPage(t, session, `/admin/subscribers?query=${encodeURIComponent('city = Berlin')}`);
    const alert = unescape(/<p class="field-error" id="query-error" role="alert">([^<]+)<\/p>/.exec(bad.body)![1]);
    assert.equal(alert, `The query could not be used: unknown column "city" at position 1 — did you mean subscribers.attribs->>'city'?`);
  });

  it('sends a visitor without a session to sign in, for both pages', async () => {
    const t = server();
    for (const path of ['/admin/subscribers', '/admin/subscribers/1', '/admin/subscribers/new']) {
      const res = await getPage(t, null, path);
      assert.equal(res.status, 307, path);
      assert.match(res.headers.get('location') ?? '', /^\/admin\/login\?next=/);
    }
  });

  it('shows a one-list manager only that list\'s subscribers and counts, and no controls it lacks', async () => {
    const t = server();
    const mine = await makeList(t, 'My little list');
    const other = await makeList(t, 'Somebody else\'s list');
    const inside = await makeSubscriber(t, 'inside@example.com', [mine]);
    const outside = await makeSubscriber(t, 'outside@example.com', [other]);
    const reader = await userWithRole(t, ['subscribers:get'], [{ id: mine, permissions: ['list:get'] }]);
    const session = await adminSession(t, reader.username, reader.password);
    const page = await getPage(t, session, '/admin/subscribers');
    assert.equal(page.status, 200);
    assert.ok(page.body.includes('inside@example.com'));
    assert.ok(!page.body.includes('outside@example.com'));
    assert.ok(!page.body.includes('Somebody else'), 'the other list is not offered as a filter');
    assert.match(page.body, /<span class="count"> \(1\)<\/span>/);
    for (const control of ['deleteSelected', 'openLists', 'blocklistSelected', 'deleteOne', 'id="query"', 'type="checkbox" data-row', '/admin/subscribers/new', '<dialog']) {
      assert.ok(!page.body.includes(control), `${control} is shown to a reader`);
    }
    // A segment in the URL is not run for a role without subscribers:sql_query.
    const withQuery = await getPage(t, session, `/admin/subscribers?query=${encodeURIComponent('subscribers.id > 0')}`);
    assert.equal(withQuery.status, 200);
    const one = await getPage(t, session, `/admin/subscribers/${inside}`);
    assert.equal(one.status, 200);
    assert.ok(!one.body.includes('x-bind:disabled="busy"'), 'no save for a reader');
    assert.match(one.body, /<fieldset class="plain" disabled/);
    assert.ok(!one.body.includes('x-on:click="remove"'));
    assert.ok(!one.body.includes('x-on:click="sendOptin"'));
    assert.equal((await getPage(t, session, `/admin/subscribers/${outside}`)).status, 403);
    assert.equal((await getPage(t, session, '/admin/subscribers/new')).status, 403);
    // A subscriber also on a list the reader cannot see: that list is counted, never named.
    const both = await makeSubscriber(t, 'on-two-lists@example.com', [mine, other]);
    const table = await getPage(t, session, '/admin/subscribers');
    assert.ok(table.body.includes('on-two-lists@example.com'));
    assert.ok(!table.body.includes('*Unknown'));
    assert.match(table.body, /\+1 other lists/);
    const page2 = await getPage(t, session, `/admin/subscribers/${both}`);
    assert.ok(!page2.body.includes('*Unknown') && !page2.body.includes('Somebody else'));
    assert.match(page2.body, /A list your role cannot see/);
  });

  it('offers a list manager its bulk actions with only the lists it manages as targets', async () => {
    const t = server();
    const managed = await makeList(t, 'Managed here');
    const readOnly = await makeList(t, 'Only read here');
    await makeSubscriber(t, 'both@example.com', [managed, readOnly]);
    const manager = await userWithRole(t, ['subscribers:get', 'subscribers:manage'], [{ id: managed, permissions: ['list:get', 'list:manage'] }, { id: readOnly, permissions: ['list:get'] }]);
    const page = await getPage(t, await adminSession(t, manager.username, manager.password), '/admin/subscribers');
    assert.equal(page.status, 200);
    const dialog = /<dialog[\s\S]*<\/dialog>/.exec(page.body)?.[0] ?? '';
    assert.ok(dialog.includes(`name="target_list_ids" value="${managed}"`));
    assert.ok(!dialog.includes(`value="${readOnly}"`), 'a list it only reads is no target');
    assert.ok(page.body.includes('x-on:click="deleteSelected"'));
    assert.ok(!page.body.includes('id="query"'), 'no segment box without subscribers:sql_query');
  });

  it('renders one subscriber with its lists, pretty attributes, ids and tabs', async () => {
    const t = server();
    const list = await makeList(t, 'Weekly letter');
    const id = await makeSubscriber(t, 'one@example.com', [list], { attribs: { city: 'Oslo', pets: { cats: 2 } } });
    const session = await adminSession(t);
    const page = await getPage(t, session, `/admin/subscribers/${id}`);
    assert.equal(page.status, 200);
    const sub = (await t.request('GET', `/api/subscribers/${id}`)).body.data;
    assert.ok(page.body.includes(sub.uuid));
    assert.ok(page.body.includes(`data-copy="${sub.uuid}"`));
    assert.ok(page.body.includes('&quot;pets&quot;: {\n    &quot;cats&quot;: 2\n  }') || page.body.includes('"pets": {\n    "cats": 2\n  }'), 'attributes are pretty-printed');
    assert.match(page.body, new RegExp(`name="lists" data-kind="ints" value="${list}" checked`));
    assert.ok(page.body.includes(`data-action="/api/subscribers/${id}"`));
    assert.ok(page.body.includes('aria-current="page">Subscriptions'));
    const bounces = await getPage(t, session, `/admin/subscribers/${id}?tab=bounces`);
    assert.ok(bounces.body.includes('aria-current="page">Bounces'));
    const activity = await getPage(t, session, `/admin/subscribers/${id}?tab=activity`);
    assert.ok(activity.body.includes('Campaigns viewed'));
    assert.equal((await getPage(t, session, '/admin/subscribers/999999')).status, 404);
    const fresh = await getPage(t, session, '/admin/subscribers/new');
    assert.equal(fresh.status, 200);
    assert.ok(fresh.body.includes('data-method="POST" data-action="/api/subscribers"'));
  });

  it('shows a subscriber\'s bounces with their meta, and "delete all" only to who may delete them', async () => {
    const t = server();
    const id = await makeSubscriber(t, 'bouncy@example.com', []);
    assert.equal((await t.request('PUT', '/api/settings', { 'bounce.enabled': true, 'bounce.webhooks_enabled': true })).status, 200);
    const bounce = await t.request('POST', '/webhooks/bounce', { email: 'bouncy@example.com', type: 'hard', source: HOSTILE, meta: { reason: HOSTILE, smtp: { code: 550 } } });
    assert.equal(bounce.status, 200, bounce.text);
    const session = await adminSession(t);
    const page = await getPage(t, session, `/admin/subscribers/${id}?tab=bounces`);
    assert.equal(page.status, 200);
    assertEscaped(page.body);
    assert.match(page.body, /<details><summary>Details<\/summary><pre>\{\n {2}&quot;reason&quot;/);
    assert.match(page.body, /&quot;code&quot;: 550/);
    assert.ok(page.body.includes('x-on:click="deleteBounces" data-count="1"'));
    const reader = await userWithRole(t, ['subscribers:get_all', 'bounces:get']);
    const readerPage = await getPage(t, await adminSession(t, reader.username, reader.password), `/admin/subscribers/${id}?tab=bounces`);
    assert.equal(readerPage.status, 200);
    assert.ok(readerPage.body.includes('&quot;code&quot;: 550'));
    assert.ok(!readerPage.body.includes('deleteBounces'));
    const noBounces = await userWithRole(t, ['subscribers:get_all']);
    const hidden = await getPage(t, await adminSession(t, noBounces.username, noBounces.password), `/admin/subscribers/${id}?tab=bounces`);
    assert.ok(!hidden.body.includes('?tab=bounces"'), 'no bounces tab without bounces:get');
    assert.ok(!hidden.body.includes('550'));
  });

  it('writes hostile names, e-mails, attributes and list names as text on both pages', async () => {
    const t = server();
    const list = await makeList(t, HOSTILE);
    const email = `"><script>alert('xss')</script>@example.com`;
    const res = await t.request('POST', '/api/subscribers', { email: 'hostile@example.com', name: HOSTILE, lists: [list], attribs: { [HOSTILE]: HOSTILE, nested: { x: HOSTILE } } });
    assert.equal(res.status, 200, res.text);
    const id = res.body.data.id;
    // An e-mail with markup in its local part, if the rules accept it.
    await t.request('POST', '/api/subscribers', { email, name: 'Quoted', lists: [list] });
    const session = await adminSession(t);
    for (const path of ['/admin/subscribers', `/admin/subscribers?list_id=${list}`, `/admin/subscribers/${id}`, `/admin/subscribers?search=${encodeURIComponent(HOSTILE)}`, `/admin/subscribers?query=${encodeURIComponent(HOSTILE)}`, '/admin/subscribers/new']) {
      const page = await getPage(t, session, path);
      assert.ok(page.status === 200 || page.status === 400, `${path}: ${page.status}`);
      assertEscaped(page.body);
    }
    const page = await getPage(t, session, `/admin/subscribers?list_id=${list}`);
    assert.ok(page.body.includes('&lt;img src=x'), 'the hostile list name is shown as text');
  });
});
