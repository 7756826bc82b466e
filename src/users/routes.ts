// /api/users, /api/profile, 2FA, /api/logout and /api/roles. Who may see or change which user
// or role is decided by the users service. (The sign-in pages are registered beside this table.)
import type { Context } from 'hono';
import { clearSessionCookie } from '../http/auth.ts';
import { ok } from '../http/envelope.ts';
import { invalid } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';
import { LIST_PERMISSIONS, type Actor, type Authenticator } from '../core/authz.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, parseInput, pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import type { ListRoleInput, UserService } from './service.ts';
import type { UserInput, UserStatus, UserType } from './store.ts';

interface Deps {
  userService: UserService;
  users: { authenticator(): Authenticator };
}
type C = Context<AppEnv>;

const USER_TYPES = ['user', 'api'] as const satisfies readonly UserType[];
const USER_STATUSES = ['enabled', 'disabled'] as const satisfies readonly UserStatus[];

const route = routesFor<Deps>();
/** The user the path names is one the caller may change (users:manage, holding no more than the caller). */
const changesUser = (d: Deps, actor: Actor, p: Readonly<Record<string, string>>) => d.userService.mayChangeUser(actor, Number(p.id));
/** The caller's own 2FA, or that of a user it may change. */
const changesTwofa = (d: Deps, actor: Actor, p: Readonly<Record<string, string>>) => d.userService.mayChangeTwofa(actor, Number(p.id));
export const USER_ROUTES = [
  route({ method: 'GET', path: '/users', access: 'users:get', handler: listUsers, summary: 'Every user, in id order' }),
  route({ method: 'GET', path: '/users/:id', access: 'users:get', handler: getUser, summary: 'One user' }),
  route({ method: 'POST', path: '/users', access: 'users:manage', handler: createUser, body: newUserInput, summary: 'Creates a login or API user (an API user\'s token is answered once, in `password`)' }),
  route({ method: 'PUT', path: '/users/:id', access: 'users:manage', may: changesUser, handler: updateUser, body: userChanges, summary: 'Changes a user (fields not given keep their value, except list_role_id)' }),
  route({ method: 'POST', path: '/users/:id/token', access: 'users:manage', may: changesUser, handler: regenerateToken, summary: 'Gives an API user a new token, answered once in `password`; the old token stops working (listmgr\'s addition)' }),
  route({ method: 'DELETE', path: '/users/:id', access: 'users:manage', may: changesUser, handler: deleteUser, summary: 'Deletes a user (an enabled Super Admin must remain)' }),
  route({ method: 'DELETE', path: '/users', access: 'users:manage', handler: deleteUsers, query: deleteQuery, summary: 'Deletes users by id (an enabled Super Admin must remain)' }),
  route({ method: 'GET', path: '/profile', access: 'signed-in', handler: getProfile, summary: 'The caller\'s own user' }),
  route({ method: 'PUT', path: '/profile', access: 'signed-in', handler: updateProfile, body: profileChanges, summary: 'Changes the caller\'s name, and e-mail and password if they sign in with one' }),
  route({ method: 'POST', path: '/profile/first-run/dismiss', access: 'signed-in', handler: dismissFirstRun, summary: 'Hides the dashboard\'s first-run checklist for the caller (listmgr\'s addition)' }),
  route({ method: 'POST', path: '/logout', access: 'signed-in', handler: logout, summary: 'Ends the caller\'s session' }),
  route({ method: 'GET', path: '/users/:id/twofa/totp', access: 'signed-in', may: changesTwofa, handler: startTotp, summary: 'A new TOTP secret and QR code to enrol (the caller\'s own, or anyone\'s with users:manage)' }),
  route({ method: 'PUT', path: '/users/:id/twofa', access: 'signed-in', may: changesTwofa, handler: enableTotp, body: totpInput, bodyKind: 'json-or-form', summary: 'Turns TOTP on with the enrolled secret and a current code, confirmed with the caller\'s password (own, or with users:manage); the user\'s other sessions end' }),
  route({ method: 'DELETE', path: '/users/:id/twofa', access: 'signed-in', may: changesTwofa, handler: disableTotp, body: passwordConfirmation, bodyKind: 'json-or-form', summary: 'Turns TOTP off, confirmed with the caller\'s password (own, or with users:manage)' }),
  route({ method: 'GET', path: '/roles/users', access: 'roles:get', handler: listUserRoles, summary: 'The user roles (sets of permissions)' }),
  route({ method: 'GET', path: '/roles/lists', access: 'roles:get', handler: listListRoles, summary: 'The list roles (per-list grants)' }),
  route({ method: 'POST', path: '/roles/users', access: 'roles:manage', handler: createUserRole, body: userRoleInput, summary: 'Creates a user role' }),
  route({ method: 'POST', path: '/roles/lists', access: 'roles:manage', handler: createListRole, body: listRoleInput, summary: 'Creates a list role' }),
  route({ method: 'PUT', path: '/roles/users/:id', access: 'roles:manage', may: (d, actor, p) => d.userService.mayEditRole(actor, Number(p.id), 'user'), handler: updateUserRole, body: userRoleInput, summary: 'Replaces a user role\'s name and permissions' }),
  route({ method: 'PUT', path: '/roles/lists/:id', access: 'roles:manage', may: (d, actor, p) => d.userService.mayEditRole(actor, Number(p.id), 'list'), handler: updateListRole, body: listRoleInput, summary: 'Replaces a list role\'s name and grants' }),
  route({ method: 'DELETE', path: '/roles/:id', access: 'roles:manage', handler: deleteRole, summary: 'Deletes a role no user holds' }),
];

