// Users, roles, sessions and password resets: every SQL statement of the users domain, with the
// guards that must hold in the same transaction as a write (unique names and e-mails, a Super
// Admin left, roles in use). Who may do what, and what input is valid, is the users service's.
// Plain CRUD through drizzle, except two short lookups of every authenticated request, which stay
// named SQL.
import { and, asc, count, eq, getTableColumns, gt, isNull, lt, lte, ne, notInArray, or } from 'drizzle-orm';
import { isDatabaseBusy, isStorageFailure, type DB } from '../db/connection.ts';
import { jsonEach, param, preparedStatements } from '../db/index.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { lists, NOW, parseJsonText, passwordResets, roleLists, roles, sessions, toJsonText, users, type JsonText } from '../db/schema.ts';
import { invalid, conflict, notFound } from '../core/errors.ts';
import {
  ALL_PERMISSIONS, LIST_PERMISSIONS, SUPER_ADMIN_ROLE_ID, type Authenticator, type Authorized, type AuthUser, type ListGrant, type ListPermission, type Permission,
} from '../core/authz.ts';
import { assertUsername, normaliseEmail } from './rules.ts';
import { hashPassword, isBcryptHash, type PasswordHash, randomString, sameDigest, sha256Hex, verifyPassword } from './secrets.ts';

export { PASSWORD_MIN } from './rules.ts';

/** Server-side session lifetime: absolute, from login (listmonk's 24 hours). */
export const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** A session idle this long ends, unless the setting says otherwise (security.session_idle_timeout). */
export const SESSION_IDLE_MS = 8 * 60 * 60 * 1000;
/**
 * A session's last use is written when it is older than this (or a tenth of the idle timeout,
 * if less): a write per minute per active admin, not per request.
 */
const SESSION_TOUCH_MS = 60_000;
/** How long a forgot-password link works. */
export const RESET_TTL_MS = 30 * 60 * 1000;
/** A fixed hash to verify against when the username is unknown, so timing does not tell. */
let dummyHash: Promise<PasswordHash> | null = null;
// Made on the first sign-in, not at start-up (scrypt's 16 MB of work memory and 10 ms of CPU).
const DUMMY_HASH = () => (dummyHash ??= hashPassword(randomString(16)));

/**
 * Run on every request authenticated by a session cookie or by a user with a list role: named
 * SQL, as drizzle's per-call overhead (filling placeholders, mapping the row, ~0.5 µs) showed
 * as +15-20% on these short one- and two-column reads. (On the wide user row it is even.)
 */
const SQL = {
  sessionUser: 'SELECT user_id, last_used_at FROM sessions WHERE id = ? AND expires_at > ? AND last_used_at > ?',
  touchSession: 'UPDATE sessions SET last_used_at = ? WHERE id = ?',
  listGrants: 'SELECT list_id, permissions FROM role_lists WHERE role_id = ?',
};

/** A user with its user role's permissions. */
const userWithPermissions = { ...getTableColumns(users), permissions: roles.permissions };

