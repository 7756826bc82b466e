// Settings round trip, secret masking, validation, SMTP test and reload.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

let t: TestServer;
let sink: SmtpSink;
before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink({ auth: { user: 'mailer', pass: 's3cret-smtp-pass' } });
});
after(async () => {
  await t.stop();
  await sink.close();
});

const getSettings = async () => (await t.request('GET', '/api/settings')).body.data;

describe('GET /api/settings', () => {
  it('returns every setting with its default and masks secrets', async () => {
    const s = await getSettings();
    assert.equal(s['app.site_name'], 'Mailing list');
    assert.equal(s['app.batch_size'], 1000);
    assert.equal(s['security.public_rate_limit'], 60);
    assert.equal(s.smtp.length, 2);
    assert.equal(s.smtp[0].password, '••••••••');
    assert.equal(s['upload.s3.aws_secret_access_key'], undefined);
    assert.equal(s['app.installed_at'], undefined);
  });
});

describe('PUT /api/settings', () => {
  it('merges a partial object, keeping the keys it leaves out', async () => {
    const res = await t.request('PUT', '/api/settings', { 'app.site_name': 'Acme News', 'app.root_url': 'https://news.acme.example/' });
    assert.deepEqual(res.body, { data: true });
    const s = await getSettings();
    assert.equal(s['app.site_name'], 'Acme News');
    assert.equal(s['app.root_url'], 'https://news.acme.example');
    assert.equal(s['app.batch_size'], 1000);
    assert.equal(s.smtp.length, 2);
  });

  it('keeps a stored secret when the masked placeholder or an empty value comes back', async () => {
    await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ password: 's3cret-smtp-pass', username: 'mailer', auth_protocol: 'login' })] });
    const s = await getSettings();
    assert.equal(s.smtp[0].password, '•'.repeat('s3cret-smtp-pass'.length));
    assert.ok(s.smtp[0].uuid, 'a uuid is assigned on save');
    // Round trip the whole masked object, as listmonk's UI does.
    assert.equal((await t.request('PUT', '/api/settings', s)).status, 200);
    assert.equal(t.server.ctx.settings.get<{ password: string }[]>('smtp')[0].password, 's3cret-smtp-pass');
    // Empty secret keeps it too.
    await t.request('PUT', '/api/settings', { smtp: [{ ...s.smtp[0], password: '' }] });
    assert.equal(t.server.ctx.settings.get<{ password: string }[]>('smtp')[0].password, 's3cret-smtp-pass');
    await t.request('PUT', '/api/settings', { 'bounce.sendgrid_key': 'sg-key-123' });
    assert.equal((await getSettings())['bounce.sendgrid_key'], '••••••••••');
    await t.request('PUT', '/api/settings', { 'bounce.sendgrid_key': '••••••••••' });
    assert.equal(t.server.ctx.settings.str('bounce.sendgrid_key'), 'sg-key-123');
  });

  it('never returns or logs a secret in clear', async () => {
    const all = JSON.stringify(await getSettings());
    assert.ok(!all.includes('s3cret-smtp-pass'));
    assert.ok(!all.includes('sg-key-123'));
    const logs = JSON.stringify((await t.request('GET', '/api/logs')).body);
    assert.ok(!logs.includes('s3cret-smtp-pass'));
  });

  const invalid: [string, Record<string, unknown>, RegExp][] = [
    ['a wrong type', { 'app.batch_size': 'lots' }, /app\.batch_size.*integer/],
    ['a nested wrong type', { 'security.captcha': { altcha: { enabled: 'yes' } } }, /security\.captcha\.altcha\.enabled/],
    ['no enabled SMTP server', { smtp: [] }, /smtp.*enabled/],
    ['a bad SMTP port', { smtp: [{ enabled: true, host: 'x', port: 0 }] }, /smtp\[0\]\.port/],
    ['a bad TLS type', { smtp: [{ enabled: true, host: 'x', port: 25, tls_type: 'SSL' }] }, /tls_type/],
    ['a bad duration', { 'app.message_sliding_window_duration': 'soon' }, /duration/],
    ['a bad root URL', { 'app.root_url': 'ftp://x' }, /root_url/],
    ['a From address that is not one', { 'app.from_email': 'not an email' }, /app\.from_email/],
    ['a bad trusted URL', { 'security.trusted_urls': ['example.com'] }, /trusted_urls/],
    ['a short mailbox interval', { 'bounce.mailboxes': [{ scan_interval: '10s' }] }, /scan_interval/],
    ['a bad bounce action', { 'bounce.actions': { soft: { count: 1, action: 'explode' } } }, /bounce\.actions\.soft\.action/],
  ];
  for (const [name, body, message] of invalid) {
    it(`refuses ${name} with 400 naming the field, changing nothing`, async () => {
      const before = await getSettings();
      const res = await t.request('PUT', '/api/settings', { 'app.site_name': 'Changed?', ...body });
      assert.equal(res.status, 400);
      assert.match(res.body.message, message);
      assert.deepEqual(await getSettings(), before);
    });
  }
});

