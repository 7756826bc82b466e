// Settings round trip, secret masking, validation, SMTP test and reload. Each group changes
// settings, so each runs on its own server over a fresh copy of the installed database.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeDatabase, openDatabase, type DB } from '../../src/db/connection.ts';
import { install } from '../../src/install.ts';
import { migrate } from '../../src/db/migrate.ts';
import { DEFAULT_SETTINGS, smtpDefaults } from '../../src/settings/defaults.ts';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { useFreshServer, withSettings, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

let sink: SmtpSink;
before(async () => {
  sink = await startSmtpSink({ auth: { user: 'mailer', pass: 's3cret-smtp-pass' } });
});
after(async () => {
  await sink.close();
});

const settingsOf = async (t: TestServer) => (await t.request('GET', '/api/settings')).body.data;

describe('GET /api/settings', () => {
  const server = useFreshServer();
  const getSettings = () => settingsOf(server());

  it('returns every setting with its default and masks secrets', async () => {
    const s = await getSettings();
    assert.equal(s['app.site_name'], 'Mailing list');
    assert.equal(s['app.batch_size'], 1000);
    assert.equal(s['security.public_rate_limit'], 60);
    assert.equal(s.smtp.length, 1);
    assert.equal(s['upload.s3.aws_secret_access_key'], undefined);
    assert.equal(s['app.installed_at'], undefined);
  });

  it('installs one empty, disabled SMTP server (not listmonk\'s smtp.yoursite.com and smtp.gmail.com), with no password saved, and round-trips it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-install-'));
    try {
      await install(join(dir, 'fresh.db'), { adminUser: 'admin', adminPassword: 'install-pass-1' });
      const db = openDatabase(join(dir, 'fresh.db'));
      const installed = JSON.parse(db.prepare(`SELECT value FROM settings WHERE key = 'smtp'`).pluck().get() as string) as Record<string, unknown>[];
      closeDatabase(db);
      assert.deepEqual(installed, DEFAULT_SETTINGS.smtp);
      assert.deepEqual(installed.map((b) => [b.enabled, b.host, b.username, b.password]), [[false, '', '', '']]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    // Served as listmonk's shape (every field of a server; an empty password left out), and taken back whole.
    const t = server();
    t.server.ctx.db.prepare(`UPDATE settings SET value = ? WHERE key = 'smtp'`).run(JSON.stringify(DEFAULT_SETTINGS.smtp));
    assert.equal((await t.request('POST', '/api/admin/reload')).status, 200);
    const s = await getSettings();
    assert.deepEqual(Object.keys(s.smtp[0]).sort(), ['auth_protocol', 'email_headers', 'enabled', 'from_addresses', 'hello_hostname', 'host', 'idle_timeout', 'max_conns', 'max_msg_retries', 'msg_retry_delay', 'name', 'port', 'tls_skip_verify', 'tls_type', 'username', 'uuid', 'wait_timeout']);
    assert.equal((await t.request('PUT', '/api/settings', s)).status, 200);
    assert.equal((await getSettings()).smtp[0].host, '');
  });
});

