// Users, roles, the caller's own profile and two-factor authentication: who may see or change
// what (users:get/manage, roles:get/manage; anyone their own profile and 2FA), the account rules
// on typed input, and the log of who changed what. The store keeps the SQL and the guards that
// must hold in the write's transaction.
import type { AppContext } from '../context.ts';
import { DomainError, denied, invalid, notFound, tooMany } from '../core/errors.ts';
import {
  ALL_PERMISSIONS, LIST_PERMISSIONS, SUPER_ADMIN_ROLE_ID, authorize, can, type Actor, type Authorized, type ListPermission, type Permission,
} from '../core/authz.ts';
import { assertName, assertPassword, assertUsername, normaliseEmail } from './rules.ts';
import { hashPassword } from './secrets.ts';
import type { SignIn } from './sign-in.ts';
import type { ListRoleGrant, ListRoleJson, UserInput, UserJson, UserRoleJson, UserStore, UserType } from './store.ts';
import { isTotpSecret, newTotpEnrolment, totpCodeStep } from './totp.ts';

// What the users pages show, typed by the service they read it from (a page imports no store).
export type { ListRoleJson, UserJson, UserRoleJson } from './store.ts';

/** What a user may change on their own profile (PUT /api/profile). */
export interface ProfileInput {
  name?: string;
  email?: string;
  password?: string;
  /** The current password: required from a browser session to change the e-mail or password. */
  current_password?: string;
}

export interface UserRoleInput {
  name: string;
  permissions: string[];
}

export interface ListRoleInput {
  name: string;
  lists: { id: number; permissions: string[] }[];
}

export class UserService {
  /** `signIn` checks and limits the current password that confirms a sensitive change. */
  constructor(private readonly ctx: AppContext, private readonly store: UserStore, private readonly signIn: SignIn) {}

  // ---- users -------------------------------------------------------------------------------

  list(actor: Actor): UserJson[] {
    this.assertCan(actor, 'users:get');
    return this.store.listUsers();
  }

  get(actor: Actor, id: number): UserJson {
    this.assertCan(actor, 'users:get');
    return this.store.getUser(id);
  }

  /** Creates a user; an API user's token is answered this once. */
  async create(actor: Actor, input: UserInput & { type: UserType }): Promise<{ user: UserJson; token: string | null }> {
    this.assertCan(actor, 'users:manage');
    const username = input.username ?? '';
    assertUsername(username);
    let email: string | undefined;
    let newPassword: string | undefined;
    // An API user has no e-mail or password of its own: the ones given are ignored.
    if (input.type === 'user') {
      if (!input.email) throw invalid('"email" is required');
      email = normaliseEmail(input.email);
      if (input.passwordLogin) {
        if (!input.password) throw invalid('"password" is required for password login');
        assertPassword(input.password);
        newPassword = input.password;
      }
    }
    if (!input.userRoleId) throw invalid('"user_role_id" is required');
    this.assertUserRole(actor, input.userRoleId);
    if (input.listRoleId) this.assertListRole(actor, input.listRoleId);
    const passwordHash = newPassword === undefined ? undefined : await hashPassword(newPassword);
    const { password: _plain, ...fields } = input;
    const created = this.store.createUser({ ...fields, passwordHash, username, email, userRoleId: input.userRoleId });
    this.ctx.log.info(`user "${created.user.username}" (${created.user.type}) created by ${actor.username}`);
    return created;
  }

  /**
   * Changes a user: fields given replace the stored ones (see UserInput.listRoleId). A new
   * password ends the user's sessions except `keepSession`.
   */
  async update(actor: Actor, id: number, changes: UserInput, keepSession: string | null): Promise<UserJson> {
    // Checked before hashing (a refused change costs no hash) and again after it, as other
    // requests run while the hash is computed.
    const hashes = this.checkedUpdate(actor, id, changes).setsPassword;
    const passwordHash = hashes ? await hashPassword(changes.password!) : undefined;
    const { checked, email, setsPassword } = this.checkedUpdate(actor, id, changes);
    const { password: _plain, ...fields } = changes;
    const user = this.store.updateUser(checked, { ...fields, email, passwordHash: setsPassword ? passwordHash : undefined }, keepSession);
    this.ctx.log.info(`user "${user.username}" updated by ${actor.username}`);
    return user;
  }

