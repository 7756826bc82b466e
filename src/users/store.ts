// Users, roles, sessions and password resets: every SQL statement of the users domain, with the
// guards that must hold in the same transaction as a write (unique names and e-mails, a Super
// Admin left, roles in use). Who may do what, and what input is valid, is the users service's.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { badRequest, conflict, notFound } from '../http/errors.ts';
import {
  ALL_PERMISSIONS, LIST_PERMISSIONS, SUPER_ADMIN_ROLE_ID, type Authorized, type AuthUser, type ListGrant, type ListPermission, type Permission,
} from '../http/permissions.ts';
import type { Authenticator } from '../http/auth.ts';
import { assertPassword, assertUsername, normaliseEmail } from './rules.ts';
import { hashPassword, randomString, sameDigest, sha256Hex, verifyPassword } from './secrets.ts';

export { PASSWORD_MIN } from './rules.ts';

/** Server-side session lifetime: absolute, from login (listmonk's 24 hours). */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a forgot-password link works. */
export const RESET_TTL_MS = 30 * 60 * 1000;
/** A fixed hash to verify against when the username is unknown, so timing does not tell. */
const DUMMY_HASH = hashPassword(randomString(16));

const SQL = {
  userByName: 'SELECT u.*, r.permissions FROM users u JOIN roles r ON r.id = u.user_role_id WHERE u.username = ?',
  userById: 'SELECT u.*, r.permissions FROM users u JOIN roles r ON r.id = u.user_role_id WHERE u.id = ?',
  userByEmail: 'SELECT u.*, r.permissions FROM users u JOIN roles r ON r.id = u.user_role_id WHERE u.email = ?',
  allUsers: 'SELECT u.*, r.permissions FROM users u JOIN roles r ON r.id = u.user_role_id ORDER BY u.id',
  usernameTaken: 'SELECT 1 FROM users WHERE username = ? AND id <> ?',
  emailTaken: 'SELECT 1 FROM users WHERE email = ? AND id <> ?',
  insertUser: `INSERT INTO users (username, password, password_login, email, name, type, user_role_id, list_role_id, status)
               VALUES (@username, @password, @password_login, @email, @name, @type, @user_role_id, @list_role_id, @status)`,
  updateUser: `UPDATE users SET username = @username, password = @password, password_login = @password_login, email = @email,
               name = @name, user_role_id = @user_role_id, list_role_id = @list_role_id, status = @status,
               updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = @id`,
  setPassword: `UPDATE users SET password = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  setTwofa: `UPDATE users SET twofa_type = ?, twofa_key = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  useTotpStep: 'UPDATE users SET totp_last_step = ? WHERE id = ? AND totp_last_step < ?',
  setLoggedIn: 'UPDATE users SET loggedin_at = ? WHERE id = ?',
  deleteUser: 'DELETE FROM users WHERE id = ?',
  deleteApiUserByName: `DELETE FROM users WHERE username = ? AND type = 'api'`,
  /** Enabled login users holding the Super Admin role, other than the excluded ids (JSON array). */
  otherEnabledAdmins: `SELECT COUNT(*) FROM users WHERE type = 'user' AND status = 'enabled' AND user_role_id = ${SUPER_ADMIN_ROLE_ID}
                       AND id NOT IN (SELECT value FROM json_each(?))`,

  listGrants: 'SELECT list_id, permissions FROM role_lists WHERE role_id = ?',
  roleById: 'SELECT * FROM roles WHERE id = ?',
  roleByName: 'SELECT id FROM roles WHERE type = ? AND name = ? AND id <> ?',
  rolesOfType: 'SELECT * FROM roles WHERE type = ? ORDER BY id',
  roleLists: `SELECT rl.list_id AS id, l.name, rl.permissions FROM role_lists rl JOIN lists l ON l.id = rl.list_id
              WHERE rl.role_id = ? ORDER BY rl.list_id`,
  insertRole: 'INSERT INTO roles (type, name, permissions) VALUES (?, ?, ?)',
  updateRole: `UPDATE roles SET name = ?, permissions = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE id = ?`,
  deleteRole: 'DELETE FROM roles WHERE id = ?',
  clearRoleLists: 'DELETE FROM role_lists WHERE role_id = ?',
  insertRoleList: 'INSERT INTO role_lists (role_id, list_id, permissions) VALUES (?, ?, ?)',
  listExists: 'SELECT 1 FROM lists WHERE id = ?',
  roleUsers: 'SELECT COUNT(*) FROM users WHERE user_role_id = ? OR list_role_id = ?',

  sessionUser: 'SELECT user_id FROM sessions WHERE id = ? AND expires_at > ?',
  insertSession: 'INSERT INTO sessions (id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)',
  deleteSession: 'DELETE FROM sessions WHERE id = ?',
  deleteUserSessions: 'DELETE FROM sessions WHERE user_id = ? AND id <> ?',
  pruneSessions: 'DELETE FROM sessions WHERE expires_at <= ?',

  insertReset: 'INSERT INTO password_resets (token_hash, user_id, expires_at) VALUES (?, ?, ?)',
  resetUser: 'SELECT user_id FROM password_resets WHERE token_hash = ? AND expires_at > ?',
  deleteReset: 'DELETE FROM password_resets WHERE token_hash = ?',
  deleteUserResets: 'DELETE FROM password_resets WHERE user_id = ?',
  pruneResets: 'DELETE FROM password_resets WHERE expires_at <= ?',
};

