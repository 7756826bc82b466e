// Shared by the admin UI tests: a browser session for a user (the admin, or one made with a
// given role), admin pages fetched with it, and the hostile values every page must show as text.
import assert from 'node:assert/strict';
import { ADMIN_PASSWORD, ADMIN_USER, sendRequest, type ApiResponse, type TestServer } from './server.ts';

/** A value that would run script or break markup if any page wrote it unescaped. */
export const HOSTILE = `<img src=x onerror="alert('xss')">"><script>alert('xss')</script>`;

/** Fails when `html` holds HOSTILE (or a part that would be live markup) unescaped. */
export function assertEscaped(html: string): void {
  assert.ok(!html.includes('<img src=x'), 'a hostile <img> was written as markup');
  assert.ok(!html.includes("<script>alert('xss')"), 'a hostile <script> was written as markup');
}

/** Signs in through the login form as a browser would; returns the session cookie value. */
export async function adminSession(t: TestServer, username = ADMIN_USER, password = ADMIN_PASSWORD): Promise<string> {
  const res = await sendRequest(t.url, null, 'POST', '/admin/login', undefined, {
    raw: new URLSearchParams({ username, password }),
    headers: { origin: t.url },
  });
  const m = /(?:^|,\s*)(?:__Host-)?session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '');
  assert.ok(m, `sign-in as ${username} failed (${res.status}): ${res.text.slice(0, 200)}`);
  return m[1];
}

/** GET an admin page with a session (no redirects followed). */
export function getPage(t: TestServer, session: string | null, path: string): Promise<ApiResponse<string>> {
  return sendRequest<string>(t.url, null, 'GET', path, undefined, { headers: session ? { cookie: `session=${session}` } : {} });
}

/** An API call with the session cookie, from the page's origin (as the admin's scripts make it). */
export function apiAs(t: TestServer, session: string, method: string, path: string, body?: unknown): Promise<ApiResponse> {
  return sendRequest(t.url, null, method, path, body, { headers: { cookie: `session=${session}`, origin: t.url } });
}

let users = 0;

/**
 * A login user whose user role has `permissions` and, when `lists` is given, a list role with
 * those grants; returns its name and password (sign in with adminSession).
 */
export async function userWithRole(t: TestServer, permissions: string[], lists?: { id: number; permissions: ('list:get' | 'list:manage')[] }[]): Promise<{ username: string; password: string }> {
  const n = ++users;
  const role = await t.request('POST', '/api/roles/users', { name: `role-${n}-${Date.now()}`, permissions });
  assert.equal(role.status, 200, role.text);
  let listRoleId: number | undefined;
  if (lists) {
    const lr = await t.request('POST', '/api/roles/lists', { name: `lists-${n}-${Date.now()}`, lists });
    assert.equal(lr.status, 200, lr.text);
    listRoleId = lr.body.data.id;
  }
  const username = `user${n}x${Date.now()}`;
  const password = 'a-long-password-1';
  const user = await t.request('POST', '/api/users', {
    username, name: `User ${n}`, email: `${username}@example.com`, type: 'user', status: 'enabled',
    password_login: true, password, user_role_id: role.body.data.id, list_role_id: listRoleId,
  });
  assert.equal(user.status, 200, user.text);
  return { username, password };
}