  /** The checks of update(): the user, its normalised e-mail, and whether the given password is to be set. */
  private checkedUpdate(actor: Actor, id: number, changes: UserInput): { checked: Authorized<number>; email: string | undefined; setsPassword: boolean } {
    const { checked, user: current } = this.changeableUser(actor, id);
    const account = this.store.account(checked);
    if (changes.username) assertUsername(changes.username);
    let { email } = changes;
    let setsPassword = false;
    // An API user's e-mail and token do not change here; a login user's e-mail and password do.
    if (account.type === 'user') {
      if (email) email = normaliseEmail(email);
      if (changes.passwordLogin ?? account.passwordLogin) {
        if (changes.password) {
          assertPassword(changes.password);
          setsPassword = true;
        } else if (!account.hasPassword) throw invalid('"password" is required to enable password login');
      }
    }
    if (changes.userRoleId && changes.userRoleId !== current.user_role.id) this.assertUserRole(actor, changes.userRoleId);
    if (changes.listRoleId && changes.listRoleId !== current.list_role?.id) this.assertListRole(actor, changes.listRoleId);
    return { checked, email, setsPassword };
  }

  /** A new token for an API user (the old one stops working), answered this once. */
  regenerateToken(actor: Actor, id: number): string {
    const { checked, user } = this.changeableUser(actor, id);
    const token = this.store.newApiToken(checked);
    this.ctx.log.info(`a new API token for user "${user.username}" made by ${actor.username}`);
    return token;
  }

  delete(actor: Actor, id: number): void {
    const { checked } = this.changeableUser(actor, id);
    this.store.deleteUsers([checked]);
    this.ctx.log.info(`user ${id} deleted by ${actor.username}`);
  }

  deleteMany(actor: Actor, ids: number[]): void {
    this.assertCan(actor, 'users:manage');
    if (!ids.length) throw invalid('no user ids given');
    for (const id of ids) this.assertHolderWithin(actor, this.store.getUser(id));
    this.store.deleteUsers(ids.map((id) => this.authorize(actor, id)));
    this.ctx.log.info(`users ${ids.join(', ')} deleted by ${actor.username}`);
  }

  // ---- the actor's own account -------------------------------------------------------------

  profile(actor: Actor): UserJson {
    return this.store.getUser(actor.id);
  }

  /**
   * Everyone may change their own name; users who sign in with a password also their e-mail and
   * password (ignored for the others). A new password ends their other sessions. `keepSession`
   * is the caller's session, which too many wrong current passwords end.
   */
  async updateProfile(actor: Actor, changes: ProfileInput, keepSession: string | null): Promise<UserJson> {
    const own = this.own(actor);
    const account = this.store.account(own);
    if (changes.name !== undefined) assertName(changes.name);
    let email: string | undefined;
    let password: string | undefined;
    if (account.type === 'user' && account.passwordLogin) {
      if (changes.email) email = normaliseEmail(changes.email);
      if (changes.password) {
        assertPassword(changes.password);
        password = changes.password;
      }
      // A session cookie may be a stolen one: taking over the account (a new password, or an
      // e-mail that receives reset links) needs the current password. API tokens keep
      // listmonk's body.
      const emailChanges = email !== undefined && email !== this.store.getUser(own).email;
      if (actor.via === 'session' && (password !== undefined || emailChanges)) {
        if (!changes.current_password) throw invalid('"current_password" is required to change your e-mail or password');
        await this.confirmOwnPassword(actor, changes.current_password, keepSession, 'wrong current password');
      }
    }
    const passwordHash = password === undefined ? undefined : await hashPassword(password);
    return this.store.updateProfile(own, { name: changes.name, email, passwordHash }, keepSession);
  }

  /** Whether the actor hid the dashboard's first-run checklist. */
  firstRunDismissed(actor: Actor): boolean {
    return this.store.firstRunDismissed(actor.id);
  }

  /** Hides the dashboard's first-run checklist for the actor, on every later visit. */
  dismissFirstRun(actor: Actor): void {
    this.store.dismissFirstRun(this.own(actor));
  }

  /** Ends the session with this cookie value (signing out). */
  endSession(session: string): void {
    this.store.endSession(session);
  }

  // ---- two-factor authentication (the actor's own, or anyone's with users:manage) ----------