interface UserRow {
  id: number;
  username: string;
  password: string | null;
  password_login: 0 | 1;
  email: string;
  name: string;
  type: 'user' | 'api';
  user_role_id: number;
  list_role_id: number | null;
  status: 'enabled' | 'disabled';
  avatar: string | null;
  twofa_type: 'none' | 'totp';
  twofa_key: string | null;
  loggedin_at: string | null;
  created_at: string;
  updated_at: string;
  /** The user role's permissions (JSON). */
  permissions: string;
}

interface RoleRow {
  id: number;
  type: 'user' | 'list';
  name: string;
  permissions: string;
  created_at: string;
  updated_at: string;
}

export type UserType = 'user' | 'api';
export type UserStatus = 'enabled' | 'disabled';

/** Fields of POST/PUT /api/users; on update, undefined keeps the stored value (see listRoleId). */
export interface UserInput {
  username?: string;
  email?: string;
  name?: string;
  type?: UserType;
  status?: UserStatus;
  passwordLogin?: boolean;
  password?: string;
  /** 0 or undefined keeps the stored role on update. */
  userRoleId?: number;
  /** On update, as listmonk: undefined/null removes the list role, 0 keeps it. */
  listRoleId?: number | null;
}

/** A user to create, its fields checked (by the users service, or createLoginUser). */
export interface NewUser extends UserInput {
  username: string;
  type: UserType;
  /** A login user's address, normalised (an API user's is made from its username). */
  email?: string;
  userRoleId: number;
}

/** What the users service's rules look at in a stored user. */
export interface Account {
  id: number;
  type: UserType;
  passwordLogin: boolean;
  hasPassword: boolean;
}

export interface ListRoleGrant {
  id: number;
  permissions: ListPermission[];
}

/** A user as the API answers it (listmonk's user object): no password hash, token or TOTP secret. */
export interface UserJson {
  id: number;
  created_at: string;
  updated_at: string;
  username: string;
  password: string | null;
  password_login: boolean;
  email: string | null;
  name: string;
  type: UserType;
  status: UserStatus;
  avatar: string | null;
  twofa_type: 'none' | 'totp';
  loggedin_at: string | null;
  list_role_id?: number;
  user_role: { id: number; name: string; permissions: string[] };
  list_role: { id: number; name: string; lists: { id: number; name: string; permissions: string[] }[] } | null;
}

export interface UserRoleJson {
  id: number;
  created_at: string;
  updated_at: string;
  type: 'user';
  name: string;
  permissions: string[];
  lists: null;
}

export interface ListRoleJson {
  id: number;
  created_at: string;
  updated_at: string;
  name: string;
  lists: { id: number; name: string; permissions: string[] }[];
}

/** The account a login form's credentials belong to. */
export interface LoginAccount {
  id: number;
  username: string;
  twofaSecret: string | null;
}

const nowIso = () => new Date().toISOString();
const later = (ms: number) => new Date(Date.now() + ms).toISOString();

