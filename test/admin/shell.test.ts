// The admin shell: pages need a browser session (else the sign-in form, and back), run under a
// strict CSP with a fresh nonce, show only the links a role allows, take their strings from
// the language pack, serve their built scripts, and stream error log lines to the toasts.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { NAV } from '../../src/admin/nav.ts';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('admin shell', () => {
  const server = useFreshServer();

  it('sends a visitor without a session to the sign-in form, which comes back to the page', async () => {
    const t = server();
    const res = await getPage(t, null, '/admin?from=mail');
    assert.equal(res.status, 307);
    assert.equal(res.headers.get('location'), `/admin/login?next=${encodeURIComponent('/admin?from=mail')}`);
    const login = await fetch(`${t.url}/admin/login`, {
      method: 'POST', redirect: 'manual', headers: { origin: t.url },
      body: new URLSearchParams({ username: 'admin', password: 'admin-password-1', next: '/admin?from=mail' }),
    });
    assert.equal(login.headers.get('location'), '/admin?from=mail');
  });

  it('does not take an API token for a page', async () => {
    const t = server();
    const res = await fetch(`${t.url}/admin`, { redirect: 'manual', headers: { authorization: `Basic ${Buffer.from(t.token).toString('base64')}` } });
    assert.equal(res.status, 307);
  });

  it('answers with a strict CSP whose nonce is new each time and is the only way scripts run', async () => {
    const t = server();
    const session = await adminSession(t);
    const a = await getPage(t, session, '/admin');
    const b = await getPage(t, session, '/admin');
    assert.equal(a.status, 200);
    const csp = a.headers.get('content-security-policy') ?? '';
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce, csp);
    assert.match(csp, /script-src 'nonce-[^']+' 'strict-dynamic'(;|$)/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.notEqual(/'nonce-([^']+)'/.exec(b.headers.get('content-security-policy') ?? '')?.[1], nonce);
    const scripts = [...a.body.matchAll(/<script([^>]*)>/g)].map((m) => m[1]).filter((attrs) => !attrs.includes('application/json'));
    assert.ok(scripts.length > 0);
    for (const attrs of scripts) assert.ok(attrs.includes(`nonce="${nonce}"`), `script without the nonce: ${attrs}`);
    assert.equal(a.headers.get('cache-control'), 'no-store');
  });

  it('serves the built scripts with a long cache, and nothing else from the assets path', async () => {
    const t = server();
    const session = await adminSession(t);
    const page = await getPage(t, session, '/admin');
    const src = /<script type="module" src="(\/admin\/assets\/admin-[^"]+\.js)"/.exec(page.body)?.[1];
    assert.ok(src, 'the page loads the admin bundle');
    const js = await fetch(t.url + src);
    assert.equal(js.status, 200);
    assert.match(js.headers.get('content-type') ?? '', /javascript/);
    assert.match(js.headers.get('cache-control') ?? '', /immutable/);
    for (const bad of ['/admin/assets/manifest.json', '/admin/assets/..%2Fcli.js', '/admin/assets/nope.js']) {
      assert.equal((await fetch(t.url + bad)).status, 404, bad);
    }
  });

  it('shows an admin every section and a restricted user only what its role allows', async () => {
    const t = server();
    const admin = await getPage(t, await adminSession(t), '/admin');
    for (const href of ['/admin/lists', '/admin/lists/forms', '/admin/subscribers', '/admin/subscribers/import', '/admin/subscribers/bounces']) {
      assert.ok(admin.body.includes(`href="${href}"`), href);
    }
    const reader = await userWithRole(t, ['bounces:get']);
    const page = await getPage(t, await adminSession(t, reader.username, reader.password), '/admin');
    assert.equal(page.status, 200);
    assert.ok(page.body.includes('href="/admin/subscribers/bounces"'));
    for (const href of ['/admin/lists"', '/admin/subscribers"', '/admin/subscribers/import"']) assert.ok(!page.body.includes(`href="${href}`), href);
  });

  it('marks the menu link of the page, or on a page it has no link for, the link of its section', async () => {
    const t = server();
    const session = await adminSession(t);
    const list = await t.request('POST', '/api/lists', { name: 'Marked', type: 'private', optin: 'single' });
    const c = await t.request('POST', '/api/campaigns', { name: 'Marked', subject: 'S', lists: [list.body.data.id] });
    assert.equal(c.status, 200, c.text);
    const marked = (body: string) => [...body.matchAll(/<nav class="sidebar"[\s\S]*?<\/nav>/g)][0][0].match(/href="[^"]+" aria-current="[a-z]+"/g);
    assert.deepEqual(marked((await getPage(t, session, '/admin/campaigns')).body), ['href="/admin/campaigns" aria-current="page"']);
    assert.deepEqual(marked((await getPage(t, session, '/admin/campaigns/new')).body), ['href="/admin/campaigns/new" aria-current="page"']);
    assert.deepEqual(marked((await getPage(t, session, `/admin/campaigns/${c.body.data.id}`)).body), ['href="/admin/campaigns" aria-current="true"']);
    assert.deepEqual(marked((await getPage(t, session, '/admin/campaigns/templates/new')).body), ['href="/admin/campaigns/templates" aria-current="true"']);
    assert.deepEqual(marked((await getPage(t, session, '/admin/users/roles/users/new')).body), ['href="/admin/users/roles/users" aria-current="true"']);
    assert.equal(marked((await getPage(t, session, '/admin/profile')).body), null, 'the profile is not in the menu');
  });

  it('answers a page the role may not see with a 403 page, and an unknown one with 404', async () => {
    const t = server();
    const reader = await userWithRole(t, ['bounces:get']);
    const session = await adminSession(t, reader.username, reader.password);
    const refused = await getPage(t, session, '/admin/lists/new');
    assert.equal(refused.status, 403);
    assert.match(refused.body, /permission denied: lists:manage_all/);
    const unknown = await getPage(t, session, '/admin/no-such-page');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /There is no such page in the admin/);
    assert.equal((await getPage(t, null, '/admin/no-such-page')).status, 307, 'without a session: the sign-in form first');
  });

  it('shows a hostile user name as text in the shell', async () => {
    const t = server();
    const role = await t.request('POST', '/api/roles/users', { name: 'hostile shell', permissions: ['bounces:get'] });
    const user = await t.request('POST', '/api/users', {
      username: 'hostile-shell', name: HOSTILE, email: 'hostile-shell@example.com', type: 'user', status: 'enabled',
      password_login: true, password: 'a-long-password-1', user_role_id: role.body.data.id,
    });
    assert.equal(user.status, 200, user.text);
    const page = await getPage(t, await adminSession(t, 'hostile-shell', 'a-long-password-1'), '/admin');
    assert.equal(page.status, 200);
    assertEscaped(page.body);
    assert.ok(page.body.includes('&lt;img src=x'));
  });

  it('takes every string key the admin uses from the language pack', () => {
    const pack = JSON.parse(readFileSync('src/i18n/en.json', 'utf8')) as Record<string, string>;
    const files = (dir: string): string[] => readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : [join(dir, e.name)]));
    const sources = files('src').filter((f) => /admin\.tsx$|src\/admin\/.*\.tsx?$/.test(f) && !f.includes('/client/'));
    const keys = new Set<string>();
    for (const f of sources) for (const m of readFileSync(f, 'utf8').matchAll(/\bt\(\s*'([a-zA-Z_.]+)'/g)) keys.add(m[1]);
    for (const g of NAV) for (const k of [g.label, ...g.links.map((l) => l.label)]) keys.add(k);
    assert.ok(keys.size > 20, `only ${keys.size} keys found`);
    const missing = [...keys].filter((k) => !(k in pack));
    assert.deepEqual(missing, []);
  });
});

