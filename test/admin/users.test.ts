// The admin's users, roles and profile pages, rendered by the real server: what each role sees
// and may do (hidden controls, and the API's refusals), hostile names shown as text, and no
// password, API token or TOTP secret ever in a page.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { TOTP } from 'otpauth';
import { ALL_PERMISSIONS } from '../../src/core/authz.ts';
import { adminSession, apiAs, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

const pageData = (html: string, id: string) => JSON.parse(new RegExp(`<script type="application/json" id="${id}">(.*?)</script>`, 's').exec(html)![1]);

describe('admin users, roles and profile pages', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  const ids: Record<string, number> = {};
  let apiToken = '';

  before(async () => {
    t = server();
    admin = await adminSession(t);
    const list = await t.request('POST', '/api/lists', { name: 'Staff news', type: 'private', optin: 'single' });
    ids.list = list.body.data.id;
    const hostileList = await t.request('POST', '/api/lists', { name: HOSTILE, type: 'private', optin: 'single' });
    ids.hostileList = hostileList.body.data.id;
    const role = await t.request('POST', '/api/roles/users', { name: HOSTILE, permissions: ['subscribers:get', 'subscribers:sql_query'] });
    assert.equal(role.status, 200, role.text);
    ids.hostileRole = role.body.data.id;
    const listRole = await t.request('POST', '/api/roles/lists', { name: `${HOSTILE} lists`, lists: [{ id: ids.hostileList, permissions: ['list:get'] }] });
    assert.equal(listRole.status, 200, listRole.text);
    ids.hostileListRole = listRole.body.data.id;
    const user = await t.request('POST', '/api/users', {
      username: 'hostile.name', name: HOSTILE, email: 'hostile@example.com', type: 'user', status: 'enabled',
      password_login: true, password: 'a-long-password-1', user_role_id: ids.hostileRole, list_role_id: ids.hostileListRole,
    });
    assert.equal(user.status, 200, user.text);
    ids.hostileUser = user.body.data.id;
    const api = await t.request('POST', '/api/users', { username: 'crm-sync', type: 'api', status: 'enabled', user_role_id: ids.hostileRole });
    assert.equal(api.status, 200, api.text);
    ids.apiUser = api.body.data.id;
    apiToken = api.body.data.password;
  });

  it('lists the users with their type, status, roles, e-mail and last login, and the actions for an admin', async () => {
    const res = await getPage(t, admin, '/admin/users');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h1>Users<span class="count"> \(4\)<\/span><\/h1>/);
    for (const text of ['>admin<', '>tester<', '>hostile.name<', '>crm-sync<', 'hostile@example.com', '>API<', '>Login<', 'Super Admin']) assert.ok(res.body.includes(text), text);
    assert.ok(res.body.includes('href="/admin/users/new"'));
    assert.ok(res.body.includes(`href="/admin/users/${ids.apiUser}"`));
    assert.match(res.body, /x-on:click="setStatus"/);
    assert.match(res.body, /x-on:click="deleteOne"/);
    assert.ok(!res.body.includes(apiToken), 'the token is never in a page');
  });

  it('searches users by name, e-mail or username and filters by status', async () => {
    const found = await getPage(t, admin, '/admin/users?query=HOSTILE%40example');
    assert.match(found.body, /\(1\)<\/span>/);
    assert.ok(found.body.includes('>hostile.name<'));
    await t.request('PUT', `/api/users/${ids.apiUser}`, { status: 'disabled', list_role_id: 0 });
    const disabled = await getPage(t, admin, '/admin/users?status=disabled');
    assert.match(disabled.body, /\(1\)<\/span>/);
    assert.ok(disabled.body.includes('>crm-sync<') && disabled.body.includes('>Enable<'));
    await t.request('PUT', `/api/users/${ids.apiUser}`, { status: 'enabled', list_role_id: 0 });
    assert.match((await getPage(t, admin, '/admin/users?query=nobody-like-this')).body, /No users match/);
    assert.equal((await getPage(t, admin, '/admin/users?status=x;DROP')).status, 200, 'an unknown filter value is no filter');
  });

  it('shows a user\'s form: the type locked, the roles to choose, "regenerate token" for an API user only', async () => {
    const login = await getPage(t, admin, `/admin/users/${ids.hostileUser}`);
    assert.equal(login.status, 200);
    assert.match(login.body, /data-method="PUT" data-action="\/api\/users\/\d+"/);
    assert.match(login.body, /<input type="radio" name="type" value="user" x-model="type" checked="" disabled=""/);
    assert.match(login.body, new RegExp(`<option value="${ids.hostileListRole}" selected="">`));
    assert.ok(!login.body.includes('regenerateToken'));
    const roles = pageData(login.body, 'user-roles') as { id: number; all: boolean }[];
    assert.deepEqual(roles.find((r) => r.id === 1), { id: 1, all: true });
    assert.deepEqual(roles.find((r) => r.id === ids.hostileRole), { id: ids.hostileRole, all: false });
    const api = await getPage(t, admin, `/admin/users/${ids.apiUser}`);
    assert.match(api.body, /x-on:click="regenerateToken"/);
    assert.ok(!api.body.includes(apiToken));
    assert.match(api.body, /id="api-token" class="mono" readonly="" x-bind:value="token"/, 'the token field is filled by the script only');
    const fresh = await getPage(t, admin, '/admin/users/new');
    assert.match(fresh.body, /data-method="POST" data-action="\/api\/users"/);
    assert.match(fresh.body, /<input type="radio" name="type" value="api" x-model="type"\s*\/?>/);
    assert.equal((await getPage(t, admin, '/admin/users/999999')).status, 404);
    assert.equal((await getPage(t, admin, '/admin/users/abc')).status, 400);
  });

  it('shows the user roles with the permission matrix by group; sql_query marked powerful; the Super Admin role fixed', async () => {
    const list = await getPage(t, admin, '/admin/users/roles/users');
    assert.equal(list.status, 200);
    assert.ok(list.body.includes('href="/admin/users/roles/users/new"'));
    assert.match(list.body, /x-on:click="cloneOne"/);
    assert.ok(list.body.includes('Every permission'));
    const role = await getPage(t, admin, `/admin/users/roles/users/${ids.hostileRole}`);
    assert.equal(role.status, 200);
    assert.match(role.body, /data-method="PUT" data-action="\/api\/roles\/users\/\d+"/);
    for (const group of ['lists', 'subscribers', 'campaigns', 'bounces', 'media', 'templates', 'users', 'settings']) assert.ok(role.body.includes(`data-group="${group}"`), group);
    assert.equal([...role.body.matchAll(/name="permissions"/g)].length, ALL_PERMISSIONS.length);
    assert.match(role.body, /value="subscribers:sql_query" data-kind="strings" checked=""/);
    assert.match(role.body, /value="subscribers:get_all" data-kind="strings"\s*\/?>/);
    assert.match(role.body, /powerful/);
    assert.match(role.body, /href="\/admin\/help\/segments"/);
    const superAdmin = await getPage(t, admin, '/admin/users/roles/users/1');
    assert.match(superAdmin.body, /cannot be changed/);
    assert.ok(!superAdmin.body.includes('Save changes'));
    assert.equal((await getPage(t, admin, '/admin/users/roles/users/new')).status, 200);
    assert.equal((await getPage(t, admin, `/admin/users/roles/users/${ids.hostileListRole}`)).status, 404, 'a list role is not a user role');
  });

  it('says on the role form what settings:manage and settings:maintain reach, settings:manage marked powerful', async () => {
    const form = (await getPage(t, admin, '/admin/users/roles/users/new')).body;
    const note = (p: string) => new RegExp(`<p class="([^"]+)" data-note-for="${p}">([^<]+)</p>`).exec(form);
    const manage = note('settings:manage');
    assert.ok(manage, 'a note under settings:manage');
    assert.equal(manage[1], 'help danger-text');
    assert.match(manage[2], /Changes every setting: the SMTP servers, bounce mailbox and messengers/);
    assert.match(manage[2], /Custom JavaScript and the backup download are a Super Admin&#39;s only/);
    assert.match(form, /value="settings:manage" data-kind="strings"\s*\/?>\s*<code>settings:manage<\/code>\s*<span class="tag danger"/);
    // The user roles page says it too, with what is the Super Admin's alone.
    const roles = (await getPage(t, admin, '/admin/users/roles/users')).body;
    assert.match(roles, /<h2 id="reach-title">What some permissions reach<\/h2>/);
    assert.match(roles, /<li data-reach="settings:manage"><code>settings:manage<\/code>: Changes every setting/);
    assert.match(roles, /Only a Super Admin may change the custom JavaScript of the admin and public pages, download a backup of the database, or give the Super Admin role/);
    assert.match(note('settings:maintain')?.[2] ?? '', /exports views and clicks \(a subscriber&#39;s e-mail, name and UUID only when the role may also read that subscriber\)/);
    assert.equal((await getPage(t, admin, '/admin/users/roles/users/999999')).status, 404);
  });

  it('shows the list roles with their lists; the form holds the lists to add and the grants', async () => {
    const list = await getPage(t, admin, '/admin/users/roles/lists');
    assert.equal(list.status, 200);
    assert.ok(list.body.includes('href="/admin/users/roles/lists/new"'));
    const role = await getPage(t, admin, `/admin/users/roles/lists/${ids.hostileListRole}`);
    assert.equal(role.status, 200);
    const data = pageData(role.body, 'list-role-data');
    assert.deepEqual(data.grants, [{ id: ids.hostileList, name: HOSTILE, get: true, manage: false }]);
    assert.deepEqual(data.lists.map((l: { id: number }) => l.id).sort(), [ids.list, ids.hostileList].sort());
    const archived = await t.request('POST', '/api/lists', { name: 'Old archive', type: 'private', optin: 'single', status: 'archived' });
    assert.equal(archived.status, 200, archived.text);
    const later = pageData((await getPage(t, admin, `/admin/users/roles/lists/${ids.hostileListRole}`)).body, 'list-role-data');
    assert.ok(!later.lists.some((l: { id: number }) => l.id === archived.body.data.id), 'archived lists are not offered');
    assert.match(role.body, /lists:get_all, lists:manage_all/);
    assert.equal((await getPage(t, admin, `/admin/users/roles/lists/${ids.hostileRole}`)).status, 404, 'a user role is not a list role');
  });

  it('shows hostile names as text on every page', async () => {
    for (const path of ['/admin/users', `/admin/users/${ids.hostileUser}`, '/admin/users/new', '/admin/users/roles/users', `/admin/users/roles/users/${ids.hostileRole}`,
      '/admin/users/roles/lists', `/admin/users/roles/lists/${ids.hostileListRole}`, '/admin/users/roles/lists/new']) {
      const res = await getPage(t, admin, path);
      assert.equal(res.status, 200, path);
      assertEscaped(res.body);
    }
    const own = await getPage(t, await adminSession(t, 'hostile.name', 'a-long-password-1'), '/admin/profile');
    assert.equal(own.status, 200);
    assertEscaped(own.body);
  });

  it('shows the Users menu to an admin, and none of it to a role without users:get or roles:get', async () => {
    const page = await getPage(t, admin, '/admin');
    for (const href of ['/admin/users', '/admin/users/roles/users', '/admin/users/roles/lists']) assert.ok(page.body.includes(`href="${href}"`), href);
    assert.ok(page.body.includes('href="/admin/profile"'), 'the user menu links the profile');
    const plain = await userWithRole(t, ['subscribers:get']);
    const session = await adminSession(t, plain.username, plain.password);
    const home = await getPage(t, session, '/admin');
    for (const href of ['/admin/users"', '/admin/users/roles/users"', '/admin/users/roles/lists"']) assert.ok(!home.body.includes(`href="${href}`), href);
    assert.ok(home.body.includes('href="/admin/profile"'));
    for (const path of ['/admin/users', `/admin/users/${ids.hostileUser}`, '/admin/users/new', '/admin/users/roles/users', '/admin/users/roles/lists', '/admin/users/roles/users/new']) {
      assert.equal((await getPage(t, session, path)).status, 403, path);
    }
    assert.equal((await getPage(t, session, '/admin/profile')).status, 200, 'everyone has a profile');
  });

  it('hides the changes from a role with users:get but not users:manage, and the API refuses them', async () => {
    const reader = await userWithRole(t, ['users:get']);
    const session = await adminSession(t, reader.username, reader.password);
    const list = await getPage(t, session, '/admin/users');
    assert.equal(list.status, 200);
    assert.ok(!list.body.includes('href="/admin/users/new"'));
    assert.ok(!list.body.includes('x-on:click="setStatus"') && !list.body.includes('x-on:click="deleteOne"'));
    const api = await getPage(t, session, `/admin/users/${ids.apiUser}`);
    assert.equal(api.status, 200);
    assert.ok(!api.body.includes('regenerateToken') && !api.body.includes('Save changes') && !api.body.includes('x-on:click="deleteOne"'));
    assert.match(api.body, /id="user-username" name="username" value="crm-sync" required="" maxlength="200" autocomplete="off" disabled=""/);
    assert.match(api.body, /only this user(&#39;|')s own roles/, 'without roles:get the form offers only the user\'s roles');
    assert.equal((await getPage(t, session, '/admin/users/new')).status, 403);
    const refusals = [
      await apiAs(t, session, 'POST', `/api/users/${ids.apiUser}/token`),
      await apiAs(t, session, 'PUT', `/api/users/${ids.apiUser}`, { status: 'disabled' }),
      await apiAs(t, session, 'DELETE', `/api/users/${ids.apiUser}`),
      await apiAs(t, session, 'POST', '/api/users', { username: 'sneaky', type: 'api', user_role_id: 1 }),
    ];
    for (const r of refusals) assert.equal(r.status, 403, r.text);
    const still = await t.request('GET', `/api/users/${ids.apiUser}`);
    assert.equal(still.body.data.status, 'enabled');
    assert.equal((await t.request('GET', '/api/profile', undefined, { auth: `crm-sync:${apiToken}` })).status, 200, 'the token still works: nothing changed');
  });

  it('hides the changes from a role with roles:get but not roles:manage, and the API refuses them', async () => {
    const reader = await userWithRole(t, ['roles:get']);
    const session = await adminSession(t, reader.username, reader.password);
    const home = await getPage(t, session, '/admin');
    assert.ok(home.body.includes('href="/admin/users/roles/users"') && !home.body.includes('href="/admin/users"'));
    for (const path of ['/admin/users/roles/users', '/admin/users/roles/lists']) {
      const res = await getPage(t, session, path);
      assert.equal(res.status, 200, path);
      assert.ok(!res.body.includes('/new"') && !res.body.includes('x-on:click="cloneOne"') && !res.body.includes('x-on:click="deleteOne"'), path);
    }
    const role = await getPage(t, session, `/admin/users/roles/users/${ids.hostileRole}`);
    assert.ok(!role.body.includes('Save changes'));
    assert.match(role.body, /value="subscribers:get" data-kind="strings" checked="" disabled=""/);
    const listRole = await getPage(t, session, `/admin/users/roles/lists/${ids.hostileListRole}`);
    assert.ok(!listRole.body.includes('Save changes') && !listRole.body.includes('x-on:click="addRow"'));
    assert.equal((await getPage(t, session, '/admin/users/roles/users/new')).status, 403);
    assert.equal((await getPage(t, session, '/admin/users/roles/lists/new')).status, 403);
    for (const r of [
      await apiAs(t, session, 'POST', '/api/roles/users', { name: 'x', permissions: [] }),
      await apiAs(t, session, 'PUT', `/api/roles/users/${ids.hostileRole}`, { name: 'x', permissions: [] }),
      await apiAs(t, session, 'DELETE', `/api/roles/${ids.hostileListRole}`),
    ]) assert.equal(r.status, 403, r.text);
    const roles = await t.request('GET', '/api/roles/users');
    assert.deepEqual(roles.body.data.find((r: { id: number }) => r.id === ids.hostileRole).permissions, ['subscribers:get', 'subscribers:sql_query']);
  });

  it('offers no changes to users and roles beyond the manager\'s own permissions, which the API refuses too', async () => {
    const within = await t.request('POST', '/api/roles/users', { name: 'Readers only', permissions: ['subscribers:get'] });
    const manager = await userWithRole(t, ['users:get', 'users:manage', 'roles:get', 'roles:manage', 'subscribers:get']);
    const session = await adminSession(t, manager.username, manager.password);
    const subordinate = await t.request('POST', '/api/users', { username: 'subordinate', type: 'api', status: 'enabled', user_role_id: within.body.data.id });
    assert.equal(subordinate.status, 200, subordinate.text);

    const users = await getPage(t, session, '/admin/users');
    const row = (name: string) => new RegExp(`>${name}</strong></a>[\\s\\S]*?</tr>`).exec(users.body)![0];
    assert.ok(!row('admin').includes('x-on:click="deleteOne"'), 'a Super Admin is beyond a manager who is not one');
    assert.ok(!row('hostile.name').includes('x-on:click="setStatus"'), 'a user holding sql_query is beyond this manager');
    assert.ok(row('subordinate').includes('x-on:click="deleteOne"') && row('subordinate').includes('x-on:click="setStatus"'));
    const adminPage = await getPage(t, session, '/admin/users/1');
    assert.ok(!adminPage.body.includes('Save changes') && !adminPage.body.includes('x-on:click="deleteOne"'));
    assert.match(adminPage.body, /you cannot change them/);
    assert.match((await getPage(t, session, `/admin/users/${subordinate.body.data.id}`)).body, /Save changes/);
    for (const r of [await apiAs(t, session, 'PUT', '/api/users/1', { name: 'taken over' }), await apiAs(t, session, 'POST', `/api/users/${ids.apiUser}/token`)]) assert.equal(r.status, 403, r.text);

    const roles = await getPage(t, session, '/admin/users/roles/users');
    const roleRow = (id: number) => new RegExp(`href="/admin/users/roles/users/${id}"[\\s\\S]*?</tr>`).exec(roles.body)![0];
    assert.ok(!roleRow(ids.hostileRole).includes('x-on:click="deleteOne"'), 'a role with sql_query is beyond this manager');
    assert.ok(roleRow(within.body.data.id).includes('x-on:click="cloneOne"'));
    const beyond = await getPage(t, session, `/admin/users/roles/users/${ids.hostileRole}`);
    assert.ok(!beyond.body.includes('Save changes'));
    assert.match(beyond.body, /you cannot change it/);
    const refused = await apiAs(t, session, 'PUT', `/api/roles/users/${ids.hostileRole}`, { name: 'tamed', permissions: [] });
    assert.equal(refused.status, 403, refused.text);
    assert.match(refused.body.message, /subscribers:sql_query/);
  });

  it('shows the profile: details, the password change that ends other sessions, and 2FA without its secret', async () => {
    const person = await userWithRole(t, ['subscribers:get']);
    const session = await adminSession(t, person.username, person.password);
    const me = (await apiAs(t, session, 'GET', '/api/profile')).body.data;
    const off = await getPage(t, session, '/admin/profile');
    assert.equal(off.status, 200);
    assert.match(off.body, /id="profile-name" name="name" value="User \d+"/);
    assert.match(off.body, /signs you out everywhere else/);
    assert.match(off.body, /Set up two-factor sign-in/);
    assert.match(off.body, /x-bind:src="qrSrc"/);

    const enrol = await apiAs(t, session, 'GET', `/api/users/${me.id}/twofa/totp`);
    assert.equal(enrol.status, 200, enrol.text);
    const { secret } = enrol.body.data;
    assert.ok(!(await getPage(t, session, '/admin/profile')).body.includes(secret), 'a secret being enrolled is not in the page');
    const code = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    const on = await apiAs(t, session, 'PUT', `/api/users/${me.id}/twofa`, { secret, code, password: person.password });
    assert.equal(on.status, 200, on.text);
    const page = await getPage(t, session, '/admin/profile');
    assert.match(page.body, /Turn off two-factor sign-in/);
    assert.ok(!page.body.includes(secret), 'the stored secret is never in the page');
    assert.ok(!page.body.includes('Set up two-factor sign-in'));
    const adminView = await getPage(t, admin, `/admin/users/${me.id}`);
    assert.ok(!adminView.body.includes(secret), 'nor in the user\'s page an admin sees');
    assert.match(adminView.body, />2FA</);
  });

  it('lets an admin turn off another user\'s 2FA from their page; hidden from, and refused to, a role without users:manage', async () => {
    const person = await userWithRole(t, ['subscribers:get']);
    const session = await adminSession(t, person.username, person.password);
    const me = (await apiAs(t, session, 'GET', '/api/profile')).body.data;
    const before = await getPage(t, admin, `/admin/users/${me.id}`);
    assert.ok(!before.body.includes('x-on:click="disableTwofa"'), 'nothing to turn off while 2FA is off');
    const { secret } = (await apiAs(t, session, 'GET', `/api/users/${me.id}/twofa/totp`)).body.data;
    const code = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    assert.equal((await apiAs(t, session, 'PUT', `/api/users/${me.id}/twofa`, { secret, code, password: person.password })).status, 200);

    const page = await getPage(t, admin, `/admin/users/${me.id}`);
    assert.match(page.body, /<button type="button" class="danger" x-on:click="disableTwofa" data-id="\d+"/);
    assert.ok(page.body.includes(`Turn off two-factor sign-in for &quot;${person.username}&quot;?`), 'it asks first, naming the user');
    assert.ok(!page.body.includes(secret));

    const reader = await userWithRole(t, ['users:get']);
    const readerSession = await adminSession(t, reader.username, reader.password);
    const seen = await getPage(t, readerSession, `/admin/users/${me.id}`);
    assert.equal(seen.status, 200);
    assert.match(seen.body, />2FA</, 'the reader sees that 2FA is on');
    assert.ok(!seen.body.includes('disableTwofa'), 'but has no control to turn it off');
    const refused = await apiAs(t, readerSession, 'DELETE', `/api/users/${me.id}/twofa`, { password: reader.password });
    assert.equal(refused.status, 403, refused.text);
    assert.equal((await t.request('GET', `/api/users/${me.id}`)).body.data.twofa_type, 'totp', 'refused: still on');

    const own = await getPage(t, session, `/admin/profile`);
    assert.match(own.body, /Turn off two-factor sign-in/, 'one\'s own is turned off on the profile');
    const off = await apiAs(t, admin, 'DELETE', `/api/users/${me.id}/twofa`, { password: 'admin-password-1' });
    assert.equal(off.status, 200, off.text);
    assert.ok(!(await getPage(t, admin, `/admin/users/${me.id}`)).body.includes('disableTwofa'), 'gone once off');
  });

  it('refuses turning off the 2FA of a user who holds more than the caller, as any other change to them', async () => {
    const { secret } = (await apiAs(t, admin, 'GET', '/api/users/1/twofa/totp')).body.data;
    const code = new TOTP({ secret, algorithm: 'SHA1', digits: 6, period: 30 }).generate();
    assert.equal((await apiAs(t, admin, 'PUT', '/api/users/1/twofa', { secret, code, password: 'admin-password-1' })).status, 200);
    try {
      const manager = await userWithRole(t, ['users:get', 'users:manage']);
      const session = await adminSession(t, manager.username, manager.password);
      const page = await getPage(t, session, '/admin/users/1');
      assert.ok(!page.body.includes('disableTwofa'), 'no control on a Super Admin\'s page');
      const refused = await apiAs(t, session, 'DELETE', '/api/users/1/twofa', { password: manager.password });
      assert.equal(refused.status, 403, refused.text);
      assert.match(refused.body.message, /only a Super Admin can change a Super Admin/);
      assert.equal((await t.request('GET', '/api/users/1')).body.data.twofa_type, 'totp', 'refused: still on');
    } finally {
      assert.equal((await apiAs(t, admin, 'DELETE', '/api/users/1/twofa', { password: 'admin-password-1' })).status, 200);
    }
  });

  it('never offers the signed-in user Delete on their own row or page (the API would let them)', async () => {
    const list = await getPage(t, admin, '/admin/users');
    const row = (name: string) => new RegExp(`>${name}</strong></a>[\\s\\S]*?</tr>`).exec(list.body)![0];
    assert.ok(row('admin').includes('href="/admin/users/1"') && row('admin').includes('x-on:click="setStatus"'), 'the own row keeps its other actions');
    assert.ok(!row('admin').includes('x-on:click="deleteOne"'), 'no Delete on the own row');
    assert.ok(row('tester').includes('x-on:click="deleteOne"'), 'others keep theirs');
    const ownPage = await getPage(t, admin, '/admin/users/1');
    assert.ok(ownPage.body.includes('Save changes') && !ownPage.body.includes('x-on:click="deleteOne"'));
    // What the API does (listmonk's behaviour, kept): a manager may delete itself; the session ends with it.
    const manager = await userWithRole(t, ['users:get', 'users:manage']);
    const session = await adminSession(t, manager.username, manager.password);
    const me = (await apiAs(t, session, 'GET', '/api/profile')).body.data;
    const managerList = await getPage(t, session, '/admin/users');
    assert.ok(!new RegExp(`>${manager.username}</strong></a>[\\s\\S]*?</tr>`).exec(managerList.body)![0].includes('deleteOne'));
    assert.equal((await apiAs(t, session, 'DELETE', `/api/users/${me.id}`)).status, 200);
    assert.equal((await apiAs(t, session, 'GET', '/api/profile')).status, 403, 'the session ended with the user');
  });

  it('says on the profile of a user without password login that 2FA and the e-mail need one', async () => {
    const role = await t.request('POST', '/api/roles/users', { name: 'no password role', permissions: [] });
    const user = await t.request('POST', '/api/users', { username: 'nopass', email: 'nopass@example.com', type: 'user', status: 'enabled', password_login: true, password: 'a-long-password-1', user_role_id: role.body.data.id });
    const session = await adminSession(t, 'nopass', 'a-long-password-1');
    // Password login is switched off while the session lives (an SSO account, say).
    t.server.ctx.db.prepare('UPDATE users SET password_login = 0 WHERE id = ?').run(user.body.data.id);
    const page = await getPage(t, session, '/admin/profile');
    assert.equal(page.status, 200);
    assert.match(page.body, /needs an account that signs in with a password/);
    assert.match(page.body, /id="profile-email" name="email" value="nopass@example.com" autocomplete="email" disabled=""/);
    assert.ok(!page.body.includes('profile-password'));
  });
});