const statements = (db: DB) => preparedStatements(db, {
  userByName: (orm) => orm.select(userWithPermissions).from(users).innerJoin(roles, eq(roles.id, users.user_role_id))
    .where(eq(users.username, param('username'))).prepare(),
  userById: (orm) => orm.select(userWithPermissions).from(users).innerJoin(roles, eq(roles.id, users.user_role_id))
    .where(eq(users.id, param('id'))).prepare(),
  userByEmail: (orm) => orm.select(userWithPermissions).from(users).innerJoin(roles, eq(roles.id, users.user_role_id))
    .where(eq(users.email, param('email'))).prepare(),
  allUsers: (orm) => orm.select(userWithPermissions).from(users).innerJoin(roles, eq(roles.id, users.user_role_id))
    .orderBy(asc(users.id)).prepare(),
  usernameTaken: (orm) => orm.select({ id: users.id }).from(users)
    .where(and(eq(users.username, param('username')), ne(users.id, param('exceptId')))).prepare(),
  emailTaken: (orm) => orm.select({ id: users.id }).from(users)
    .where(and(eq(users.email, param('email')), ne(users.id, param('exceptId')))).prepare(),
  insertUser: (orm) => orm.insert(users).values({
    username: param('username'), password: param('password'), password_login: param('password_login'), email: param('email'),
    name: param('name'), type: param('type'), user_role_id: param('user_role_id'), list_role_id: param('list_role_id'), status: param('status'),
  }).prepare(),
  updateUser: (orm) => orm.update(users).set({
    username: param('username'), password: param('password'), password_login: param('password_login'), email: param('email'),
    name: param('name'), user_role_id: param('user_role_id'), list_role_id: param('list_role_id'), status: param('status'), updated_at: NOW,
  }).where(eq(users.id, param('id'))).prepare(),
  setPassword: (orm) => orm.update(users).set({ password: param('password'), updated_at: NOW }).where(eq(users.id, param('id'))).prepare(),
  setTwofa: (orm) => orm.update(users).set({ twofa_type: param('type'), twofa_key: param('key'), updated_at: NOW })
    .where(eq(users.id, param('id'))).prepare(),
  /** Records a TOTP time step unless that step or a later one already was. */
  useTotpStep: (orm) => orm.update(users).set({ totp_last_step: param('step') })
    .where(and(eq(users.id, param('id')), lt(users.totp_last_step, param('step')))).prepare(),
  dismissFirstRun: (orm) => orm.update(users).set({ first_run_dismissed_at: NOW })
    .where(and(eq(users.id, param('id')), isNull(users.first_run_dismissed_at))).prepare(),
  setLoggedIn: (orm) => orm.update(users).set({ loggedin_at: param('now') }).where(eq(users.id, param('id'))).prepare(),
  deleteUser: (orm) => orm.delete(users).where(eq(users.id, param('id'))).prepare(),
  deleteApiUserByName: (orm) => orm.delete(users).where(and(eq(users.username, param('username')), eq(users.type, 'api'))).prepare(),
  /** Enabled login users holding the Super Admin role, other than the excluded ids (JSON array). */
  otherEnabledAdmins: (orm) => orm.select({ n: count() }).from(users).where(and(
    eq(users.type, 'user'), eq(users.status, 'enabled'), eq(users.user_role_id, SUPER_ADMIN_ROLE_ID), notInArray(users.id, jsonEach('ids')),
  )).prepare(),

  roleById: (orm) => orm.select().from(roles).where(eq(roles.id, param('id'))).prepare(),
  roleByName: (orm) => orm.select({ id: roles.id }).from(roles)
    .where(and(eq(roles.type, param('type')), eq(roles.name, param('name')), ne(roles.id, param('exceptId')))).prepare(),
  rolesOfType: (orm) => orm.select().from(roles).where(eq(roles.type, param('type'))).orderBy(asc(roles.id)).prepare(),
  roleLists: (orm) => orm.select({ id: roleLists.list_id, name: lists.name, permissions: roleLists.permissions })
    .from(roleLists).innerJoin(lists, eq(lists.id, roleLists.list_id))
    .where(eq(roleLists.role_id, param('roleId'))).orderBy(asc(roleLists.list_id)).prepare(),
  insertSuperAdminRole: (orm) => orm.insert(roles)
    .values({ id: SUPER_ADMIN_ROLE_ID, type: 'user', name: 'Super Admin', permissions: toJsonText<string[]>([...ALL_PERMISSIONS]) })
    .onConflictDoNothing().prepare(),
  insertRole: (orm) => orm.insert(roles).values({ type: param('type'), name: param('name'), permissions: param('permissions') }).prepare(),
  updateRole: (orm) => orm.update(roles).set({ name: param('name'), permissions: param('permissions'), updated_at: NOW })
    .where(eq(roles.id, param('id'))).prepare(),
  deleteRole: (orm) => orm.delete(roles).where(eq(roles.id, param('id'))).prepare(),
  clearRoleLists: (orm) => orm.delete(roleLists).where(eq(roleLists.role_id, param('roleId'))).prepare(),
  insertRoleList: (orm) => orm.insert(roleLists)
    .values({ role_id: param('roleId'), list_id: param('listId'), permissions: param('permissions') }).prepare(),
  listExists: (orm) => orm.select({ id: lists.id }).from(lists).where(eq(lists.id, param('id'))).prepare(),
  roleUsers: (orm) => orm.select({ n: count() }).from(users)
    .where(or(eq(users.user_role_id, param('id')), eq(users.list_role_id, param('id')))).prepare(),

  insertSession: (orm) => orm.insert(sessions)
    .values({ id: param('id'), user_id: param('userId'), created_at: param('now'), expires_at: param('expiresAt'), last_used_at: param('now') }).prepare(),
  deleteSession: (orm) => orm.delete(sessions).where(eq(sessions.id, param('id'))).prepare(),
  deleteUserSessions: (orm) => orm.delete(sessions).where(and(eq(sessions.user_id, param('userId')), ne(sessions.id, param('keepId')))).prepare(),
  pruneSessions: (orm) => orm.delete(sessions).where(lte(sessions.expires_at, param('now'))).prepare(),

  insertReset: (orm) => orm.insert(passwordResets)
    .values({ token_hash: param('tokenHash'), user_id: param('userId'), expires_at: param('expiresAt') }).prepare(),
  resetUser: (orm) => orm.select({ user_id: passwordResets.user_id }).from(passwordResets)
    .where(and(eq(passwordResets.token_hash, param('tokenHash')), gt(passwordResets.expires_at, param('now')))).prepare(),
  deleteReset: (orm) => orm.delete(passwordResets).where(eq(passwordResets.token_hash, param('tokenHash'))).prepare(),
  deleteUserResets: (orm) => orm.delete(passwordResets).where(eq(passwordResets.user_id, param('userId'))).prepare(),
  pruneResets: (orm) => orm.delete(passwordResets).where(lte(passwordResets.expires_at, param('now'))).prepare(),
});

