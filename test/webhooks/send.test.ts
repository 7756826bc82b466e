// The webhook sender against real receivers on the loopback: what a POST returns, the addresses
// refused (each class, with security.webhooks_allow_private off and on), a name resolved once at
// each send and connected to the address checked, no redirect followed, the timeout, the 64 KB
// cap on the answer, http(s) only, keep-alive, and TLS verified for the name.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { refusedAddress, type Resolver } from '../../src/mail/outbound.ts';
import { MAX_RESPONSE_BODY, WebhookSender, type SenderOptions } from '../../src/webhooks/send.ts';

const SETTING = 'security.webhooks_allow_private';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

interface Receiver {
  port: number;
  received: Received[];
  /** Connections accepted (keep-alive reuses one). */
  connections: number;
  server: Server;
}

/** A local HTTP server on `host` recording each request with its body; `answer` replies. */
async function receiver(answer: (req: IncomingMessage, res: ServerResponse) => void, host = '127.0.0.1', port = 0): Promise<Receiver> {
  const r: Receiver = { port: 0, received: [], connections: 0, server: createServer() };
  r.server.on('connection', () => r.connections++);
  r.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      r.received.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks).toString() });
      answer(req, res);
    });
  });
  await new Promise<void>((done) => r.server.listen(port, host, done));
  r.port = (r.server.address() as AddressInfo).port;
  return r;
}

const stop = (server: Server) => new Promise<void>((done) => {
  server.closeAllConnections();
  server.close(() => done());
});

/** A resolver giving each answer in turn (the last one after), counting its calls. */
function answers(...list: string[][]): Resolver & { calls: number } {
  const resolve = Object.assign(async () => list[Math.min(resolve.calls++, list.length - 1)], { calls: 0 });
  return resolve;
}

const senders: WebhookSender[] = [];
/** A sender closed after the tests; private addresses allowed unless said. */
function sender(o: Partial<SenderOptions> = {}): WebhookSender {
  const s = new WebhookSender({ allowPrivate: () => true, ...o });
  senders.push(s);
  return s;
}

let ok: Receiver;
before(async () => {
  ok = await receiver((_req, res) => res.writeHead(200, { 'content-type': 'text/plain' }).end('thanks'));
});
after(async () => {
  for (const s of senders) s.close();
  await stop(ok.server);
});

describe('WebhookSender: a POST to a receiver on the loopback (security.webhooks_allow_private on)', () => {
  it('returns the status, the body and the time taken, and sends the headers and body as given', async () => {
    const headers = { 'content-type': 'application/json', 'webhook-id': 'msg_1', 'webhook-signature': 'v1,c2lnbmF0dXJl' };
    const res = await sender().post(`http://127.0.0.1:${ok.port}/hooks?x=1`, headers, '{"type":"webhook.test"}');
    assert.deepEqual({ ...res, ms: 0 }, { status: 200, ms: 0, body: 'thanks', error: '' });
    assert.ok(Number.isInteger(res.ms) && res.ms >= 0 && res.ms < 5000, String(res.ms));
    const got = ok.received.at(-1)!;
    assert.deepEqual([got.method, got.url, got.body], ['POST', '/hooks?x=1', '{"type":"webhook.test"}']);
    assert.equal(got.headers.host, `127.0.0.1:${ok.port}`);
    assert.equal(got.headers['content-length'], '23');
    assert.equal(got.headers['webhook-signature'], 'v1,c2lnbmF0dXJl');
  });

  it('sends by name (Host the name), a non-2xx answer being a result, not an error', async () => {
    const failing = await receiver((_req, res) => res.writeHead(500).end('down'));
    try {
      const res = await sender().post(`http://localhost:${failing.port}/`, {}, '{}');
      assert.deepEqual({ ...res, ms: 0 }, { status: 500, ms: 0, body: 'down', error: '' });
      assert.equal(failing.received[0].headers.host, `localhost:${failing.port}`);
    } finally {
      await stop(failing.server);
    }
  });

  it('reuses a keep-alive connection per origin', async () => {
    const own = await receiver((_req, res) => res.writeHead(204).end());
    try {
      const s = sender();
      for (let i = 0; i < 5; i++) assert.equal((await s.post(`http://127.0.0.1:${own.port}/${i}`, {}, '{}')).status, 204);
      assert.equal(own.received.length, 5);
      assert.equal(own.connections, 1);
    } finally {
      await stop(own.server);
    }
  });
});