function userFields() {
  return {
    username: f.optString(),
    email: f.optString(),
    name: f.optString({ maxBytes: LIMITS.name }),
    type: f.optEnum(USER_TYPES),
    status: f.optEnum(USER_STATUSES),
    password_login: f.optBool(),
    // Passwords are taken exactly as typed, everywhere (never trimmed).
    password: f.optString({ trim: false }),
    user_role_id: f.optInt({ min: 0 }),
    list_role_id: f.optInt({ min: 0 }),
  };
}

function newUserInput() {
  return z.object({ ...userFields(), type: f.reqEnum(USER_TYPES) }).meta({ id: 'NewUser' });
}

/**
 * A PUT: fields not given keep their value, except list_role_id, whose absence removes the list
 * role (listmonk's; 0 keeps it). The type cannot change (given, it must still be a valid one).
 */
function userChanges() {
  return z.object(userFields()).meta({ id: 'UserChanges' });
}

function deleteQuery() {
  return z.object({ id: q.ids() });
}

function profileChanges() {
  return z.object({
    name: f.optString(), email: f.optString(), password: f.optString({ trim: false }),
    current_password: f.optString({ trim: false }),
  }).meta({ id: 'ProfileChanges' });
}

/** Optional here: the service requires them once it has checked whose 2FA this is. */
function totpInput() {
  return z.object({ secret: f.optString(), code: f.optString(), password: f.optString({ trim: false }) }).meta({ id: 'TotpInput' });
}

function passwordConfirmation() {
  return z.object({ password: f.optString({ trim: false }) }).meta({ id: 'PasswordConfirmation' });
}

function userRoleInput() {
  return z.object({ name: f.reqString(), permissions: f.optStringArray() }).meta({ id: 'UserRoleInput' });
}

function listRoleInput() {
  const grant = { type: 'object', properties: { id: { type: 'integer', minimum: 1 }, permissions: { type: 'array', items: { type: 'string', enum: LIST_PERMISSIONS } } }, required: ['id'] };
  return z.object({ name: f.reqString(), lists: f.any().meta({ type: 'array', items: grant }) })
    .meta({ id: 'ListRoleInput' })
    // The grants are read after the name, with listmonk's wording for their problems.
    .transform((b): ListRoleInput => ({ name: b.name, lists: listGrants(b.lists) }));
}

const grantEntry = () => z.object({ id: f.optInt({ min: 1 }), permissions: f.optStringArray() });

function listGrants(raw: unknown): ListRoleInput['lists'] {
  const list = raw ?? [];
  const shape = () => invalid('invalid "lists": expected an array of {id, permissions}');
  if (!Array.isArray(list)) throw shape();
  return list.map((entry: unknown) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw shape();
    const g = parseInput(grantEntry(), entry);
    if (g.id === undefined) throw invalid('invalid "lists": every entry needs a list "id"');
    return { id: g.id, permissions: g.permissions ?? [] };
  });
}

type UserBody = z.output<ReturnType<typeof userChanges>>;