describe('GET /api/events', () => {
  const server = useFreshServer();

  it('streams each error log line as listmonk\'s event, and only error lines', async () => {
    const t = server();
    const abort = new AbortController();
    const res = await fetch(`${t.url}/api/events?type=error`, { headers: { authorization: `Basic ${Buffer.from(t.token).toString('base64')}` }, signal: abort.signal });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/event-stream/);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const reader = res.body!.getReader();
    t.server.ctx.log.info('an ordinary line');
    t.server.ctx.log.error('the disk said no');
    let text = '';
    while (!text.includes('the disk said no')) {
      const { value, done } = await reader.read();
      assert.ok(!done, 'stream ended');
      text += new TextDecoder().decode(value);
    }
    abort.abort();
    assert.ok(!text.includes('an ordinary line'));
    const event = /retry: 3000\ndata: (.*)\n\n/.exec(text);
    assert.ok(event, text);
    const data = JSON.parse(event[1]);
    assert.deepEqual(Object.keys(data), ['id', 'type', 'message', 'data']);
    assert.equal(data.type, 'error');
    assert.match(data.message, /ERROR the disk said no$/);
  });

  it('needs settings:get', async () => {
    const t = server();
    const role = await t.request('POST', '/api/roles/users', { name: 'no settings', permissions: ['subscribers:get'] });
    const res = await t.request('GET', '/api/events', undefined, { auth: t.apiUser('nosettings', role.body.data.id) });
    assert.equal(res.status, 403);
    assert.match(res.body.message, /settings:get/);
  });
});