export class UserStore {
  private readonly sql: Prepare;
  /** The public root URL, whose origin may send cookie-authenticated writes (set by services.ts). */
  private rootUrl: () => string | null = () => null;

  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  useRootUrl(fn: () => string): void {
    this.rootUrl = fn;
  }

  // ---- install and command line ------------------------------------------------------------

  /** Creates the Super Admin role (id 1) with every permission, if missing. */
  ensureSuperAdminRole(): void {
    this.db.prepare(`INSERT OR IGNORE INTO roles (id, type, name, permissions) VALUES (?, 'user', 'Super Admin', ?)`)
      .run(SUPER_ADMIN_ROLE_ID, JSON.stringify(ALL_PERMISSIONS));
  }

  roleIdByName(name: string): number | undefined {
    return this.sql<[string, string, number], { id: number }>(SQL.roleByName).get('user', name, 0)?.id;
  }

  /** Creates an enabled login user; returns its id. */
  createLoginUser(username: string, password: string, email: string, roleId = SUPER_ADMIN_ROLE_ID): number {
    assertUsername(username);
    const address = normaliseEmail(email);
    assertPassword(password);
    return this.createUser({ username, password, email: address, type: 'user', status: 'enabled', passwordLogin: true, userRoleId: roleId }).user.id;
  }

  /** Creates an enabled API user; returns the token, which is never stored (only its SHA-256). */
  createApiUser(username: string, roleId = SUPER_ADMIN_ROLE_ID): { id: number; token: string } {
    assertUsername(username);
    const { user, token } = this.createUser({ username, type: 'api', status: 'enabled', userRoleId: roleId });
    return { id: user.id, token: token! };
  }

  /** Deletes an API user by name; false when there is none. */
  revokeApiUser(username: string): boolean {
    return this.sql<[string]>(SQL.deleteApiUserByName).run(username).changes > 0;
  }

  /** Sets a login user's password by username and ends all of their sessions. */
  resetPasswordByName(username: string, password: string): void {
    const row = this.sql<[string], UserRow>(SQL.userByName).get(username);
    if (!row || row.type !== 'user') throw notFound(`no login user named "${username}"`);
    this.changePassword(row.id, password, null);
  }

  // ---- users -------------------------------------------------------------------------------

  listUsers(): UserJson[] {
    return this.sql<[], UserRow>(SQL.allUsers).all().map((r) => this.toJson(r));
  }

  getUser(id: number): UserJson {
    return this.toJson(this.row(id));
  }

  /** Creates a user. For an API user the token is answered once; only its SHA-256 is stored. */
  createUser(f: NewUser): { user: UserJson; token: string | null } {
    const { username, type, userRoleId } = f;
    let password: string | null = null;
    let email: string;
    let token: string | null = null;
    if (type === 'api') {
      token = randomString(48);
      password = sha256Hex(token);
      email = `${username}@api`.toLowerCase();
    } else {
      email = f.email ?? '';
      if (f.passwordLogin && f.password) password = hashPassword(f.password);
    }
    const listRoleId = f.listRoleId || null;
    const name = f.name || username;
    const id = this.db.transaction(() => {
      this.assertUnique(username, email, 0);
      return Number(this.sql(SQL.insertUser).run({
        username, password, password_login: type === 'user' && f.passwordLogin ? 1 : 0, email, name, type,
        // listmonk's column default: an account created without a status cannot sign in until enabled.
        user_role_id: userRoleId, list_role_id: listRoleId, status: f.status ?? 'disabled',
      }).lastInsertRowid);
    }).immediate();
    return { user: this.getUser(id), token };
  }

