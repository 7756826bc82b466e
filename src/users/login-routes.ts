// The admin sign-in pages: login (with the TOTP step), forgot / reset password, the /admin
// landing page and logout. Server-rendered through the shared page shell (markup: pages.tsx).
import type { Context, Hono } from 'hono';
import { deleteCookie, getCookie, setCookie } from 'hono/cookie';
import type { Services } from '../services.ts';
import { assertSameOrigin, SESSION_COOKIE } from '../http/auth.ts';
import { readBody, type Body } from '../http/body.ts';
import { Message, sendPage, type PageOptions } from '../http/layout.tsx';
import { clientAddress } from '../http/rate-limit.ts';
import { systemMessage } from '../mail/system.ts';
import type { AppEnv } from '../http/types.ts';
import { AttemptLimiter } from './attempts.ts';
import { ForgotForm, LoginForm, ResetForm, ResetMailSent, SignedIn, TwofaForm, UnusableLink } from './pages.tsx';
import { PASSWORD_MIN, SESSION_TTL_MS } from './store.ts';
import { randomString, sha256Hex } from './secrets.ts';
import { totpCodeStep } from './totp.ts';

/** Failed sign-ins allowed per client address and per username in the window. */
const LOGIN_LIMIT = { max: 10, windowMs: 15 * 60 * 1000 };
/** Forgot-password requests allowed per client address in the window. */
const FORGOT_LIMIT = { max: 5, windowMs: 15 * 60 * 1000 };
/** A password-checked login waits this long for its TOTP code, with this many tries. */
const TWOFA_TTL_MS = 5 * 60 * 1000;
const TWOFA_MAX_TRIES = 5;

interface TwofaChallenge {
  userId: number;
  next: string;
  expires: number;
  tries: number;
}

/** Reduces `next` to a local path (no scheme, host or `//`), so a login never redirects away. */
export function localPath(next: string | undefined): string {
  const raw = (next ?? '').trim();
  if (!raw.startsWith('/') || raw.startsWith('//') || /[\\\u0000-\u001f]/.test(raw) || raw.includes('..')) return '/admin';
  const u = new URL(raw, 'http://local.invalid');
  if (u.origin !== 'http://local.invalid' || u.pathname === '/') return '/admin';
  return u.pathname + u.search;
}

/** A form field as text ('' when absent or not text). */
const field = (b: Body, key: string) => (typeof b[key] === 'string' ? (b[key] as string) : '');