describe('sql/0105: a database still holding listmonk\'s two SMTP placeholders', () => {
  const server = useFreshServer();
  const placeholders = (over: Record<string, unknown> = {}) => JSON.stringify([
    { ...smtpDefaults({ enabled: false }), uuid: 'a1b6c7d8-0000-4000-8000-000000000001', ...over },
    { ...smtpDefaults({ enabled: false, host: 'smtp.gmail.com', port: 465, auth_protocol: 'login', username: 'username@gmail.com', tls_type: 'TLS' }) },
  ]);
  const upgrade = (db: DB, value: string) => {
    db.prepare(`UPDATE settings SET value = ? WHERE key = 'smtp'`).run(value);
    db.prepare('DELETE FROM schema_migrations WHERE version = 105').run();
    assert.deepEqual(migrate(db).map((m) => m.version), [105]);
    return JSON.parse(db.prepare(`SELECT value FROM settings WHERE key = 'smtp'`).pluck().get() as string) as Record<string, unknown>[];
  };

  it('gets the one empty server an install writes; a changed or enabled one is kept', async () => {
    const t = server();
    const db = t.server.ctx.db;
    assert.deepEqual(upgrade(db, placeholders()), DEFAULT_SETTINGS.smtp);
    const changed = placeholders({ host: 'mail.example.org' });
    assert.equal(JSON.stringify(upgrade(db, changed)), changed);
    const enabled = placeholders({ enabled: true });
    assert.equal(JSON.stringify(upgrade(db, enabled)), enabled);
    // The upgraded database serves its settings and takes a save.
    upgrade(db, placeholders());
    assert.equal((await t.request('POST', '/api/admin/reload')).status, 200);
    const s = await settingsOf(t);
    assert.equal(s.smtp.length, 1);
    assert.equal((await t.request('PUT', '/api/settings', s)).status, 200);
  });
});

describe('PUT /api/settings', () => {
  const server = useFreshServer();
  const getSettings = () => settingsOf(server());

  it('merges a partial object, keeping the keys it leaves out', async () => {
    const t = server();
    const res = await t.request('PUT', '/api/settings', { 'app.site_name': 'Acme News', 'app.root_url': 'https://news.acme.example/' });
    assert.deepEqual(res.body, { data: true });
    const s = await getSettings();
    assert.equal(s['app.site_name'], 'Acme News');
    assert.equal(s['app.root_url'], 'https://news.acme.example');
    assert.equal(s['app.batch_size'], 1000);
    assert.equal(s.smtp.length, 1);
  });

  it('keeps a stored secret when the masked placeholder or an empty value comes back', async () => {
    const t = server();
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
    const t = server();
    const all = JSON.stringify(await getSettings());
    assert.ok(!all.includes('s3cret-smtp-pass'));
    assert.ok(!all.includes('sg-key-123'));
    const logs = JSON.stringify((await t.request('GET', '/api/logs')).body);
    assert.ok(!logs.includes('s3cret-smtp-pass'));
  });
});

describe('PUT /api/settings refusals', () => {
  const server = useFreshServer();
  let was: unknown;
  const invalid = (name: string, body: Record<string, unknown>, message: RegExp): Scenario => ({
    name: `refuses ${name} with 400 naming the field, changing nothing`,
    method: 'PUT', path: '/api/settings', body: { 'app.site_name': 'Changed?', ...body }, status: 400, contains: [message],
    before: async (t) => {
      was = await settingsOf(t);
    },
    after: async (_res, t) => assert.deepEqual(await settingsOf(t), was),
  });
  runScenarios(server, [
    invalid('a wrong type', { 'app.batch_size': 'lots' }, /app\.batch_size.*integer/),
    invalid('a nested wrong type', { 'security.captcha': { altcha: { enabled: 'yes' } } }, /security\.captcha\.altcha\.enabled/),
    invalid('no SMTP server at all', { smtp: [] }, /"smtp".*at least one SMTP server/),
    invalid('a bad SMTP port', { smtp: [{ enabled: true, host: 'x', port: 0 }] }, /smtp\[0\]\.port/),
    invalid('a bad TLS type', { smtp: [{ enabled: true, host: 'x', port: 25, tls_type: 'SSL' }] }, /tls_type/),
    invalid('a bad duration', { 'app.message_sliding_window_duration': 'soon' }, /duration/),
    invalid('a bad root URL', { 'app.root_url': 'ftp://x' }, /root_url/),
    invalid('a From address that is not one', { 'app.from_email': 'not an email' }, /app\.from_email/),
    invalid('a bad trusted URL', { 'security.trusted_urls': ['example.com'] }, /trusted_urls/),
    invalid('a short mailbox interval', { 'bounce.mailboxes': [{ scan_interval: '10s' }] }, /scan_interval/),
    invalid('a bad bounce action', { 'bounce.actions': { soft: { count: 1, action: 'explode' } } }, /bounce\.actions\.soft\.action/),
  ]);
});

