// HTTP core: authentication, error shapes and codes, system endpoints.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { SUPER_ADMIN_ROLE_ID } from '../../src/core/authz.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.stop());

describe('authentication', () => {
  const cases: { name: string; headers?: Record<string, string>; auth?: string | null; status: number; message?: RegExp }[] = [
    { name: 'no credentials', auth: null, status: 403, message: /invalid session/ },
    { name: 'wrong token', auth: 'tester:nope', status: 403, message: /invalid API credentials/ },
    { name: 'unknown user', auth: 'ghost:whatever', status: 403, message: /invalid API credentials/ },
    { name: 'bearer scheme', auth: null, headers: { authorization: 'Bearer abc' }, status: 403, message: /Authorization header/ },
    { name: 'basic without colon', auth: null, headers: { authorization: `Basic ${Buffer.from('tester').toString('base64')}` }, status: 403, message: /USER:TOKEN/ },
  ];
  for (const c of cases) {
    it(`refuses ${c.name} with 403 and a JSON message`, async () => {
      const res = await t.request('GET', '/api/health', undefined, { auth: c.auth, headers: c.headers });
      assert.equal(res.status, c.status);
      assert.match(res.headers.get('content-type') ?? '', /application\/json/);
      assert.match(res.body.message, c.message!);
    });
  }

  it('accepts HTTP Basic and the "token user:token" header', async () => {
    assert.deepEqual((await t.request('GET', '/api/health')).body, { data: true });
    const res = await t.request('GET', '/api/health', undefined, { auth: null, headers: { authorization: `token ${t.token}` } });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: true });
  });

  it('prefers the Authorization header over a stale session cookie', async () => {
    const res = await t.request('GET', '/api/health', undefined, { headers: { cookie: 'session=stale' } });
    assert.equal(res.status, 200);
  });

  it('serves the public /health without credentials', async () => {
    const res = await t.request('GET', '/health', undefined, { auth: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, { data: true });
  });

  it('refuses a disabled API user', async () => {
    const creds = fixtures(t.server.ctx.db).apiUser('disabled-bot', { roleId: SUPER_ADMIN_ROLE_ID, status: 'disabled' });
    assert.equal((await t.request('GET', '/api/health', undefined, { auth: creds })).status, 403);
  });
});

describe('permissions', () => {
  it('denies a route without its permission, naming it', async () => {
    const creds = fixtures(t.server.ctx.db).apiUser('reader', { permissions: ['settings:get'] });
    assert.equal((await t.request('GET', '/api/settings', undefined, { auth: creds })).status, 200);
    const res = await t.request('PUT', '/api/settings', { 'app.site_name': 'x' }, { auth: creds });
    assert.equal(res.status, 403);
    assert.equal(res.body.message, 'permission denied: settings:manage');
    assert.equal(t.server.ctx.settings.str('app.site_name'), 'Mailing list');
  });
});