  /** A new TOTP secret and its QR code for the user to enrol (nothing is stored yet). */
  totpEnrolment(actor: Actor, id: number): Promise<{ secret: string; qr: string }> {
    const checked = this.twofaTarget(actor, id);
    if (this.store.totpSecret(checked)) throw invalid('two-factor authentication is already enabled; disable it first');
    const user = this.store.getUser(checked);
    return newTotpEnrolment(this.ctx.settings.str('app.site_name'), user.email ?? user.username);
  }

  /**
   * Turns TOTP on with an enrolled secret and a current code from it. The actor confirms with
   * their own password, as for turning it off: a stolen session must not enrol the thief's
   * device. The user's sessions end, except `keepSession` (the caller's).
   */
  async enableTotp(actor: Actor, id: number, input: { secret?: string; code?: string; password?: string }, keepSession: string | null): Promise<void> {
    const checked = this.twofaTarget(actor, id);
    // Required only now: someone else's 2FA answers 403 whatever the body holds.
    if (!input.password) throw invalid('"password" is required: confirm with your current password');
    if (!input.secret) throw invalid('"secret" is required');
    if (!input.code) throw invalid('"code" is required');
    if (!this.store.hasPasswordLogin(checked)) throw invalid('two-factor authentication needs a user with password login');
    if (this.store.totpSecret(checked)) throw invalid('two-factor authentication is already enabled');
    if (!isTotpSecret(input.secret)) throw invalid('invalid "secret": not a base32 TOTP secret');
    const step = totpCodeStep(input.secret, input.code);
    if (step === null) throw invalid('invalid "code": it does not match the secret (check the device clock)');
    await this.confirmActorPassword(actor, input.password, keepSession);
    // Again after the wait: another request may have turned it on meanwhile.
    if (this.store.totpSecret(checked)) throw invalid('two-factor authentication is already enabled');
    this.store.enableTotp(checked, input.secret, step, id === actor.id ? keepSession : null);
    this.ctx.log.info(`two-factor authentication enabled for user ${id} by ${actor.username}; the user's other sessions were ended`);
  }

  /** Turns TOTP off; the actor confirms with their own password (an admin resetting someone else's 2FA too). */
  async disableTotp(actor: Actor, id: number, password: string | undefined, session: string | null): Promise<void> {
    const checked = this.twofaTarget(actor, id);
    if (!password) throw invalid('"password" is required');
    if (!this.store.totpSecret(checked)) throw invalid('two-factor authentication is not enabled');
    await this.confirmActorPassword(actor, password, session);
    this.store.disableTotp(checked);
    this.ctx.log.info(`two-factor authentication disabled for user ${id} by ${actor.username}`);
  }

  /** The 2FA changes' confirmation: the actor's own password (a user who signs in with one). */
  private async confirmActorPassword(actor: Actor, password: string, session: string | null): Promise<void> {
    assertPassword(password);
    if (!this.store.hasPasswordLogin(actor.id)) throw invalid('confirming with a password needs a user with password login');
    await this.confirmOwnPassword(actor, password, session, 'wrong password');
  }

  /**
   * Checks the actor's current password through the sign-in limits: 403 `wrong` for a wrong
   * one, 429 once the user has typed too many (the last of which ended `session`).
   */
  private async confirmOwnPassword(actor: Actor, password: string, session: string | null, wrong: string): Promise<void> {
    const outcome = await this.signIn.confirmPassword(actor, password, session);
    if (outcome.kind === 'wrong') throw denied(wrong);
    if (outcome.kind === 'too-many') {
      throw tooMany(`too many wrong passwords: try again in ${Math.ceil(outcome.retryAfter / 60)} minute(s)${outcome.ended ? '; this session has ended, sign in again' : ''}`, outcome.retryAfter);
    }
  }

  // ---- roles -------------------------------------------------------------------------------

  userRoles(actor: Actor): UserRoleJson[] {
    this.assertCan(actor, 'roles:get');
    return this.store.listUserRoles();
  }

  listRoles(actor: Actor): ListRoleJson[] {
    this.assertCan(actor, 'roles:get');
    return this.store.listListRoles();
  }

  createUserRole(actor: Actor, input: UserRoleInput): UserRoleJson {
    this.assertCan(actor, 'roles:manage');
    const role = this.store.createUserRole(input.name, this.permissionsWithin(actor, this.checkPermissions(input)));
    this.ctx.log.info(`user role "${role.name}" created by ${actor.username}`);
    return role;
  }

