// The root URL warning: at start-up, in GET /api/config, and when opt-in or campaign mail goes
// out, until the root URL is set to where readers can reach the server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, withSettings, ADMIN_PASSWORD, ADMIN_USER, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addSubscriber, until } from '../campaigns/fixtures.ts';
import { recorder, signIn } from '../users/helpers.ts';

let t: TestServer;
let sink: SmtpSink;
const warning = async () => (await t.request('GET', '/api/config')).body.data.root_url_warning as string | null;
const logged = (re: RegExp) => t.server.ctx.log.recent().filter((l) => re.test(l));

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({})] });
  assert.equal(r.status, 200, r.text);
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('the root URL warning', () => {
  it('is logged at start-up and shown in GET /api/config while the root URL is the default, saying where to set it', async () => {
    const w = await warning();
    assert.match(w ?? '', /http:\/\/localhost:9000 is still the default/);
    assert.match(w ?? '', /Settings → General/);
    assert.match(w ?? '', /--root-url/);
    assert.equal(logged(/WARN  start-up: The root URL http:\/\/localhost:9000 is still the default/).length, 1);
  });

  it('goes away once the root URL is where the server listens', async () => {
    await withSettings(t, { 'app.root_url': t.url }, async () => {
      assert.equal(await warning(), null);
    });
  });

  it('names a loopback root URL on another port than the server listens on', async () => {
    await withSettings(t, { 'app.root_url': 'http://localhost:8080/' }, async () => {
      // No longer the default, but still not where the server is.
      assert.match(await warning() ?? '', /points at this machine's loopback address while the server listens on 127\.0\.0\.1:\d+/);
    });
  });

  it('names the host signed-in browsers reach the server at when it is not the root URL; a proxy\'s loopback Host is no sign', async () => {
    await withSettings(t, { 'app.root_url': 'https://lists.example.com' }, async () => {
      assert.equal(await warning(), null);
      const r = recorder(t);
      const session = (await signIn(r, t, ADMIN_USER, ADMIN_PASSWORD)).session!;
      // A request with an API token from another host does not count: scripts may use an internal address.
      await t.request('GET', '/api/config', undefined, { headers: { 'x-forwarded-host': 'internal.example.net' } });
      assert.equal(await warning(), null);
      const viaProxy = await r.request('GET', '/api/config', undefined, { auth: null, headers: { cookie: `session=${session}`, 'x-forwarded-host': 'localhost:9000' } });
      assert.equal(viaProxy.body.data.root_url_warning, null);
      const elsewhere = await r.request('GET', '/api/config', undefined, { auth: null, headers: { cookie: `session=${session}`, 'x-forwarded-host': 'news.example.org' } });
      assert.equal(elsewhere.status, 200);
      assert.match(await warning() ?? '', /https:\/\/lists\.example\.com is not the host signed-in requests arrive at \(news\.example\.org\)/);
    });
  });

  it('is logged when opt-in mail goes out (at most once a minute) and when a campaign starts sending', async () => {
    const db = t.server.ctx.db;
    const double = addList(db, 'Double opt-in', 'double');
    const single = addList(db, 'Single', 'single');
    for (const who of ['a', 'b']) {
      const sub = addSubscriber(db, `${who}@example.com`, who, [[double, 'unconfirmed']]);
      const r = await t.request('POST', `/api/subscribers/${sub}/optin`);
      assert.equal(r.status, 200, r.text);
    }
    await until('two opt-in mails', () => sink.messages.length >= 2);
    assert.equal(logged(/sending opt-in mail: The root URL http:\/\/localhost:9000 is still the default/).length, 1);

    addSubscriber(db, 'c@example.com', 'c', [[single, 'confirmed']]);
    const c = await t.request('POST', '/api/campaigns', { name: 'Hello', subject: 'Hello', lists: [single], content_type: 'html', body: '<p>Hi</p>' });
    assert.equal(c.status, 200, c.text);
    const started = await t.request('PUT', `/api/campaigns/${c.body.data.id}/status`, { status: 'running' });
    assert.equal(started.status, 200, started.text);
    await until('the campaign warning', () => logged(new RegExp(`campaign ${c.body.data.id}: The root URL http://localhost:9000 is still the default`)).length === 1);
  });
});