  /**
   * Updates a user (PUT /api/users/{id}) with checked fields; absent or empty ones keep their
   * value (see UserInput.listRoleId). A login user's e-mail and password change here, an API
   * user's token never does. A new password ends the user's sessions except `keepSession` (the
   * caller's own, when users change themselves).
   */
  updateUser(id: Authorized<number>, f: UserInput, keepSession: string | null): UserJson {
    this.db.transaction(() => {
      const row = this.row(id);
      const username = f.username || row.username;
      let email = row.email;
      let password = row.password;
      let passwordLogin = row.password_login;
      if (row.type === 'user') {
        if (f.email) email = f.email;
        if (f.passwordLogin !== undefined) passwordLogin = f.passwordLogin ? 1 : 0;
        if (!passwordLogin) password = null;
        else if (f.password) password = hashPassword(f.password);
      }
      const name = f.name || row.name;
      const userRoleId = f.userRoleId || row.user_role_id;
      const listRoleId = f.listRoleId === 0 ? row.list_role_id : f.listRoleId || null;
      const status = f.status ?? row.status;
      const losesAdmin = row.type === 'user' && row.status === 'enabled' && row.user_role_id === SUPER_ADMIN_ROLE_ID &&
        (status !== 'enabled' || userRoleId !== SUPER_ADMIN_ROLE_ID);
      if (losesAdmin) this.assertAdminRemains([id]);
      this.assertUnique(username, email, id);
      this.sql(SQL.updateUser).run({
        id, username, password, password_login: passwordLogin, email, name,
        user_role_id: userRoleId, list_role_id: listRoleId, status,
      });
      if (password !== row.password) this.endSessions(id, keepSession);
    }).immediate();
    return this.getUser(id);
  }

  /** Deletes users; refused when no enabled Super Admin login user would remain. */
  deleteUsers(ids: Authorized<number>[]): void {
    this.db.transaction(() => {
      for (const id of ids) this.row(id);
      this.assertAdminRemains(ids);
      for (const id of ids) this.sql<[number]>(SQL.deleteUser).run(id);
    }).immediate();
  }

  /**
   * PUT /api/profile: the name, e-mail and password users change themselves, checked (given
   * ones replace the stored ones). A new password ends the user's sessions except `keepSession`.
   */
  updateProfile(id: Authorized<number>, f: { name?: string; email?: string; password?: string }, keepSession: string | null): UserJson {
    this.db.transaction(() => {
      const row = this.row(id);
      const name = f.name ?? row.name;
      const email = f.email || row.email;
      const password = f.password ? hashPassword(f.password) : row.password;
      this.assertUnique(row.username, email, id);
      this.sql(SQL.updateUser).run({
        id, username: row.username, password, password_login: row.password_login, email, name,
        user_role_id: row.user_role_id, list_role_id: row.list_role_id, status: row.status,
      });
      if (password !== row.password) this.endSessions(id, keepSession);
    }).immediate();
    return this.getUser(id);
  }

  /** Sets a login user's password and ends their sessions except `keepSession`. */
  changePassword(id: number, newPassword: string, keepSession: string | null): void {
    assertPassword(newPassword);
    this.db.transaction(() => {
      this.sql<[string, number]>(SQL.setPassword).run(hashPassword(newPassword), id);
      this.endSessions(id, keepSession);
    }).immediate();
  }

  /** True when the password is this login user's. */
  checkPassword(id: number, password: string): boolean {
    const row = this.row(id);
    return row.type === 'user' && row.password_login === 1 && verifyPassword(password, row.password);
  }

  /** The stored facts the users service's rules look at; 404 for an unknown id. */
  account(id: number): Account {
    const row = this.row(id);
    return { id: row.id, type: row.type, passwordLogin: row.password_login === 1, hasPassword: row.password !== null };
  }

  hasPasswordLogin(id: number): boolean {
    const row = this.row(id);
    return row.type === 'user' && row.password_login === 1 && row.password !== null;
  }

  /** The TOTP secret of a user with 2FA on, else null. */
  totpSecret(id: number): string | null {
    const row = this.row(id);
    return row.twofa_type === 'totp' ? row.twofa_key : null;
  }

  /** Records a TOTP code's time step as used; false when that step or a later one already was (a replay). */
  useTotpStep(id: number, step: number): boolean {
    return this.sql(SQL.useTotpStep).run(step, id, step).changes === 1;
  }

  /** Turns TOTP on with the secret whose code at `step` the user just entered (that code cannot sign in afterwards). */
  enableTotp(id: Authorized<number>, secret: string, step: number): void {
    this.db.transaction(() => {
      this.sql(SQL.setTwofa).run('totp', secret, id);
      this.useTotpStep(id, step);
    })();
  }