describe('PUT /api/settings/{key}', () => {
  const server = useFreshServer();
  runScenarios(server, [
    {
      name: 'updates one key', method: 'PUT', path: '/api/settings/app.concurrency', body: 4, status: 200,
      after: async (res, t) => {
        assert.deepEqual(res.body, { data: true });
        assert.equal((await settingsOf(t))['app.concurrency'], 4);
      },
    },
    { name: 'refuses an unknown key', method: 'PUT', path: '/api/settings/app.nope', body: 1, status: 400 },
    { name: 'refuses a bad value', method: 'PUT', path: '/api/settings/app.concurrency', body: '4', status: 400 },
  ]);
});

describe('POST /api/settings/smtp/test', () => {
  const server = useFreshServer();
  const getSettings = () => settingsOf(server());
  before(async () => {
    const res = await server().request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ password: 's3cret-smtp-pass', username: 'mailer', auth_protocol: 'login' })] });
    assert.equal(res.status, 200, res.text);
  });

  it('sends a real test message through the given server', async () => {
    const t = server();
    const before = sink.messages.length;
    const block = { ...sink.settingsBlock({ auth_protocol: 'login', username: 'mailer', password: 's3cret-smtp-pass' }), email: 'ops@example.com' };
    const res = await t.request('POST', '/api/settings/smtp/test', block);
    assert.deepEqual(res.body, { data: true });
    const msgs = await sink.waitFor(before + 1);
    assert.deepEqual(msgs[before].to, ['ops@example.com']);
    assert.match(msgs[before].parsed.subject ?? '', /SMTP test/);
  });

  it('uses the stored password when the masked one is sent', async () => {
    const t = server();
    const stored = (await getSettings()).smtp[0];
    const before = sink.messages.length;
    const res = await t.request('POST', '/api/settings/smtp/test', { ...stored, email: 'ops@example.com' });
    assert.equal(res.status, 200);
    await sink.waitFor(before + 1);
  });

  it('with no body, connects and authenticates to the saved servers with the saved password, sending nothing', async () => {
    const t = server();
    const [messages, auths] = [sink.messages.length, sink.auths.length];
    const res = await t.request('POST', '/api/settings/smtp/test', undefined);
    assert.deepEqual(res.body, { data: true });
    assert.deepEqual(sink.auths.slice(auths), [{ username: 'mailer', password: 's3cret-smtp-pass' }]);
    assert.equal(sink.messages.length, messages);
  });

  it('with only a uuid and an e-mail, sends the test message through that saved server', async () => {
    const t = server();
    const stored = (await getSettings()).smtp[0];
    const before = sink.messages.length;
    const res = await t.request('POST', '/api/settings/smtp/test', { uuid: stored.uuid, email: 'saved@example.com' });
    assert.deepEqual(res.body, { data: true });
    assert.deepEqual((await sink.waitFor(before + 1))[before].to, ['saved@example.com']);
    const unknown = await t.request('POST', '/api/settings/smtp/test', { uuid: '5b7f0c59-0000-4000-8000-000000000000' });
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.message, /no saved SMTP server has uuid/);
  });

  it('never sends the saved password to another host, port, user name or TLS setting: 400 asking to retype it', async () => {
    const t = server();
    const other = await startSmtpSink({ auth: { user: 'mailer', pass: 'x' } });
    try {
      const stored = (await getSettings()).smtp[0];
      assert.match(stored.password, /^•+$/);
      const changes = [
        { host: 'localhost', port: other.port },
        { port: other.port },
        { username: 'someone-else' },
        { tls_type: 'STARTTLS', tls_skip_verify: true },
      ];
      for (const change of changes) {
        for (const password of [stored.password, '']) {
          const res = await t.request('POST', '/api/settings/smtp/test', { ...stored, ...change, password, email: 'ops@example.com' });
          assert.equal(res.status, 400, JSON.stringify(change));
          assert.match(res.body.message, /type the password again/);
        }
      }
      assert.deepEqual(other.auths, [], 'the other server got no AUTH');
      assert.equal(other.messages.length, 0);
      // A masked password for a block that was never saved is refused too.
      const unsaved = await t.request('POST', '/api/settings/smtp/test', { ...other.settingsBlock({ auth_protocol: 'login', username: 'mailer', uuid: '' }), password: '••••', email: 'ops@example.com' });
      assert.equal(unsaved.status, 400);
      assert.match(unsaved.body.message, /type the password/);
      assert.deepEqual(other.auths, []);
      // Retyped, it is sent where asked (a loopback server not saved: with the setting that allows it).
      await withSettings(t, { 'security.allow_private_outbound': true }, async () => {
        const retyped = await t.request('POST', '/api/settings/smtp/test', { ...stored, host: 'localhost', port: other.port, password: 'x', email: 'ops@example.com' });
        assert.equal(retyped.status, 200, retyped.text);
      });
      assert.deepEqual(other.auths, [{ username: 'mailer', password: 'x' }]);
    } finally {
      await other.close();
    }
  });

  it('reports what failed, quoting the relay only once it has spoken SMTP (never banners of other services on internal ports)', async () => {
    const t = server();
    const banner = createServer((socket) => socket.end('HTTP/1.1 400 Bad Request\r\nServer: internal-redis-7.2 secret-banner\r\n\r\n'));
    await new Promise<void>((r) => banner.listen(0, '127.0.0.1', r));
    try {
      const test = (block: Record<string, unknown>) => withSettings(t, { 'security.allow_private_outbound': true }, () => t.request('POST', '/api/settings/smtp/test', { ...block, email: 'ops@example.com' }));
      const port = (banner.address() as AddressInfo).port;
      const notSmtp = await test(sink.settingsBlock({ port, wait_timeout: '1s' }));
      assert.equal(notSmtp.status, 400);
      assert.equal(notSmtp.body.message, `SMTP test failed: could not talk SMTP with 127.0.0.1:${port} (check the host, the port and the TLS setting)`);
      const closed = await test(sink.settingsBlock({ port: 1, wait_timeout: '1s' }));
      assert.equal(closed.status, 400);
      assert.equal(closed.body.message, 'SMTP test failed: could not talk SMTP with 127.0.0.1:1 (check the host, the port and the TLS setting)');
      const badCreds = await test(sink.settingsBlock({ auth_protocol: 'login', username: 'mailer', password: 'wrong-pass' }));
      assert.equal(badCreds.status, 400);
      assert.match(badCreds.body.message, /^SMTP test failed: 127\.0\.0\.1:\d+ refused the user name or password \(SMTP 535\): the relay answered "535 Invalid username or password"$/);
      const logs = t.server.ctx.log.recent().join('\n');
      assert.doesNotMatch(logs, /secret-banner|wrong-pass/);
    } finally {
      await new Promise<void>((r) => banner.close(() => r()));
    }
  });

  runScenarios(server, [
    { name: 'requires a recipient when a server is given', method: 'POST', path: '/api/settings/smtp/test', body: () => sink.settingsBlock(), status: 400, contains: [/"email" is required/] },
  ]);
});

describe('POST /api/admin/reload', () => {
  const server = useFreshServer();

  it('reloads settings changed behind the server, without dropping the listener', async () => {
    const t = server();
    t.server.ctx.db.prepare(`UPDATE settings SET value = '"Reloaded"' WHERE key = 'app.site_name'`).run();
    assert.deepEqual((await t.request('POST', '/api/admin/reload')).body, { data: true });
    assert.equal((await settingsOf(t))['app.site_name'], 'Reloaded');
    assert.equal((await t.request('GET', '/api/health')).status, 200);
  });
});
