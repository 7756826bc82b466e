// Nobody grants more than they hold: a caller gives or edits only roles within its own
// permissions, only a Super Admin assigns (or changes) a Super Admin (issue 16 point 9).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Permission } from '../../src/core/authz.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

describe('role escalation', () => {
  let t: TestServer;
  let n = 0;
  /** An API user whose user role holds exactly these permissions. */
  const caller = (perms: Permission[]) => {
    const role = t.server.ctx.users.createUserRole(`esc-${++n}`, perms);
    const name = `esc-caller-${n}`;
    const creds = t.apiUser(name, role.id);
    return { creds, roleId: role.id, id: t.server.ctx.users.listUsers().find((u) => u.username === name)!.id };
  };
  const as = (creds: string, method: string, path: string, body?: unknown) => t.request(method, path, body, { auth: creds });

  before(async () => {
    t = await startTestServer();
  });
  after(() => t.stop());

  it('users:manage cannot promote itself or anyone to Super Admin, nor give a role beyond its own', async () => {
    const me = caller(['users:get', 'users:manage']);
    const self = await as(me.creds, 'PUT', `/api/users/${me.id}`, { user_role_id: 1, list_role_id: 0 });
    assert.equal(self.status, 403, self.text);
    assert.match(self.body.message, /only a Super Admin can assign the Super Admin role/);
    const stronger = t.server.ctx.users.createUserRole('esc-stronger', ['users:get', 'users:manage', 'settings:manage']);
    const give = await as(me.creds, 'PUT', `/api/users/${me.id}`, { user_role_id: stronger.id, list_role_id: 0 });
    assert.equal(give.status, 403);
    assert.match(give.body.message, /"settings:manage"/);
    const create = await as(me.creds, 'POST', '/api/users', { username: 'esc-new', type: 'api', user_role_id: 1, status: 'enabled' });
    assert.equal(create.status, 403);
    assert.equal(t.server.ctx.users.listUsers().find((u) => u.username === 'esc-new'), undefined);
    // Its own role, or a weaker one, it may give; a user keeping its role may be edited.
    const weaker = t.server.ctx.users.createUserRole('esc-weaker', ['users:get']);
    const ok = await as(me.creds, 'POST', '/api/users', { username: 'esc-new', type: 'api', user_role_id: weaker.id, status: 'enabled' });
    assert.equal(ok.status, 200, ok.text);
    assert.equal((await as(me.creds, 'PUT', `/api/users/${ok.body.data.id}`, { user_role_id: me.roleId, list_role_id: 0 })).status, 200);
    assert.equal((await as(me.creds, 'PUT', `/api/users/${me.id}`, { name: 'Me', user_role_id: me.roleId, list_role_id: 0 })).status, 200);
    assert.equal(t.server.ctx.users.getUser(me.id).user_role.id, me.roleId);
  });

  it('users:manage cannot change or delete a Super Admin (its password would be a takeover)', async () => {
    const me = caller(['users:get', 'users:manage']);
    const pw = await as(me.creds, 'PUT', '/api/users/1', { password: 'taken-over-1', list_role_id: 0 });
    assert.equal(pw.status, 403);
    assert.match(pw.body.message, /only a Super Admin/);
    assert.equal((await as(me.creds, 'DELETE', '/api/users/1')).status, 403);
    // A Super Admin may.
    assert.equal((await t.request('PUT', `/api/users/${me.id}`, { user_role_id: 1, list_role_id: 0 })).status, 200);
    assert.equal((await t.request('PUT', `/api/users/${me.id}`, { user_role_id: me.roleId, list_role_id: 0 })).status, 200);
  });

  it('roles:manage cannot grant itself everything, nor edit a role beyond its own', async () => {
    const me = caller(['roles:get', 'roles:manage']);
    const all = await as(me.creds, 'PUT', `/api/roles/users/${me.roleId}`, { name: 'mine', permissions: ['roles:get', 'roles:manage', 'settings:manage'] });
    assert.equal(all.status, 403);
    assert.match(all.body.message, /"settings:manage": a caller gives or edits only roles within its own permissions/);
    assert.deepEqual(t.server.ctx.users.getUser(me.id).user_role.permissions.sort(), ['roles:get', 'roles:manage']);
    assert.equal((await as(me.creds, 'POST', '/api/roles/users', { name: 'esc-made', permissions: ['users:manage'] })).status, 403);
    const made = await as(me.creds, 'POST', '/api/roles/users', { name: 'esc-made', permissions: ['roles:get'] });
    assert.equal(made.status, 200, made.text);
    const theirs = t.server.ctx.users.createUserRole('esc-theirs', ['subscribers:get']);
    const edit = await as(me.creds, 'PUT', `/api/roles/users/${theirs.id}`, { name: 'renamed', permissions: ['roles:get'] });
    assert.equal(edit.status, 403);
    assert.match(edit.body.message, /cannot edit a role with the permission "subscribers:get"/);
  });

  it('list roles: a caller grants on a list only what it holds there', async () => {
    const list = await t.request('POST', '/api/lists', { name: 'Esc list', type: 'private', optin: 'single' });
    assert.equal(list.status, 200, list.text);
    const listId = list.body.data.id as number;
    const me = caller(['roles:get', 'roles:manage', 'users:get', 'users:manage']);
    const viewer = await t.request('POST', '/api/roles/lists', { name: 'esc-viewer', lists: [{ id: listId, permissions: ['list:get'] }] });
    assert.equal(viewer.status, 200, viewer.text);
    assert.equal((await t.request('PUT', `/api/users/${me.id}`, { list_role_id: viewer.body.data.id })).status, 200);
    const manage = await as(me.creds, 'POST', '/api/roles/lists', { name: 'esc-manager', lists: [{ id: listId, permissions: ['list:get', 'list:manage'] }] });
    assert.equal(manage.status, 403);
    assert.match(manage.body.message, /"list:manage" on list/);
    const grant = await as(me.creds, 'PUT', `/api/roles/lists/${viewer.body.data.id}`, { name: 'esc-viewer', lists: [{ id: listId, permissions: ['list:manage'] }] });
    assert.equal(grant.status, 403);
    const managerRole = await t.request('POST', '/api/roles/lists', { name: 'esc-manager-2', lists: [{ id: listId, permissions: ['list:manage'] }] });
    const take = await as(me.creds, 'PUT', `/api/users/${me.id}`, { list_role_id: managerRole.body.data.id });
    assert.equal(take.status, 403);
    const same = await as(me.creds, 'POST', '/api/roles/lists', { name: 'esc-viewer-2', lists: [{ id: listId, permissions: ['list:get'] }] });
    assert.equal(same.status, 200, same.text);
  });
});
