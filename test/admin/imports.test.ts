// The admin's import page, rendered by the real server: the form with the lists the user may
// manage, the 307/403 guards, the running import shown on a reload (from the importer
// itself), the summary of an ended import, and hostile list names, file names and log lines
// shown as text.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

const PAGE = '/admin/subscribers/import';

async function createList(t: TestServer, name: string): Promise<number> {
  const res = await t.request('POST', '/api/lists', { name, type: 'private', optin: 'single' });
  assert.equal(res.status, 200, res.text);
  return res.body.data.id;
}

function startImport(t: TestServer, params: unknown, name: string, csv: string) {
  const form = new FormData();
  form.set('params', JSON.stringify(params));
  form.set('file', new Blob([csv]), name);
  return t.request('POST', '/api/import/subscribers', undefined, { raw: form });
}

async function waitForEnd(t: TestServer): Promise<void> {
  await t.server.ctx.importer.whenIdle();
}

/** The form's list checkboxes: value → checked. */
function listBoxes(html: string): Map<number, boolean> {
  return new Map([...html.matchAll(/<input type="checkbox" name="lists" value="(\d+)"( checked="")?/g)].map((m) => [Number(m[1]), !!m[2]]));
}

describe('admin import page', () => {
  const server = useFreshServer();

  it('refuses a visitor without a session and a role without subscribers:import', async () => {
    const t = server();
    const anon = await getPage(t, null, PAGE);
    assert.equal(anon.status, 307);
    assert.equal(anon.headers.get('location'), `/admin/login?next=${encodeURIComponent(PAGE)}`);
    const reader = await userWithRole(t, ['bounces:get', 'subscribers:get']);
    const refused = await getPage(t, await adminSession(t, reader.username, reader.password), PAGE);
    assert.equal(refused.status, 403);
    assert.match(refused.body, /permission denied: subscribers:import/);
    assert.ok(!refused.body.includes('name="lists"'));
  });

  it('shows an admin the form with every list, the one named by ?list_id ticked, and the CSV format', async () => {
    const t = server();
    const a = await createList(t, 'Alpha list');
    const b = await createList(t, 'Beta list');
    const session = await adminSession(t);
    const page = await getPage(t, session, `${PAGE}?list_id=${b}`);
    assert.equal(page.status, 200);
    const boxes = listBoxes(page.body);
    assert.equal(boxes.get(a), false);
    assert.equal(boxes.get(b), true);
    for (const text of ['name="mode" value="subscribe"', 'name="mode" value="blocklist"', 'id="import-delim"', 'name="overwrite_userinfo"', 'name="overwrite_subscription_status"', 'type="file" id="import-file"', 'email,name,attributes', 'data-error-for="import-file"']) {
      assert.ok(page.body.includes(text), text);
    }
    // Nothing imported yet: the form shows, the progress does not.
    assert.match(page.body, /<form class="card"(?![^>]*\bhidden="")/);
    const example = await getPage(t, session, `${PAGE}/example.csv`);
    assert.equal(example.status, 200);
    assert.equal(example.body, readFileSync('docs/examples/subscribers.csv', 'utf8'));
  });

  it('offers a list manager only the lists it may manage', async () => {
    const t = server();
    const managed = await createList(t, 'Managed here');
    const readable = await createList(t, 'Only readable');
    const user = await userWithRole(t, ['subscribers:import'], [{ id: managed, permissions: ['list:get', 'list:manage'] }, { id: readable, permissions: ['list:get'] }]);
    const page = await getPage(t, await adminSession(t, user.username, user.password), `${PAGE}?list_id=${readable}`);
    assert.equal(page.status, 200);
    assert.deepEqual([...listBoxes(page.body)], [[managed, false]]);
    assert.ok(!page.body.includes('Only readable'));
  });

  it('shows the running import on a reload, with its name, state, progress and log', async () => {
    const t = server();
    const list = await createList(t, 'Big list');
    const rows = Array.from({ length: 300_000 }, (_, i) => `user${i}@example.com,User ${i}`).join('\n');
    const started = await startImport(t, { mode: 'subscribe', lists: [list] }, 'big-file.csv', `email,name\n${rows}\n`);
    assert.equal(started.status, 200, started.text);
    const page = await getPage(t, await adminSession(t), PAGE);
    const running = t.server.ctx.importer.status().status;
    assert.equal(page.status, 200);
    assert.ok(running === 'importing' || running === 'stopping', `the import ended before the check (${running}); make the file bigger`);
    assert.match(page.body, /<span x-text="status.name">big-file.csv<\/span>/);
    assert.match(page.body, />Importing<\/span>/);
    assert.match(page.body, /<progress id="import-progress" value="\d+" max="\d+"/);
    assert.match(page.body, /importing &quot;big-file.csv&quot;/);
    assert.match(page.body, /<form class="card"[^>]*hidden=""/, 'the form is hidden while an import runs');
    assert.match(page.body, /"status":\{"name":"big-file.csv"/);
    assert.equal((await t.request('DELETE', '/api/import/subscribers')).status, 200);
    await waitForEnd(t);
    const stopped = await getPage(t, await adminSession(t), PAGE);
    assert.match(stopped.body, />Stopped<\/span>/);
    assert.ok(stopped.body.includes(`href="/admin/subscribers?list_id=${list}"`), 'links to the imported subscribers');
    assert.equal((await t.request('DELETE', '/api/import/subscribers')).status, 200);
  });

  it('says what the status means when a double opt-in list is chosen, and names the run\'s double opt-in lists after', async () => {
    const t = server();
    const double = (await t.request('POST', '/api/lists', { name: 'Weekly', type: 'public', optin: 'double' })).body.data.id as number;
    const single = await createList(t, 'Plain');
    const session = await adminSession(t);
    const helpShown = (html: string) => /<p class="callout small" id="import-optin-help"(?![^>]*\shidden="")[^>]*>Unconfirmed subscribers of a double opt-in list get no campaigns until they confirm; choose Confirmed only if they already opted in elsewhere\.<\/p>/.test(html);
    const forDouble = await getPage(t, session, `${PAGE}?list_id=${double}`);
    assert.ok(helpShown(forDouble.body), 'shown for a double opt-in list');
    assert.match(forDouble.body, new RegExp(`value="${double}" checked="" data-optin="double" data-name="Weekly"`));
    assert.ok(!helpShown((await getPage(t, session, `${PAGE}?list_id=${single}`)).body), 'hidden (until one is ticked) for a single opt-in list');

    const res = await startImport(t, { mode: 'subscribe', lists: [double, single] }, 'people.csv', 'email\na@example.com\n');
    assert.equal(res.status, 200, res.text);
    await waitForEnd(t);
    const data = /<script type="application\/json" id="import-data"[^>]*>(.*?)<\/script>/s.exec((await getPage(t, session, PAGE)).body);
    assert.ok(data, 'the page data');
    const parsed = JSON.parse(data[1]);
    assert.deepEqual([parsed.subscriptionStatus, parsed.optinLists], ['unconfirmed', [{ id: double, name: 'Weekly' }]]);
  });

  it('sums an ended import up (imported, skipped by reason, time) and shows hostile names and log lines as text', async () => {
    const t = server();
    const list = await createList(t, HOSTILE);
    const session = await adminSession(t);
    assertEscaped((await getPage(t, session, PAGE)).body);
    const csv = ['email,name', 'ok1@example.com,One', `"${HOSTILE.replace(/"/g, '""')}",Bad`, 'not-an-address,Bad', 'ok2@example.com,Two', ''].join('\n');
    const res = await startImport(t, { mode: 'subscribe', lists: [list] }, `${HOSTILE}.csv`, csv);
    assert.equal(res.status, 200, res.text);
    await waitForEnd(t);
    const page = await getPage(t, session, PAGE);
    assert.equal(page.status, 200);
    assertEscaped(page.body);
    assert.ok(page.body.includes('&lt;img src=x'), 'the hostile file name or log line is shown as text');
    assert.match(page.body, />Finished<\/span>/);
    assert.match(page.body, /x-text="newText">2</);
    assert.match(page.body, /x-text="skippedText">2</);
    assert.match(page.body, /x-text="countsText">2 new, 0 already on file \(0 updated, 0 unchanged\), 2 skipped</);
    assert.match(page.body, /<li><strong>2<\/strong> × &quot;…&quot; is not a valid e-mail address<\/li>/);
    assert.match(page.body, /x-text="tookText">\d+ (ms|s)</);
    assert.equal((await t.request('DELETE', '/api/import/subscribers')).status, 200);
    const reset = await getPage(t, session, PAGE);
    assert.match(reset.body, /<form class="card"(?![^>]*\bhidden="")/, 'after "New import" the form shows again');
  });
});