function userInput(b: UserBody): UserInput {
  return {
    username: b.username,
    email: b.email,
    name: b.name,
    type: b.type,
    status: b.status,
    passwordLogin: b.password_login,
    password: b.password,
    userRoleId: b.user_role_id,
    listRoleId: b.list_role_id ?? null,
  };
}

/** The caller's session cookie value when a session authenticated the request (kept on password changes). */
const ownSession = (c: C) => (c.get('user').via === 'session' ? c.get('session') ?? null : null);

function listUsers(c: C, s: Deps) {
  return ok(c, s.userService.list(c.get('user')));
}

function getUser(c: C, s: Deps) {
  return ok(c, s.userService.get(c.get('user'), pathId(c)));
}

async function createUser(c: C, s: Deps, { body }: Input<ReturnType<typeof newUserInput>, undefined>) {
  const { user, token } = await s.userService.create(c.get('user'), { ...userInput(body), type: body.type });
  // The API token is answered this once, in `password`, as listmonk does.
  return ok(c, token === null ? user : { ...user, password: token });
}

async function updateUser(c: C, s: Deps, { body }: Input<ReturnType<typeof userChanges>, undefined>) {
  const id = pathId(c);
  return ok(c, await s.userService.update(c.get('user'), id, userInput(body), id === c.get('user').id ? ownSession(c) : null));
}

function regenerateToken(c: C, s: Deps) {
  const id = pathId(c);
  const token = s.userService.regenerateToken(c.get('user'), id);
  // As on creation: the token is answered this once, in `password`.
  return ok(c, { ...s.userService.get(c.get('user'), id), password: token });
}

function deleteUser(c: C, s: Deps) {
  s.userService.delete(c.get('user'), pathId(c));
  return ok(c, true);
}

function deleteUsers(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof deleteQuery>>) {
  s.userService.deleteMany(c.get('user'), p.id);
  return ok(c, true);
}

function getProfile(c: C, s: Deps) {
  return ok(c, s.userService.profile(c.get('user')));
}

async function updateProfile(c: C, s: Deps, { body }: Input<ReturnType<typeof profileChanges>, undefined>) {
  return ok(c, await s.userService.updateProfile(c.get('user'), body, ownSession(c)));
}

function dismissFirstRun(c: C, s: Deps) {
  s.userService.dismissFirstRun(c.get('user'));
  return ok(c, true);
}

function logout(c: C, s: Deps) {
  const session = ownSession(c);
  if (session) s.userService.endSession(session);
  clearSessionCookie(c, s.users.authenticator());
  return ok(c, true);
}

async function startTotp(c: C, s: Deps) {
  return ok(c, await s.userService.totpEnrolment(c.get('user'), pathId(c)));
}

async function enableTotp(c: C, s: Deps, { body }: Input<ReturnType<typeof totpInput>, undefined>) {
  await s.userService.enableTotp(c.get('user'), pathId(c), body, ownSession(c));
  return ok(c, true);
}

async function disableTotp(c: C, s: Deps, { body }: Input<ReturnType<typeof passwordConfirmation>, undefined>) {
  await s.userService.disableTotp(c.get('user'), pathId(c), body.password, ownSession(c));
  return ok(c, true);
}

function listUserRoles(c: C, s: Deps) {
  return ok(c, s.userService.userRoles(c.get('user')));
}

function listListRoles(c: C, s: Deps) {
  return ok(c, s.userService.listRoles(c.get('user')));
}

function createUserRole(c: C, s: Deps, { body }: Input<ReturnType<typeof userRoleInput>, undefined>) {
  return ok(c, s.userService.createUserRole(c.get('user'), { name: body.name, permissions: body.permissions ?? [] }));
}

function createListRole(c: C, s: Deps, { body }: Input<ReturnType<typeof listRoleInput>, undefined>) {
  return ok(c, s.userService.createListRole(c.get('user'), body));
}

function updateUserRole(c: C, s: Deps, { body }: Input<ReturnType<typeof userRoleInput>, undefined>) {
  return ok(c, s.userService.updateUserRole(c.get('user'), pathId(c), { name: body.name, permissions: body.permissions ?? [] }));
}

function updateListRole(c: C, s: Deps, { body }: Input<ReturnType<typeof listRoleInput>, undefined>) {
  return ok(c, s.userService.updateListRole(c.get('user'), pathId(c), body));
}

function deleteRole(c: C, s: Deps) {
  s.userService.deleteRole(c.get('user'), pathId(c));
  return ok(c, true);
}
