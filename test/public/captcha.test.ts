// The subscription form's captcha (public-pages.md §10): Altcha challenges served and checked
// here (each solution accepted once), hCaptcha tokens checked with a siteverify server, the
// form refused with 400 without a valid proof, and nothing asked when no captcha is on.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { solveChallenge } from 'altcha-lib/v1';
import { keepSettings, startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let listUuid: string;

before(async () => {
  t = await startTestServer();
  listUuid = (await t.request('POST', '/api/lists', { name: 'News', type: 'public', optin: 'single' })).body.data.uuid;
});
after(() => t.stop());

const captchaSettings = (over: Record<string, unknown>) => ({
  altcha: { enabled: false, complexity: 1000 }, hcaptcha: { enabled: false, key: '', secret: '' }, ...over,
});
async function setCaptcha(over: Record<string, unknown>): Promise<void> {
  const r = await t.request('PUT', '/api/settings', { 'security.captcha': captchaSettings(over) });
  assert.equal(r.status, 200, r.text);
}

async function subscribe(email: string, extra: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${t.url}/subscription/form`, { method: 'POST', body: new URLSearchParams({ email, l: listUuid, ...extra }) });
  return { status: res.status, text: await res.text() };
}
const subscribed = (email: string) => t.server.ctx.db.prepare('SELECT COUNT(*) FROM subscribers WHERE email = ?').pluck().get(email) === 1;

async function solvedAltcha(): Promise<string> {
  const res = await fetch(`${t.url}/api/public/captcha/altcha`);
  assert.equal(res.status, 200);
  const challenge = await res.json() as { algorithm: string; challenge: string; maxnumber: number; salt: string; signature: string };
  assert.equal(challenge.algorithm, 'SHA-256');
  assert.equal(challenge.maxnumber, 1000);
  const solution = await solveChallenge(challenge.challenge, challenge.salt, challenge.algorithm, challenge.maxnumber).promise;
  assert.ok(solution);
  return Buffer.from(JSON.stringify({ algorithm: challenge.algorithm, challenge: challenge.challenge, number: solution.number, salt: challenge.salt, signature: challenge.signature })).toString('base64');
}

describe('no captcha', () => {
  it('the JSON subscription route asks for nothing either', async () => {
    const r = await t.request('POST', '/api/public/subscription', { email: 'json-plain@example.com', list_uuids: [listUuid] }, { auth: null });
    assert.equal(r.status, 200, r.text);
    assert.ok(subscribed('json-plain@example.com'));
  });

  it('asks for nothing, and serves no challenge', async () => {
    const form = await (await fetch(`${t.url}/subscription/form`)).text();
    assert.doesNotMatch(form, /altcha|h-captcha/);
    assert.equal((await fetch(`${t.url}/api/public/captcha/altcha`)).status, 404);
    assert.equal((await subscribe('plain@example.com')).status, 200);
    assert.ok(subscribed('plain@example.com'));
  });
});

describe('Altcha', () => {
  keepSettings(() => t, ['security.captcha']);
  before(() => setCaptcha({ altcha: { enabled: true, complexity: 1000 } }));

  it('puts the widget on the form and serves its script', async () => {
    const form = await (await fetch(`${t.url}/subscription/form`)).text();
    assert.match(form, /<altcha-widget challengeurl="\/api\/public\/captcha\/altcha" name="altcha"><\/altcha-widget>/);
    assert.match(form, /<script src="\/public\/static\/altcha\.umd\.js" defer><\/script>/);
    const script = await fetch(`${t.url}/public/static/altcha.umd.js`);
    assert.equal(script.status, 200);
    assert.match(script.headers.get('content-type') ?? '', /javascript/);
    assert.match(await script.text(), /altcha-widget/);
    const config = (await t.request('GET', '/api/config')).body.data.public_subscription;
    assert.equal(config.captcha_enabled, true);
    assert.equal(config.captcha_provider, 'altcha');
  });

  it('subscribes with a solved challenge, once', async () => {
    const payload = await solvedAltcha();
    assert.equal((await subscribe('solved@example.com', { altcha: payload })).status, 200);
    assert.ok(subscribed('solved@example.com'));
    const again = await subscribe('replayed@example.com', { altcha: payload });
    assert.equal(again.status, 400);
    assert.match(again.text, /The CAPTCHA check failed/);
    assert.ok(!subscribed('replayed@example.com'));
    // The same solution dressed differently (the widget adds how long it took) is the same proof.
    const dressed = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload, 'base64').toString()), took: 42 })).toString('base64');
    assert.equal((await subscribe('dressed@example.com', { altcha: dressed })).status, 400);
    assert.ok(!subscribed('dressed@example.com'));
  });

  it('the JSON subscription route asks for the same proof: 400 naming "altcha" without it, subscribes with it', async () => {
    const json = (email: string, extra: Record<string, string> = {}) => t.request('POST', '/api/public/subscription', { email, list_uuids: [listUuid], ...extra }, { auth: null });
    for (const extra of [{}, { altcha: 'forged' }] as Record<string, string>[]) {
      const r = await json('json-bot@example.com', extra);
      assert.equal(r.status, 400);
      assert.match(r.body.message, /captcha required: a missing or invalid "altcha" field/);
    }
    assert.ok(!subscribed('json-bot@example.com'));
    const ok = await json('json-human@example.com', { altcha: await solvedAltcha() });
    assert.equal(ok.status, 200, ok.text);
    assert.ok(subscribed('json-human@example.com'));
  });

  it('refuses the form without a proof, or with a forged one, subscribing nobody', async () => {
    const payload = JSON.parse(Buffer.from(await solvedAltcha(), 'base64').toString());
    const forged = Buffer.from(JSON.stringify({ ...payload, number: payload.number + 1 })).toString('base64');
    for (const [name, extra] of [['no proof', {}], ['an empty proof', { altcha: '' }], ['a wrong number', { altcha: forged }], ['garbage', { altcha: '%%%' }]] as const) {
      const email = `refused-${name.replaceAll(' ', '-')}@example.com`;
      const r = await subscribe(email, extra);
      assert.equal(r.status, 400, name);
      assert.ok(!subscribed(email), name);
    }
  });
});

describe('hCaptcha', () => {
  keepSettings(() => t, ['security.captcha']);
  let verifier: Server;
  const received: URLSearchParams[] = [];
  let reply = (token: string) => JSON.stringify({ success: token === 'good-token' });

  before(async () => {
    verifier = createServer((req, res) => {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const form = new URLSearchParams(body);
        received.push(form);
        res.writeHead(200, { 'content-type': 'application/json' }).end(reply(form.get('response') ?? ''));
      });
    });
    await new Promise<void>((r) => verifier.listen(0, '127.0.0.1', r));
    t.server.ctx.captcha.hcaptchaVerifyUrl = `http://127.0.0.1:${(verifier.address() as AddressInfo).port}/siteverify`;
    await setCaptcha({ hcaptcha: { enabled: true, key: 'site-key-1', secret: 'secret-1' } });
  });
  after(() => new Promise<void>((r) => verifier.close(() => r())));

  it('puts the widget with the site key on the form', async () => {
    const form = await (await fetch(`${t.url}/subscription/form`)).text();
    assert.match(form, /<div class="h-captcha" data-sitekey="site-key-1"><\/div>/);
    assert.match(form, /<script src="https:\/\/js\.hcaptcha\.com\/1\/api\.js" defer><\/script>/);
  });

  it('subscribes when hCaptcha confirms the token, with the secret sent to it', async () => {
    assert.equal((await subscribe('human@example.com', { 'h-captcha-response': 'good-token' })).status, 200);
    assert.ok(subscribed('human@example.com'));
    const last = received.at(-1)!;
    assert.deepEqual([last.get('secret'), last.get('response'), last.get('sitekey')], ['secret-1', 'good-token', 'site-key-1']);
  });

  it('refuses a rejected or missing token, and a reply that is not JSON', async () => {
    assert.equal((await subscribe('bot1@example.com', { 'h-captcha-response': 'bad-token' })).status, 400);
    assert.equal((await subscribe('bot2@example.com')).status, 400);
    reply = () => '<html>oops</html>';
    try {
      assert.equal((await subscribe('bot3@example.com', { 'h-captcha-response': 'good-token' })).status, 400);
    } finally {
      reply = (token) => JSON.stringify({ success: token === 'good-token' });
    }
    for (const e of ['bot1', 'bot2', 'bot3']) assert.ok(!subscribed(`${e}@example.com`));
  });

  it('the JSON subscription route asks for the hCaptcha token too', async () => {
    const json = (email: string, extra: Record<string, string> = {}) => t.request('POST', '/api/public/subscription', { email, list_uuids: [listUuid], ...extra }, { auth: null });
    const refused = await json('json-bot@example.com', { 'h-captcha-response': 'bad-token' });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /"h-captcha-response"/);
    assert.ok(!subscribed('json-bot@example.com'));
    assert.equal((await json('json-human2@example.com', { 'h-captcha-response': 'good-token' })).status, 200);
    assert.ok(subscribed('json-human2@example.com'));
  });

  it('the secret is masked on read, and enabling hCaptcha needs a key and a secret', async () => {
    const stored = (await t.request('GET', '/api/settings')).body.data['security.captcha'];
    assert.notEqual(stored.hcaptcha.secret, 'secret-1');
    const bad = await t.request('PUT', '/api/settings', { 'security.captcha': captchaSettings({ hcaptcha: { enabled: true, key: '', secret: 'x' } }) });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /site key and secret/);
    const zero = await t.request('PUT', '/api/settings', { 'security.captcha': captchaSettings({ altcha: { enabled: true, complexity: 0 } }) });
    assert.equal(zero.status, 400);
  });
});
