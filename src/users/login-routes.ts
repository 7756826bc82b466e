// The admin sign-in pages: login (with the TOTP step), forgot / reset password, and logout. Server-rendered through the shared page shell (markup: pages.tsx);
// the sign-in rules are SignIn's (sign-in.ts).
import type { Context, MiddlewareHandler } from 'hono';
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { assertSameOrigin, clearSessionCookie, isSameOrigin, readSessionCookie, writeSessionCookie } from '../http/auth.ts';
import { Message, sendPage, type PageOptions } from '../http/layout.tsx';
import { clientAddress, clientBucket } from '../http/rate-limit.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { ForgotForm, LoginForm, ResetForm, ResetMailSent, TwofaForm, UnusableLink } from './pages.tsx';
import type { SignIn } from './sign-in.ts';
import { SESSION_TTL_MS, type UserStore } from './store.ts';

interface Deps extends AppContext {
  /** Sessions. */
  users: UserStore;
  signIn: SignIn;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
/** Served from the site root. */
export const LOGIN_PAGES = [
  route({ method: 'GET', path: '/admin/login', access: 'public', handler: loginPage, query: nextQuery, raw: 'text/html', summary: 'The sign-in form' }),
  route({ method: 'POST', path: '/admin/login', access: 'public', handler: login, body: loginForm, bodyKind: 'json-or-form', raw: 'text/html', summary: 'Signs in with a username and password; redirects to `next`, or to the TOTP step for users with 2FA' }),
  route({ method: 'GET', path: '/admin/login/twofa', access: 'public', handler: twofaPage, query: twofaQuery, raw: 'text/html', summary: 'The TOTP step of a sign-in' }),
  route({ method: 'POST', path: '/admin/login/twofa', access: 'public', handler: twofa, body: twofaForm, bodyKind: 'json-or-form', raw: 'text/html', summary: 'Completes a sign-in with the TOTP code' }),
  route({ method: 'GET', path: '/admin/forgot', access: 'public', handler: forgotPage, raw: 'text/html', summary: 'The forgot-password form' }),
  route({ method: 'POST', path: '/admin/forgot', access: 'public', limit: resetRequests, handler: requestReset, body: forgotForm, bodyKind: 'json-or-form', raw: 'text/html', summary: 'Mails a password reset link (the same answer whether or not the address belongs to anyone)' }),
  route({ method: 'GET', path: '/admin/reset', access: 'public', handler: resetPage, query: tokenQuery, raw: 'text/html', summary: 'The new-password form of a reset link' }),
  route({ method: 'POST', path: '/admin/reset', access: 'public', handler: resetPassword, body: resetForm, bodyKind: 'json-or-form', raw: 'text/html', summary: 'Sets a new password from a reset link and signs in (through the TOTP step for users with 2FA); the user\'s other sessions end' }),
  route({ method: 'POST', path: '/admin/logout', access: 'public', handler: logout, raw: 'text/html', summary: 'Ends the session (same-origin requests only)' }),
];

// Form fields are read as typed ('' when absent or not text): a bad field is a wrong answer.

function nextQuery() {
  return z.object({ next: q.str() });
}

function loginForm() {
  return z.object({ username: f.text(), password: f.text(), next: f.text() });
}

function twofaQuery() {
  return z.object({ token: q.str(), next: q.str() });
}

function twofaForm() {
  return z.object({ token: f.text(), totp_code: f.text() });
}

function forgotForm() {
  return z.object({ email: f.text() });
}

function tokenQuery() {
  return z.object({ token: q.str() });
}

function resetForm() {
  return z.object({ token: f.text(), password: f.text(), password2: f.text() });
}

/**
 * Reduces `next` to a local path (no scheme, host or `//`), so a login never redirects away.
 * The checks see the value percent-decoded too (`/admin/%2e%2e//evil.example/` is `..`), and
 * the normalised path again.
 */
export function localPath(next: string | undefined): string {
  const raw = (next ?? '').trim();
  let decoded = raw;
  for (let i = 0; i < 5; i++) {
    let d: string;
    try {
      d = decodeURIComponent(decoded);
    } catch {
      return '/admin';
    }
    if (d === decoded) break;
    decoded = d;
  }
  for (const v of [raw, decoded]) {
    if (!v.startsWith('/') || v.startsWith('//') || /[\\\u0000-\u001f]/.test(v) || v.includes('..')) return '/admin';
  }
  const u = new URL(raw, 'http://local.invalid');
  if (u.origin !== 'http://local.invalid' || u.pathname === '/' || u.pathname.startsWith('//') || u.pathname.includes('\\')) return '/admin';
  return u.pathname + u.search;
}

/**
 * A sign-in page. Its policy runs no script at all (none is needed: plain forms), takes its one
 * <style> by this answer's nonce, posts forms only here, and is never framed; the page is never
 * stored (it may carry a reset or 2FA-step token).
 */
function page(c: Context, { settings }: Deps, title: string, body: PageOptions['body'], status: 200 | 400 | 403 | 429 = 200) {
  const nonce = randomBytes(16).toString('base64');
  // The logo and favicon settings may name any site.
  c.header('Content-Security-Policy', `default-src 'none'; style-src 'nonce-${nonce}'; img-src * data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'`);
  c.header('X-Content-Type-Options', 'nosniff');
  return sendPage(c, {
    title, body,
    siteName: settings.str('app.site_name'),
    logoUrl: settings.str('app.logo_url') || undefined,
    faviconUrl: settings.str('app.favicon_url') || undefined,
    lang: settings.str('app.lang'),
    customCss: settings.str('appearance.admin.custom_css'),
    styleNonce: nonce,
  }, status);
}

/**
 * Every answer of the sign-in pages (forms, redirects with a session cookie or a 2FA-step token,
 * refusals) is `Cache-Control: no-store`. Mounted before LOGIN_PAGES on their paths.
 */
export const signInNoStore: MiddlewareHandler = async (c, next) => {
  await next();
  c.header('Cache-Control', 'no-store');
};

function tooMany(c: Context, s: Deps) {
  return page(c, s, 'Too many attempts', Message({ title: 'Too many attempts', text: 'Please wait a few minutes and try again.' }), 429);
}

/**
 * The sign-in, 2FA, forgot and reset forms change who is signed in: like every cookie write they
 * must come from this site (else a foreign page could sign a victim in as the attacker). The
 * refusal is a page; null when the request may go on.
 */
function crossSite(c: C, s: Deps): Response | null {
  if (isSameOrigin(c, s.users.authenticator().trustedOrigin?.() ?? null)) return null;
  return page(c, s, 'Request refused', Message({
    title: 'Request refused',
    text: 'Cross-site request refused: this form must be sent from this site (Origin/Referer). Open the page again and send it from there.',
  }), 403);
}

/** The client's rate-limit bucket (its address; an IPv6 client's /64). */
function address(c: Context, s: Deps) {
  return clientBucket(clientAddress(c, s.settings.get<string[]>('security.trusted_proxies'), s.log));
}

/** Signs the user in: a new session and its cookie (`__Host-` and Secure when the site is served over https). */
function startSession(c: C, s: Deps, userId: number) {
  writeSessionCookie(c, s.users.authenticator(), s.users.createSession(userId), SESSION_TTL_MS / 1000);
}

// ---- login ----

function loginPage(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof nextQuery>>) {
  return page(c, s, 'Sign in', LoginForm({ next: localPath(query.next) }));
}

async function login(c: C, s: Deps, { body }: Input<ReturnType<typeof loginForm>, undefined>) {
  const refused = crossSite(c, s);
  if (refused) return refused;
  const next = localPath(body.next);
  const outcome = await s.signIn.login(body.username.trim(), body.password, next, address(c, s));
  switch (outcome.kind) {
    case 'too-many':
      return tooMany(c, s);
    case 'wrong':
      return page(c, s, 'Sign in', LoginForm({ next, error: 'Incorrect username or password.' }));
    case 'twofa':
      return c.redirect(`/admin/login/twofa?token=${outcome.token}&next=${encodeURIComponent(next)}`, 302);
    case 'signed-in':
      startSession(c, s, outcome.userId);
      return c.redirect(next, 302);
  }
}

function twofaPage(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof twofaQuery>>) {
  const token = query.token ?? '';
  if (!s.signIn.awaitsCode(token)) return c.redirect('/admin/login', 302);
  return page(c, s, 'Two-factor authentication', TwofaForm({ token, next: localPath(query.next) }));
}

function twofa(c: C, s: Deps, { body }: Input<ReturnType<typeof twofaForm>, undefined>) {
  const refused = crossSite(c, s);
  if (refused) return refused;
  const outcome = s.signIn.twofa(body.token, body.totp_code.trim(), address(c, s));
  switch (outcome.kind) {
    case 'no-challenge':
      return c.redirect('/admin/login', 302);
    case 'too-many':
      return tooMany(c, s);
    case 'start-over':
      return page(c, s, 'Sign in', LoginForm({ next: outcome.next, error: 'Too many wrong codes. Sign in again.' }));
    case 'wrong':
      return page(c, s, 'Two-factor authentication', TwofaForm({ token: body.token, next: outcome.next, error: 'That code is not valid.' }));
    case 'signed-in':
      startSession(c, s, outcome.userId);
      return c.redirect(outcome.next, 302);
  }
}

// ---- forgot / reset password ----

function forgotPage(c: C, s: Deps) {
  return page(c, s, 'Forgot password', ForgotForm());
}

/** Every reset request counts, before its form is read. */
function resetRequests(s: Deps): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (!s.signIn.mayRequestReset(address(c, s))) return tooMany(c, s);
    await next();
  };
}