  updateUserRole(actor: Actor, id: number, input: UserRoleInput): UserRoleJson {
    const checked = this.editableRole(actor, id, 'user');
    const role = this.store.updateUserRole(checked, input.name, this.permissionsWithin(actor, this.checkPermissions(input)));
    this.ctx.log.info(`user role ${id} updated by ${actor.username}`);
    return role;
  }

  createListRole(actor: Actor, input: ListRoleInput): ListRoleJson {
    this.assertCan(actor, 'roles:manage');
    const role = this.store.createListRole(input.name, this.grantsWithin(actor, this.checkGrants(input)));
    this.ctx.log.info(`list role "${role.name}" created by ${actor.username}`);
    return role;
  }

  /** Replaces the name and the whole set of per-list grants. */
  updateListRole(actor: Actor, id: number, input: ListRoleInput): ListRoleJson {
    const checked = this.editableRole(actor, id, 'list');
    const role = this.store.updateListRole(checked, input.name, this.grantsWithin(actor, this.checkGrants(input)));
    this.ctx.log.info(`list role ${id} updated by ${actor.username}`);
    return role;
  }

  /** Deletes a role that no user holds; the Super Admin role stays. */
  deleteRole(actor: Actor, id: number): void {
    const checked = this.authorize(actor, id, 'roles:manage');
    if (id === SUPER_ADMIN_ROLE_ID) throw invalid('the Super Admin role cannot be deleted');
    this.store.deleteRole(checked);
    this.ctx.log.info(`role ${id} deleted by ${actor.username}`);
  }

  // ---- what the admin pages offer (the routes' `may`; the writes check again) ----------------

  /** Whether the actor may change, delete or give a new token to this user: the check of update(), delete() and regenerateToken(). */
  mayChangeUser(actor: Actor, id: number): boolean {
    return this.allows(() => this.changeableUser(actor, id));
  }

  /** Whether the actor may enrol, turn on or turn off this user's 2FA: the check of totpEnrolment(), enableTotp() and disableTotp(). */
  mayChangeTwofa(actor: Actor, id: number): boolean {
    return this.allows(() => this.twofaTarget(actor, id));
  }

  /**
   * Whether the actor may edit this role: the check of updateUserRole() and updateListRole(). The
   * Super Admin role never is (a PUT of it is refused as invalid, not denied).
   */
  mayEditRole(actor: Actor, id: number, type: 'user' | 'list'): boolean {
    return id !== SUPER_ADMIN_ROLE_ID && this.allows(() => this.editableRole(actor, id, type));
  }

  private allows(check: () => void): boolean {
    try {
      check();
      return true;
    } catch (err) {
      if (err instanceof DomainError && err.kind === 'denied') return false;
      throw err;
    }
  }

  // ---- checks ------------------------------------------------------------------------------

  private assertCan(actor: Actor, permission: Permission): void {
    if (!can(actor, permission)) throw denied(`permission denied: ${permission}`);
  }

  /** A user (users:manage) or role (roles:manage) the actor may change, as far as the permission goes. */
  private authorize(actor: Actor, id: number, permission: 'users:manage' | 'roles:manage' = 'users:manage'): Authorized<number> {
    return authorize(id, () => can(actor, permission), () => denied(`permission denied: ${permission}`));
  }

  /** The actor's own account, which everyone may change (their profile, their dashboard). */
  private own(actor: Actor): Authorized<number> {
    return authorize(actor.id, (id) => id === actor.id, () => denied('permission denied: not your own account'));
  }

  /** A user the actor may change: users:manage, and the user holds no more than the actor. 404 for an unknown user. */
  private changeableUser(actor: Actor, id: number): { checked: Authorized<number>; user: UserJson } {
    const checked = this.authorize(actor, id);
    const user = this.store.getUser(checked);
    this.assertHolderWithin(actor, user);
    return { checked, user };
  }

  /** Users manage their own 2FA; someone else's takes users:manage. 404 for an unknown user. */
  private twofaTarget(actor: Actor, id: number): Authorized<number> {
    const checked = authorize(id, (id) => id === actor.id || can(actor, 'users:manage'), () => denied('permission denied: users:manage'));
    this.store.account(id);
    // Someone else's 2FA, as any other change to them: only of a user holding no more than the actor.
    if (id !== actor.id) this.assertHolderWithin(actor, this.store.getUser(id));
    return checked;
  }

