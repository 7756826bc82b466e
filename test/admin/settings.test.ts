// The admin's settings page, rendered by the real server: every tab for an admin, read-only for
// settings:get alone (and the API refusing that role's writes), refused without settings:get;
// secrets absent from the page; a refused save changing nothing; the bounce mailbox scan API
// against a fake POP3 server.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { adminSession, apiAs, getPage, userWithRole } from '../helpers/admin.ts';
import { keepSettings, useFreshServer, type TestServer } from '../helpers/server.ts';
import { startFakePop3 } from '../bounces/fake-servers.ts';

const TABS = ['general', 'performance', 'privacy', 'security', 'media', 'smtp', 'bounces', 'messengers', 'appearance'];

/** Known secret values, one per kind of secret the settings hold. */
const SECRETS = {
  smtp: 'Smtp-Pass-9f3a1c',
  sendgrid: 'SG.sendgrid-key-77b2',
  postmark: 'postmark-pass-41d0',
  forwardemail: 'fe-key-0c9e5a',
  lettermint: 'lm-key-88aa01',
  azure: 'azure-shared-5c5c5c',
  hcaptcha: '0xHCAPTCHA-secret-123',
  s3: 's3-secret-access-key-ZZ',
  messenger: 'messenger-pass-3e3e',
  mailbox: 'mailbox-pass-6f6f',
  oidc: 'oidc-client-secret-7a7a',
};

const dataOf = (html: string) => JSON.parse(/<script type="application\/json" id="settings-data">(.*?)<\/script>/s.exec(html)![1]);