  disableTotp(id: Authorized<number>): void {
    this.sql(SQL.setTwofa).run('none', null, id);
  }

  private row(id: number): UserRow {
    const row = this.sql<[number], UserRow>(SQL.userById).get(id);
    if (!row) throw notFound(`user ${id} not found`);
    return row;
  }

  private assertUnique(username: string, email: string, exceptId: number): void {
    if (this.sql<[string, number]>(SQL.usernameTaken).get(username, exceptId)) throw conflict(`the username "${username}" is already taken`);
    if (this.sql<[string, number]>(SQL.emailTaken).get(email, exceptId)) throw conflict(`the e-mail "${email}" belongs to another user`);
  }

  private assertAdminRemains(excludedIds: number[]): void {
    const left = this.sql<[string]>(SQL.otherEnabledAdmins).pluck().get(JSON.stringify(excludedIds)) as number;
    if (left === 0) throw badRequest('refused: at least one enabled Super Admin user must remain');
  }

  private toJson(r: UserRow): UserJson {
    const role = this.sql<[number], RoleRow>(SQL.roleById).get(r.user_role_id)!;
    const listRole = r.list_role_id !== null ? this.listRoleJson(this.sql<[number], RoleRow>(SQL.roleById).get(r.list_role_id)!) : null;
    return {
      id: r.id,
      created_at: r.created_at,
      updated_at: r.updated_at,
      username: r.username,
      password: null,
      password_login: r.password_login === 1,
      email: r.type === 'api' ? null : r.email,
      name: r.name,
      type: r.type,
      status: r.status,
      avatar: r.avatar,
      twofa_type: r.twofa_type,
      loggedin_at: r.loggedin_at,
      ...(r.list_role_id !== null ? { list_role_id: r.list_role_id } : {}),
      user_role: { id: role.id, name: role.name, permissions: JSON.parse(role.permissions) as string[] },
      list_role: listRole && { id: listRole.id, name: listRole.name, lists: listRole.lists },
    };
  }

  // ---- roles -------------------------------------------------------------------------------

  listUserRoles(): UserRoleJson[] {
    return this.sql<[string], RoleRow>(SQL.rolesOfType).all('user').map((r) => this.userRoleJson(r));
  }

  listListRoles(): ListRoleJson[] {
    return this.sql<[string], RoleRow>(SQL.rolesOfType).all('list').map((r) => this.listRoleJson(r));
  }

  /** Whether the role with this id is a user role or a list role; undefined when there is none. */
  roleType(id: number): RoleRow['type'] | undefined {
    return this.sql<[number], RoleRow>(SQL.roleById).get(id)?.type;
  }

  listExists(id: number): boolean {
    return this.sql<[number]>(SQL.listExists).get(id) !== undefined;
  }

  createUserRole(name: string, permissions: readonly Permission[]): UserRoleJson {
    const perms = this.checkUserRole(name, permissions, 0);
    const id = Number(this.sql(SQL.insertRole).run('user', name, JSON.stringify(perms)).lastInsertRowid);
    return this.userRoleJson(this.sql<[number], RoleRow>(SQL.roleById).get(id)!);
  }

  updateUserRole(id: Authorized<number>, name: string, permissions: readonly Permission[]): UserRoleJson {
    const perms = this.checkUserRole(name, permissions, id);
    this.sql(SQL.updateRole).run(name, JSON.stringify(perms), id);
    return this.userRoleJson(this.sql<[number], RoleRow>(SQL.roleById).get(id)!);
  }

  createListRole(name: string, lists: ListRoleGrant[]): ListRoleJson {
    const grants = this.checkListRole(name, lists, 0);
    const id = this.db.transaction(() => {
      const roleId = Number(this.sql(SQL.insertRole).run('list', name, '[]').lastInsertRowid);
      this.writeGrants(roleId, grants);
      return roleId;
    }).immediate();
    return this.listRoleJson(this.sql<[number], RoleRow>(SQL.roleById).get(id)!);
  }

