// The admin's template pages, rendered by the real server: the table and a template's page for
// an admin, refusals, a read-only role without changing controls, hostile names shown as text,
// and the editor island loaded only where a body is edited.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

const CAMPAIGN_BODY = '<html><body>{{ template "content" . }}</body></html>';

/** The script URLs a page loads. */
function scripts(html: string): string[] {
  return [...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1]);
}

describe('admin template pages', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  const ids: Record<string, number> = {};

  before(async () => {
    t = server();
    admin = await adminSession(t);
    for (const [key, body] of Object.entries({
      hostile: { name: HOSTILE, type: 'campaign', body: CAMPAIGN_BODY },
      receipt: { name: 'Receipt', type: 'tx', subject: 'Your order', body: '<p>Thanks, {{ .Subscriber.Name }}</p>' },
    })) {
      const res = await t.request('POST', '/api/templates', body);
      assert.equal(res.status, 200, res.text);
      ids[key] = res.body.data.id;
    }
    const newsList = await t.request('POST', '/api/lists', { name: 'News', type: 'private', optin: 'single' });
    ids.list = newsList.body.data.id;
    const list = await t.request('GET', '/api/templates?no_body=true');
    ids.default = list.body.data.find((tp: { is_default: boolean }) => tp.is_default).id;
  });

  it('lists the templates with type, default mark, the tx ID and actions for an admin', async () => {
    const res = await getPage(t, admin, '/admin/campaigns/templates');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h1>Templates<span class="count"> \(\d+\)<\/span><\/h1>/);
    assert.ok(res.body.includes('href="/admin/campaigns/templates/new"'));
    const row = (id: number) => new RegExp(`<tr data-template="${id}">.*?</tr>`, 's').exec(res.body)![0];
    assert.match(row(ids.default), /<span class="tag accent">Default<\/span>/);
    assert.ok(!row(ids.default).includes('deleteOne') && !row(ids.default).includes('makeDefault'), 'the default is neither deleted nor made default again');
    assert.match(row(ids.receipt), /Transactional/);
    assert.match(row(ids.receipt), new RegExp(`ID for the transactional API: <code>${ids.receipt}</code>`));
    assert.ok(!row(ids.receipt).includes('makeDefault'), 'only campaign templates can be the default');
    assert.match(row(ids.hostile), /x-on:click="makeDefault"/);
    assert.match(row(ids.hostile), /x-on:click="deleteOne"/);
    assert.ok(res.body.includes('{{ template &quot;content&quot; . }}') && res.body.includes('href="/admin/help/templating"'));
    assert.match(res.body, /<iframe id="preview-frame" name="preview-frame" class="preview-frame" title="Preview" sandbox=""><\/iframe>/);
    const nav = /<nav class="sidebar".*?<\/nav>/s.exec(res.body)![0];
    assert.ok(nav.includes('href="/admin/campaigns/templates"') && nav.includes('href="/admin/campaigns/media"'));
  });

  it('shows a template in an editable form with a sandboxed preview; a new-template form; the type is locked on edit', async () => {
    const res = await getPage(t, admin, `/admin/campaigns/templates/${ids.receipt}`);
    assert.equal(res.status, 200);
    assert.match(res.body, new RegExp(`data-method="PUT" data-action="/api/templates/${ids.receipt}"`));
    assert.match(res.body, /<select id="t-type" name="type" disabled=""/);
    assert.match(res.body, /<input type="text" id="t-subject" name="subject" value="Your order"/);
    assert.match(res.body, /<textarea id="t-body" name="body" class="editor" rows="22" data-editor="html"[^>]*>&lt;p&gt;Thanks/);
    assert.match(res.body, /<iframe id="template-preview" name="template-preview" class="preview-frame" title="Preview" sandbox=""><\/iframe>/);
    const fresh = await getPage(t, admin, '/admin/campaigns/templates/new');
    assert.equal(fresh.status, 200);
    assert.match(fresh.body, /data-method="POST" data-action="\/api\/templates"/);
    assert.match(fresh.body, /<select id="t-type" name="type" x-on:change="typeChanged">/);
    assert.ok(fresh.body.includes('{{ template &quot;content&quot; . }}'), 'a new campaign template starts with the placeholder');
    assert.equal((await getPage(t, admin, '/admin/campaigns/templates/999999')).status, 404);
    assert.equal((await getPage(t, admin, '/admin/campaigns/templates/abc')).status, 400);
  });

  it('loads the editor island only on pages that edit a body', async () => {
    const campaign = await t.request('POST', '/api/campaigns', { name: 'C', subject: 'S', lists: [ids.list], body: '<p>x</p>', content_type: 'html' });
    const editorOn = async (path: string) => {
      const res = await getPage(t, admin, path);
      assert.equal(res.status, 200, path);
      return scripts(res.body).some((src) => /\/admin\/assets\/editor-[\w-]+\.js$/.test(src));
    };
    for (const path of [`/admin/campaigns/templates/${ids.receipt}`, '/admin/campaigns/templates/new', `/admin/campaigns/${campaign.body.data.id}`, '/admin/campaigns/new']) {
      assert.equal(await editorOn(path), true, path);
    }
    for (const path of ['/admin', '/admin/lists', '/admin/campaigns', '/admin/campaigns/templates', '/admin/campaigns/media']) {
      assert.equal(await editorOn(path), false, path);
    }
    const page = await getPage(t, admin, `/admin/campaigns/${campaign.body.data.id}`);
    assert.match(page.body, /<textarea id="c-body" name="body" class="editor" rows="18" data-editor-format="c-format"/);
  });

  it('shows hostile template names as text on every page that names templates', async () => {
    const campaign = await t.request('POST', '/api/campaigns', { name: 'H', subject: 'S', lists: [ids.list], template_id: ids.hostile });
    for (const path of ['/admin/campaigns/templates', `/admin/campaigns/templates/${ids.hostile}`, '/admin/campaigns/new', `/admin/campaigns/${campaign.body.data.id}`]) {
      const res = await getPage(t, admin, path);
      assert.equal(res.status, 200, path);
      assertEscaped(res.body);
      assert.ok(res.body.includes('&lt;img src=x onerror='), `${path} shows the name as text`);
    }
  });

  it('refuses without a session and without templates:get', async () => {
    for (const path of ['/admin/campaigns/templates', `/admin/campaigns/templates/${ids.receipt}`, '/admin/campaigns/templates/new']) {
      assert.equal((await getPage(t, null, path)).status, 307, path);
    }
    const nobody = await userWithRole(t, ['campaigns:get']);
    const session = await adminSession(t, nobody.username, nobody.password);
    for (const path of ['/admin/campaigns/templates', `/admin/campaigns/templates/${ids.receipt}`, '/admin/campaigns/templates/new']) {
      assert.equal((await getPage(t, session, path)).status, 403, path);
    }
    const nav = /<nav class="sidebar".*?<\/nav>/s.exec((await getPage(t, session, '/admin')).body)![0];
    assert.ok(!nav.includes('/admin/campaigns/templates') && !nav.includes('/admin/campaigns/media'));
  });

  it('shows a role with templates:get only the templates, without changing controls', async () => {
    const reader = await userWithRole(t, ['templates:get']);
    const session = await adminSession(t, reader.username, reader.password);
    const list = await getPage(t, session, '/admin/campaigns/templates');
    assert.equal(list.status, 200);
    for (const control of ['href="/admin/campaigns/templates/new"', 'cloneOne', 'makeDefault', 'deleteOne']) {
      assert.ok(!list.body.includes(control), control);
    }
    assert.match(list.body, /x-on:click="preview"/);
    const one = await getPage(t, session, `/admin/campaigns/templates/${ids.hostile}`);
    assert.equal(one.status, 200);
    const form = /<form[^>]*id="template-form".*?<\/form>/s.exec(one.body)![0];
    assert.ok(!form.includes('type="submit"'), 'no save button');
    assert.match(one.body, /<input type="text" id="t-name" name="name" value="[^"]*" required="" disabled=""/);
    assert.match(one.body, /Your role can see templates but not change them/);
    assert.equal((await getPage(t, session, '/admin/campaigns/templates/new')).status, 403);
  });
});
