// What settings:manage does not reach (docs/security.md): custom JavaScript, saved passwords
// sent to a changed host, and the SMTP test as a probe of internal addresses.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { adminSession, getPage, userWithRole } from '../helpers/admin.ts';
import { roleCaller, useFreshServer, withSettings, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

const settingsOf = async (t: TestServer) => (await t.request('GET', '/api/settings')).body.data;

describe('custom JavaScript: a Super Admin\'s only', () => {
  const server = useFreshServer();

  it('refuses a settings:manage role changing the admin or public custom JavaScript, with PUT /api/settings or PUT /api/settings/{key}, changing nothing', async () => {
    const t = server();
    const manager = roleCaller(t, ['settings:manage', 'settings:get']);
    for (const key of ['appearance.admin.custom_js', 'appearance.public.custom_js']) {
      const all = await t.request('PUT', '/api/settings', { 'app.site_name': 'Changed?', [key]: 'fetch("/api/users")' }, { auth: manager });
      assert.equal(all.status, 403, all.text);
      assert.equal(all.body.message, `permission denied: only a Super Admin may change "${key}" (custom JavaScript runs in the browser of everyone who opens those pages)`);
      const one = await t.request('PUT', `/api/settings/${key}`, 'alert(1)', { auth: manager });
      assert.equal(one.status, 403, one.text);
      assert.equal(t.server.ctx.settings.str(key), '');
    }
    assert.equal(t.server.ctx.settings.str('app.site_name'), 'Mailing list');
  });

  it('lets it save everything else, custom CSS included, with the custom JavaScript sent back unchanged', async () => {
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { 'appearance.public.custom_js': 'console.log(1)' })).status, 200);
    const manager = roleCaller(t, ['settings:manage', 'settings:get']);
    const s = await settingsOf(t);
    const res = await t.request('PUT', '/api/settings', { ...s, 'app.site_name': 'Managed', 'appearance.admin.custom_css': 'body { color: teal }' }, { auth: manager });
    assert.equal(res.status, 200, res.text);
    assert.equal(t.server.ctx.settings.str('app.site_name'), 'Managed');
    assert.equal(t.server.ctx.settings.str('appearance.admin.custom_css'), 'body { color: teal }');
    assert.equal(t.server.ctx.settings.str('appearance.public.custom_js'), 'console.log(1)');
    // As a browser's text box sends it back (\n line endings, no leading newline): unchanged.
    assert.equal((await t.request('PUT', '/api/settings/appearance.admin.custom_js', '\r\nconsole.log(1);\r\nconsole.log(2);')).status, 200);
    const echoed = await t.request('PUT', '/api/settings', { 'appearance.admin.custom_js': 'console.log(1);\nconsole.log(2);', 'app.site_name': 'Echoed' }, { auth: manager });
    assert.equal(echoed.status, 200, echoed.text);
    assert.equal(t.server.ctx.settings.str('appearance.admin.custom_js'), '\r\nconsole.log(1);\r\nconsole.log(2);');
    // The Super Admin may change it.
    assert.equal((await t.request('PUT', '/api/settings/appearance.admin.custom_js', 'console.log(2)')).status, 200);
    assert.equal(t.server.ctx.settings.str('appearance.admin.custom_js'), 'console.log(2)');
  });

  it('shows the custom JavaScript fields read-only, saying why, to a settings:manage role; editable to a Super Admin', async () => {
    const t = server();
    const u = await userWithRole(t, ['settings:manage', 'settings:get']);
    const page = (await getPage(t, await adminSession(t, u.username, u.password), '/admin/settings')).body;
    for (const key of ['appearance.admin.custom_js', 'appearance.public.custom_js']) {
      assert.match(page, new RegExp(`<textarea[^>]*name="${key.replace(/\./g, '\\.')}"[^>]*disabled`), key);
    }
    assert.doesNotMatch(page, /<textarea[^>]*name="appearance\.admin\.custom_css"[^>]*disabled/);
    assert.match(page, /Only a Super Admin may change custom JavaScript/);
    const admin = (await getPage(t, await adminSession(t), '/admin/settings')).body;
    assert.doesNotMatch(admin, /<textarea[^>]*name="appearance\.admin\.custom_js"[^>]*disabled/);
    assert.doesNotMatch(admin, /Only a Super Admin may change custom JavaScript/);
  });
});