/** A user with its user role's permissions (JSON). */
type UserRow = typeof users.$inferSelect & { permissions: typeof roles.$inferSelect['permissions'] };

type RoleRow = typeof roles.$inferSelect;

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

/**
 * What the store writes: the password only as its hash, made before the transaction
 * (hashPassword runs off the main thread and cannot be awaited inside one).
 */
export type UserFields = Omit<UserInput, 'password'> & { passwordHash?: PasswordHash };

/** A user to create, its fields checked (by the users service, or createLoginUser). */
export interface NewUser extends UserFields {
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
/** An API user's last use (loggedin_at) is written at most this often. */
const TOKEN_USE_EVERY_MS = 3_600_000;
const later = (ms: number) => new Date(Date.now() + ms).toISOString();

export class UserStore {
  private readonly q: ReturnType<typeof statements>;
  private readonly sql: Prepare;
  /** The public root URL, whose origin may send cookie-authenticated writes (set by services.ts). */
  private rootUrl: () => string | null = () => null;
  /** How long an unused session lasts (set by services.ts, from the settings). */
  private sessionIdleMs: () => number = () => SESSION_IDLE_MS;
  /** When each API user's last use was last written. */
  private readonly tokenUseWritten = new Map<number, number>();

  constructor(private readonly db: DB) {
    this.q = statements(db);
    this.sql = statementCache(db);
  }

  useRootUrl(fn: () => string): void {
    this.rootUrl = fn;
  }

  useSessionIdleTimeout(fn: () => number): void {
    this.sessionIdleMs = fn;
  }

  // ---- install and command line ------------------------------------------------------------

  /** Creates the Super Admin role (id 1) with every permission, if missing. */
  ensureSuperAdminRole(): void {
    this.q.insertSuperAdminRole.run();
  }

