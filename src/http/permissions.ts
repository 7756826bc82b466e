// listmonk's permission model: user-role permissions (route level) and per-list grants.

export const PERMISSION_GROUPS: { group: string; permissions: string[] }[] = [
  { group: 'lists', permissions: ['lists:get_all', 'lists:manage_all'] },
  { group: 'subscribers', permissions: ['subscribers:get', 'subscribers:get_all', 'subscribers:manage', 'subscribers:import', 'subscribers:sql_query', 'tx:send'] },
  { group: 'campaigns', permissions: ['campaigns:get', 'campaigns:get_all', 'campaigns:get_analytics', 'campaigns:manage', 'campaigns:manage_all', 'campaigns:send'] },
  { group: 'bounces', permissions: ['bounces:get', 'bounces:manage', 'webhooks:post_bounce'] },
  { group: 'media', permissions: ['media:get', 'media:manage'] },
  { group: 'templates', permissions: ['templates:get', 'templates:manage'] },
  { group: 'users', permissions: ['users:get', 'users:manage', 'roles:get', 'roles:manage'] },
  { group: 'settings', permissions: ['settings:get', 'settings:manage', 'settings:maintain'] },
];

export const ALL_PERMISSIONS: string[] = PERMISSION_GROUPS.flatMap((g) => g.permissions);
export const LIST_PERMISSIONS = ['list:get', 'list:manage'] as const;

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

export function hasPerm(u: AuthUser, perm: string): boolean {
  return u.superAdmin || u.permissions.has(perm);
}

/**
 * The lists the user may read (kind 'get') or act on ('manage'), or 'all'.
 * We take the union of list:get and list:manage grants for 'get' (listmonk's "get lists, else
 * manage lists" rule hides lists a user may manage; see README).
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