  /** Replaces the name and the whole set of per-list grants. */
  updateListRole(id: Authorized<number>, name: string, lists: ListRoleGrant[]): ListRoleJson {
    const grants = this.checkListRole(name, lists, id);
    this.db.transaction(() => {
      this.sql(SQL.updateRole).run(name, '[]', id);
      this.sql(SQL.clearRoleLists).run(id);
      this.writeGrants(id, grants);
    }).immediate();
    return this.listRoleJson(this.sql<[number], RoleRow>(SQL.roleById).get(id)!);
  }

  /** Deletes a role that no user holds (a role in use answers 409; users are never deleted). */
  deleteRole(id: Authorized<number>): void {
    this.db.transaction(() => {
      if (!this.sql<[number], RoleRow>(SQL.roleById).get(id)) throw notFound(`role ${id} not found`);
      const users = this.sql<[number, number]>(SQL.roleUsers).pluck().get(id, id) as number;
      if (users > 0) throw conflict(`the role is in use by ${users} user${users === 1 ? '' : 's'}; assign them another role first`);
      this.sql<[number]>(SQL.deleteRole).run(id);
    }).immediate();
  }

  private checkUserRole(name: string, permissions: readonly Permission[], exceptId: number): Permission[] {
    if (this.sql(SQL.roleByName).get('user', name, exceptId)) throw conflict(`a user role named "${name}" already exists`);
    return [...new Set(permissions)];
  }

  /** Entries without permissions are dropped, repeated lists merged. */
  private checkListRole(name: string, lists: ListRoleGrant[], exceptId: number): Map<number, ListPermission[]> {
    const grants = new Map<number, ListPermission[]>();
    for (const g of lists) {
      if (!g.permissions.length) continue;
      grants.set(g.id, [...new Set([...(grants.get(g.id) ?? []), ...g.permissions])]);
    }
    if (this.sql(SQL.roleByName).get('list', name, exceptId)) throw conflict(`a list role named "${name}" already exists`);
    return grants;
  }

  private writeGrants(roleId: number, grants: Map<number, ListPermission[]>): void {
    for (const [listId, perms] of grants) {
      const ordered = LIST_PERMISSIONS.filter((p) => perms.includes(p));
      this.sql(SQL.insertRoleList).run(roleId, listId, JSON.stringify(ordered));
    }
  }

  private userRoleJson(r: RoleRow): UserRoleJson {
    return { id: r.id, created_at: r.created_at, updated_at: r.updated_at, type: 'user', name: r.name, permissions: JSON.parse(r.permissions) as string[], lists: null };
  }

  private listRoleJson(r: RoleRow): ListRoleJson {
    const lists = this.sql<[number], { id: number; name: string; permissions: string }>(SQL.roleLists).all(r.id)
      .map((l) => ({ id: l.id, name: l.name, permissions: JSON.parse(l.permissions) as string[] }));
    return { id: r.id, created_at: r.created_at, updated_at: r.updated_at, name: r.name, lists };
  }

  // ---- logging in, sessions, password resets -----------------------------------------------

  /**
   * The enabled password-login user these credentials belong to, or null. The password hash
   * is computed even for unknown names, so the answer time does not reveal which exist.
   */
  checkLogin(username: string, password: string): LoginAccount | null {
    const row = this.sql<[string], UserRow>(SQL.userByName).get(username);
    const usable = row && row.type === 'user' && row.password_login === 1 && row.status === 'enabled';
    const matches = verifyPassword(password, usable ? row.password : DUMMY_HASH);
    if (!usable || !matches) return null;
    return { id: row.id, username: row.username, twofaSecret: row.twofa_type === 'totp' ? row.twofa_key : null };
  }

  /** Starts a session (and prunes expired ones); returns the cookie value, stored only hashed. */
  createSession(userId: number): string {
    const value = randomString(64);
    const now = nowIso();
    this.db.transaction(() => {
      this.sql<[string]>(SQL.pruneSessions).run(now);
      this.sql(SQL.insertSession).run(sha256Hex(value), userId, now, new Date(Date.parse(now) + SESSION_TTL_MS).toISOString());
      this.sql(SQL.setLoggedIn).run(now, userId);
    }).immediate();
    return value;
  }

  endSession(cookieValue: string): void {
    this.sql<[string]>(SQL.deleteSession).run(sha256Hex(cookieValue));
  }