function requestReset(c: C, s: Deps, { body }: Input<ReturnType<typeof forgotForm>, undefined>) {
  const refused = crossSite(c, s);
  if (refused) return refused;
  s.signIn.requestReset(body.email);
  // The same answer whether or not the address belongs to anyone.
  return page(c, s, 'Check your mail', ResetMailSent());
}

function unusableLink(c: C, s: Deps) {
  return page(c, s, 'Link not valid', UnusableLink(), 400);
}

function resetPage(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof tokenQuery>>) {
  const token = query.token ?? '';
  return s.signIn.resetUsable(token) ? page(c, s, 'Reset password', ResetForm({ token })) : unusableLink(c, s);
}

async function resetPassword(c: C, s: Deps, { body }: Input<ReturnType<typeof resetForm>, undefined>) {
  const refused = crossSite(c, s);
  if (refused) return refused;
  const outcome = await s.signIn.resetPassword(body.token, body.password, body.password2);
  switch (outcome.kind) {
    case 'unusable':
      return unusableLink(c, s);
    case 'refused':
      return page(c, s, 'Reset password', ResetForm({ token: body.token, error: outcome.message }));
    case 'twofa':
      return c.redirect(`/admin/login/twofa?token=${outcome.token}&next=${encodeURIComponent('/admin')}`, 302);
    case 'done':
      startSession(c, s, outcome.userId);
      return c.redirect('/admin', 302);
  }
}

// ---- the signed-in area ----

function logout(c: C, s: Deps) {
  const authn = s.users.authenticator();
  assertSameOrigin(c, authn.trustedOrigin?.() ?? null);
  const session = readSessionCookie(c, authn);
  if (session) s.users.endSession(session);
  clearSessionCookie(c, authn);
  return c.redirect('/admin/login', 302);
}
