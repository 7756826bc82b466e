// Users, roles and sessions: the SQL and rules the foundation needs (install, api-user,
// authentication). The users domain builds its API on these.
import type { DB } from '../db/connection.ts';
import { statementCache, type Prepare } from '../db/statements.ts';
import { conflict } from '../http/errors.ts';
import { ALL_PERMISSIONS, SUPER_ADMIN_ROLE_ID, type AuthUser, type ListGrant } from '../http/permissions.ts';
import type { Authenticator } from '../http/auth.ts';
import { hashPassword, randomString, sameDigest, sha256Hex } from './secrets.ts';

const SQL = {
  userByName: 'SELECT u.*, r.permissions FROM users u JOIN roles r ON r.id = u.user_role_id WHERE u.username = ?',
  userById: 'SELECT u.*, r.permissions FROM users u JOIN roles r ON r.id = u.user_role_id WHERE u.id = ?',
  listGrants: 'SELECT list_id, permissions FROM role_lists WHERE role_id = ?',
  sessionUser: 'SELECT user_id FROM sessions WHERE id = ? AND expires_at > ?',
};

interface UserRow {
  id: number;
  username: string;
  password: string | null;
  email: string;
  name: string;
  type: 'user' | 'api';
  user_role_id: number;
  list_role_id: number | null;
  status: string;
  permissions: string;
}

export class UserStore {
  private readonly sql: Prepare;
  constructor(private readonly db: DB) {
    this.sql = statementCache(db);
  }

  /** Creates the Super Admin role (id 1) with every permission, if missing. */
  ensureSuperAdminRole(): void {
    this.db.prepare(`INSERT OR IGNORE INTO roles (id, type, name, permissions) VALUES (?, 'user', 'Super Admin', ?)`)
      .run(SUPER_ADMIN_ROLE_ID, JSON.stringify(ALL_PERMISSIONS));
  }

  roleIdByName(name: string): number | undefined {
    return this.db.prepare(`SELECT id FROM roles WHERE type = 'user' AND name = ?`).pluck().get(name) as number | undefined;
  }

  /** Creates a login user; returns its id. */
  createLoginUser(username: string, password: string, email: string, roleId = SUPER_ADMIN_ROLE_ID): number {
    this.assertFreeUsername(username);
    const r = this.db.prepare(`INSERT INTO users (username, password, password_login, email, name, type, user_role_id, status)
      VALUES (?, ?, 1, ?, ?, 'user', ?, 'enabled')`).run(username, hashPassword(password), email, username, roleId);
    return Number(r.lastInsertRowid);
  }

  /** Creates an API user; returns the token, which is never stored (only its SHA-256). */
  createApiUser(username: string, roleId = SUPER_ADMIN_ROLE_ID): { id: number; token: string } {
    this.assertFreeUsername(username);
    const token = randomString(48);
    const r = this.db.prepare(`INSERT INTO users (username, password, password_login, email, name, type, user_role_id, status)
      VALUES (?, ?, 0, ?, ?, 'api', ?, 'enabled')`).run(username, sha256Hex(token), `${username}@api`, username, roleId);
    return { id: Number(r.lastInsertRowid), token };
  }

  private assertFreeUsername(username: string): void {
    if (this.db.prepare('SELECT 1 FROM users WHERE username = ?').get(username)) throw conflict(`the username "${username}" is already taken`);
  }

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
        const s = this.sql<[string, string], { user_id: number }>(SQL.sessionUser).get(sha256Hex(sessionId), new Date().toISOString());
        return s ? this.loadAuthUser(s.user_id, 'session') : null;
      },
    };
  }
}