export function registerUsersPages(app: Hono<AppEnv>, ctx: Services): void {
  const { users, settings, log } = ctx;
  const authn = users.authenticator();
  const loginAttempts = new AttemptLimiter(LOGIN_LIMIT.max, LOGIN_LIMIT.windowMs);
  const forgotAttempts = new AttemptLimiter(FORGOT_LIMIT.max, FORGOT_LIMIT.windowMs);
  const challenges = new Map<string, TwofaChallenge>();

  const page = (c: Context, title: string, body: PageOptions['body'], status: 200 | 400 | 429 = 200) => sendPage(c, {
    title, body,
    siteName: settings.str('app.site_name'),
    logoUrl: settings.str('app.logo_url') || undefined,
    faviconUrl: settings.str('app.favicon_url') || undefined,
    lang: settings.str('app.lang'),
    customCss: settings.str('appearance.admin.custom_css'),
  }, status);
  const address = (c: Context) => clientAddress(c, settings.get<string[]>('security.trusted_proxies'));

  const loginForm = (next: string, error = '') => LoginForm({ next, error });
  const twofaForm = (token: string, next: string, error = '') => TwofaForm({ token, next, error });
  const resetForm = (token: string, error = '') => ResetForm({ token, error });

  const tooMany = (c: Context) => page(c, 'Too many attempts', Message({ title: 'Too many attempts', text: 'Please wait a few minutes and try again.' }), 429);

  /** Signs the user in: a new session and its cookie (Secure when the site is served over https). */
  const startSession = (c: Context, userId: number) => {
    setCookie(c, SESSION_COOKIE, users.createSession(userId), {
      path: '/', httpOnly: true, sameSite: 'Lax', secure: settings.rootUrl().startsWith('https:'), maxAge: SESSION_TTL_MS / 1000,
    });
  };

  const liveChallenge = (token: string): TwofaChallenge | null => {
    const now = Date.now();
    for (const [k, ch] of challenges) if (ch.expires <= now) challenges.delete(k);
    return challenges.get(sha256Hex(token)) ?? null;
  };

  // ---- login ----
  app.get('/admin/login', (c) => page(c, 'Sign in', loginForm(localPath(c.req.query('next')))));

  app.post('/admin/login', async (c) => {
    const b = await readBody(c);
    const next = localPath(field(b, 'next'));
    const username = field(b, 'username').trim();
    const keys = [`addr:${address(c)}`, `user:${username.toLowerCase()}`];
    if (keys.some((k) => loginAttempts.blocked(k))) {
      log.warn(`sign-in refused for "${username.slice(0, 100)}" from ${address(c)}: too many failed attempts`);
      return tooMany(c);
    }
    const account = users.checkLogin(username, field(b, 'password'));
    if (!account) {
      keys.forEach((k) => loginAttempts.record(k));
      return page(c, 'Sign in', loginForm(next, 'Incorrect username or password.'));
    }
    loginAttempts.clear(keys[1]);
    if (account.twofaSecret) {
      const token = randomString(64);
      challenges.set(sha256Hex(token), { userId: account.id, next, expires: Date.now() + TWOFA_TTL_MS, tries: 0 });
      return c.redirect(`/admin/login/twofa?token=${token}&next=${encodeURIComponent(next)}`, 302);
    }
    startSession(c, account.id);
    log.info(`user "${account.username}" signed in`);
    return c.redirect(next, 302);
  });

  app.get('/admin/login/twofa', (c) => {
    const token = c.req.query('token') ?? '';
    if (!liveChallenge(token)) return c.redirect('/admin/login', 302);
    return page(c, 'Two-factor authentication', twofaForm(token, localPath(c.req.query('next'))));
  });

  app.post('/admin/login/twofa', async (c) => {
    const b = await readBody(c);
    const token = field(b, 'token');
    const challenge = liveChallenge(token);
    if (!challenge) return c.redirect('/admin/login', 302);
    const addrKey = `addr:${address(c)}`;
    if (loginAttempts.blocked(addrKey)) return tooMany(c);
    const secret = users.totpSecret(challenge.userId);
    const step = secret ? totpCodeStep(secret, field(b, 'totp_code').trim()) : null;
    // A code already used (by anyone) counts as wrong: it may have been seen or captured.
    if (step === null || !users.useTotpStep(challenge.userId, step)) {
      loginAttempts.record(addrKey);
      challenge.tries++;
      if (challenge.tries >= TWOFA_MAX_TRIES) {
        challenges.delete(sha256Hex(token));
        return page(c, 'Sign in', loginForm(challenge.next, 'Too many wrong codes. Sign in again.'));
      }
      return page(c, 'Two-factor authentication', twofaForm(token, challenge.next, 'That code is not valid.'));
    }
    challenges.delete(sha256Hex(token));
    startSession(c, challenge.userId);
    log.info(`user ${challenge.userId} signed in with two-factor authentication`);
    return c.redirect(challenge.next, 302);
  });

  // ---- forgot / reset password ----
  app.get('/admin/forgot', (c) => page(c, 'Forgot password', ForgotForm()));

  app.post('/admin/forgot', async (c) => {
    const key = `addr:${address(c)}`;
    if (forgotAttempts.blocked(key)) return tooMany(c);
    forgotAttempts.record(key);
    const reset = users.createPasswordReset(field(await readBody(c), 'email'));
    if (reset) {
      const url = `${settings.rootUrl()}/admin/reset?token=${reset.token}`;
      const msg = systemMessage(ctx, 'forgot-password', { Username: reset.username, ResetURL: url }, [reset.email], `Reset your ${settings.str('app.site_name')} password`);
      // Not awaited: the answer must not take longer for addresses that exist.
      ctx.mailer.send('email', msg).then(
        () => log.info(`password reset mail sent to user "${reset.username}"`),
        (e: Error) => log.error(`password reset mail to user "${reset.username}" failed: ${e.message}`),
      );
    }
    // The same answer whether or not the address belongs to anyone.
    return page(c, 'Check your mail', ResetMailSent());
  });

  const unusableLink = (c: Context) => page(c, 'Link not valid', UnusableLink(), 400);

  app.get('/admin/reset', (c) => {
    const token = c.req.query('token') ?? '';
    return users.resetTokenUser(token) === null ? unusableLink(c) : page(c, 'Reset password', resetForm(token));
  });

  app.post('/admin/reset', async (c) => {
    const b = await readBody(c);
    const token = field(b, 'token');
    if (users.resetTokenUser(token) === null) return unusableLink(c);
    const password = field(b, 'password');
    if (password.length < PASSWORD_MIN || Buffer.byteLength(password) > 2000) return page(c, 'Reset password', resetForm(token, `The password must be ${PASSWORD_MIN} to 2000 characters long.`));
    if (password !== field(b, 'password2')) return page(c, 'Reset password', resetForm(token, 'The passwords do not match.'));
    const userId = users.resetPassword(token, password);
    if (userId === null) return unusableLink(c);
    startSession(c, userId);
    log.info(`user ${userId} reset their password; their other sessions were ended`);
    return c.redirect('/admin', 302);
  });

  // ---- the signed-in area ----
  app.post('/admin/logout', (c) => {
    assertSameOrigin(c, authn.trustedOrigin?.() ?? null);
    const session = getCookie(c, SESSION_COOKIE);
    if (session) users.endSession(session);
    deleteCookie(c, SESSION_COOKIE, { path: '/' });
    return c.redirect('/admin/login', 302);
  });

  const landing = (c: Context) => {
    const session = getCookie(c, SESSION_COOKIE);
    const user = session ? authn.bySession(session) : null;
    if (!user) return c.redirect(`/admin/login?next=${encodeURIComponent(c.req.path + (new URL(c.req.url).search))}`, 307);
    return page(c, 'Signed in', SignedIn({ name: user.name, username: user.username }));
  };
  app.get('/admin', landing);
  app.get('/admin/*', landing);
}
