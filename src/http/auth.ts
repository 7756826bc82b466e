// Authentication (API token or session cookie) and the per-route permission check.
// Every authenticated route declares its permission through `auth(...)` where it is registered.
import { createMiddleware } from 'hono/factory';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Context, MiddlewareHandler } from 'hono';
import { denied } from '../core/errors.ts';
import type { Authenticator, AuthUser } from '../core/authz.ts';
import { accessDenied, type Access } from './routes.ts';
import type { AppEnv } from './types.ts';
import { actingAs } from '../core/actor.ts';

const SESSION_COOKIE = 'session';

/**
 * Whether the site is served over https (its root URL's scheme, the rule that made the cookie
 * Secure before): then the session cookie is `__Host-session`, which browsers accept only
 * Secure, for Path=/ and without a Domain, so no other host (a sibling subdomain) can set or
 * shadow it. Over http it is `session`.
 */
function hostPrefix(authn: Authenticator): 'host' | undefined {
  return authn.trustedOrigin?.()?.startsWith('https:') ? 'host' : undefined;
}

/**
 * The session cookie's value: `__Host-session` over https, else (and over http) `session`, so
 * that a session begun before the upgrade, or before the root URL became https, goes on.
 */
export function readSessionCookie(c: Context, authn: Authenticator): string | undefined {
  return (hostPrefix(authn) ? getCookie(c, SESSION_COOKIE, 'host') : undefined) ?? getCookie(c, SESSION_COOKIE);
}

/** Sets the session cookie: HttpOnly, SameSite=Lax, for the whole site; Secure and `__Host-` over https. */
export function writeSessionCookie(c: Context, authn: Authenticator, value: string, maxAgeSeconds: number): void {
  const prefix = hostPrefix(authn);
  setCookie(c, SESSION_COOKIE, value, { path: '/', httpOnly: true, sameSite: 'Lax', secure: prefix === 'host', maxAge: maxAgeSeconds, prefix });
}

/** Deletes the session cookie, under both its names over https. */
export function clearSessionCookie(c: Context, authn: Authenticator): void {
  if (hostPrefix(authn)) deleteCookie(c, SESSION_COOKIE, { path: '/', secure: true, prefix: 'host' });
  deleteCookie(c, SESSION_COOKIE, { path: '/' });
}

function parseAuthorization(header: string): { user: string; token: string } {
  const h = header.trim();
  let pair: string;
  if (h.startsWith('token ')) pair = h.slice(6).trim();
  else if (h.startsWith('Basic ')) {
    const b64 = h.slice(6).trim();
    if (!/^[A-Za-z0-9+/]+=*$/.test(b64)) throw denied('invalid Authorization header: bad base64');
    pair = Buffer.from(b64, 'base64').toString('utf8');
  } else throw denied('invalid Authorization header: use "token USER:TOKEN" or HTTP Basic');
  const i = pair.indexOf(':');
  const user = i < 0 ? '' : pair.slice(0, i).trim();
  const token = i < 0 ? '' : pair.slice(i + 1).trim();
  if (!user || !token) throw denied('invalid Authorization header: expected USER:TOKEN');
  return { user, token };
}

export function authenticate(authn: Authenticator, authorization: string | undefined, sessionId: string | undefined): AuthUser {
  // A token wins over a stale session cookie (listmonk checks the cookie first and rejects).
  if (authorization && authorization.trim()) {
    const { user, token } = parseAuthorization(authorization);
    const u = authn.byToken(user, token);
    if (!u) throw denied('invalid API credentials');
    return u;
  }
  if (sessionId) {
    const u = authn.bySession(sessionId);
    if (u) return u;
  }
  throw denied('invalid session');
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** scheme://host[:port] of a URL; null for none, and for an opaque origin (javascript:, data:), which names no site. */
function originOf(url: string | undefined): string | null {
  if (!url || url === 'null') return null;
  try {
    const { origin } = new URL(url);
    return origin === 'null' ? null : origin;
  } catch {
    return null;
  }
}

/**
 * CSRF defence for cookie-authenticated requests: the browser's Origin (else Referer) must be
 * this server (the Host the request was sent to) or the configured root URL. Browsers always
 * send Origin on cross-site writes, so a missing or foreign one is refused. Where a page's
 * referrer policy makes the browser send `Origin: null`, its Sec-Fetch-Site (which no script
 * can set) still says whether the request came from this site.
 */
export function assertSameOrigin(c: Context, trustedOrigin: string | null): void {
  if (!isSameOrigin(c, trustedOrigin)) throw denied('cross-site request refused: a cookie-authenticated change must come from this site (Origin/Referer)');
}

/** assertSameOrigin's test, for the sign-in pages, which show a refusal as a page. */
export function isSameOrigin(c: Context, trustedOrigin: string | null): boolean {
  const source = originOf(c.req.header('origin')) ?? originOf(c.req.header('referer'));
  if (source !== null && (source === trustedOrigin || new URL(source).host === c.req.header('host'))) return true;
  return source === null && c.req.header('sec-fetch-site') === 'same-origin';
}

/** A route's guard for an access rule (routes.ts); 'public' routes have none. */
export type Guard = (access: Exclude<Access, 'public'>) => MiddlewareHandler<AppEnv>;

/**
 * Route guard: authenticates the caller and, when permissions are named, requires any one of
 * them. A denial names the last one, as listmonk does.
 */
export function makeAuth(authn: Authenticator): Guard {
  return (access) => {
    return createMiddleware<AppEnv>(async (c, next) => {
      const session = readSessionCookie(c, authn);
      const user = authenticate(authn, c.req.header('authorization'), session);
      if (user.via === 'session' && !SAFE_METHODS.has(c.req.method)) assertSameOrigin(c, authn.trustedOrigin?.() ?? null);
      const refused = accessDenied(access, user);
      if (refused) throw denied(refused);
      c.set('user', user);
      if (user.via === 'session' && session) c.set('session', session);
      // The change log names this user as the actor of what the request changes.
      await actingAs({ type: user.type, id: user.id, name: user.username }, next);
    });
  };
}
