// Postback messengers reach only public addresses unless security.allow_private_outbound is
// on: loopback, private, link-local and metadata addresses are refused before anything is
// sent, a name is checked on the address it resolves to when connecting, and redirects are not
// followed. Sent through the real server with POST /api/tx and a local receiver.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { refusedAddress } from '../../src/mail/outbound.ts';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { addSubscriber } from '../campaigns/fixtures.ts';

let t: TestServer;
let tpl: number;

interface Receiver {
  port: number;
  received: IncomingMessage[];
  server: Server;
}

/** A local HTTP server recording the requests it gets; `answer` decides the reply. */
async function receiver(answer: (res: import('node:http').ServerResponse) => void): Promise<Receiver> {
  const received: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    received.push(req);
    req.resume();
    req.on('end', () => answer(res));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as AddressInfo).port, received, server };
}

let ok: Receiver;
let redirect: Receiver;

before(async () => {
  t = await startTestServer();
  ok = await receiver((res) => res.writeHead(200).end('ok'));
  redirect = await receiver((res) => res.writeHead(307, { location: `http://127.0.0.1:${ok.port}/moved` }).end());
  const db = t.server.ctx.db;
  tpl = fixtures(db).template({ name: 'Hook', type: 'tx', subject: 'Hi', body: '<p>Hi</p>' });
  addSubscriber(db, 'ann@example.com', 'Ann', []);
});
after(async () => {
  await t.stop();
  for (const r of [ok, redirect]) await new Promise<void>((done) => r.server.close(() => done()));
});

const messenger = (root_url: string) => ({ messengers: [{ enabled: true, name: 'hook', root_url, username: 'u', password: 'p', max_conns: 1, timeout: '2s', max_msg_retries: 0 }] });
const send = () => t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: tpl, messenger: 'hook' });

describe('postback messengers and private addresses', () => {
  const refused = [
    { name: 'loopback IPv4', url: () => `http://127.0.0.1:${ok.port}/`, reason: /127\.0\.0\.1 is a loopback, private or link-local address \(security\.allow_private_outbound is off\)/ },
    { name: 'a name resolving to loopback (checked when connecting)', url: () => `http://localhost:${ok.port}/`, reason: /refused to connect to localhost: .*(127\.0\.0\.1|::1) is a loopback/ },
    { name: 'RFC 1918', url: () => 'http://10.1.2.3:8080/', reason: /10\.1\.2\.3 is a loopback, private/ },
    { name: 'link-local', url: () => 'http://169.254.10.1/', reason: /169\.254\.10\.1 is a loopback, private or link-local/ },
    { name: 'cloud metadata', url: () => 'http://169.254.169.254/latest/meta-data/', reason: /169\.254\.169\.254 is a metadata/ },
    { name: 'IPv6 loopback', url: () => `http://[::1]:${ok.port}/`, reason: /::1 is a loopback/ },
    { name: 'IPv4-mapped IPv6 loopback', url: () => `http://[::ffff:127.0.0.1]:${ok.port}/`, reason: /::ffff:7f00:1 is a loopback/ },
    { name: 'unspecified', url: () => `http://0.0.0.0:${ok.port}/`, reason: /0\.0\.0\.0 is a metadata, unspecified/ },
  ];
  for (const s of refused) {
    it(`refuses ${s.name}, sending nothing`, () => withSettings(t, messenger(s.url()), async () => {
      const before = ok.received.length;
      const logged = t.server.ctx.log.recent().length;
      const res = await send();
      assert.equal(res.status, 502, res.text);
      // The answer names no address (a messenger's refusal is logged, not returned); the log says why.
      assert.match(res.body.message, /the messenger refused the message/);
      const log = t.server.ctx.log.recent().slice(logged).join('\n');
      assert.match(log, /postback hook: refused to connect/);
      assert.match(log, s.reason);
      assert.equal(ok.received.length, before);
    }));
  }

  it('with security.allow_private_outbound on, posts to a local receiver, by address and by name', () => withSettings(t, { 'security.allow_private_outbound': true }, async () => {
    for (const url of [`http://127.0.0.1:${ok.port}/hook`, `http://localhost:${ok.port}/hook`]) {
      const before = ok.received.length;
      await withSettings(t, messenger(url), async () => {
        const res = await send();
        assert.equal(res.status, 200, `${url}: ${res.text}`);
      });
      assert.equal(ok.received.length, before + 1, url);
      assert.equal(ok.received.at(-1)!.headers.authorization, `Basic ${Buffer.from('u:p').toString('base64')}`);
    }
  }));

  it('metadata addresses stay refused with the setting on', () => withSettings(t, { 'security.allow_private_outbound': true, ...messenger('http://169.254.169.254/') }, async () => {
    const logged = t.server.ctx.log.recent().length;
    const res = await send();
    assert.equal(res.status, 502);
    assert.match(t.server.ctx.log.recent().slice(logged).join('\n'), /169\.254\.169\.254 is a metadata/);
  }));

  it('does not follow a redirect (here to a private address)', () => withSettings(t, { 'security.allow_private_outbound': true, ...messenger(`http://127.0.0.1:${redirect.port}/`) }, async () => {
    const before = ok.received.length;
    const logged = t.server.ctx.log.recent().length;
    const res = await send();
    assert.equal(res.status, 502);
    assert.match(t.server.ctx.log.recent().slice(logged).join('\n'), /postback hook: HTTP 307 \(redirects are not followed\)/);
    assert.equal(redirect.received.length, 1);
    assert.equal(ok.received.length, before, 'the redirect target got nothing');
  }));

  it('classifies addresses', () => {
    for (const a of ['8.8.8.8', '2001:4860:4860::8888', '172.32.0.1', '192.169.0.1']) assert.equal(refusedAddress(a, false), null, a);
    for (const a of ['172.16.0.1', '192.168.1.1', '100.64.0.1', 'fd12::1', 'fe80::1', '::ffff:10.0.0.1']) {
      assert.match(refusedAddress(a, false) ?? '', /loopback, private or link-local/, a);
      assert.equal(refusedAddress(a, true), null, a);
    }
    for (const a of ['fd00:ec2::254', '::', '224.0.0.1', '::ffff:169.254.169.254']) assert.match(refusedAddress(a, true) ?? '', /metadata, unspecified or reserved/, a);
  });
});