describe('PUT /api/settings: a saved password follows no changed host', () => {
  const server = useFreshServer();
  const stored = (t: TestServer, key: string) => t.server.ctx.settings.get<Record<string, unknown>[]>(key)[0];

  const cases: { key: string; block: Record<string, unknown>; changes: Record<string, unknown>[] }[] = [
    {
      key: 'smtp',
      block: { enabled: true, name: 'relay', host: 'smtp.example.com', port: 587, auth_protocol: 'login', username: 'mailer', password: 'smtp-secret', tls_type: 'STARTTLS' },
      changes: [{ host: 'smtp.attacker.example' }, { port: 2525 }, { username: 'someone' }, { tls_type: 'none' }, { tls_skip_verify: true }],
    },
    {
      key: 'bounce.mailboxes',
      block: { enabled: true, type: 'pop', host: 'pop.example.com', port: 995, auth_protocol: 'userpass', username: 'bounces', password: 'pop-secret', tls_enabled: true, scan_interval: '15m' },
      changes: [{ host: 'pop.attacker.example' }, { port: 110 }, { username: 'someone' }, { tls_enabled: false }],
    },
    {
      key: 'messengers',
      block: { enabled: true, name: 'sms', root_url: 'https://sms.example.com/send', username: 'api', password: 'postback-secret', max_conns: 1, timeout: '5s', max_msg_retries: 1 },
      changes: [{ root_url: 'https://attacker.example/collect' }, { root_url: 'http://sms.example.com/send' }, { username: 'someone' }],
    },
  ];

  for (const c of cases) {
    it(`${c.key}: keeps a masked or empty password only while host, port, user name and TLS (the URL for a messenger) are unchanged; else 400 naming the block, changing nothing`, async () => {
      const t = server();
      const set = await t.request('PUT', '/api/settings', { [c.key]: [c.block] });
      assert.equal(set.status, 200, set.text);
      const saved = stored(t, c.key);
      const masked = (await settingsOf(t))[c.key][0];
      assert.match(masked.password, /^•+$/);
      // Unchanged, and with another field changed: kept.
      const same = await t.request('PUT', '/api/settings', { [c.key]: [{ ...masked, enabled: false }] });
      assert.equal(same.status, 200, same.text);
      assert.equal(stored(t, c.key).password, c.block.password);
      for (const change of c.changes) {
        for (const password of [masked.password, '']) {
          const res = await t.request('PUT', '/api/settings', { 'app.site_name': 'Changed?', [c.key]: [{ ...masked, ...change, password }] });
          assert.equal(res.status, 400, `${JSON.stringify(change)}: ${res.text}`);
          assert.match(res.body.message, new RegExp(`^invalid setting "${c.key.replace('.', '\\.')}\\[0\\]\\.password": the .* of ${c.key.replace('.', '\\.')}\\[0\\].* changed: type the password again`));
          assert.deepEqual(stored(t, c.key), { ...saved, enabled: false });
          assert.equal(t.server.ctx.settings.str('app.site_name'), 'Mailing list');
        }
      }
      // Typed again, it goes with the change.
      const retyped = await t.request('PUT', '/api/settings', { [c.key]: [{ ...masked, ...c.changes[0], password: 'new-secret' }] });
      assert.equal(retyped.status, 200, retyped.text);
      assert.equal(stored(t, c.key).password, 'new-secret');
    });
  }

  it('drops the saved password, rather than refusing, when the changed block no longer authenticates', async () => {
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { smtp: [cases[0].block] })).status, 200);
    const masked = (await settingsOf(t)).smtp[0];
    const res = await t.request('PUT', '/api/settings', { smtp: [{ ...masked, host: 'localhost', port: 25, auth_protocol: 'none' }] });
    assert.equal(res.status, 200, res.text);
    assert.equal(stored(t, 'smtp').password, '');
  });

  it('names the block in the refusal of the admin page\'s way of saving: every setting sent back, secrets empty', async () => {
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { smtp: [cases[0].block] })).status, 200);
    const all = await settingsOf(t);
    all.smtp[0] = { ...all.smtp[0], password: '', host: 'elsewhere.example' };
    const res = await t.request('PUT', '/api/settings', all);
    assert.equal(res.status, 400);
    assert.match(res.body.message, /"smtp\[0\]\.password": the host, port, user name or TLS settings of smtp\[0\] \("email-relay"\) changed: type the password again/);
  });
});

