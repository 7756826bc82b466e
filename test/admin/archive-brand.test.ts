// The admin pages of the archive and the brand, rendered by the real server: the brand's fields
// on Settings → General, a list's link to its public subscription page (or why it has none),
// the Forms page's accent colour for its style block, and the first-run checklist's word on
// the postal address (the sign-in page's word on the password: test/admin/operations.test.ts).
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, getPage } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

describe('admin pages of the archive and the brand', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;

  before(async () => {
    t = server();
    admin = await adminSession(t);
    assert.equal((await t.request('PUT', '/api/settings', { 'app.root_url': t.url, 'app.accent_color': '#2e7d32', 'app.postal_address': '12 High Street' })).status, 200);
  });

  it('has the brand\'s fields and the archive setting on Settings → General', async () => {
    const res = await getPage(t, admin, '/admin/settings');
    assert.equal(res.status, 200);
    assert.match(res.body, /<input type="color" id="s-app-accent-color" name="app.accent_color" data-kind="colour"[^>]*value="#2e7d32"/);
    assert.match(res.body, /<textarea rows="3" id="s-app-postal-address" name="app.postal_address" data-kind="multiline"[^>]*>12 High Street<\/textarea>/);
    assert.match(res.body, /x-on:click="pickLogo">Choose from media<\/button>/);
    assert.match(res.body, /name="app.archive_new_campaigns"[^>]*checked=""[^>]*\/> Publish new campaigns to the archive/);
    assert.match(res.body, /CAN-SPAM/);
  });

  it('links a public list to its subscription page, and says why a private or archived one has none', async () => {
    const pub = (await t.request('POST', '/api/lists', { name: 'Garden news', type: 'public', optin: 'single' })).body.data;
    const priv = (await t.request('POST', '/api/lists', { name: 'Staff', type: 'private', optin: 'single' })).body.data;
    const old = (await t.request('POST', '/api/lists', { name: 'Old', type: 'public', optin: 'single', status: 'archived' })).body.data;
    const url = `${t.url}/subscription/form?l=${pub.uuid}`;
    assert.ok((await getPage(t, admin, `/admin/lists/${pub.id}`)).body.includes(`Public subscription page: <a href="${url}">${url}</a>`));
    assert.match((await getPage(t, admin, `/admin/lists/${priv.id}`)).body, /A private list has no public subscription page/);
    assert.match((await getPage(t, admin, `/admin/lists/${old.id}`)).body, /An archived list has no public subscription page/);
  });

  it('gives the Forms page the accent colour and the minimal-style switch', async () => {
    const res = await getPage(t, admin, '/admin/lists/forms');
    const data = JSON.parse(/<script type="application\/json" id="forms-data">(.*?)<\/script>/s.exec(res.body)![1]);
    assert.equal(data.accent, '#2e7d32');
    assert.match(res.body, /<input type="checkbox" x-model="styled"\/> Add a minimal style/);
  });

  it('mentions the postal address in the first-run checklist', async () => {
    const res = await getPage(t, admin, '/admin');
    assert.match(/<section class="card first-run"[^]*?<\/section>/.exec(res.body)![0], /Add your postal address there too/);
  });
});
