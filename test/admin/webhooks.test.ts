// The admin's webhooks pages, rendered by the real server: the table, the form with the events by
// group, an endpoint's page with its deliveries; each for a role with webhooks:manage, refused
// (403, no menu entry) without it; hostile names and descriptions shown as text; no secret in any
// page; and the Security tab's switch for private receivers.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { EVENT_TYPES } from '../../src/events/types.ts';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

const sidebar = (html: string) => /<nav class="sidebar"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';

describe('admin webhooks pages', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  let manager: string;
  let settingsReader: string;
  const secrets: string[] = [];
  const ids: Record<string, number> = {};

  before(async () => {
    t = server();
    admin = await adminSession(t);
    const m = await userWithRole(t, ['webhooks:manage']);
    manager = await adminSession(t, m.username, m.password);
    const r = await userWithRole(t, ['settings:get', 'settings:manage']);
    settingsReader = await adminSession(t, r.username, r.password);
  });

  it('shows an empty list as one sentence on what webhooks are, with "New webhook"', async () => {
    const page = await getPage(t, admin, '/admin/settings/webhooks');
    assert.equal(page.status, 200, page.body.slice(0, 300));
    assert.match(page.body, /<h1>Webhooks<span class="count"> \(0\)<\/span><\/h1>/);
    assert.match(page.body, /class="card empty-state"><p>A webhook posts each change you choose/);
    assert.ok(page.body.includes('href="/admin/settings/webhooks/new"'));
    assert.match(page.body, /<a class="help-link" href="\/admin\/help\/webhooks"/);
    assert.ok(!page.body.includes('<table'), 'no table while there is nothing to list');
  });

  it('lists the endpoints with URL, events, status (and why disabled), last delivery, failure rate and the row actions', async () => {
    const all = await t.request('POST', '/api/webhooks', { name: 'CRM sync', url: 'https://crm.example.com/hooks/listmgr', events: ['*'], description: 'Keeps the CRM in step' });
    assert.equal(all.status, 200, all.text);
    ids.all = all.body.data.id;
    secrets.push(all.body.data.secret);
    const some = await t.request('POST', '/api/webhooks', { name: HOSTILE, url: 'https://example.org/x?a=1&b=<2>', events: ['subscriber.created', 'list.deleted'], description: HOSTILE, enabled: false });
    assert.equal(some.status, 200, some.text);
    ids.hostile = some.body.data.id;
    secrets.push(some.body.data.secret);
    const page = await getPage(t, admin, '/admin/settings/webhooks');
    assert.equal(page.status, 200);
    assertEscaped(page.body);
    assert.match(page.body, /\(2\)<\/span><\/h1>/);
    assert.ok(page.body.includes('<strong>CRM sync</strong>') && page.body.includes('Keeps the CRM in step'));
    assert.ok(page.body.includes('<code>https://crm.example.com/hooks/listmgr</code>'));
    assert.ok(page.body.includes('https://example.org/x?a=1&amp;b=&lt;2&gt;'));
    assert.match(page.body, /<span class="tag accent">All<\/span>/);
    assert.match(page.body, /title="subscriber.created, list.deleted">2 events</);
    assert.match(page.body, /<span class="tag danger">Disabled<\/span>/);
    assert.ok(page.body.includes('None yet'), 'no delivery yet');
    for (const id of [ids.all, ids.hostile]) {
      assert.ok(page.body.includes(`href="/admin/settings/webhooks/${id}/edit"`), `edit ${id}`);
      assert.match(page.body, new RegExp(`data-id="${id}" data-name="[^"]*" x-on:click="sendTest"`));
      assert.match(page.body, new RegExp(`data-id="${id}" data-name="[^"]*" x-on:click="deleteOne"`));
    }
    assert.match(page.body, new RegExp(`data-id="${ids.all}" data-name="CRM sync" data-enable="false" x-on:click="setEnabled">Disable<`));
    assert.match(page.body, new RegExp(`data-id="${ids.hostile}" data-name="[^"]*" data-enable="true" x-on:click="setEnabled">Enable<`));
  });

  it('shows the form with the events by group, each with its description, and "All events"', async () => {
    const fresh = await getPage(t, admin, '/admin/settings/webhooks/new');
    assert.equal(fresh.status, 200);
    assert.match(fresh.body, /data-method="POST" data-action="\/api\/webhooks" data-done="\/admin\/settings\/webhooks\/\{id\}"/);
    assert.match(fresh.body, /data-mode="all"/);
    for (const group of ['subscribers', 'subscriptions', 'campaigns', 'lists', 'bounces', 'imports', 'tracking']) assert.ok(fresh.body.includes(`data-group="${group}"`), group);
    const types = Object.keys(EVENT_TYPES).filter((type) => type !== 'webhook.test');
    for (const type of types) assert.ok(fresh.body.includes(`name="events" value="${type}"`), type);
    assert.ok(!fresh.body.includes('value="webhook.test"'), 'the test event is sent by "Send test event" only');
    assert.equal([...fresh.body.matchAll(/name="events" value="[^"]+" checked/g)].length, 0);
    assert.ok(fresh.body.includes('A campaign finished sending, with its sent and failed counts.'));
    assert.ok(fresh.body.includes('old and new values'));
    assert.match(fresh.body, /<code>changes<\/code>/, 'a description\'s `code` as code');
    assert.ok(fresh.body.includes('class="secret-dialog"'), 'the dialog that shows the new secret once');
    for (const lang of ['node', 'python', 'php']) assert.ok(fresh.body.includes(`id="snippet-${lang}"`), lang);
    assert.ok(fresh.body.includes('hash_hmac(&#39;sha256&#39;') || fresh.body.includes("hash_hmac('sha256'"), 'the PHP snippet');

    const edit = await getPage(t, admin, `/admin/settings/webhooks/${ids.hostile}/edit`);
    assert.equal(edit.status, 200);
    assertEscaped(edit.body);
    assert.match(edit.body, new RegExp(`data-method="PUT" data-action="/api/webhooks/${ids.hostile}"`));
    assert.match(edit.body, /data-mode="chosen"/);
    assert.deepEqual([...edit.body.matchAll(/name="events" value="([^"]+)" checked/g)].map((m) => m[1]).sort(), ['list.deleted', 'subscriber.created']);
    assert.match(edit.body, /name="enabled" value="true" data-kind="bool"\s*\/?>/, 'disabled: the box is not ticked');
    assert.ok(!edit.body.includes('class="secret-dialog"'), 'editing shows no secret');
    assert.match((await getPage(t, admin, `/admin/settings/webhooks/${ids.all}/edit`)).body, /data-mode="all"/);
  });

  it('shows an endpoint\'s page: its facts, the actions, the deliveries filter and their empty state', async () => {
    const page = await getPage(t, admin, `/admin/settings/webhooks/${ids.hostile}`);
    assert.equal(page.status, 200);
    assertEscaped(page.body);
    for (const text of ['subscriber.created', 'list.deleted', 'Failure rate', 'Deliveries', 'Nothing has been sent to this webhook yet']) assert.ok(page.body.includes(text), text);
    assert.match(page.body, /x-on:click="rotateSecret"/);
    assert.match(page.body, /x-on:click="sendTest"/);
    assert.match(page.body, /<select id="delivery-status" name="status">/);
    assert.ok(page.body.includes('class="secret-dialog"'), 'the dialog for a rotated secret');
    const filtered = await getPage(t, admin, `/admin/settings/webhooks/${ids.hostile}?status=failed&page=x&tested=abc`);
    assert.equal(filtered.status, 200);
    assert.ok(filtered.body.includes('No deliveries are failed.'));
    assert.equal((await getPage(t, admin, `/admin/settings/webhooks/${ids.hostile}?status=x;DROP`)).status, 200, 'an unknown filter value is no filter');
    assert.equal((await getPage(t, admin, '/admin/settings/webhooks/999999')).status, 404);
    assert.equal((await getPage(t, admin, '/admin/settings/webhooks/999999/edit')).status, 404);
    assert.equal((await getPage(t, admin, '/admin/settings/webhooks/abc')).status, 400);
  });

  it('never puts a secret in a page', async () => {
    const rotated = await t.request('POST', `/api/webhooks/${ids.all}/secret`);
    assert.equal(rotated.status, 200, rotated.text);
    secrets.push(rotated.body.data.secret);
    for (const path of ['/admin/settings/webhooks', '/admin/settings/webhooks/new', `/admin/settings/webhooks/${ids.all}`, `/admin/settings/webhooks/${ids.all}/edit`]) {
      const page = await getPage(t, admin, path);
      for (const secret of secrets) assert.ok(!page.body.includes(secret) && !page.body.includes(secret.slice(6)), `${path} holds a secret`);
    }
  });

  it('is open to a role with webhooks:manage alone, from the Settings menu', async () => {
    for (const path of ['/admin/settings/webhooks', '/admin/settings/webhooks/new', `/admin/settings/webhooks/${ids.all}`, `/admin/settings/webhooks/${ids.all}/edit`]) {
      assert.equal((await getPage(t, manager, path)).status, 200, path);
    }
    const nav = sidebar((await getPage(t, manager, '/admin/settings/webhooks')).body);
    assert.match(nav, /<a href="\/admin\/settings\/webhooks" aria-current="page">Webhooks<\/a>/);
    assert.ok(!nav.includes('href="/admin/settings"'), 'the settings page is not theirs');
    assert.match(sidebar((await getPage(t, manager, `/admin/settings/webhooks/${ids.all}`)).body), /href="\/admin\/settings\/webhooks" aria-current="true"/);
  });

  it('refuses the pages (403) and leaves them out of the menu for a role without webhooks:manage', async () => {
    for (const path of ['/admin/settings/webhooks', '/admin/settings/webhooks/new', `/admin/settings/webhooks/${ids.all}`, `/admin/settings/webhooks/${ids.all}/edit`]) {
      const page = await getPage(t, settingsReader, path);
      assert.equal(page.status, 403, path);
      assert.match(page.body, /permission denied: webhooks:manage/);
    }
    const settings = await getPage(t, settingsReader, '/admin/settings');
    assert.equal(settings.status, 200);
    assert.ok(!settings.body.includes('href="/admin/settings/webhooks"'), 'no menu entry and no link from the settings page');
    assert.ok(sidebar((await getPage(t, admin, '/admin/settings')).body).includes('href="/admin/settings/webhooks"'));
  });

  it('links the settings page to the webhooks, and has the private receivers switch on its Security tab, off by default', async () => {
    const page = await getPage(t, admin, '/admin/settings');
    const head = /<div class="page-head">[\s\S]*?<\/div>/.exec(page.body)?.[0] ?? '';
    assert.ok(head.includes('href="/admin/settings/webhooks"'), head);
    const security = /<section class="tab-panel" role="tabpanel" id="panel-security"[\s\S]*?<\/section>/.exec(page.body)?.[0] ?? '';
    assert.match(security, /<input type="checkbox" id="s-security-webhooks-allow-private" name="security.webhooks_allow_private"[^>]*\/?>/);
    assert.doesNotMatch(security, /name="security.webhooks_allow_private"[^>]*checked/);
    assert.match(security, /Lets webhooks reach receivers on this machine or the local network; off by default/);
  });
});
