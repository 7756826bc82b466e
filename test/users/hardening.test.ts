// The sign-in hardening of issue #29: current-password checks limited like sign-ins, two-factor
// enrolment, reset links that die with what they guard, a per-account limit on TOTP codes,
// the sign-in pages' and the API's headers, parallel guesses for one name, the idle timeout of
// sessions, the error stream's readers, and the page size of the admin's lists.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Secret, TOTP } from 'otpauth';
import { ADMIN_PASSWORD, startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { parseAdminPaging } from '../../src/core/paging.ts';
import { passwordHashFor } from '../../src/users/rules.ts';
import { sha256Hex } from '../../src/users/secrets.ts';
import { form, recorder, signIn, withCookie, type Recorder } from './helpers.ts';

describe('sign-in hardening', () => {
  let t: TestServer;
  let r: Recorder;
  let clients = 0;
  /** A new client address for each sign-in, so the per-address limits stay out of the way. */
  const nextAddress = () => `10.${Math.floor(++clients / 250) % 250}.${clients % 250}.9`;
  const q = (sql: string, ...params: unknown[]) => t.server.ctx.db.prepare(sql).all(...params) as any[];
  const session = async (username: string, password: string) => {
    const s = await signIn(r, t, username, password, {}, { 'x-forwarded-for': nextAddress() });
    assert.ok(s.session, `sign-in as ${username}: ${s.status}`);
    return s.session;
  };
  const newUser = async (username: string, password: string) =>
    t.server.ctx.users.createLoginUser(username, await passwordHashFor(password), `${username}@acme.example`, t.server.ctx.users.createUserRole(`role of ${username}`, ['settings:get']).id);
  const totpCode = (secret: string, offsetMs = 0) => new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate({ timestamp: Date.now() + offsetMs });
  /** A 6-digit code that is none of the codes the secret accepts now (one step of drift either way). */
  const wrongCode = (secret: string) => {
    const valid = new Set([-30_000, 0, 30_000].map((o) => totpCode(secret, o)));
    let n = 100000;
    while (valid.has(String(n))) n++;
    return String(n);
  };
  /** Turns two-factor on for a user through the API, from their own session; answers the secret. */
  const enableTotp = async (id: number, username: string, password: string) => {
    const s = await session(username, password);
    const secret = (await withCookie(r, t, s, 'GET', `/api/users/${id}/twofa/totp`)).body.data.secret as string;
    const on = await withCookie(r, t, s, 'PUT', `/api/users/${id}/twofa`, { secret, code: totpCode(secret), password });
    assert.equal(on.status, 200, on.text);
    return secret;
  };

  before(async () => {
    t = await startTestServer();
    r = recorder(t);
    assert.equal((await t.request('PUT', '/api/settings/security.trusted_proxies', ['127.0.0.1'])).status, 200);
  });
  after(() => t.stop());

  describe('current-password checks are sign-in attempts (L22)', () => {
    it('25 wrong current passwords: 403 four times, then 429 and the session ends; the limit is the user\'s, not the session\'s', async () => {
      const id = await newUser('oracle', 'oracle-password-1');
      const stolen = await session('oracle', 'oracle-password-1');
      const statuses: number[] = [];
      for (let i = 0; i < 25; i++) {
        const res = await withCookie(r, t, stolen, 'PUT', '/api/profile', { password: 'taken-over-1', current_password: `guess-${i}-password` });
        statuses.push(res.status);
        if (res.status === 429) {
          assert.match(res.body.message, /too many wrong passwords/);
          assert.match(res.body.message, /this session has ended/);
          assert.ok(Number(res.headers.get('retry-after')) > 0);
        }
      }
      assert.deepEqual(statuses.slice(0, 5), [403, 403, 403, 403, 429]);
      // The session is gone: every later request is refused as unauthenticated.
      assert.deepEqual(new Set(statuses.slice(5)), new Set([403]));
      assert.equal((await withCookie(r, t, stolen, 'GET', '/api/profile')).status, 403);
      assert.equal(q('SELECT * FROM sessions WHERE id = ?', sha256Hex(stolen)).length, 0);
      // Another session of the user is still refused a check for now, even with the right password.
      const own = await session('oracle', 'oracle-password-1');
      const blocked = await withCookie(r, t, own, 'PUT', '/api/profile', { password: 'oracle-password-2', current_password: 'oracle-password-1' });
      assert.equal(blocked.status, 429);
      assert.doesNotMatch(blocked.body.message, /session has ended/);
      assert.equal((await withCookie(r, t, own, 'GET', '/api/profile')).status, 200, 'a refusal before any check ends nothing');
      assert.ok(q('SELECT password FROM users WHERE id = ?', id)[0].password, 'the password is unchanged');
      assert.equal((await signIn(r, t, 'oracle', 'taken-over-1', {}, { 'x-forwarded-for': nextAddress() })).session, null);
    });

    it('the two-factor password confirmations count too, and parallel checks cannot overrun the limit', async () => {
      const id = await newUser('parallel', 'parallel-password-1');
      const s = await session('parallel', 'parallel-password-1');
      const secret = (await withCookie(r, t, s, 'GET', `/api/users/${id}/twofa/totp`)).body.data.secret;
      const answers = await Promise.all(Array.from({ length: 25 }, (_v, i) =>
        withCookie(r, t, s, 'PUT', `/api/users/${id}/twofa`, { secret, code: totpCode(secret), password: `guess-${i}-password` })));
      const checked = answers.filter((a) => a.status === 403 && /wrong password/.test(a.body.message)).length;
      assert.ok(checked < 5, `${checked} wrong passwords answered as such`);
      assert.ok(answers.some((a) => a.status === 429), answers.map((a) => a.status).join(' '));
      assert.equal(q('SELECT twofa_type FROM users WHERE id = ?', id)[0].twofa_type, 'none');
      assert.equal((await withCookie(r, t, s, 'GET', '/api/profile')).status, 403, 'the session ended');
    });

    it('DELETE twofa with wrong passwords is limited the same way', async () => {
      const id = await newUser('disabler', 'disabler-password-1');
      await enableTotp(id, 'disabler', 'disabler-password-1');
      fixtures(t.server.ctx.db).forgetTotpStep(id);
      const secret = q('SELECT twofa_key FROM users WHERE id = ?', id)[0].twofa_key as string;
      const challenge = await signIn(r, t, 'disabler', 'disabler-password-1', {}, { 'x-forwarded-for': nextAddress() });
      const token = new URL(challenge.location!, t.url).searchParams.get('token')!;
      const done = await r.request('POST', '/admin/login/twofa', undefined, { auth: null, raw: form({ token, totp_code: totpCode(secret) }), headers: { origin: t.url } });
      const s = /session=([^;]+)/.exec(done.headers.get('set-cookie') ?? '')![1];
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) statuses.push((await withCookie(r, t, s, 'DELETE', `/api/users/${id}/twofa`, { password: `guess-${i}-password` })).status);
      assert.deepEqual(statuses, [403, 403, 403, 403, 429, 403]);
      assert.equal(q('SELECT twofa_type FROM users WHERE id = ?', id)[0].twofa_type, 'totp');
    });
  });

  describe('reset links die with what they guard (L24)', () => {
    const usable = async (token: string) => (await r.request('GET', `/admin/reset?token=${token}`, undefined, { auth: null })).status === 200;
    const use = (token: string) => r.request('POST', '/admin/reset', undefined, { auth: null, raw: form({ token, password: 'reset-by-link-1', password2: 'reset-by-link-1' }), headers: { origin: t.url } });

    it('after the user changes their password', async () => {
      await newUser('forgetful', 'forgetful-password-1');
      const link = t.server.ctx.users.createPasswordReset('forgetful@acme.example')!.token;
      assert.ok(await usable(link));
      const s = await session('forgetful', 'forgetful-password-1');
      assert.equal((await withCookie(r, t, s, 'PUT', '/api/profile', { password: 'forgetful-password-2', current_password: 'forgetful-password-1' })).status, 200);
      assert.equal(await usable(link), false);
      assert.equal((await use(link)).status, 400);
      assert.ok(await session('forgetful', 'forgetful-password-2'));
    });

    it('after an admin moves the account\'s e-mail (the link went to the old address)', async () => {
      const id = await newUser('moved', 'moved-password-1');
      const link = t.server.ctx.users.createPasswordReset('moved@acme.example')!.token;
      assert.equal((await t.request('PUT', `/api/users/${id}`, { email: 'moved-elsewhere@acme.example', list_role_id: 0 })).status, 200);
      assert.equal(await usable(link), false);
      const res = await use(link);
      assert.equal(res.status, 400);
      assert.equal(/session=/.test(res.headers.get('set-cookie') ?? ''), false, 'no session');
      assert.ok(await session('moved', 'moved-password-1'), 'the password is unchanged');
    });

    it('after the user changes their own e-mail, an admin sets the password, or the account is disabled', async () => {
      const id = await newUser('several', 'several-password-1');
      let link = t.server.ctx.users.createPasswordReset('several@acme.example')!.token;
      const s = await session('several', 'several-password-1');
      assert.equal((await withCookie(r, t, s, 'PUT', '/api/profile', { email: 'several2@acme.example', current_password: 'several-password-1' })).status, 200);
      assert.equal(await usable(link), false, 'own e-mail change');
      link = t.server.ctx.users.createPasswordReset('several2@acme.example')!.token;
      assert.equal((await t.request('PUT', `/api/users/${id}`, { password: 'several-password-2', list_role_id: 0 })).status, 200);
      assert.equal(await usable(link), false, 'password set by an admin');
      link = t.server.ctx.users.createPasswordReset('several2@acme.example')!.token;
      assert.equal((await t.request('PUT', `/api/users/${id}`, { status: 'disabled', list_role_id: 0 })).status, 200);
      assert.equal((await t.request('PUT', `/api/users/${id}`, { status: 'enabled', list_role_id: 0 })).status, 200);
      assert.equal(await usable(link), false, 'disabled (and enabled again)');
      // A change that touches none of them keeps the link.
      link = t.server.ctx.users.createPasswordReset('several2@acme.example')!.token;
      assert.equal((await t.request('PUT', `/api/users/${id}`, { name: 'Several', list_role_id: 0 })).status, 200);
      assert.ok(await usable(link));
    });
  });

  describe('TOTP codes are limited per account (L25)', () => {
    it('120 guesses from 24 addresses: 10 are checked, then every code is refused, the right one too', async () => {
      const id = await newUser('guarded', 'guarded-password-1');
      const secret = await enableTotp(id, 'guarded', 'guarded-password-1');
      const answers: { status: number; text: string }[] = [];
      for (let a = 0; a < 24; a++) {
        const address = `10.240.${a}.1`;
        const first = await signIn(r, t, 'guarded', 'guarded-password-1', {}, { 'x-forwarded-for': address });
        assert.equal(first.status, 302);
        const token = new URL(first.location!, t.url).searchParams.get('token')!;
        for (let i = 0; i < 5; i++) {
          const res = await r.request('POST', '/admin/login/twofa', undefined, { auth: null, raw: form({ token, totp_code: wrongCode(secret) }), headers: { origin: t.url, 'x-forwarded-for': address } });
          answers.push({ status: res.status, text: res.text });
        }
      }
      assert.equal(answers.length, 120);
      const checked = answers.filter((a) => a.status === 200).length;
      assert.equal(checked, 10, 'wrong codes checked');
      assert.equal(answers.filter((a) => a.status === 429).length, 110);
      assert.ok(answers.slice(10).every((a) => /Too many attempts/.test(a.text)));
      // The right code, from a new address with a new challenge, waits for the window too.
      fixtures(t.server.ctx.db).forgetTotpStep(id);
      const first = await signIn(r, t, 'guarded', 'guarded-password-1', {}, { 'x-forwarded-for': '10.241.0.1' });
      const token = new URL(first.location!, t.url).searchParams.get('token')!;
      const right = await r.request('POST', '/admin/login/twofa', undefined, { auth: null, raw: form({ token, totp_code: totpCode(secret) }), headers: { origin: t.url, 'x-forwarded-for': '10.241.0.1' } });
      assert.equal(right.status, 429);
      assert.equal(/session=/.test(right.headers.get('set-cookie') ?? ''), false);
    });
  });

  describe('headers', () => {
    const assertSignInPolicy = (res: { headers: Headers; text: string }, what: string) => {
      const csp = res.headers.get('content-security-policy') ?? '';
      const directives = new Map(csp.split(';').map((d) => d.trim().split(/\s+/)).map(([k, ...v]) => [k, v.join(' ')]));
      assert.equal(directives.get('default-src'), "'none'", `${what}: ${csp}`);
      assert.ok(!directives.has('script-src') && !directives.has('script-src-elem'), `${what}: no script source`);
      assert.equal(directives.get('form-action'), "'self'", what);
      assert.equal(directives.get('base-uri'), "'none'", what);
      assert.equal(directives.get('frame-ancestors'), "'none'", what);
      const nonce = /^'nonce-([^']+)'$/.exec(directives.get('style-src') ?? '')?.[1];
      assert.ok(nonce, `${what}: styles by nonce`);
      assert.ok(res.text.includes(`<style nonce="${nonce}">`), `${what}: the page's style carries the nonce`);
      assert.equal(res.headers.get('cache-control'), 'no-store', what);
    };

    it('the sign-in pages send a policy without scripts, and are never stored (L26)', async () => {
      const id = await newUser('headers', 'headers-password-1');
      await enableTotp(id, 'headers', 'headers-password-1');
      const twofa = await signIn(r, t, 'headers', 'headers-password-1', {}, { 'x-forwarded-for': nextAddress() });
      assert.equal(twofa.status, 302);
      const pages = [
        ['GET /admin/login', await r.request('GET', '/admin/login', undefined, { auth: null })],
        ['POST /admin/login (wrong)', await r.request('POST', '/admin/login', undefined, { auth: null, raw: form({ username: 'headers', password: 'wrong-password' }), headers: { origin: t.url, 'x-forwarded-for': nextAddress() } })],
        ['GET /admin/forgot', await r.request('GET', '/admin/forgot', undefined, { auth: null })],
        ['POST /admin/forgot', await r.request('POST', '/admin/forgot', undefined, { auth: null, raw: form({ email: 'nobody@acme.example' }), headers: { origin: t.url } })],
        ['GET /admin/reset (a bad link)', await r.request('GET', '/admin/reset?token=nothing', undefined, { auth: null })],
        ['GET /admin/reset', await r.request('GET', `/admin/reset?token=${t.server.ctx.users.createPasswordReset('headers@acme.example')!.token}`, undefined, { auth: null })],
        ['GET /admin/login/twofa', await r.request('GET', twofa.location!, undefined, { auth: null })],
        ['POST /admin/login (cross-site)', await r.request('POST', '/admin/login', undefined, { auth: null, raw: form({ username: 'x', password: 'y' }), headers: { origin: 'https://evil.example' } })],
      ] as const;
      for (const [what, res] of pages) {
        assert.match(res.headers.get('content-type') ?? '', /text\/html/, what);
        assertSignInPolicy(res, what);
      }
      // Redirects that carry a session cookie or a 2FA-step token are not stored either.
      assert.equal(twofa.status, 302);
      const redirect = await r.request('POST', '/admin/login', undefined, { auth: null, raw: form({ username: 'headers', password: 'headers-password-1' }), headers: { origin: t.url, 'x-forwarded-for': nextAddress() } });
      assert.equal(redirect.status, 302);
      assert.equal(redirect.headers.get('cache-control'), 'no-store');
      assert.equal((await r.request('GET', '/admin/login/twofa?token=unknown', undefined, { auth: null })).headers.get('cache-control'), 'no-store');
    });

    it('every authenticated API answer is no-store, refusals and errors included (L27)', async () => {
      for (const path of ['/api/subscribers', '/api/users', '/api/profile', '/api/settings', '/api/logs', '/api/lists', '/api/subscribers?query=nonsense(((']) {
        const res = await t.request('GET', path);
        assert.equal(res.headers.get('cache-control'), 'no-store', `${path} (${res.status})`);
      }
      const notFound = await t.request('GET', '/api/subscribers/999999');
      assert.equal(notFound.status, 404);
      assert.equal(notFound.headers.get('cache-control'), 'no-store');
      const admin = await session('admin', ADMIN_PASSWORD);
      const viaCookie = await withCookie(r, t, admin, 'GET', '/api/profile');
      assert.equal(viaCookie.headers.get('cache-control'), 'no-store');
    });
  });

  describe('parallel guesses for one name', () => {
    it('60 guesses at once from 60 addresses are checked one at a time: most are refused, not checked', async () => {
      await newUser('crowded', 'crowded-password-1');
      // Five failures first: from here each check waits before it starts (250 ms, doubling).
      for (let i = 0; i < 5; i++) assert.equal((await signIn(r, t, 'crowded', `warm-up-${i}-password`, {}, { 'x-forwarded-for': `10.250.0.${i}` })).status, 200);
      const answers = await Promise.all(Array.from({ length: 60 }, (_v, i) => signIn(r, t, 'crowded', `parallel-${i}-password`, {}, { 'x-forwarded-for': `10.251.${i}.1` })));
      const checked = answers.filter((a) => a.status === 200).length;
      const refused = answers.filter((a) => a.status === 429).length;
      assert.equal(checked + refused, 60, answers.map((a) => a.status).join(' '));
      // One at a time, each after its wait, with a few waiting: sequential guesses, not 60 at once.
      assert.ok(checked <= 10, `${checked} of 60 parallel guesses were checked`);
      assert.match(answers.find((a) => a.status === 429)!.text, /Too many attempts/);
      // The owner still signs in from elsewhere (after the wait their failures earn).
      assert.ok(await session('crowded', 'crowded-password-1'));
    });
  });

  describe('sessions', () => {
    it('end after the idle timeout (security.session_idle_timeout), and its use keeps one going', () => withSettings(t, { 'security.session_idle_timeout': '1m' }, async () => {
      await newUser('idler', 'idler-password-1');
      const idle = await session('idler', 'idler-password-1');
      const busy = await session('idler', 'idler-password-1');
      const f = fixtures(t.server.ctx.db);
      f.sessionUsed(idle, 61_000);
      f.sessionUsed(busy, 30_000);
      assert.equal((await withCookie(r, t, idle, 'GET', '/api/profile')).status, 403);
      assert.equal((await withCookie(r, t, idle, 'GET', '/admin')).status, 307);
      assert.equal((await withCookie(r, t, busy, 'GET', '/api/profile')).status, 200);
      const used = Date.parse(q('SELECT last_used_at FROM sessions WHERE id = ?', sha256Hex(busy))[0].last_used_at);
      assert.ok(Date.now() - used < 10_000, 'the use was recorded');
      // The default, 8 hours, within the 24-hour lifetime.
      await withSettings(t, { 'security.session_idle_timeout': '8h' }, async () => {
        f.sessionUsed(busy, 7 * 3_600_000);
        assert.equal((await withCookie(r, t, busy, 'GET', '/api/profile')).status, 200);
        f.sessionUsed(busy, 8 * 3_600_000 + 1000);
        assert.equal((await withCookie(r, t, busy, 'GET', '/api/profile')).status, 403);
      });
    }));

    it('the idle timeout is 1m to 24h, 8h unless set', async () => {
      assert.equal(t.server.ctx.settings.str('security.session_idle_timeout'), '8h');
      for (const bad of ['30s', '25h', 'soon']) {
        const res = await t.request('PUT', '/api/settings/security.session_idle_timeout', bad);
        assert.equal(res.status, 400, bad);
        assert.match(res.body.message, /security\.session_idle_timeout/);
      }
      assert.equal(t.server.ctx.settings.str('security.session_idle_timeout'), '8h');
    });
  });

  describe('the error stream', () => {
    it('stops showing log lines once its reader may no longer read them (signed out, or without settings:get)', async () => {
      for (const end of ['role', 'logout'] as const) {
        const role = t.server.ctx.users.createUserRole(`stream readers ${end}`, ['settings:get']);
        t.server.ctx.users.createLoginUser(`reader-${end}`, await passwordHashFor('reader-password-1'), `reader-${end}@acme.example`, role.id);
        const s = await session(`reader-${end}`, 'reader-password-1');
        const res = await fetch(`${t.url}/api/events?type=error`, { headers: { cookie: `session=${s}` }, signal: AbortSignal.timeout(20_000) });
        assert.equal(res.status, 200);
        const reader = res.body!.getReader();
        let text = '';
        const readUntil = async (done: (text: string) => boolean) => {
          while (!done(text)) {
            const chunk = await reader.read();
            if (chunk.done) return false;
            text += new TextDecoder().decode(chunk.value);
          }
          return true;
        };
        t.server.ctx.log.error(`a first error for ${end}`);
        assert.ok(await readUntil((x) => x.includes(`a first error for ${end}`)));
        if (end === 'role') assert.equal((await t.request('PUT', `/api/roles/users/${role.id}`, { name: `stream readers ${end}`, permissions: ['subscribers:get'] })).status, 200);
        else assert.equal((await withCookie(r, t, s, 'POST', '/api/logout')).status, 200);
        t.server.ctx.log.error(`a second error for ${end}`);
        assert.equal(await readUntil((x) => x.includes(`a second error for ${end}`)), false, 'the stream ended without the line');
      }
    });
  });

  describe('admin list pages', () => {
    it('per_page is at most 500; "all" and negative sizes are the default 20', async () => {
      const f = fixtures(t.server.ctx.db);
      t.server.ctx.db.transaction(() => {
        for (let i = 0; i < 510; i++) f.list({ name: `bulk-list-${i}` });
      })();
      const admin = await session('admin', ADMIN_PASSWORD);
      const shown = async (perPage: string) => {
        const page = await withCookie(r, t, admin, 'GET', `/admin/lists?status=all&per_page=${perPage}`);
        assert.equal(page.status, 200);
        return new Set(page.text.match(/bulk-list-\d+/g)).size;
      };
      assert.equal(await shown('100000'), 500);
      assert.equal(await shown('all'), 20);
      assert.equal(await shown('-1'), 20);
      assert.equal(await shown('50'), 50);
      assert.deepEqual(parseAdminPaging({ per_page: '99999999999999999999', page: '3' }), { page: 3, perPage: 500, all: false, limit: 500, offset: 1000 });
    });
  });
});
