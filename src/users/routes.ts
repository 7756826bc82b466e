// /api/users, /api/profile, 2FA, /api/logout and /api/roles; plus the admin login pages.
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie } from 'hono/cookie';
import type { Services } from '../services.ts';
import { SESSION_COOKIE } from '../http/auth.ts';
import { readBody, readJson, type Body } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { badRequest, forbidden } from '../http/errors.ts';
import { hasPerm } from '../http/permissions.ts';
import type { AppEnv } from '../http/types.ts';
import { optBool, optEnum, optInt, optString, optStringArray, pathId, queryIds, reqEnum, reqString } from '../http/validate.ts';
import { assertPassword, type ListRoleGrant, type UserInput } from './store.ts';
import { isTotpSecret, newTotpEnrolment, totpCodeStep } from './totp.ts';

const USER_TYPES = ['user', 'api'] as const;
const USER_STATUSES = ['enabled', 'disabled'] as const;

function userInput(b: Body): UserInput {
  return {
    username: optString(b, 'username'),
    email: optString(b, 'email'),
    name: optString(b, 'name'),
    type: optEnum(b, 'type', USER_TYPES),
    status: optEnum(b, 'status', USER_STATUSES),
    passwordLogin: optBool(b, 'password_login'),
    // Passwords are taken exactly as typed, everywhere (never trimmed).
    password: optString(b, 'password', { trim: false }),
    userRoleId: optInt(b, 'user_role_id', { min: 0 }),
    listRoleId: optInt(b, 'list_role_id', { min: 0 }) ?? null,
  };
}

function listGrants(b: Body): ListRoleGrant[] {
  const raw = b.lists ?? [];
  if (!Array.isArray(raw)) throw badRequest('invalid "lists": expected an array of {id, permissions}');
  return raw.map((entry) => {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) throw badRequest('invalid "lists": expected an array of {id, permissions}');
    const e = entry as Body;
    const id = optInt(e, 'id', { min: 1 });
    if (id === undefined) throw badRequest('invalid "lists": every entry needs a list "id"');
    return { id, permissions: optStringArray(e, 'permissions') ?? [] };
  });
}

/** The caller's session cookie value when the request came with one (kept on password changes). */
const ownSession = (c: Context<AppEnv>) => (c.get('user').via === 'session' ? getCookie(c, SESSION_COOKIE) ?? null : null);

