// listmonk's permission model: user-role permissions (route level) and per-list grants.

export const PERMISSION_GROUPS = [
  { group: 'lists', permissions: ['lists:get_all', 'lists:manage_all'] },
  { group: 'subscribers', permissions: ['subscribers:get', 'subscribers:get_all', 'subscribers:manage', 'subscribers:import', 'subscribers:sql_query', 'tx:send'] },
  { group: 'campaigns', permissions: ['campaigns:get', 'campaigns:get_all', 'campaigns:get_analytics', 'campaigns:manage', 'campaigns:manage_all', 'campaigns:send'] },
  { group: 'bounces', permissions: ['bounces:get', 'bounces:manage', 'webhooks:post_bounce'] },
  { group: 'media', permissions: ['media:get', 'media:manage'] },
  { group: 'templates', permissions: ['templates:get', 'templates:manage'] },
  { group: 'users', permissions: ['users:get', 'users:manage', 'roles:get', 'roles:manage'] },
  { group: 'settings', permissions: ['settings:get', 'settings:manage', 'settings:maintain'] },
  // listmgr: outgoing webhooks, and the change log's feed (GET /api/changes), whose events hold subscribers' data.
  { group: 'webhooks', permissions: ['webhooks:manage', 'events:get'] },
] as const;

export type Permission = (typeof PERMISSION_GROUPS)[number]['permissions'][number];
export const ALL_PERMISSIONS: readonly Permission[] = PERMISSION_GROUPS.flatMap((g) => g.permissions);
export const LIST_PERMISSIONS = ['list:get', 'list:manage'] as const;
export type ListPermission = (typeof LIST_PERMISSIONS)[number];

/** The built-in Super Admin role: passes every check. */
export const SUPER_ADMIN_ROLE_ID = 1;

export interface ListGrant {
  get: boolean;
  manage: boolean;
}

/** The caller of an authenticated request. */
export interface AuthUser {
  id: number;
  username: string;
  name: string;
  email: string;
  type: 'user' | 'api';
  userRoleId: number;
  listRoleId: number | null;
  superAdmin: boolean;
  permissions: ReadonlySet<string>;
  /** Per-list grants from the list role. */
  listGrants: ReadonlyMap<number, ListGrant>;
  /** How the request was authenticated; cookie-authenticated writes need the CSRF check. */
  via: 'token' | 'session';
}

/**
 * Who holds a credential: the user store answers it, and the edge (http/auth.ts) asks it with
 * what a request carries.
 */
export interface Authenticator {
  /** The enabled API user with this name whose token matches, or null. */
  byToken(username: string, token: string): AuthUser | null;
  /** The enabled user owning this (unexpired) session cookie value, or null. */
  bySession(sessionId: string): AuthUser | null;
  /** The origin of the public root URL (scheme://host[:port]), also trusted for cookie writes. */
  trustedOrigin?(): string | null;
}

export function hasPerm(u: AuthUser, perm: string): boolean {
  return u.superAdmin || u.permissions.has(perm);
}

/**
 * The lists the user may read (kind 'get') or act on ('manage'), or 'all'.
 * We take the union of list:get and list:manage grants for 'get' (listmonk's "get lists, else
 * manage lists" rule hides lists a user may manage; see docs/differences.md).
 */
export function permittedLists(u: AuthUser, kind: 'get' | 'manage'): 'all' | number[] {
  if (kind === 'get' && (hasPerm(u, 'lists:get_all') || hasPerm(u, 'lists:manage_all'))) return 'all';
  if (kind === 'manage' && hasPerm(u, 'lists:manage_all')) return 'all';
  const ids: number[] = [];
  for (const [id, g] of u.listGrants) if (kind === 'get' ? g.get || g.manage : g.manage) ids.push(id);
  return ids;
}

export function canAccessList(u: AuthUser, kind: 'get' | 'manage', listId: number): boolean {
  const p = permittedLists(u, kind);
  return p === 'all' || p.includes(listId);
}

/** Keeps the ids the user may use (kind as permittedLists). */
export function filterLists(u: AuthUser, kind: 'get' | 'manage', ids: number[]): number[] {
  const p = permittedLists(u, kind);
  return p === 'all' ? ids : ids.filter((id) => p.includes(id));
}

/** The caller a service acts for (the authenticated user of a request, or the CLI's). */
export type Actor = AuthUser;

/**
 * The one permission check: a user-role permission, or with a list id, the list role's grant
 * on that list (`list:get` / `list:manage`; `lists:get_all` / `lists:manage_all` cover every list).
 */
export function can(actor: Actor, permission: Permission | ListPermission, listId?: number): boolean {
  if (permission === 'list:get' || permission === 'list:manage') {
    return listId !== undefined && canAccessList(actor, permission === 'list:get' ? 'get' : 'manage', listId);
  }
  return hasPerm(actor, permission);
}

declare const authorizedBrand: unique symbol;
/**
 * A value a permission check produced. Mutating store calls take ids of this type only, so the
 * compiler refuses a change on an id no check has seen; the functions below are the only ones
 * that make the brand, and each runs the check it is given first.
 */
export type Authorized<T> = T & { readonly [authorizedBrand]: true };

/**
 * The value, branded, when `check` passes; else throws `refusal`. The check is the rule that
 * allows the change (a permission, a grant on the list), so the brand stands for that rule.
 */
export function authorize<T>(value: T, check: (value: T) => boolean, refusal: (value: T) => Error): Authorized<T> {
  if (!check(value)) throw refusal(value);
  return value as Authorized<T>;
}

/**
 * As authorize, for a check made over the whole list at once (one query for many ids): every
 * value branded, or the refusal.
 */
export function authorizeAll<T>(values: readonly T[], check: (values: readonly T[]) => boolean, refusal: (values: readonly T[]) => Error): Authorized<T>[] {
  if (!check(values)) throw refusal(values);
  return [...values] as Authorized<T>[];
}

/** The values that pass `check`, branded; the others are left out (a bulk change skips what it may not touch). */
export function authorizeEach<T>(values: readonly T[], check: (value: T) => boolean): Authorized<T>[] {
  return values.filter((v) => check(v)) as Authorized<T>[];
}