describe('WebhookSender: refused addresses', () => {
  // `always`: refused with the setting on too (metadata, unspecified, multicast).
  const table = [
    { address: '127.0.0.1', kind: 'loopback', always: false },
    { address: '127.1.2.3', kind: 'loopback', always: false },
    { address: '::1', kind: 'IPv6 loopback', always: false },
    { address: '::ffff:127.0.0.1', kind: 'IPv4-mapped loopback', always: false },
    { address: '10.0.0.1', kind: 'private (RFC 1918)', always: false },
    { address: '172.16.5.4', kind: 'private (RFC 1918)', always: false },
    { address: '172.31.255.255', kind: 'private (RFC 1918)', always: false },
    { address: '192.168.1.1', kind: 'private (RFC 1918)', always: false },
    { address: '::ffff:10.0.0.1', kind: 'IPv4-mapped private', always: false },
    { address: '64:ff9b::10.0.0.1', kind: 'NAT64 of a private address', always: false },
    { address: 'fd12:3456::1', kind: 'IPv6 unique local', always: false },
    { address: '169.254.10.1', kind: 'link-local', always: false },
    { address: 'fe80::1', kind: 'IPv6 link-local', always: false },
    { address: '100.64.0.1', kind: 'CGNAT', always: false },
    { address: '100.127.255.254', kind: 'CGNAT', always: false },
    { address: '169.254.169.254', kind: 'cloud metadata', always: true },
    { address: 'fd00:ec2::254', kind: 'cloud metadata (IPv6)', always: true },
    { address: '100.100.100.200', kind: 'cloud metadata (Alibaba)', always: true },
    { address: '::ffff:169.254.169.254', kind: 'IPv4-mapped metadata', always: true },
    { address: '64:ff9b::169.254.169.254', kind: 'NAT64 of metadata', always: true },
    { address: '0.0.0.0', kind: 'unspecified', always: true },
    { address: '::', kind: 'IPv6 unspecified', always: true },
    { address: '224.0.0.1', kind: 'multicast', always: true },
    { address: 'ff02::1', kind: 'IPv6 multicast', always: true },
    { address: '255.255.255.255', kind: 'broadcast (reserved)', always: true },
  ];
  const literal = (address: string, port: number) => `http://${address.includes(':') ? `[${address}]` : address}:${port}/`;
  const PRIVATE = new RegExp(`is a loopback, private or link-local address \\(${SETTING.replaceAll('.', '\\.')} is off\\)$`);
  const ALWAYS = /is a metadata, unspecified or reserved address$/;

  for (const row of table) {
    it(`${row.address} (${row.kind}): refused without the setting, by address and as one of a name's addresses, sending nothing`, async () => {
      const before = ok.received.length;
      const off = sender({ allowPrivate: () => false, resolve: answers(['192.0.2.10', row.address]) });
      for (const url of [literal(row.address, ok.port), `http://hooks.example:${ok.port}/`]) {
        const res = await off.post(url, {}, '{}');
        assert.equal(res.status, null, url);
        assert.match(res.error, /^refused to connect to /, url);
        assert.match(res.error, row.always ? ALWAYS : PRIVATE, url);
      }
      assert.equal(ok.received.length, before);
    });
  }

  it('with the setting on, a receiver on the loopback is reached (by address, IPv6 and IPv4-mapped too)', async () => {
    const v6 = await receiver((_req, res) => res.writeHead(200).end('v6'), '::1');
    try {
      for (const url of [literal('127.0.0.1', ok.port), literal('::ffff:127.0.0.1', ok.port), literal('::1', v6.port)]) {
        assert.equal((await sender().post(url, {}, '{}')).status, 200, url);
      }
      assert.equal(v6.received.length, 1);
    } finally {
      await stop(v6.server);
    }
  });

  it('with the setting on, the other private addresses are allowed (no receiver can listen there: the guard is asked)', () => {
    for (const row of table.filter((r) => !r.always)) assert.equal(refusedAddress(row.address, true, SETTING), null, row.address);
  });

  it('with the setting on, metadata, unspecified and multicast addresses stay refused', async () => {
    for (const row of table.filter((r) => r.always)) {
      const res = await sender().post(literal(row.address, ok.port), {}, '{}');
      assert.equal(res.status, null, row.address);
      assert.match(res.error, ALWAYS, row.address);
    }
  });

  it('turning the setting off refuses the next send, though a connection to the receiver is open', async () => {
    let allow = true;
    const s = sender({ allowPrivate: () => allow });
    assert.equal((await s.post(literal('127.0.0.1', ok.port), {}, '{}')).status, 200);
    allow = false;
    const before = ok.received.length;
    assert.match((await s.post(literal('127.0.0.1', ok.port), {}, '{}')).error, PRIVATE);
    assert.equal(ok.received.length, before);
  });

  it('refuses other schemes and what is not a URL, naming no credentials', async () => {
    for (const url of ['ftp://127.0.0.1/', 'file:///etc/passwd', 'gopher://127.0.0.1:70/', 'ws://127.0.0.1/', 'data:text/plain,x', 'javascript:alert(1)']) {
      const res = await sender().post(url, {}, '{}');
      assert.equal(res.status, null, url);
      assert.match(res.error, /^only http and https URLs are sent to, not [a-z]+:$/, url);
    }
    const res = await sender().post('http://user:s3cret@', {}, '{}');
    assert.deepEqual({ ...res, ms: 0 }, { status: null, ms: 0, body: '', error: 'the webhook URL is not a valid URL' });
  });

  it('names no secret of the URL or the headers in its errors', async () => {
    const closed = await receiver(() => undefined);
    await stop(closed.server); // a port nothing listens on
    const headers = { 'webhook-signature': 'v1,U0VDUkVUU0lHTkFUVVJF' };
    const results = [
      await sender({ allowPrivate: () => false }).post(`http://hook:pa55word@127.0.0.1:${ok.port}/`, headers, '{}'),
      await sender().post(`http://hook:pa55word@127.0.0.1:${closed.port}/`, headers, '{}'),
    ];
    assert.match(results[0].error, PRIVATE);
    assert.match(results[1].error, /ECONNREFUSED/);
    for (const r of results) assert.doesNotMatch(r.error, /pa55word|U0VDUkVU/);
  });
});