export function registerUsersRoutes(app: Hono<AppEnv>, api: Hono<AppEnv>, ctx: Services): void {
  const { guard, users, log } = ctx;
  users.useRootUrl(() => ctx.settings.rootUrl());

  // ---- users ----
  api.get('/users', guard('users:get'), (c) => ok(c, users.listUsers()));

  api.get('/users/:id', guard('users:get'), (c) => ok(c, users.getUser(pathId(c))));

  api.post('/users', guard('users:manage'), async (c) => {
    const b = await readJson(c);
    const { user, token } = users.createUser({ ...userInput(b), type: reqEnum(b, 'type', USER_TYPES) });
    log.info(`user "${user.username}" (${user.type}) created by ${c.get('user').username}`);
    // The API token is answered this once, in `password`, as listmonk does.
    return ok(c, token === null ? user : { ...user, password: token });
  });

  api.put('/users/:id', guard('users:manage'), async (c) => {
    const id = pathId(c);
    const user = users.updateUser(id, userInput(await readJson(c)), id === c.get('user').id ? ownSession(c) : null);
    log.info(`user "${user.username}" updated by ${c.get('user').username}`);
    return ok(c, user);
  });

  api.delete('/users/:id', guard('users:manage'), (c) => {
    const id = pathId(c);
    users.deleteUsers([id]);
    log.info(`user ${id} deleted by ${c.get('user').username}`);
    return ok(c, true);
  });

  api.delete('/users', guard('users:manage'), (c) => {
    const ids = queryIds(c, 'id');
    users.deleteUsers(ids);
    log.info(`users ${ids.join(', ')} deleted by ${c.get('user').username}`);
    return ok(c, true);
  });

  // ---- the caller's own account ----
  api.get('/profile', guard('signed-in'), (c) => ok(c, users.getUser(c.get('user').id)));

  api.put('/profile', guard('signed-in'), async (c) => {
    const b = await readJson(c);
    const user = users.updateProfile(c.get('user').id, {
      name: optString(b, 'name'),
      email: optString(b, 'email'),
      password: optString(b, 'password', { trim: false }),
    }, ownSession(c));
    return ok(c, user);
  });

  api.post('/logout', guard('signed-in'), (c) => {
    const session = ownSession(c);
    if (session) users.endSession(session);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return ok(c, true);
  });

  // ---- two-factor authentication (the caller's own, or anyone's with users:manage) ----
  const twofaTarget = (c: Context<AppEnv>): number => {
    const id = pathId(c);
    const caller = c.get('user');
    if (id !== caller.id && !hasPerm(caller, 'users:manage')) throw forbidden('permission denied: users:manage');
    users.getUser(id); // 404 for an unknown id
    return id;
  };

  api.get('/users/:id/twofa/totp', guard('signed-in'), async (c) => {
    const id = twofaTarget(c);
    if (users.totpSecret(id)) throw badRequest('two-factor authentication is already enabled; disable it first');
    const user = users.getUser(id);
    return ok(c, await newTotpEnrolment(ctx.settings.str('app.site_name'), user.email ?? user.username));
  });

  api.put('/users/:id/twofa', guard('signed-in'), async (c) => {
    const id = twofaTarget(c);
    const b = await readBody(c);
    const secret = reqString(b, 'secret');
    const code = reqString(b, 'code');
    if (!users.hasPasswordLogin(id)) throw badRequest('two-factor authentication needs a user with password login');
    if (users.totpSecret(id)) throw badRequest('two-factor authentication is already enabled');
    if (!isTotpSecret(secret)) throw badRequest('invalid "secret": not a base32 TOTP secret');
    const step = totpCodeStep(secret, code);
    if (step === null) throw badRequest('invalid "code": it does not match the secret (check the device clock)');
    users.enableTotp(id, secret, step);
    log.info(`two-factor authentication enabled for user ${id} by ${c.get('user').username}`);
    return ok(c, true);
  });

  api.delete('/users/:id/twofa', guard('signed-in'), async (c) => {
    const id = twofaTarget(c);
    const password = reqString(await readBody(c), 'password', { trim: false });
    if (!users.totpSecret(id)) throw badRequest('two-factor authentication is not enabled');
    assertPassword(password);
    // The caller confirms with their own password (an admin resetting someone else's 2FA too).
    const caller = c.get('user');
    if (!users.hasPasswordLogin(caller.id)) throw badRequest('confirming with a password needs a user with password login');
    if (!users.checkPassword(caller.id, password)) throw forbidden('wrong password');
    users.disableTotp(id);
    log.info(`two-factor authentication disabled for user ${id} by ${caller.username}`);
    return ok(c, true);
  });

  // ---- roles ----
  api.get('/roles/users', guard('roles:get'), (c) => ok(c, users.listUserRoles()));
  api.get('/roles/lists', guard('roles:get'), (c) => ok(c, users.listListRoles()));

  api.post('/roles/users', guard('roles:manage'), async (c) => {
    const b = await readJson(c);
    const role = users.createUserRole(reqString(b, 'name'), optStringArray(b, 'permissions') ?? []);
    log.info(`user role "${role.name}" created by ${c.get('user').username}`);
    return ok(c, role);
  });

  api.post('/roles/lists', guard('roles:manage'), async (c) => {
    const b = await readJson(c);
    const role = users.createListRole(reqString(b, 'name'), listGrants(b));
    log.info(`list role "${role.name}" created by ${c.get('user').username}`);
    return ok(c, role);
  });

  api.put('/roles/users/:id', guard('roles:manage'), async (c) => {
    const id = pathId(c);
    const b = await readJson(c);
    const role = users.updateUserRole(id, reqString(b, 'name'), optStringArray(b, 'permissions') ?? []);
    log.info(`user role ${id} updated by ${c.get('user').username}`);
    return ok(c, role);
  });

  api.put('/roles/lists/:id', guard('roles:manage'), async (c) => {
    const id = pathId(c);
    const b = await readJson(c);
    const role = users.updateListRole(id, reqString(b, 'name'), listGrants(b));
    log.info(`list role ${id} updated by ${c.get('user').username}`);
    return ok(c, role);
  });

  api.delete('/roles/:id', guard('roles:manage'), (c) => {
    const id = pathId(c);
    users.deleteRole(id);
    log.info(`role ${id} deleted by ${c.get('user').username}`);
    return ok(c, true);
  });
}