  roleIdByName(name: string): number | undefined {
    return this.q.roleByName.get({ type: 'user', name, exceptId: 0 })?.id;
  }

  /** Creates an enabled login user with a password hash (see passwordHashFor); returns its id. */
  createLoginUser(username: string, passwordHash: PasswordHash, email: string, roleId = SUPER_ADMIN_ROLE_ID): number {
    assertUsername(username);
    const address = normaliseEmail(email);
    return this.createUser({ username, passwordHash, email: address, type: 'user', status: 'enabled', passwordLogin: true, userRoleId: roleId }).user.id;
  }

  /** Creates an enabled API user; returns the token, which is never stored (only its SHA-256). */
  createApiUser(username: string, roleId = SUPER_ADMIN_ROLE_ID): { id: number; token: string } {
    assertUsername(username);
    const { user, token } = this.createUser({ username, type: 'api', status: 'enabled', userRoleId: roleId });
    return { id: user.id, token: token! };
  }

  /** Deletes an API user by name; false when there is none. */
  revokeApiUser(username: string): boolean {
    return this.q.deleteApiUserByName.run({ username }).changes > 0;
  }

  /** Sets a login user's password (its hash) by username and ends all of their sessions. */
  resetPasswordByName(username: string, passwordHash: PasswordHash): void {
    const row = this.q.userByName.get({ username });
    if (!row || row.type !== 'user') throw notFound(`no login user named "${username}"`);
    this.changePassword(row.id, passwordHash, null);
  }

  // ---- users -------------------------------------------------------------------------------