describe('WebhookSender: a name is resolved once per send and connected to the address checked', () => {
  let first: Receiver;
  let second: Receiver;
  before(async () => {
    first = await receiver((_req, res) => res.writeHead(200).end('first'));
    second = await receiver((_req, res) => res.writeHead(200).end('second'), '127.0.0.2', first.port);
  });
  after(async () => {
    await stop(first.server);
    await stop(second.server);
  });

  it('goes where the check\'s answer said, though a second lookup would answer otherwise', async () => {
    const resolve = answers(['127.0.0.1'], ['127.0.0.2']);
    const s = sender({ resolve });
    const res = await s.post(`http://hooks.example:${first.port}/`, {}, '{}');
    assert.equal(res.body, 'first');
    assert.equal(resolve.calls, 1);
    assert.equal(second.received.length, 0);
    assert.equal(first.received[0].headers.host, `hooks.example:${first.port}`);
    // The next send resolves again, and goes to its own answer.
    assert.equal((await s.post(`http://hooks.example:${first.port}/`, {}, '{}')).body, 'second');
    assert.equal(resolve.calls, 2);
  });

  it('a name answering a public address at the check and the loopback after never reaches the loopback', async () => {
    const before = first.received.length;
    // 192.0.2.1 (TEST-NET-1) is public to the guard and answers nothing.
    const resolve = answers(['192.0.2.1'], ['127.0.0.1']);
    const res = await sender({ allowPrivate: () => false, resolve, timeoutMs: 300 }).post(`http://rebind.example:${first.port}/`, {}, '{}');
    assert.equal(res.status, null);
    assert.doesNotMatch(res.error, /refused to connect/);
    assert.equal(resolve.calls, 1);
    assert.equal(first.received.length, before);
  });

  it('HTTPS: connected to the address checked, with SNI and the certificate checked for the name', async () => {
    const fixture = (name: string) => readFileSync(new URL(`../bounces/fixtures/${name}`, import.meta.url));
    const names: string[] = [];
    const tls = createTlsServer({
      key: fixture('sns-test-key.pem'),
      cert: fixture('sns-test-cert.pem'),
      SNICallback: (name, cb) => {
        names.push(name);
        cb(null, undefined);
      },
    }, (_req, res) => res.writeHead(200).end());
    await new Promise<void>((done) => tls.listen(0, '127.0.0.1', done));
    try {
      const res = await sender({ resolve: answers(['127.0.0.1']) }).post(`https://hooks.example:${(tls.address() as AddressInfo).port}/`, {}, '{}');
      assert.equal(res.status, null);
      assert.match(res.error, /self[- ]signed certificate/); // verified, and refused: not a CA we trust
      assert.deepEqual(names, ['hooks.example']);
    } finally {
      await new Promise<void>((done) => tls.close(() => done()));
    }
  });
});

