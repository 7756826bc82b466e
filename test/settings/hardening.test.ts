// What settings:manage does not reach (docs/security.md): custom JavaScript, saved passwords
// sent to a changed host, and the SMTP test as a probe of internal addresses.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { adminSession, getPage, userWithRole } from '../helpers/admin.ts';
import { roleCaller, useFreshServer, type TestServer } from '../helpers/server.ts';

const settingsOf = async (t: TestServer) => (await t.request('GET', '/api/settings')).body.data;

describe('custom JavaScript: a Super Admin\'s only', () => {
  const server = useFreshServer();

  it('refuses a settings:manage role changing the admin or public custom JavaScript, with PUT /api/settings or PUT /api/settings/{key}, changing nothing', async () => {
    const t = server();
    const manager = roleCaller(t, ['settings:manage', 'settings:get']);
    for (const key of ['appearance.admin.custom_js', 'appearance.public.custom_js']) {
      const all = await t.request('PUT', '/api/settings', { 'app.site_name': 'Changed?', [key]: 'fetch("/api/users")' }, { auth: manager });
      assert.equal(all.status, 403, all.text);
      assert.equal(all.body.message, `permission denied: only a Super Admin may change "${key}" (custom JavaScript runs in the browser of everyone who opens those pages)`);
      const one = await t.request('PUT', `/api/settings/${key}`, 'alert(1)', { auth: manager });
      assert.equal(one.status, 403, one.text);
      assert.equal(t.server.ctx.settings.str(key), '');
    }
    assert.equal(t.server.ctx.settings.str('app.site_name'), 'Mailing list');
  });

  it('lets it save everything else, custom CSS included, with the custom JavaScript sent back unchanged', async () => {
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { 'appearance.public.custom_js': 'console.log(1)' })).status, 200);
    const manager = roleCaller(t, ['settings:manage', 'settings:get']);
    const s = await settingsOf(t);
    const res = await t.request('PUT', '/api/settings', { ...s, 'app.site_name': 'Managed', 'appearance.admin.custom_css': 'body { color: teal }' }, { auth: manager });
    assert.equal(res.status, 200, res.text);
    assert.equal(t.server.ctx.settings.str('app.site_name'), 'Managed');
    assert.equal(t.server.ctx.settings.str('appearance.admin.custom_css'), 'body { color: teal }');
    assert.equal(t.server.ctx.settings.str('appearance.public.custom_js'), 'console.log(1)');
    // The Super Admin may change it.
    assert.equal((await t.request('PUT', '/api/settings/appearance.admin.custom_js', 'console.log(2)')).status, 200);
    assert.equal(t.server.ctx.settings.str('appearance.admin.custom_js'), 'console.log(2)');
  });

  it('shows the custom JavaScript fields read-only, saying why, to a settings:manage role; editable to a Super Admin', async () => {
    const t = server();
    const u = await userWithRole(t, ['settings:manage', 'settings:get']);
    const page = (await getPage(t, await adminSession(t, u.username, u.password), '/admin/settings')).body;
    for (const key of ['appearance.admin.custom_js', 'appearance.public.custom_js']) {
      assert.match(page, new RegExp(`<textarea[^>]*name="${key.replace(/\./g, '\\.')}"[^>]*disabled`), key);
    }
    assert.doesNotMatch(page, /<textarea[^>]*name="appearance\.admin\.custom_css"[^>]*disabled/);
    assert.match(page, /Only a Super Admin may change custom JavaScript/);
    const admin = (await getPage(t, await adminSession(t), '/admin/settings')).body;
    assert.doesNotMatch(admin, /<textarea[^>]*name="appearance\.admin\.custom_js"[^>]*disabled/);
    assert.doesNotMatch(admin, /Only a Super Admin may change custom JavaScript/);
  });
});
