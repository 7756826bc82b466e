// /api/users, /api/profile and /api/roles as scenario tables: each step names the request, the
// expected status, what the answer must (and must not) hold, and the side effects.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { assertNoSecrets, recorder, type Recorder } from './helpers.ts';

describe('users and roles API', () => {
  let t: TestServer;
  let r: Recorder;
  const ids: Record<string, number> = {};
  const secrets: string[] = [];
  const q = (sql: string, ...params: unknown[]) => t.server.ctx.db.prepare(sql).all(...params) as any[];
  // Every answer goes through the recorder, so the suite can prove no secret left the server.
  const run = (scenarios: Scenario[]) => runScenarios(() => t, scenarios, { request: (...a) => r.request(...a) });

  before(async () => {
    t = await startTestServer();
    r = recorder(t);
    secrets.push(t.token.split(':')[1]);
    ids.list = fixtures(t.server.ctx.db).list({ name: 'Digest' }).id;
  });
  after(async () => {
    // Neither tokens nor password hashes ever left the server, in answers or in the log.
    const hashes = q('SELECT password FROM users WHERE password IS NOT NULL').map((u) => u.password as string);
    assertNoSecrets([...r.bodies, ...t.server.ctx.log.recent()], [...secrets, ...hashes]);
    await t.stop();
  });

  describe('user roles', () => run([
    { name: 'create a user role', method: 'POST', path: '/api/roles/users', body: { name: 'Editors', permissions: ['campaigns:get', 'users:get', 'campaigns:get'] }, status: 200,
      after: ({ body: b }) => {
        ids.editors = b.data.id;
        assert.deepEqual(b.data.permissions, ['campaigns:get', 'users:get']);
        assert.equal(b.data.type, 'user');
        assert.equal(b.data.lists, null);
      } },
    { name: 'duplicate name → 409', method: 'POST', path: '/api/roles/users', body: { name: 'Editors', permissions: [] }, status: 409 },
    { name: 'unknown permission → 400, nothing stored', method: 'POST', path: '/api/roles/users', body: { name: 'Bad', permissions: ['lists:destroy'] }, status: 400,
      after: ({ body: b }) => {
        assert.match(b.message, /lists:destroy/);
        assert.equal(q(`SELECT * FROM roles WHERE name = 'Bad'`).length, 0);
      } },
    { name: 'empty name → 400', method: 'POST', path: '/api/roles/users', body: { name: '  ', permissions: [] }, status: 400 },
    { name: 'a single permission string is not a list (as listmonk\'s decoder)', method: 'POST', path: '/api/roles/users', body: { name: 'X', permissions: 'users:get' }, status: 400, contains: ['invalid "permissions": expected an array of strings'] },
    { name: 'a role with one permission', method: 'POST', path: '/api/roles/users', body: { name: 'X', permissions: ['users:get'] }, status: 200,
      after: ({ body: b }) => { ids.single = b.data.id; assert.deepEqual(b.data.permissions, ['users:get']); } },
    { name: 'update a user role', method: 'PUT', path: () => `/api/roles/users/${ids.editors}`, body: { name: 'Editors', permissions: ['campaigns:get', 'campaigns:manage'] }, status: 200,
      after: ({ body: b }) => assert.deepEqual(b.data.permissions, ['campaigns:get', 'campaigns:manage']) },
    { name: 'rename onto another role → 409', method: 'PUT', path: () => `/api/roles/users/${ids.single}`, body: { name: 'Editors', permissions: [] }, status: 409 },
    { name: 'the Super Admin role cannot be changed', method: 'PUT', path: '/api/roles/users/1', body: { name: 'Nobody', permissions: [] }, status: 400,
      after: () => assert.equal(q('SELECT name FROM roles WHERE id = 1')[0].name, 'Super Admin') },
    { name: 'unknown role → 404', method: 'PUT', path: '/api/roles/users/9999', body: { name: 'Z', permissions: [] }, status: 404 },
    { name: 'list the user roles in creation order', method: 'GET', path: '/api/roles/users', status: 200,
      after: ({ body: b }) => assert.deepEqual(b.data.map((x: any) => x.name), ['Super Admin', 'Editors', 'X']) },
  ]));

  describe('list roles', () => run([
    { name: 'create a list role (empty grants dropped)', method: 'POST', path: '/api/roles/lists', body: () => ({ name: 'Digest team', lists: [{ id: ids.list, permissions: ['list:manage', 'list:get'] }, { id: 424242, permissions: [] }] }), status: 200,
      after: ({ body: b }) => {
        ids.digest = b.data.id;
        assert.deepEqual(b.data.lists, [{ id: ids.list, name: 'Digest', permissions: ['list:get', 'list:manage'] }]);
      } },
    { name: 'unknown list → 400', method: 'POST', path: '/api/roles/lists', body: { name: 'Ghost', lists: [{ id: 424242, permissions: ['list:get'] }] }, status: 400 },
    { name: 'a user-role permission in a list role → 400', method: 'POST', path: '/api/roles/lists', body: () => ({ name: 'Wrong', lists: [{ id: ids.list, permissions: ['lists:get_all'] }] }), status: 400 },
    { name: 'duplicate name → 409', method: 'POST', path: '/api/roles/lists', body: { name: 'Digest team', lists: [] }, status: 409 },
    { name: 'a user role through the list-role route → 404', method: 'PUT', path: () => `/api/roles/lists/${ids.editors}`, body: { name: 'Y', lists: [] }, status: 404,
      after: () => assert.equal(q('SELECT permissions FROM roles WHERE id = ?', ids.editors)[0].permissions, '["campaigns:get","campaigns:manage"]') },
    { name: 'update replaces the grants', method: 'PUT', path: () => `/api/roles/lists/${ids.digest}`, body: () => ({ name: 'Digest team', lists: [{ id: ids.list, permissions: ['list:get'] }] }), status: 200,
      after: ({ body: b }) => assert.deepEqual(b.data.lists[0].permissions, ['list:get']) },
    { name: 'list the list roles', method: 'GET', path: '/api/roles/lists', status: 200,
      after: ({ body: b }) => assert.deepEqual(b.data.map((x: any) => x.name), ['Digest team']) },
  ]));

  describe('users', () => run([
    { name: 'create a login user', method: 'POST', path: '/api/users', status: 200,
      body: () => ({ username: 'sofia', email: ' Sofia@Acme.Example ', name: 'Sofia Marin', type: 'user', status: 'enabled', password_login: true, password: 'sofia-password', user_role_id: ids.editors, list_role_id: ids.digest }),
      after: ({ body: b }) => {
        ids.sofia = b.data.id;
        assert.equal(b.data.password, null);
        assert.equal(b.data.email, 'sofia@acme.example');
        assert.equal(b.data.user_role.name, 'Editors');
        assert.equal(b.data.list_role_id, ids.digest);
        assert.equal(b.data.list_role.lists[0].name, 'Digest');
        assert.equal(b.data.twofa_type, 'none');
        assert.match(q('SELECT password FROM users WHERE id = ?', ids.sofia)[0].password, /^scrypt\$/);
      } },
    { name: 'a user created without a status is disabled (listmonk\'s column default)', method: 'POST', path: '/api/users', status: 200,
      body: () => ({ username: 'nostatus', email: 'nostatus@acme.example', type: 'user', user_role_id: ids.editors }),
      after: ({ body: b }) => {
        assert.equal(b.data.status, 'disabled');
        t.server.ctx.db.prepare('DELETE FROM users WHERE id = ?').run(b.data.id);
      } },
    { name: 'duplicate username → 409', method: 'POST', path: '/api/users', status: 409,
      body: () => ({ username: 'sofia', email: 'other@acme.example', type: 'user', password_login: true, password: 'password-1', user_role_id: ids.editors }) },
    { name: 'duplicate e-mail → 409', method: 'POST', path: '/api/users', status: 409,
      body: () => ({ username: 'other', email: 'SOFIA@acme.example', type: 'user', password_login: true, password: 'password-1', user_role_id: ids.editors }) },
    { name: 'password shorter than 8 → 400', method: 'POST', path: '/api/users', status: 400,
      body: () => ({ username: 'shorty', email: 's@acme.example', type: 'user', password_login: true, password: '1234567', user_role_id: ids.editors }),
      after: () => assert.equal(q(`SELECT * FROM users WHERE username = 'shorty'`).length, 0) },
    { name: 'bad username → 400', method: 'POST', path: '/api/users', status: 400,
      body: () => ({ username: 'no spaces', email: 'n@acme.example', type: 'user', user_role_id: ids.editors }) },
    { name: 'invalid e-mail → 400', method: 'POST', path: '/api/users', status: 400,
      body: () => ({ username: 'mailless', email: 'Jane <j@x.io>', type: 'user', user_role_id: ids.editors }) },
    { name: 'unknown type → 400', method: 'POST', path: '/api/users', status: 400, body: () => ({ username: 'typo', type: 'robot', user_role_id: ids.editors }) },
    { name: 'a list role as user role → 400', method: 'POST', path: '/api/users', status: 400, body: () => ({ username: 'rolemix', type: 'api', user_role_id: ids.digest }) },
    { name: 'create an API user: the token is answered once', method: 'POST', path: '/api/users', status: 200,
      body: () => ({ username: 'crm-sync', type: 'api', status: 'enabled', user_role_id: ids.editors, email: 'ignored@x.io', password: 'ignored-pass' }),
      after: ({ body: b }) => {
        ids.crm = b.data.id;
        assert.match(b.data.password, /^[A-Za-z0-9]{48}$/);
        assert.equal(b.data.email, null);
        secrets.push(b.data.password);
        // This answer is the one place the token may appear; every other body is checked.
        r.bodies.splice(r.bodies.findIndex((x) => x.includes(b.data.password)), 1);
        (t as any).crmCreds = `crm-sync:${b.data.password}`;
        const stored = q('SELECT password FROM users WHERE id = ?', ids.crm)[0].password;
        assert.notEqual(stored, b.data.password);
        assert.match(stored, /^[0-9a-f]{64}$/);
      } },
    { name: 'the new token authenticates, with its role', method: 'GET', path: '/api/roles/users', auth: () => (t as any).crmCreds, status: 403 },
    { name: 'later reads never show the token', method: 'GET', path: () => `/api/users/${ids.crm}`, status: 200, after: ({ body: b }) => assert.equal(b.data.password, null) },
    { name: 'a new token for the API user: answered once, the old one stops working', method: 'POST', path: () => `/api/users/${ids.crm}/token`, status: 200,
      after: ({ body: b }) => {
        const old = (t as any).crmCreds as string;
        assert.match(b.data.password, /^[A-Za-z0-9]{48}$/);
        assert.notEqual(`crm-sync:${b.data.password}`, old);
        assert.equal(b.data.username, 'crm-sync');
        secrets.push(b.data.password);
        r.bodies.splice(r.bodies.findIndex((x) => x.includes(b.data.password)), 1);
        (t as any).oldCrmCreds = old;
        (t as any).crmCreds = `crm-sync:${b.data.password}`;
        assert.equal(q('SELECT password FROM users WHERE id = ?', ids.crm)[0].password.length, 64);
      } },
    { name: 'the old token is refused', method: 'GET', path: '/api/profile', auth: () => (t as any).oldCrmCreds, status: 403 },
    { name: 'the new token works', method: 'GET', path: '/api/profile', auth: () => (t as any).crmCreds, status: 200 },
    { name: 'a login user has no token to renew → 400, nothing changed', method: 'POST', path: () => `/api/users/${ids.sofia}/token`, status: 400,
      after: () => assert.match(q('SELECT password FROM users WHERE id = ?', ids.sofia)[0].password, /^scrypt\$/) },
    { name: 'a new token for an unknown user → 404', method: 'POST', path: '/api/users/9999/token', status: 404 },
    { name: 'a new token needs users:manage', method: 'POST', path: () => `/api/users/${ids.crm}/token`, auth: () => (t as any).crmCreds, status: 403 },
    { name: 'list users', method: 'GET', path: '/api/users', status: 200,
      after: ({ body: b }) => {
        assert.deepEqual(b.data.map((u: any) => u.username), ['admin', 'tester', 'sofia', 'crm-sync']);
        assert.ok(b.data.every((u: any) => u.password === null && !('twofa_key' in u)));
      } },
    { name: 'unknown user → 404', method: 'GET', path: '/api/users/9999', status: 404 },
    { name: 'update: absent list_role_id removes the list role', method: 'PUT', path: () => `/api/users/${ids.sofia}`, body: { name: 'Sofia M.' }, status: 200,
      after: ({ body: b }) => {
        assert.equal(b.data.name, 'Sofia M.');
        assert.equal(b.data.list_role, null);
        assert.equal(b.data.username, 'sofia');
      } },
    { name: 'update: list_role_id 0 keeps it', method: 'PUT', path: () => `/api/users/${ids.sofia}`, body: () => ({ list_role_id: ids.digest }), status: 200,
      after: ({ body: b }) => assert.equal(b.data.list_role.id, ids.digest) },
    { name: 'update: e-mail taken → 409', method: 'PUT', path: () => `/api/users/${ids.sofia}`, body: { email: 'admin@listmgr.localhost', list_role_id: 0 }, status: 409 },
    { name: 'update: bad status → 400', method: 'PUT', path: () => `/api/users/${ids.sofia}`, body: { status: 'paused' }, status: 400 },
  ]));

  describe('roles in use', () => run([
    { name: 'a user role in use cannot be deleted (409)', method: 'DELETE', path: () => `/api/roles/${ids.editors}`, status: 409,
      after: () => assert.equal(q('SELECT * FROM roles WHERE id = ?', ids.editors).length, 1) },
    { name: 'a list role in use cannot be deleted (409), and its users stay', method: 'DELETE', path: () => `/api/roles/${ids.digest}`, status: 409,
      after: () => assert.equal(q('SELECT list_role_id FROM users WHERE id = ?', ids.sofia)[0].list_role_id, ids.digest) },
    { name: 'the Super Admin role cannot be deleted', method: 'DELETE', path: '/api/roles/1', status: 400 },
    { name: 'unknown role → 404', method: 'DELETE', path: '/api/roles/9999', status: 404 },
    { name: 'after unassigning, the list role goes; no user is deleted', method: 'PUT', path: () => `/api/users/${ids.sofia}`, body: {}, status: 200 },
    { name: 'delete the list role', method: 'DELETE', path: () => `/api/roles/${ids.digest}`, status: 200,
      after: () => {
        assert.equal(q('SELECT * FROM users WHERE id = ?', ids.sofia).length, 1);
        assert.equal(q('SELECT * FROM role_lists WHERE role_id = ?', ids.digest).length, 0);
      } },
    { name: 'delete an unused user role', method: 'DELETE', path: () => `/api/roles/${ids.single}`, status: 200 },
  ]));

  describe('the last enabled Super Admin', () => run([
    { name: 'cannot be disabled', method: 'PUT', path: '/api/users/1', body: { status: 'disabled' }, status: 400,
      after: ({ body: b }) => {
        assert.match(b.message, /Super Admin/);
        assert.equal(q('SELECT status FROM users WHERE id = 1')[0].status, 'enabled');
      } },
    { name: 'cannot be demoted', method: 'PUT', path: '/api/users/1', body: () => ({ user_role_id: ids.editors }), status: 400,
      after: () => assert.equal(q('SELECT user_role_id FROM users WHERE id = 1')[0].user_role_id, 1) },
    { name: 'cannot be deleted', method: 'DELETE', path: '/api/users/1', status: 400 },
    { name: 'cannot be deleted along with others; nothing is deleted', method: 'DELETE', path: () => `/api/users?id=1&id=${ids.crm}`, status: 400,
      after: () => assert.equal(q('SELECT * FROM users WHERE id = ?', ids.crm).length, 1) },
    { name: 'an API user with the Super Admin role does not count: promote sofia instead', method: 'PUT', path: () => `/api/users/${ids.sofia}`, body: { user_role_id: 1 }, status: 200 },
    { name: 'now the first admin may be disabled', method: 'PUT', path: '/api/users/1', body: { status: 'disabled' }, status: 200 },
    { name: 'but not the remaining one', method: 'DELETE', path: () => `/api/users/${ids.sofia}`, status: 400 },
    { name: 're-enable the first admin', method: 'PUT', path: '/api/users/1', body: { status: 'enabled' }, status: 200 },
    { name: 'delete several users at once', method: 'DELETE', path: () => `/api/users?id=${ids.crm},${ids.sofia}`, status: 200,
      after: () => assert.equal(q('SELECT * FROM users WHERE id IN (?, ?)', ids.crm, ids.sofia).length, 0) },
    { name: 'non-integer id → 400', method: 'DELETE', path: '/api/users?id=abc', status: 400 },
    { name: 'unknown id → 404', method: 'DELETE', path: '/api/users/9999', status: 404 },
  ]));

  describe('profile', () => run([
    { name: 'GET /api/profile answers the caller', method: 'GET', path: '/api/profile', status: 200,
      after: ({ body: b }) => {
        assert.equal(b.data.username, 'tester');
        assert.equal(b.data.user_role.id, 1);
      } },
    { name: 'PUT /api/profile changes the name only (role untouched)', method: 'PUT', path: '/api/profile', body: { name: 'Test Robot', user_role_id: 2, status: 'disabled' }, status: 200,
      after: ({ body: b }) => {
        assert.equal(b.data.name, 'Test Robot');
        assert.equal(b.data.user_role.id, 1);
        assert.equal(b.data.status, 'enabled');
      } },
    { name: 'an empty name → 400', method: 'PUT', path: '/api/profile', body: { name: '' }, status: 400 },
  ]));

  it('the log records who changed what, without secrets', () => {
    const log = t.server.ctx.log.recent().join('\n');
    assert.match(log, /user "crm-sync" \(api\) created by tester/);
  });
});