describe('WebhookSender: redirects, timeout, the size of the answer', () => {
  it('does not follow a redirect: a 3xx is a failure with its status', async () => {
    const redirect = await receiver((_req, res) => res.writeHead(307, { location: `http://127.0.0.1:${ok.port}/moved` }).end());
    try {
      const before = ok.received.length;
      const res = await sender().post(`http://127.0.0.1:${redirect.port}/`, {}, '{}');
      assert.deepEqual({ ...res, ms: 0 }, { status: 307, ms: 0, body: '', error: 'HTTP 307: redirects are not followed' });
      assert.equal(ok.received.length, before, 'the redirect target got nothing');
    } finally {
      await stop(redirect.server);
    }
  });

  it('times out, whether the receiver is silent, stops mid-body or the name never resolves', async () => {
    const silent = await receiver(() => undefined);
    const stalled = await receiver((_req, res) => res.writeHead(200).write('partial'));
    try {
      const s = sender({ timeoutMs: 200, resolve: () => new Promise(() => undefined) });
      for (const url of [`http://127.0.0.1:${silent.port}/`, `http://127.0.0.1:${stalled.port}/`, `http://never.example:${ok.port}/`]) {
        const res = await s.post(url, {}, '{}');
        assert.deepEqual({ ...res, ms: 0 }, { status: null, ms: 0, body: '', error: 'timed out after 200 ms' }, url);
        assert.ok(res.ms >= 190 && res.ms < 2000, `${url}: ${res.ms} ms`);
      }
    } finally {
      await stop(silent.server);
      await stop(stalled.server);
    }
  });

  it('keeps the first 64 KB of the answer and drops the connection', async () => {
    const chunk = 'abcdefghijklmnop'.repeat(4096); // 64 KB
    let finished: boolean | null = null;
    const big = await receiver((_req, res) => {
      res.on('close', () => (finished = res.writableFinished));
      res.writeHead(200);
      // 16 MB: more than the sockets' buffers, so that the receiver sees the drop while writing.
      const write = (left: number) => {
        if (left === 0) return res.end();
        if (res.write(chunk)) write(left - 1);
        else res.once('drain', () => write(left - 1));
      };
      write(256);
    });
    try {
      const res = await sender().post(`http://127.0.0.1:${big.port}/`, {}, '{}');
      assert.equal(res.status, 200);
      assert.equal(res.body.length, MAX_RESPONSE_BODY);
      assert.equal(res.body, chunk);
      while (finished === null) await new Promise((r) => setTimeout(r, 10));
      assert.equal(finished, false, 'the receiver could not send it all');
    } finally {
      await stop(big.server);
    }
  });
});