  /** Ends every session of the user except the one with this cookie value. */
  endSessions(userId: number, keepCookieValue: string | null): void {
    this.sql<[number, string]>(SQL.deleteUserSessions).run(userId, keepCookieValue ? sha256Hex(keepCookieValue) : '');
  }

  /**
   * For the forgot-password form: a single-use token for the enabled password-login user with
   * this e-mail (replacing their older ones), or null when the address qualifies for none.
   */
  createPasswordReset(email: string): { token: string; username: string; email: string } | null {
    let address: string;
    try {
      address = normaliseEmail(email);
    } catch {
      return null;
    }
    const row = this.sql<[string], UserRow>(SQL.userByEmail).get(address);
    if (!row || row.type !== 'user' || row.password_login !== 1 || row.status !== 'enabled') return null;
    const token = randomString(64);
    this.db.transaction(() => {
      this.sql<[string]>(SQL.pruneResets).run(nowIso());
      this.sql<[number]>(SQL.deleteUserResets).run(row.id);
      this.sql(SQL.insertReset).run(sha256Hex(token), row.id, later(RESET_TTL_MS));
    }).immediate();
    return { token, username: row.username, email: row.email };
  }

  /** The user a reset token is valid for, or null (unknown, used or expired). */
  resetTokenUser(token: string): number | null {
    const r = this.sql<[string, string], { user_id: number }>(SQL.resetUser).get(sha256Hex(token), nowIso());
    return r ? r.user_id : null;
  }

  /** Uses up a reset token: sets the password and ends all the user's sessions. Null when unusable. */
  resetPassword(token: string, newPassword: string): number | null {
    assertPassword(newPassword);
    return this.db.transaction(() => {
      const userId = this.resetTokenUser(token);
      if (userId === null) return null;
      this.sql<[string]>(SQL.deleteReset).run(sha256Hex(token));
      if (!this.hasPasswordLogin(userId)) return null;
      this.changePassword(userId, newPassword, null);
      return userId;
    }).immediate();
  }

  // ---- authentication ----------------------------------------------------------------------

  /** The AuthUser view of an enabled user, or null. */
  loadAuthUser(id: number, via: AuthUser['via']): AuthUser | null {
    const row = this.sql<[number], UserRow>(SQL.userById).get(id);
    return row && row.status === 'enabled' ? this.toAuthUser(row, via) : null;
  }

  private toAuthUser(row: UserRow, via: AuthUser['via']): AuthUser {
    const grants = new Map<number, ListGrant>();
    if (row.list_role_id !== null) {
      for (const g of this.sql<[number], { list_id: number; permissions: string }>(SQL.listGrants).all(row.list_role_id)) {
        const perms = JSON.parse(g.permissions) as string[];
        grants.set(g.list_id, { get: perms.includes('list:get'), manage: perms.includes('list:manage') });
      }
    }
    return {
      id: row.id,
      username: row.username,
      name: row.name,
      email: row.email,
      type: row.type,
      userRoleId: row.user_role_id,
      listRoleId: row.list_role_id,
      superAdmin: row.user_role_id === SUPER_ADMIN_ROLE_ID,
      permissions: new Set(JSON.parse(row.permissions) as string[]),
      listGrants: grants,
      via,
    };
  }

  authenticator(): Authenticator {
    return {
      byToken: (username, token) => {
        const row = this.sql<[string], UserRow>(SQL.userByName).get(username);
        // Hash even when the user is unknown so timing does not reveal which usernames exist.
        const digest = sha256Hex(token);
        if (!row || row.type !== 'api' || row.status !== 'enabled' || !row.password) return null;
        return sameDigest(digest, row.password) ? this.toAuthUser(row, 'token') : null;
      },
      bySession: (sessionId) => {
        const s = this.sql<[string, string], { user_id: number }>(SQL.sessionUser).get(sha256Hex(sessionId), nowIso());
        if (!s) return null;
        const u = this.loadAuthUser(s.user_id, 'session');
        // Sessions are for login users; a user turned into anything else loses them.
        return u && u.type === 'user' ? u : null;
      },
      trustedOrigin: () => {
        const root = this.rootUrl();
        try {
          return root ? new URL(root).origin : null;
        } catch {
          return null;
        }
      },
    };
  }
}