describe('POST /api/settings/smtp/test: not a scanner of the server\'s own network', () => {
  const server = useFreshServer();
  let sink: SmtpSink;
  let others: { port: number; close(): Promise<void> }[] = [];
  let closedPort = 0;
  before(async () => {
    sink = await startSmtpSink();
    // A port that answers with another protocol's banner, one that accepts and says nothing, one closed.
    others = await Promise.all([
      listen((socket) => socket.end('HTTP/1.1 400 Bad Request\r\nServer: internal-admin\r\n\r\n')),
      listen(() => {}),
    ]);
    const closed = await listen(() => {});
    closedPort = closed.port;
    await closed.close();
  });
  after(async () => {
    await sink.close();
    for (const o of others) await o.close();
  });

  const typed = (t: TestServer, creds: string, over: Record<string, unknown>) =>
    t.request('POST', '/api/settings/smtp/test', { ...sink.settingsBlock({ wait_timeout: '1s', ...over }), email: 'ops@example.com' }, { auth: creds });

  it('refuses typed loopback, private, link-local and metadata targets to a settings:manage role, one answer for every port, and connects to none', async () => {
    const t = server();
    const manager = roleCaller(t, ['settings:manage']);
    const loopback = 'SMTP test failed: refused to connect to 127.0.0.1: 127.0.0.1 is a loopback, private or link-local address (security.allow_private_outbound is off)';
    for (const port of [sink.port, others[0].port, others[1].port, closedPort]) {
      const res = await typed(t, manager, { port });
      assert.equal(res.status, 400, res.text);
      assert.equal(res.body.message, loopback);
    }
    assert.equal(sink.messages.length, 0, 'the sink on loopback got nothing');
    for (const host of ['10.1.2.3', '192.168.0.10', '172.16.5.5', '169.254.1.1', '[::1]']) {
      const res = await typed(t, manager, { host, port: 25 });
      assert.equal(res.status, 400, host);
      assert.match(res.body.message, /^SMTP test failed: refused to connect to .* is a loopback, private or link-local address \(security\.allow_private_outbound is off\)$/);
    }
    const named = await typed(t, manager, { host: 'localhost', port: 25 });
    assert.match(named.body.message, /^SMTP test failed: refused to connect to localhost: .* is a loopback, private or link-local address/);
    // Metadata stays refused with the setting on.
    await withSettings(t, { 'security.allow_private_outbound': true }, async () => {
      const metadata = await typed(t, manager, { host: '169.254.169.254', port: 25 });
      assert.equal(metadata.body.message, 'SMTP test failed: refused to connect to 169.254.169.254: 169.254.169.254 is a metadata, unspecified or reserved address');
    });
  });

  it('with private addresses allowed, gives one answer, no sooner than wait_timeout, for a closed port, a silent one and another service; a real relay still works', async () => {
    const t = server();
    await withSettings(t, { 'security.allow_private_outbound': true }, async () => {
      for (const port of [closedPort, others[1].port, others[0].port]) {
        const started = Date.now();
        const res = await typed(t, t.token, { port });
        assert.equal(res.status, 400);
        assert.equal(res.body.message, `SMTP test failed: could not talk SMTP with 127.0.0.1:${port} (check the host, the port and the TLS setting)`);
        assert.ok(Date.now() - started >= 1000, `port ${port} answered before wait_timeout`);
      }
      const ok = await typed(t, t.token, {});
      assert.equal(ok.status, 200, ok.text);
      await sink.waitFor(1);
    });
  });

  it('tests a saved server (its host and port) whatever its address, as the relay on localhost most installs send through', async () => {
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock()] })).status, 200);
    const before = sink.messages.length;
    const res = await typed(t, roleCaller(t, ['settings:manage']), {});
    assert.equal(res.status, 200, res.text);
    await sink.waitFor(before + 1);
  });
});

/** A TCP server on loopback calling `onConnection` for each connection. */
async function listen(onConnection: (socket: Socket) => void): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const srv = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((r) => srv.listen(0, '127.0.0.1', r));
  return {
    port: (srv.address() as AddressInfo).port,
    close: () => new Promise<void>((r) => {
      for (const s of sockets) s.destroy();
      srv.close(() => r());
    }),
  };
}