  listUsers(): UserJson[] {
    return this.q.allUsers.all().map((r) => this.toJson(r));
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
      if (f.passwordLogin && f.passwordHash) password = f.passwordHash;
    }
    const listRoleId = f.listRoleId || null;
    const name = f.name || username;
    const id = this.db.transaction(() => {
      this.assertUnique(username, email, 0);
      return Number(this.q.insertUser.run({
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
   * caller's own, when users change themselves); a new password or e-mail, or disabling, voids
   * the user's pending reset links.
   */
  updateUser(id: Authorized<number>, f: UserFields, keepSession: string | null): UserJson {
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
        else if (f.passwordHash) password = f.passwordHash;
      }
      const name = f.name || row.name;
      const userRoleId = f.userRoleId || row.user_role_id;
      const listRoleId = f.listRoleId === 0 ? row.list_role_id : f.listRoleId || null;
      const status = f.status ?? row.status;
      const losesAdmin = row.type === 'user' && row.status === 'enabled' && row.user_role_id === SUPER_ADMIN_ROLE_ID &&
        (status !== 'enabled' || userRoleId !== SUPER_ADMIN_ROLE_ID);
      if (losesAdmin) this.assertAdminRemains([id]);
      this.assertUnique(username, email, id);
      this.q.updateUser.run({
        id, username, password, password_login: passwordLogin, email, name,
        user_role_id: userRoleId, list_role_id: listRoleId, status,
      });
      // A disabled user's sessions end: enabling it again must not bring an old cookie back.
      if (status !== 'enabled') this.endSessions(id, null);
      else if (password !== row.password) this.endSessions(id, keepSession);
      // Reset links guard the password of an address: they go with either, and with the account.
      if (status !== 'enabled' || password !== row.password || email !== row.email) this.q.deleteUserResets.run({ userId: id });
    }).immediate();
    return this.getUser(id);
  }

  /**
   * Gives an API user a new token, answered this once (only its SHA-256 is stored); the old one
   * stops working at once. 400 for a login user, who has no token.
   */
  newApiToken(id: Authorized<number>): string {
    return this.db.transaction(() => {
      if (this.row(id).type !== 'api') throw invalid('only an API user has a token');
      const token = randomString(48);
      this.q.setPassword.run({ password: sha256Hex(token), id });
      return token;
    }).immediate();
  }

  /** Deletes users; refused when no enabled Super Admin login user would remain. */
  deleteUsers(ids: Authorized<number>[]): void {
    this.db.transaction(() => {
      for (const id of ids) this.row(id);
      this.assertAdminRemains(ids);
      for (const id of ids) this.q.deleteUser.run({ id });
    }).immediate();
  }

  /**
   * PUT /api/profile: the name, e-mail and password users change themselves, checked (given
   * ones replace the stored ones). A new password ends the user's sessions except `keepSession`;
   * a new password or e-mail voids the user's pending reset links.
   * (The current password, where one is asked for, is the service's check.)
   */
  updateProfile(id: Authorized<number>, f: { name?: string; email?: string; passwordHash?: PasswordHash }, keepSession: string | null): UserJson {
    this.db.transaction(() => {
      const row = this.row(id);
      const name = f.name ?? row.name;
      const email = f.email || row.email;
      const password = f.passwordHash ?? row.password;
      this.assertUnique(row.username, email, id);
      this.q.updateUser.run({
        id, username: row.username, password, password_login: row.password_login, email, name,
        user_role_id: row.user_role_id, list_role_id: row.list_role_id, status: row.status,
      });
      if (password !== row.password) this.endSessions(id, keepSession);
      if (password !== row.password || email !== row.email) this.q.deleteUserResets.run({ userId: id });
    }).immediate();
    return this.getUser(id);
  }

  /**
   * Sets a login user's password (its hash: see passwordHashFor), ends their sessions except
   * `keepSession`, and voids their pending reset links.
   */
  changePassword(id: number, passwordHash: PasswordHash, keepSession: string | null): void {
    this.db.transaction(() => {
      this.q.setPassword.run({ password: passwordHash, id });
      this.endSessions(id, keepSession);
      this.q.deleteUserResets.run({ userId: id });
    }).immediate();
  }

  /** True when the password is this login user's. */
  async checkPassword(id: number, password: string): Promise<boolean> {
    const row = this.row(id);
    return row.type === 'user' && row.password_login === 1 && await verifyPassword(password, row.password);
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
    return this.q.useTotpStep.run({ step, id }).changes === 1;
  }

  /**
   * Turns TOTP on with the secret whose code at `step` the user just entered (that code cannot
   * sign in afterwards), and ends the user's sessions except `keepSession`.
   */
  enableTotp(id: Authorized<number>, secret: string, step: number, keepSession: string | null): void {
    this.db.transaction(() => {
      this.q.setTwofa.run({ type: 'totp', key: secret, id });
      this.useTotpStep(id, step);
      this.endSessions(id, keepSession);
    })();
  }

  disableTotp(id: Authorized<number>): void {
    this.q.setTwofa.run({ type: 'none', key: null, id });
  }

  /** Whether the user hid the dashboard's first-run checklist. */
  firstRunDismissed(id: number): boolean {
    return this.row(id).first_run_dismissed_at !== null;
  }

  /** Hides the dashboard's first-run checklist for the user (the first time is kept). */
  dismissFirstRun(id: Authorized<number>): void {
    this.q.dismissFirstRun.run({ id });
  }

  private row(id: number): UserRow {
    const row = this.q.userById.get({ id });
    if (!row) throw notFound(`user ${id} not found`);
    return row;
  }

  private assertUnique(username: string, email: string, exceptId: number): void {
    if (this.q.usernameTaken.get({ username, exceptId })) throw conflict(`the username "${username}" is already taken`);
    if (this.q.emailTaken.get({ email, exceptId })) throw conflict(`the e-mail "${email}" belongs to another user`);
  }

  private assertAdminRemains(excludedIds: number[]): void {
    const left = this.q.otherEnabledAdmins.get({ ids: JSON.stringify(excludedIds) })!.n;
    if (left === 0) throw invalid('refused: at least one enabled Super Admin user must remain');
  }

  private toJson(r: UserRow): UserJson {
    const role = this.q.roleById.get({ id: r.user_role_id })!;
    const listRole = r.list_role_id !== null ? this.listRoleJson(this.q.roleById.get({ id: r.list_role_id })!) : null;
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
      user_role: { id: role.id, name: role.name, permissions: parseJsonText(role.permissions) },
      list_role: listRole && { id: listRole.id, name: listRole.name, lists: listRole.lists },
    };
  }

  // ---- roles -------------------------------------------------------------------------------

  listUserRoles(): UserRoleJson[] {
    return this.q.rolesOfType.all({ type: 'user' }).map((r) => this.userRoleJson(r));
  }

  listListRoles(): ListRoleJson[] {
    return this.q.rolesOfType.all({ type: 'list' }).map((r) => this.listRoleJson(r));
  }

  /** Whether the role with this id is a user role or a list role; undefined when there is none. */
  roleType(id: number): RoleRow['type'] | undefined {
    return this.q.roleById.get({ id })?.type;
  }

  /** The user role with this id, or undefined (none, or a list role). */
  userRole(id: number): UserRoleJson | undefined {
    const r = this.q.roleById.get({ id });
    return r && r.type === 'user' ? this.userRoleJson(r) : undefined;
  }

  /** The list role with this id, or undefined (none, or a user role). */
  listRole(id: number): ListRoleJson | undefined {
    const r = this.q.roleById.get({ id });
    return r && r.type === 'list' ? this.listRoleJson(r) : undefined;
  }

  listExists(id: number): boolean {
    return this.q.listExists.get({ id }) !== undefined;
  }

  createUserRole(name: string, permissions: readonly Permission[]): UserRoleJson {
    const perms = this.checkUserRole(name, permissions, 0);
    const id = Number(this.q.insertRole.run({ type: 'user', name, permissions: toJsonText(perms) }).lastInsertRowid);
    return this.userRoleJson(this.q.roleById.get({ id })!);
  }

  updateUserRole(id: Authorized<number>, name: string, permissions: readonly Permission[]): UserRoleJson {
    const perms = this.checkUserRole(name, permissions, id);
    this.q.updateRole.run({ name, permissions: toJsonText(perms), id });
    return this.userRoleJson(this.q.roleById.get({ id })!);
  }

  createListRole(name: string, lists: ListRoleGrant[]): ListRoleJson {
    const grants = this.checkListRole(name, lists, 0);
    const id = this.db.transaction(() => {
      const roleId = Number(this.q.insertRole.run({ type: 'list', name, permissions: toJsonText([]) }).lastInsertRowid);
      this.writeGrants(roleId, grants);
      return roleId;
    }).immediate();
    return this.listRoleJson(this.q.roleById.get({ id })!);
  }

  /** Replaces the name and the whole set of per-list grants. */
  updateListRole(id: Authorized<number>, name: string, lists: ListRoleGrant[]): ListRoleJson {
    const grants = this.checkListRole(name, lists, id);
    this.db.transaction(() => {
      this.q.updateRole.run({ name, permissions: toJsonText([]), id });
      this.q.clearRoleLists.run({ roleId: id });
      this.writeGrants(id, grants);
    }).immediate();
    return this.listRoleJson(this.q.roleById.get({ id })!);
  }

  /** Deletes a role that no user holds (a role in use answers 409; users are never deleted). */
  deleteRole(id: Authorized<number>): void {
    this.db.transaction(() => {
      if (!this.q.roleById.get({ id })) throw notFound(`role ${id} not found`);
      const users = this.q.roleUsers.get({ id })!.n;
      if (users > 0) throw conflict(`the role is in use by ${users} user${users === 1 ? '' : 's'}; assign them another role first`);
      this.q.deleteRole.run({ id });
    }).immediate();
  }

  private checkUserRole(name: string, permissions: readonly Permission[], exceptId: number): Permission[] {
    if (this.q.roleByName.get({ type: 'user', name, exceptId })) throw conflict(`a user role named "${name}" already exists`);
    return [...new Set(permissions)];
  }

  /** Entries without permissions are dropped, repeated lists merged. */
  private checkListRole(name: string, lists: ListRoleGrant[], exceptId: number): Map<number, ListPermission[]> {
    const grants = new Map<number, ListPermission[]>();
    for (const g of lists) {
      if (!g.permissions.length) continue;
      grants.set(g.id, [...new Set([...(grants.get(g.id) ?? []), ...g.permissions])]);
    }
    if (this.q.roleByName.get({ type: 'list', name, exceptId })) throw conflict(`a list role named "${name}" already exists`);
    return grants;
  }

  private writeGrants(roleId: number, grants: Map<number, ListPermission[]>): void {
    for (const [listId, perms] of grants) {
      const ordered = LIST_PERMISSIONS.filter((p) => perms.includes(p));
      this.q.insertRoleList.run({ roleId, listId, permissions: toJsonText(ordered) });
    }
  }

  private userRoleJson(r: RoleRow): UserRoleJson {
    return { id: r.id, created_at: r.created_at, updated_at: r.updated_at, type: 'user', name: r.name, permissions: parseJsonText(r.permissions), lists: null };
  }

  private listRoleJson(r: RoleRow): ListRoleJson {
    const lists = this.q.roleLists.all({ roleId: r.id })
      .map((l) => ({ id: l.id, name: l.name, permissions: parseJsonText(l.permissions) }));
    return { id: r.id, created_at: r.created_at, updated_at: r.updated_at, name: r.name, lists };
  }

  // ---- logging in, sessions, password resets -----------------------------------------------

  /**
   * The enabled password-login user these credentials belong to, or null. The password hash
   * is computed even for unknown names, so the answer time does not reveal which exist.
   */
  async checkLogin(username: string, password: string): Promise<LoginAccount | null> {
    const found = this.q.userByName.get({ username });
    const matches = await verifyPassword(password, found && found.type === 'user' && found.password_login === 1 ? found.password : await DUMMY_HASH());
    // Read again after the wait: the user may have been disabled or changed meanwhile.
    const row = this.q.userByName.get({ username });
    const usable = row && row.type === 'user' && row.password_login === 1 && row.status === 'enabled' && row.password === found?.password;
    if (!usable || !matches) return null;
    // A listmonk bcrypt hash is replaced by listmgr's own on the first successful sign-in.
    if (isBcryptHash(row.password)) this.q.setPassword.run({ password: await hashPassword(password), id: row.id });
    return { id: row.id, username: row.username, twofaSecret: row.twofa_type === 'totp' ? row.twofa_key : null };
  }

  /** Starts a session (and prunes expired ones); returns the cookie value, stored only hashed. */
  createSession(userId: number): string {
    const value = randomString(64);
    const now = nowIso();
    this.db.transaction(() => {
      this.q.pruneSessions.run({ now });
      this.q.insertSession.run({ id: sha256Hex(value), userId, now, expiresAt: new Date(Date.parse(now) + SESSION_TTL_MS).toISOString() });
      this.q.setLoggedIn.run({ now, id: userId });
    }).immediate();
    return value;
  }

  endSession(cookieValue: string): void {
    this.q.deleteSession.run({ id: sha256Hex(cookieValue) });
  }

  /** Ends every session of the user except the one with this cookie value. */
  endSessions(userId: number, keepCookieValue: string | null): void {
    this.q.deleteUserSessions.run({ userId, keepId: keepCookieValue ? sha256Hex(keepCookieValue) : '' });
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
    const row = this.q.userByEmail.get({ email: address });
    if (!row || row.type !== 'user' || row.password_login !== 1 || row.status !== 'enabled') return null;
    const token = randomString(64);
    this.db.transaction(() => {
      this.q.pruneResets.run({ now: nowIso() });
      this.q.deleteUserResets.run({ userId: row.id });
      this.q.insertReset.run({ tokenHash: sha256Hex(token), userId: row.id, expiresAt: later(RESET_TTL_MS) });
    }).immediate();
    return { token, username: row.username, email: row.email };
  }

  /** The user a reset token is valid for, or null (unknown, used or expired). */
  resetTokenUser(token: string): number | null {
    const r = this.q.resetUser.get({ tokenHash: sha256Hex(token), now: nowIso() });
    return r ? r.user_id : null;
  }

  /** Uses up a reset token: sets the password (its hash) and ends all the user's sessions. Null when unusable. */
  resetPassword(token: string, passwordHash: PasswordHash): number | null {
    return this.db.transaction(() => {
      const userId = this.resetTokenUser(token);
      if (userId === null) return null;
      this.q.deleteReset.run({ tokenHash: sha256Hex(token) });
      if (!this.hasPasswordLogin(userId)) return null;
      this.changePassword(userId, passwordHash, null);
      return userId;
    }).immediate();
  }

  // ---- authentication ----------------------------------------------------------------------

  /** The AuthUser view of an enabled user, or null. */
  loadAuthUser(id: number, via: AuthUser['via']): AuthUser | null {
    const row = this.q.userById.get({ id });
    return row && row.status === 'enabled' ? this.toAuthUser(row, via) : null;
  }

  private toAuthUser(row: UserRow, via: AuthUser['via']): AuthUser {
    const grants = new Map<number, ListGrant>();
    if (row.list_role_id !== null) {
      for (const g of this.sql<[number], { list_id: number; permissions: JsonText<string[]> }>(SQL.listGrants).all(row.list_role_id)) {
        const perms = parseJsonText(g.permissions);
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
      permissions: new Set(parseJsonText(row.permissions)),
      listGrants: grants,
      via,
    };
  }

  /**
   * Records an API user's use as its loggedin_at (for `listmgr api-user list`), at most once an
   * hour. Best effort: it never waits for the lock (a read must not stall behind a long write)
   * and a busy or full database skips it.
   */
  noteTokenUse(id: number): void {
    const now = Date.now();
    if (now - (this.tokenUseWritten.get(id) ?? 0) < TOKEN_USE_EVERY_MS) return;
    this.tokenUseWritten.set(id, now);
    this.bestEffort(() => this.q.setLoggedIn.run({ now: nowIso(), id }));
  }

  /**
   * A write that may be skipped: it never waits for the lock (a read must not stall behind a
   * long write), and a busy or full database skips it.
   */
  private bestEffort(write: () => void): void {
    const timeout = this.db.pragma('busy_timeout', { simple: true }) as number;
    this.db.pragma('busy_timeout = 0');
    try {
      write();
    } catch (e) {
      if (!isDatabaseBusy(e) && !isStorageFailure(e)) throw e;
    } finally {
      this.db.pragma(`busy_timeout = ${timeout}`);
    }
  }

  authenticator(): Authenticator {
    return {
      byToken: (username, token) => {
        const row = this.q.userByName.get({ username });
        // Hash even when the user is unknown so timing does not reveal which usernames exist.
        const digest = sha256Hex(token);
        if (!row || row.type !== 'api' || row.status !== 'enabled' || !row.password) return null;
        return sameDigest(digest, row.password) ? this.toAuthUser(row, 'token') : null;
      },
      bySession: (sessionId) => {
        const id = sha256Hex(sessionId);
        const now = Date.now();
        const idle = this.sessionIdleMs();
        const s = this.sql<[string, string, string], { user_id: number; last_used_at: string }>(SQL.sessionUser)
          .get(id, new Date(now).toISOString(), new Date(now - idle).toISOString());
        if (!s) return null;
        const u = this.loadAuthUser(s.user_id, 'session');
        // Sessions are for login users; a user turned into anything else loses them.
        if (!u || u.type !== 'user') return null;
        if (now - Date.parse(s.last_used_at) >= Math.min(SESSION_TOUCH_MS, idle / 10)) {
          this.bestEffort(() => this.sql<[string, string]>(SQL.touchSession).run(new Date(now).toISOString(), id));
        }
        return u;
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
