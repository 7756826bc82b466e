// The permission table: every authenticated route with the permissions that open it. For each
// route, a caller holding one of them gets past the guard, a caller holding every other
// permission is refused with 403, and an anonymous caller is refused. Add a row per new route.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_PERMISSIONS, authorized, canAccessList, filterLists, permittedLists, type Permission } from '../../src/http/permissions.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

interface RouteCase {
  method: string;
  /** `{self}` is replaced by the calling user's id. */
  path: string;
  /** Any one of these opens the route; [] = any authenticated caller. */
  perms: string[];
  body?: unknown;
  /** Also held by the caller who may, so data-level checks (list grants) do not hide the route's answer. */
  extra?: string[];
}

const SUB_READ = ['subscribers:get_all', 'subscribers:get'];
const CAMP_GET = ['campaigns:get_all', 'campaigns:get'];
const CAMP_MANAGE = ['campaigns:manage_all', 'campaigns:manage'];
const ALL_LISTS = ['lists:get_all', 'lists:manage_all'];

export const ROUTES: RouteCase[] = [
  // system
  { method: 'GET', path: '/api/health', perms: [] },
  { method: 'GET', path: '/api/config', perms: [] },
  { method: 'GET', path: '/api/about', perms: ['settings:get'] },
  { method: 'GET', path: '/api/logs', perms: ['settings:get'] },
  { method: 'POST', path: '/api/admin/reload', perms: ['settings:manage'] },
  // settings
  { method: 'GET', path: '/api/settings', perms: ['settings:get'] },
  { method: 'PUT', path: '/api/settings', perms: ['settings:manage'], body: {} },
  { method: 'PUT', path: '/api/settings/app.site_name', perms: ['settings:manage'], body: 'Mailing list' },
  { method: 'POST', path: '/api/settings/smtp/test', perms: ['settings:manage'], body: {} },
  // users
  { method: 'GET', path: '/api/users', perms: ['users:get'] },
  { method: 'GET', path: '/api/users/1', perms: ['users:get'] },
  { method: 'POST', path: '/api/users', perms: ['users:manage'], body: {} },
  { method: 'PUT', path: '/api/users/999999', perms: ['users:manage'], body: {} },
  { method: 'DELETE', path: '/api/users/999999', perms: ['users:manage'] },
  { method: 'DELETE', path: '/api/users?id=999999', perms: ['users:manage'] },
  { method: 'GET', path: '/api/profile', perms: [] },
  { method: 'PUT', path: '/api/profile', perms: [], body: {} },
  { method: 'POST', path: '/api/logout', perms: [] },
  { method: 'GET', path: '/api/users/{self}/twofa/totp', perms: [] },
  { method: 'PUT', path: '/api/users/{self}/twofa', perms: [], body: {} },
  { method: 'DELETE', path: '/api/users/{self}/twofa', perms: [], body: {} },
  // another user's 2FA
  { method: 'GET', path: '/api/users/1/twofa/totp', perms: ['users:manage'] },
  { method: 'PUT', path: '/api/users/1/twofa', perms: ['users:manage'], body: {} },
  { method: 'DELETE', path: '/api/users/1/twofa', perms: ['users:manage'], body: {} },
  // roles
  { method: 'GET', path: '/api/roles/users', perms: ['roles:get'] },
  { method: 'GET', path: '/api/roles/lists', perms: ['roles:get'] },
  { method: 'POST', path: '/api/roles/users', perms: ['roles:manage'], body: {} },
  { method: 'POST', path: '/api/roles/lists', perms: ['roles:manage'], body: {} },
  { method: 'PUT', path: '/api/roles/users/999999', perms: ['roles:manage'], body: { name: 'x' } },
  { method: 'PUT', path: '/api/roles/lists/999999', perms: ['roles:manage'], body: { name: 'x' } },
  { method: 'DELETE', path: '/api/roles/999999', perms: ['roles:manage'] },
  { method: 'GET', path: '/api/lang/en', perms: [] },
  // lists (per-list checks inside)
  { method: 'GET', path: '/api/lists', perms: [] },
  { method: 'GET', path: '/api/lists/999999', perms: [], extra: ALL_LISTS },
  { method: 'POST', path: '/api/lists', perms: ['lists:manage_all'], body: {} },
  { method: 'PUT', path: '/api/lists/999999', perms: [], body: {}, extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/lists/999999', perms: [], extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/lists?id=999999', perms: [], extra: ALL_LISTS },
  // subscribers
  { method: 'GET', path: '/api/subscribers', perms: SUB_READ },
  { method: 'GET', path: '/api/subscribers/export', perms: SUB_READ },
  { method: 'GET', path: '/api/subscribers/999999', perms: SUB_READ, extra: ALL_LISTS },
  { method: 'GET', path: '/api/subscribers/999999/activity', perms: SUB_READ, extra: ALL_LISTS },
  { method: 'GET', path: '/api/subscribers/999999/export', perms: SUB_READ, extra: ALL_LISTS },
  { method: 'POST', path: '/api/subscribers', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/999999', perms: ['subscribers:manage'], body: {}, extra: ALL_LISTS },
  { method: 'PATCH', path: '/api/subscribers/999999', perms: ['subscribers:manage'], body: {}, extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/subscribers/999999', perms: ['subscribers:manage'], extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/subscribers', perms: ['subscribers:manage'] },
  { method: 'PUT', path: '/api/subscribers/blocklist', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/999999/blocklist', perms: ['subscribers:manage'], extra: ALL_LISTS },
  { method: 'PUT', path: '/api/subscribers/lists', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/lists/999999', perms: ['subscribers:manage'], body: {}, extra: ALL_LISTS },
  { method: 'POST', path: '/api/subscribers/999999/optin', perms: ['subscribers:manage'], extra: ALL_LISTS },
  { method: 'POST', path: '/api/subscribers/query/delete', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/query/blocklist', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/query/lists', perms: ['subscribers:manage'], body: {} },
  { method: 'GET', path: '/api/subscribers/999999/bounces', perms: ['bounces:get'], extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/subscribers/999999/bounces', perms: ['bounces:manage'], extra: ALL_LISTS },
  // import, tx, maintenance, dashboard
  { method: 'GET', path: '/api/import/subscribers', perms: ['subscribers:import'] },
  { method: 'GET', path: '/api/import/subscribers/logs', perms: ['subscribers:import'] },
  { method: 'POST', path: '/api/import/subscribers', perms: ['subscribers:import'], body: {} },
  { method: 'DELETE', path: '/api/import/subscribers', perms: ['subscribers:import'] },
  { method: 'POST', path: '/api/tx', perms: ['tx:send'], body: {} },
  { method: 'DELETE', path: '/api/maintenance/subscribers/nonsense', perms: ['settings:maintain'] },
  { method: 'DELETE', path: '/api/maintenance/subscriptions/unconfirmed', perms: ['settings:maintain'], body: {} },
  { method: 'DELETE', path: '/api/maintenance/analytics/nonsense', perms: ['settings:maintain'], body: {} },
  { method: 'GET', path: '/api/dashboard/counts', perms: [] },
  { method: 'GET', path: '/api/dashboard/charts', perms: [] },
  // campaigns
  { method: 'GET', path: '/api/campaigns', perms: CAMP_GET },
  { method: 'GET', path: '/api/campaigns/running/stats', perms: CAMP_GET },
  { method: 'GET', path: '/api/campaigns/analytics/views?id=1', perms: ['campaigns:get_analytics'] },
  { method: 'GET', path: '/api/campaigns/999999', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'GET', path: '/api/campaigns/999999/preview', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/preview', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/text', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/content', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns', perms: CAMP_MANAGE, body: {} },
  { method: 'PUT', path: '/api/campaigns/999999', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'PUT', path: '/api/campaigns/999999/status', perms: ['campaigns:send'], body: {}, extra: ALL_LISTS },
  { method: 'PUT', path: '/api/campaigns/999999/archive', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/test', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/campaigns/999999', perms: CAMP_MANAGE, extra: ALL_LISTS },
  // templates
  { method: 'GET', path: '/api/templates', perms: ['templates:get'] },
  { method: 'GET', path: '/api/templates/999999', perms: ['templates:get'] },
  { method: 'POST', path: '/api/templates/preview', perms: ['templates:get'], body: {} },
  { method: 'GET', path: '/api/templates/999999/preview', perms: ['templates:get'] },
  { method: 'POST', path: '/api/templates/999999/preview', perms: ['templates:get'], body: {} },
  { method: 'POST', path: '/api/templates', perms: ['templates:manage'], body: {} },
  { method: 'PUT', path: '/api/templates/999999', perms: ['templates:manage'], body: {} },
  { method: 'PUT', path: '/api/templates/999999/default', perms: ['templates:manage'] },
  { method: 'DELETE', path: '/api/templates/999999', perms: ['templates:manage'] },
  // media and bounces
  { method: 'GET', path: '/api/media', perms: ['media:get'] },
  { method: 'GET', path: '/api/media/999999', perms: ['media:get'] },
  { method: 'POST', path: '/api/media', perms: ['media:manage'], body: {} },
  { method: 'DELETE', path: '/api/media/999999', perms: ['media:manage'] },
  { method: 'GET', path: '/api/bounces', perms: ['bounces:get'] },
  { method: 'GET', path: '/api/bounces/999999', perms: ['bounces:get'] },
  { method: 'DELETE', path: '/api/bounces?id=999999', perms: ['bounces:manage'] },
  { method: 'DELETE', path: '/api/bounces/999999', perms: ['bounces:manage'] },
  { method: 'PUT', path: '/api/bounces/blocklist', perms: ['bounces:manage'], body: {} },
];

describe('permission table', () => {
  let t: TestServer;
  const callers = new Map<string, { creds: string; id: number }>();

  /** An API user whose role holds exactly these permissions (created once per set). */
  function caller(perms: string[]): { creds: string; id: number } {
    const key = [...perms].sort().join(',');
    let c = callers.get(key);
    if (!c) {
      const role = t.server.ctx.users.createUserRole(`perm-table-${callers.size}`, perms as Permission[]);
      const name = `caller-${callers.size}`;
      const creds = t.apiUser(name, role.id);
      c = { creds, id: t.server.ctx.users.listUsers().find((u) => u.username === name)!.id };
      callers.set(key, c);
    }
    return c;
  }

  before(async () => {
    t = await startTestServer();
  });
  after(() => t.stop());

  for (const r of ROUTES) {
    const label = `${r.method} ${r.path}`;
    const send = (who: { creds: string; id: number } | null) => t.request(r.method, r.path.replace('{self}', String(who?.id ?? 0)), r.body, { auth: who ? who.creds : null });

    it(`${label}: anonymous → 403`, async () => {
      const res = await send(null);
      assert.equal(res.status, 403, res.text);
    });

    it(`${label}: ${r.perms.length ? r.perms.join(' or ') : 'any user'} may`, async () => {
      for (const p of r.perms.length ? r.perms : [null]) {
        const res = await send(caller([...(p ? [p] : []), ...(r.extra ?? [])]));
        assert.notEqual(res.status, 403, `${p}: ${res.text}`);
        assert.ok(res.status < 500, res.text);
      }
    });

    if (r.perms.length) {
      it(`${label}: a user with every other permission may not`, async () => {
        const res = await send(caller(ALL_PERMISSIONS.filter((p) => !r.perms.includes(p))));
        assert.equal(res.status, 403, res.text);
        assert.match(res.body.message, /permission denied/);
      });
    }
  }

  it('a disabled user is refused on every route, at once', async () => {
    const c = caller(['users:get']);
    assert.equal((await t.request('GET', '/api/users', undefined, { auth: c.creds })).status, 200);
    t.server.ctx.users.updateUser(authorized(c.id), { status: 'disabled', listRoleId: 0 }, null);
    const res = await t.request('GET', '/api/users', undefined, { auth: c.creds });
    assert.equal(res.status, 403);
    t.server.ctx.users.updateUser(authorized(c.id), { status: 'enabled', listRoleId: 0 }, null);
  });
});

describe('list roles: which lists a user may see and change', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.stop());

  it('grants come from the list role; lists:get_all / lists:manage_all override it', () => {
    const db = t.server.ctx.db;
    const users = t.server.ctx.users;
    const addList = (name: string) => Number(db.prepare('INSERT INTO lists (uuid, name) VALUES (?, ?)').run(crypto.randomUUID(), name).lastInsertRowid);
    const [a, b, c] = [addList('A'), addList('B'), addList('C')];
    const listRole = users.createListRole('A read, B manage', [{ id: a, permissions: ['list:get'] }, { id: b, permissions: ['list:manage'] }]);
    const plain = users.createUserRole('plain', ['subscribers:get']);
    const getAll = users.createUserRole('get all', ['lists:get_all']);
    const make = (name: string, roleId: number, withLists: boolean) =>
      users.createUser({ username: name, type: 'api', status: 'enabled', userRoleId: roleId, listRoleId: withLists ? listRole.id : null }).user.id;

    const restricted = users.loadAuthUser(make('restricted', plain.id, true), 'token')!;
    assert.deepEqual(permittedLists(restricted, 'get'), [a, b]);
    assert.deepEqual(permittedLists(restricted, 'manage'), [b]);
    assert.equal(canAccessList(restricted, 'get', c), false);
    assert.equal(canAccessList(restricted, 'manage', a), false);
    assert.deepEqual(filterLists(restricted, 'manage', [a, b, c]), [b]);

    const none = users.loadAuthUser(make('no-list-role', plain.id, false), 'token')!;
    assert.deepEqual(permittedLists(none, 'get'), []);

    const all = users.loadAuthUser(make('sees-all', getAll.id, true), 'token')!;
    assert.equal(permittedLists(all, 'get'), 'all');
    assert.deepEqual(permittedLists(all, 'manage'), [b]);

    const admin = users.loadAuthUser(1, 'session')!;
    assert.equal(permittedLists(admin, 'manage'), 'all');

    // Changing the role's grants changes the access at once (re-read on every request).
    users.updateListRole(authorized(listRole.id), 'A read, B manage', [{ id: c, permissions: ['list:get'] }]);
    assert.deepEqual(permittedLists(users.loadAuthUser(restricted.id, 'token')!, 'get'), [c]);
  });
});