describe('PUT /api/settings/{key}', () => {
  it('updates one key', async () => {
    const res = await t.request('PUT', '/api/settings/app.concurrency', 4);
    assert.deepEqual(res.body, { data: true });
    assert.equal((await getSettings())['app.concurrency'], 4);
  });
  it('refuses an unknown key or a bad value', async () => {
    assert.equal((await t.request('PUT', '/api/settings/app.nope', 1)).status, 400);
    assert.equal((await t.request('PUT', '/api/settings/app.concurrency', '4')).status, 400);
  });
});

describe('POST /api/settings/smtp/test', () => {
  it('sends a real test message through the given server', async () => {
    const before = sink.messages.length;
    const block = { ...sink.settingsBlock({ auth_protocol: 'login', username: 'mailer', password: 's3cret-smtp-pass' }), email: 'ops@example.com' };
    const res = await t.request('POST', '/api/settings/smtp/test', block);
    assert.deepEqual(res.body, { data: true });
    const msgs = await sink.waitFor(before + 1);
    assert.deepEqual(msgs[before].to, ['ops@example.com']);
    assert.match(msgs[before].parsed.subject ?? '', /SMTP test/);
  });

  it('uses the stored password when the masked one is sent', async () => {
    const stored = (await getSettings()).smtp[0];
    const before = sink.messages.length;
    const res = await t.request('POST', '/api/settings/smtp/test', { ...stored, email: 'ops@example.com' });
    assert.equal(res.status, 200);
    await sink.waitFor(before + 1);
  });

  it('fails cleanly with 400 and the server error against a closed port or bad credentials', async () => {
    const closed = await t.request('POST', '/api/settings/smtp/test', { ...sink.settingsBlock({ port: 1 }), email: 'ops@example.com' });
    assert.equal(closed.status, 400);
    assert.match(closed.body.message, /SMTP test failed: .*(ECONNREFUSED|connect)/i);
    const wrong = await t.request('POST', '/api/settings/smtp/test', { ...sink.settingsBlock({ auth_protocol: 'login', username: 'mailer', password: 'wrong-pass' }), email: 'ops@example.com' });
    assert.equal(wrong.status, 400);
    assert.match(wrong.body.message, /Invalid username or password|auth/i);
  });

  it('requires a recipient', async () => {
    const res = await t.request('POST', '/api/settings/smtp/test', sink.settingsBlock());
    assert.equal(res.status, 400);
    assert.match(res.body.message, /"email" is required/);
  });
});

describe('POST /api/admin/reload', () => {
  it('reloads settings changed behind the server, without dropping the listener', async () => {
    t.server.ctx.db.prepare(`UPDATE settings SET value = '"Reloaded"' WHERE key = 'app.site_name'`).run();
    assert.deepEqual((await t.request('POST', '/api/admin/reload')).body, { data: true });
    assert.equal((await getSettings())['app.site_name'], 'Reloaded');
    assert.equal((await t.request('GET', '/api/health')).status, 200);
  });
});