describe('errors', () => {
  it('answers unknown API routes with 404 JSON, without needing credentials', async () => {
    const res = await t.request('GET', '/api/does-not-exist', undefined, { auth: null });
    assert.equal(res.status, 404);
    assert.deepEqual(res.body, { message: '404 unknown endpoint' });
  });

  it('answers unknown pages with an HTML 404', async () => {
    const res = await t.request('GET', '/no/such/page', undefined, { auth: null });
    assert.equal(res.status, 404);
    assert.match(res.headers.get('content-type') ?? '', /text\/html/);
  });

  it('answers a known path with the wrong method with 405', async () => {
    const res = await t.request('DELETE', '/api/settings');
    assert.equal(res.status, 405);
    assert.ok(res.body.message);
  });

  it('answers malformed JSON with 400 and changes nothing', async () => {
    const res = await t.request('PUT', '/api/settings', undefined, { raw: '{"app.site_name": ', headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /invalid JSON/);
  });

  it('answers a wrong content type with 400', async () => {
    const res = await t.request('PUT', '/api/settings', undefined, { raw: 'site=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /content type/);
    // A route that takes forms too says so.
    const both = await t.request('POST', '/api/public/subscription', undefined, { raw: 'email=x', headers: { 'content-type': 'text/plain' }, auth: null });
    assert.equal(both.status, 400);
    assert.equal(both.body.message, 'unsupported content type "text/plain": send application/json or a form (application/x-www-form-urlencoded, multipart/form-data)');
  });

  it('answers an oversized body with 413', async () => {
    const huge = JSON.stringify({ 'app.site_name': 'x'.repeat(11 * 1024 * 1024) });
    const res = await t.request('PUT', '/api/settings', undefined, { raw: huge, headers: { 'content-type': 'application/json' } });
    assert.equal(res.status, 413);
    assert.match(res.body.message, /the request body is larger than 10 MB/);
  });
});

describe('system endpoints', () => {
  it('GET /api/config describes the server', async () => {
    const { body } = await t.request('GET', '/api/config');
    assert.equal(body.data.root_url, 'http://localhost:9000');
    assert.deepEqual(body.data.messengers, ['email']);
    assert.equal(body.data.public_subscription.enabled, true);
    assert.ok(body.data.permissions.some((g: { group: string }) => g.group === 'subscribers'));
    assert.ok(body.data.langs.some((l: { code: string }) => l.code === 'en'));
  });

  it('GET /api/lang/en answers the English pack; unknown 404, malformed 400', async () => {
    const en = await t.request('GET', '/api/lang/en');
    assert.equal(en.status, 200);
    assert.equal(en.body.data['_.code'], 'en');
    assert.equal(en.body.data['_.name'], 'English');
    assert.equal((await t.request('GET', '/api/lang/xx')).status, 404);
    assert.equal((await t.request('GET', '/api/lang/not-a-code!')).status, 400);
  });

  it('GET /api/about is not enveloped', async () => {
    const { status, body } = await t.request('GET', '/api/about');
    assert.equal(status, 200);
    assert.match(body.database.version, /^SQLite/);
    assert.equal(body.data, undefined);
  });

  it('GET /api/logs returns the log buffer, newest last', async () => {
    await t.request('POST', '/api/admin/reload');
    const { body } = await t.request('GET', '/api/logs');
    assert.ok(Array.isArray(body.data));
    assert.match(body.data[body.data.length - 1], /settings reloaded by tester|messengers ready/);
  });
});

describe('CORS', () => {
  it('sends no CORS headers by default and allows only trusted origins when configured', async () => {
    const plain = await t.request('GET', '/api/health', undefined, { headers: { origin: 'https://app.example' } });
    assert.equal(plain.headers.get('access-control-allow-origin'), null);
    await withSettings(t, { 'security.trusted_urls': ['https://app.example/path'] }, async () => {
      const trusted = await t.request('GET', '/api/health', undefined, { headers: { origin: 'https://app.example' } });
      assert.equal(trusted.headers.get('access-control-allow-origin'), 'https://app.example');
      const other = await t.request('GET', '/api/health', undefined, { headers: { origin: 'https://evil.example' } });
      assert.equal(other.headers.get('access-control-allow-origin'), null);
    });
  });
});

describe('public root pages', () => {
  it('serves a landing page linking to sign-in and the enabled public features', async () => {
    const res = await t.request('GET', '/', undefined, { auth: null });
    assert.equal(res.status, 200);
    assert.match(res.text, /href="\/admin"/);
    assert.match(res.text, /href="\/subscription\/form"/);
    await withSettings(t, { 'app.enable_public_archive': false }, async () => {
      assert.doesNotMatch((await t.request('GET', '/', undefined, { auth: null })).text, /href="\/archive"/);
    });
  });

  it('serves robots.txt that keeps crawlers off per-subscriber links', async () => {
    const res = await t.request('GET', '/robots.txt', undefined, { auth: null });
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/plain/);
    assert.match(res.text, /Disallow: \/subscription\/\nDisallow: \/campaign\/\nDisallow: \/link\//);
  });

  it('serves the public custom CSS and JS from the appearance settings', async () => {
    await t.request('PUT', '/api/settings', { 'appearance.public.custom_css': 'body{color:red}' });
    const css = await t.request('GET', '/public/custom.css', undefined, { auth: null });
    assert.equal(css.text, 'body{color:red}');
    assert.match(css.headers.get('content-type') ?? '', /text\/css/);
    const js = await t.request('GET', '/public/custom.js', undefined, { auth: null });
    assert.equal(js.status, 200);
    assert.equal(js.text, '');
  });
});