describe('admin settings page', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  let reader: string;
  let nobody: string;

  before(async () => {
    t = server();
    admin = await adminSession(t);
    const r = await userWithRole(t, ['settings:get']);
    reader = await adminSession(t, r.username, r.password);
    const n = await userWithRole(t, ['lists:get_all']);
    nobody = await adminSession(t, n.username, n.password);
  });

  it('shows every tab with its fields, Save, the SMTP tools and the scan button to an admin', async () => {
    const res = await getPage(t, admin, '/admin/settings');
    assert.equal(res.status, 200, res.body.slice(0, 300));
    for (const tab of TABS) assert.match(res.body, new RegExp(`role="tab" id="tab-${tab}" aria-controls="panel-${tab}"`));
    for (const tab of TABS) assert.match(res.body, new RegExp(`role="tabpanel" id="panel-${tab}"`));
    // A field of each tab, named as the API names it, with its label and help.
    for (const name of ['app.site_name', 'app.concurrency', 'privacy.individual_tracking', 'security.captcha.altcha.complexity', 'security.trusted_proxies',
      'security.public_rate_limit', 'upload.max_file_size', 'smtp[0].host', 'smtp[0].tls_type', 'bounce.actions.hard.action', 'bounce.mailboxes[0].host',
      'appearance.public.custom_css', 'privacy.unsubscribe_mailto', 'app.site_url', 'privacy.track_links']) {
      assert.ok(res.body.includes(`name="${name}"`), `no control for ${name}`);
    }
    assert.match(res.body, /<label for="s-app-concurrency">Concurrency<\/label>/);
    assert.match(res.body, /id="s-app-concurrency-help">Maximum concurrent worker/);
    assert.match(res.body, /data-error-for="s-app-concurrency"/);
    assert.match(res.body, /<button type="submit" id="settings-save" x-bind:disabled="cannotSave">Save<\/button>/);
    assert.match(res.body, /x-on:click="testSmtp"/);
    assert.match(res.body, /x-on:click="scanNow"/);
    assert.match(res.body, /data-add="smtp"/);
    assert.match(res.body, /data-editor="css"/);
    assert.match(res.body, /href="http:\/\/localhost:9000\/subscription\/form" target="_blank"/);
    assert.ok(!/<input[^>]*name="app\.site_name"[^>]*disabled/.test(res.body), 'an admin\'s fields are editable');
    const nav = await getPage(t, admin, '/admin');
    assert.match(nav.body, /<a href="\/admin\/settings">Settings<\/a>/);
  });

  it('never puts a secret in the page, not even as a masked length', async () => {
    const base = (await t.request('GET', '/api/settings')).body.data;
    const smtp = base.smtp.map((b: Record<string, unknown>, i: number) => (i === 0 ? { ...b, password: SECRETS.smtp } : b));
    const res = await t.request('PUT', '/api/settings', {
      smtp,
      'bounce.sendgrid_key': SECRETS.sendgrid,
      'bounce.postmark': { enabled: false, username: 'pm', password: SECRETS.postmark },
      'bounce.forwardemail': { enabled: false, key: SECRETS.forwardemail },
      'bounce.lettermint': { enabled: false, key: SECRETS.lettermint },
      'bounce.azure': { enabled: false, shared_secret: SECRETS.azure, shared_secret_header: '' },
      'security.captcha': { altcha: { enabled: false, complexity: 300000 }, hcaptcha: { enabled: false, key: 'site-key', secret: SECRETS.hcaptcha } },
      'upload.s3.aws_secret_access_key': SECRETS.s3,
      messengers: [{ enabled: false, name: 'sms', root_url: 'https://sms.example.com', username: 'u', password: SECRETS.messenger, max_conns: 1, max_msg_retries: 1, timeout: '5s' }],
      'bounce.mailboxes': [{ ...base['bounce.mailboxes'][0], password: SECRETS.mailbox }],
      'security.oidc': { ...base['security.oidc'], client_secret: SECRETS.oidc },
    });
    assert.equal(res.status, 200, res.text);
    for (const session of [admin, reader]) {
      const page = await getPage(t, session, '/admin/settings');
      assert.equal(page.status, 200);
      for (const [what, secret] of Object.entries(SECRETS)) assert.ok(!page.body.includes(secret), `the ${what} secret is in the page`);
      assert.ok(!/•{2,}/.test(page.body), 'a masked secret (its length) is in the page');
      // The page says which secrets are saved, without their values.
      assert.match(page.body, /name="smtp\[0\]\.password" data-kind="secret"[^>]*value="" placeholder="Saved \(hidden\)/);
      assert.match(page.body, /name="messengers\[0\]\.password" data-kind="secret"[^>]*value="" placeholder="Saved \(hidden\)/);
      const data = dataOf(page.body);
      assert.equal(data.values.smtp[0].password, '');
      assert.equal(data.values['bounce.sendgrid_key'], '');
    }
    // Saving the page's blank secrets keeps the stored ones.
    const form = dataOf((await getPage(t, admin, '/admin/settings')).body).values;
    assert.equal((await apiAs(t, admin, 'PUT', '/api/settings', { smtp: form.smtp, 'bounce.sendgrid_key': '', messengers: form.messengers })).status, 200);
    const stored = t.server.ctx.settings.all();
    assert.equal((stored.smtp as { password: string }[])[0].password, SECRETS.smtp);
    assert.equal(stored['bounce.sendgrid_key'], SECRETS.sendgrid);
    assert.equal((stored.messengers as { password: string }[])[0].password, SECRETS.messenger);
  });

  it('is read-only for settings:get alone, and the API refuses that role\'s writes', async () => {
    const res = await getPage(t, reader, '/admin/settings');
    assert.equal(res.status, 200);
    assert.match(res.body, /changing them needs the settings:manage permission/);
    for (const control of ['settings-save', 'x-on:click="testSmtp"', 'x-on:click="scanNow"', 'data-add="smtp"', 'x-on:click="removeBlock"', 'x-on:change="applyPreset"']) {
      assert.ok(!res.body.includes(control), `${control} is shown without settings:manage`);
    }
    assert.match(res.body, /<input type="text" id="s-app-site-name" name="app.site_name" data-kind="text" disabled=""/);
    // The SMTP tab says nothing of a test this role cannot run.
    assert.ok(!res.body.includes('Test a server before enabling it'), 'no advice to test without a test button');
    assert.match(res.body, /Messages go out through the enabled servers, in turn\. Passwords are never shown\./);
    assert.match((await getPage(t, admin, '/admin/settings')).body, /Test a server before enabling it/, 'the admin keeps the advice');
    assert.equal((await apiAs(t, reader, 'PUT', '/api/settings', { 'app.site_name': 'Nope' })).status, 403);
    assert.equal((await apiAs(t, reader, 'POST', '/api/settings/smtp/test', { email: 'a@example.com' })).status, 403);
    assert.equal((await apiAs(t, reader, 'POST', '/api/bounces/scan')).status, 403);
    assert.equal((await apiAs(t, reader, 'GET', '/api/bounces/scan')).status, 200);
    assert.notEqual(t.server.ctx.settings.str('app.site_name'), 'Nope');
  });

  it('is refused without settings:get, and not in that user\'s menu', async () => {
    const res = await getPage(t, nobody, '/admin/settings');
    assert.equal(res.status, 403);
    assert.match(res.body, /permission denied: settings:get/);
    assert.ok(!(await getPage(t, nobody, '/admin')).body.includes('href="/admin/settings"'));
    assert.equal((await apiAs(t, nobody, 'GET', '/api/settings')).status, 403);
  });

  describe('saving', () => {
    keepSettings(() => t, ['app.site_name', 'app.concurrency', 'app.root_url']);

    it('a refused save names the field and changes nothing', async () => {
      const before = (await t.request('GET', '/api/settings')).body.data;
      const res = await apiAs(t, admin, 'PUT', '/api/settings', { 'app.site_name': 'Should not stick', 'app.concurrency': 0 });
      assert.equal(res.status, 400);
      assert.equal(res.body.message, 'invalid setting "app.concurrency": must be at least 1');
      const after = (await t.request('GET', '/api/settings')).body.data;
      assert.deepEqual(after, before);
      const headers = await apiAs(t, admin, 'PUT', '/api/settings', { smtp: before.smtp.map((b: object) => ({ ...b, email_headers: [{ 'Bad Header': 'x' }] })) });
      assert.equal(headers.status, 400);
      assert.match(headers.body.message, /"smtp\[0\]\.email_headers"/);
    });

    it('applies a saved change at once: the next page has it', async () => {
      assert.equal((await apiAs(t, admin, 'PUT', '/api/settings', { 'app.site_name': 'Applied Without Restart', 'app.root_url': 'https://news.example.org' })).status, 200);
      const page = await getPage(t, admin, '/admin/settings');
      assert.match(page.body, /<a class="brand" href="\/admin">Applied Without Restart<\/a>/);
      assert.match(page.body, /name="app.root_url" data-kind="text"[^>]*value="https:\/\/news.example.org"/);
      assert.match(page.body, /href="https:\/\/news.example.org\/subscription\/form"/);
    });
  });

  describe('the bounce mailbox scan', () => {
    keepSettings(() => t, ['bounce.enabled', 'bounce.mailboxes']);
    const bounceMail = () => Buffer.from(readFileSync(new URL('../bounces/fixtures/postfix-hard.eml', import.meta.url), 'utf8')
      .replaceAll('{{CAMPAIGN_UUID}}', '0e6f2b7a-3c1d-4e5f-8a9b-0c1d2e3f4a5b').replaceAll('{{SUBSCRIBER_UUID}}', '7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09'));
    const mailbox = (port: number, password: string) => ({
      enabled: true, type: 'pop', host: '127.0.0.1', port, auth_protocol: 'userpass', return_path: 'bounces@example.org',
      username: 'bounces', password, tls_enabled: false, tls_skip_verify: false, scan_interval: '15m',
    });

    it('refuses to scan while no mailbox is enabled', async () => {
      const res = await apiAs(t, admin, 'POST', '/api/bounces/scan');
      assert.equal(res.status, 400);
      assert.match(res.body.message, /no bounce mailbox to scan/);
    });

    it('scans now, answers the result, keeps it as the last scan and the page shows it; a refused login is the result\'s error', async () => {
      const box = await startFakePop3([bounceMail(), Buffer.from('From: a@example.com\r\nSubject: hello\r\n\r\nNot a bounce\r\n')]);
      try {
        assert.equal((await t.request('PUT', '/api/settings', { 'bounce.enabled': true, 'bounce.mailboxes': [mailbox(box.port, 'secret')] })).status, 200);
        const res = await apiAs(t, admin, 'POST', '/api/bounces/scan');
        assert.equal(res.status, 200, res.text);
        assert.deepEqual({ ...res.body.data, at: undefined }, { at: undefined, mailbox: `pop://127.0.0.1:${box.port}`, ok: true, error: null, seen: 2, bounces: 1, deleted: 1 });
        assert.equal(box.messages.length, 1, 'the bounce was deleted, the other message kept');
        assert.deepEqual((await apiAs(t, admin, 'GET', '/api/bounces/scan')).body.data, res.body.data);
        const page = await getPage(t, admin, '/admin/settings');
        assert.match(page.body, /2 message\(s\) read, 1 bounce\(s\) recorded/);

        assert.equal((await t.request('PUT', '/api/settings', { 'bounce.mailboxes': [mailbox(box.port, 'wrong')] })).status, 200);
        const failed = await apiAs(t, admin, 'POST', '/api/bounces/scan');
        assert.equal(failed.status, 200);
        assert.equal(failed.body.data.ok, false);
        assert.match(failed.body.data.error, /^login refused, check the user name and password: .*invalid credentials/);
        assert.ok(!failed.text.includes('wrong'), 'the password is not in the answer');
        assert.match((await getPage(t, admin, '/admin/settings')).body, /failed: login refused/);
      } finally {
        await box.close();
      }
    });
  });
});
