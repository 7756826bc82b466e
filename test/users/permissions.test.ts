// The permission table (test/helpers/permission-matrix.ts) run against the real server, and the
// list roles.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ALL_PERMISSIONS, authorize, can, canAccessList, filterLists, permittedLists, type Permission } from '../../src/core/authz.ts';
import { PERMISSION_MATRIX } from '../helpers/permission-matrix.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

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

  for (const r of PERMISSION_MATRIX) {
    const label = `${r.method} ${r.path}`;
    const send = (who: { creds: string; id: number } | null) => t.request(r.method, r.path.replace('{self}', String(who?.id ?? 0)), r.body, { auth: who ? who.creds : null });

    it(`${label}: anonymous → 403`, async () => {
      const res = await send(null);
      assert.equal(res.status, 403, res.text);
    });

    if (r.superAdmin) {
      it(`${label}: a Super Admin may, a role with every permission may not`, async () => {
        const res = await t.request(r.method, r.path, r.body);
        assert.notEqual(res.status, 403, res.text);
        assert.ok(res.status < 500, res.text);
        const refused = await send(caller([...ALL_PERMISSIONS]));
        assert.equal(refused.status, 403, refused.text);
        assert.match(refused.body.message, /permission denied: only a Super Admin/);
      });
      continue;
    }

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
    const admin = t.server.ctx.users.loadAuthUser(1, 'session')!;
    const user = authorize(c.id, () => can(admin, 'users:manage'), () => new Error('the admin may manage users'));
    t.server.ctx.users.updateUser(user, { status: 'disabled', listRoleId: 0 }, null);
    const res = await t.request('GET', '/api/users', undefined, { auth: c.creds });
    assert.equal(res.status, 403);
    t.server.ctx.users.updateUser(user, { status: 'enabled', listRoleId: 0 }, null);
  });
});

describe('list roles: which lists a user may see and change', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.stop());

  it('grants come from the list role; lists:get_all / lists:manage_all override it', () => {
    const users = t.server.ctx.users;
    const f = fixtures(t.server.ctx.db);
    const [a, b, c] = ['A', 'B', 'C'].map((name) => f.list({ name }).id);
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
    const role = authorize(listRole.id, () => can(admin, 'roles:manage'), () => new Error('the admin may manage roles'));
    users.updateListRole(role, 'A read, B manage', [{ id: c, permissions: ['list:get'] }]);
    assert.deepEqual(permittedLists(users.loadAuthUser(restricted.id, 'token')!, 'get'), [c]);
  });
});