  /** A user role the actor may give: it exists, and holds only permissions the actor has (Super Admin: only a Super Admin). */
  private assertUserRole(actor: Actor, id: number): void {
    const role = this.store.userRole(id);
    if (!role) throw invalid(`invalid "user_role_id": no user role ${id}`);
    if (id === SUPER_ADMIN_ROLE_ID && !actor.superAdmin) throw denied('only a Super Admin can assign the Super Admin role');
    this.permissionsWithin(actor, role.permissions, 'give');
  }

  /** A list role the actor may give: it exists, and grants only what the actor has on each list. */
  private assertListRole(actor: Actor, id: number): void {
    const role = this.store.listRole(id);
    if (!role) throw invalid(`invalid "list_role_id": no list role ${id}`);
    this.grantsWithin(actor, role.lists, 'give');
  }

  /**
   * A user may be changed or deleted only by a caller whose permissions cover the user's roles
   * (a Super Admin only by a Super Admin): else `users:manage` could take over a stronger account.
   */
  private assertHolderWithin(actor: Actor, user: UserJson): void {
    if (actor.superAdmin) return;
    if (user.user_role.id === SUPER_ADMIN_ROLE_ID) throw denied('only a Super Admin can change a Super Admin');
    this.permissionsWithin(actor, user.user_role.permissions, 'change a user holding');
    if (user.list_role) this.grantsWithin(actor, user.list_role.lists, 'change a user holding');
  }

  /**
   * Refuses permissions the actor does not have itself: a caller gives, or edits, only roles
   * within its own permissions (a Super Admin has them all).
   */
  private permissionsWithin<T extends string>(actor: Actor, permissions: readonly T[], doing = 'give'): T[] {
    const beyond = actor.superAdmin ? undefined : permissions.find((p) => !can(actor, p as Permission));
    if (beyond) throw denied(`you cannot ${doing} a role with the permission "${beyond}": a caller gives or edits only roles within its own permissions`);
    return [...permissions];
  }

  /** As permissionsWithin, for a list role's per-list grants. */
  private grantsWithin<G extends { id: number; permissions: readonly string[] }>(actor: Actor, lists: G[], doing = 'give'): G[] {
    for (const g of lists) {
      const beyond = actor.superAdmin ? undefined : g.permissions.find((p) => !can(actor, p as ListPermission, g.id));
      if (beyond) throw denied(`you cannot ${doing} a role with "${beyond}" on list ${g.id}: a caller gives or edits only roles within its own permissions`);
    }
    return lists;
  }

  /**
   * A role the actor may change: it exists with this type, is not the Super Admin role, and
   * gives nothing beyond the actor's own permissions.
   */
  private editableRole(actor: Actor, id: number, type: 'user' | 'list'): Authorized<number> {
    const checked = this.authorize(actor, id, 'roles:manage');
    if (id === SUPER_ADMIN_ROLE_ID) throw invalid('the Super Admin role cannot be changed');
    if (this.store.roleType(id) !== type) throw notFound(`${type} role ${id} not found`);
    if (type === 'user') this.permissionsWithin(actor, this.store.userRole(checked)!.permissions, 'edit');
    else this.grantsWithin(actor, this.store.listRole(checked)!.lists, 'edit');
    return checked;
  }

  private checkPermissions(input: UserRoleInput): Permission[] {
    assertName(input.name);
    const known: readonly string[] = ALL_PERMISSIONS;
    for (const p of input.permissions) if (!known.includes(p)) throw invalid(`invalid permission "${p}"`);
    return input.permissions as Permission[];
  }

  /** Grants name list permissions and lists that exist (entries without permissions are dropped by the store). */
  private checkGrants(input: ListRoleInput): ListRoleGrant[] {
    assertName(input.name);
    const known: readonly string[] = LIST_PERMISSIONS;
    for (const g of input.lists) {
      for (const p of g.permissions) if (!known.includes(p)) throw invalid(`invalid list permission "${p}": use list:get or list:manage`);
      if (g.permissions.length && !this.store.listExists(g.id)) throw invalid(`invalid list id ${g.id}: no such list`);
    }
    return input.lists.map((g) => ({ id: g.id, permissions: g.permissions as ListPermission[] }));
  }
}
