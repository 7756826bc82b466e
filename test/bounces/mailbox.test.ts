// Bounce mailboxes: DSN / ARF parsing of real-world shaped reports, and scanning over POP3 and
// IMAP against small fake servers: bounces are recorded and deleted, other mail stays.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { parseBounceMail } from '../../src/bounces/dsn.ts';
import { MailboxScheduler, type SchedulerClock } from '../../src/bounces/mailbox.ts';
import { Pop3Client } from '../../src/bounces/pop3.ts';
import { Logger } from '../../src/log.ts';
import { keepSettings, startTestServer, type TestServer } from '../helpers/server.ts';
import { startFakeImap, startFakePop3, type FakeMailbox } from './fake-servers.ts';
import { bounceCount } from './seed.ts';
import { fixtures, type Seeded } from '../helpers/fixtures.ts';

const CAMPAIGN_UUID = '0e6f2b7a-3c1d-4e5f-8a9b-0c1d2e3f4a5b';
const SUBSCRIBER_UUID = '7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09';
const OTHER_SUBSCRIBER_UUID = '11111111-2222-4333-8444-555555555555';

function fixture(name: string, subscriberUuid = SUBSCRIBER_UUID): Buffer {
  const text = readFileSync(new URL(`./fixtures/${name}.eml`, import.meta.url), 'utf8');
  return Buffer.from(text.replaceAll('{{CAMPAIGN_UUID}}', CAMPAIGN_UUID).replaceAll('{{SUBSCRIBER_UUID}}', subscriberUuid));
}

describe('parsing bounce mails', () => {
  const cases = [
    { file: 'postfix-hard', want: { email: 'old.address@example.net', subscriberUuid: SUBSCRIBER_UUID, campaignUuid: CAMPAIGN_UUID, type: 'hard' }, meta: { status: '5.1.1', action: 'failed' } },
    { file: 'exchange-headers-only', want: { email: 'jane.roe@contoso.example', subscriberUuid: '', campaignUuid: CAMPAIGN_UUID, type: 'hard' }, meta: { status: '5.1.10' } },
    { file: 'delayed-soft', want: { email: 'slow.box@example.com', subscriberUuid: SUBSCRIBER_UUID, campaignUuid: CAMPAIGN_UUID, type: 'soft' }, meta: { status: '4.2.2', action: 'delayed' } },
    { file: 'arf-complaint', want: { email: 'angry.reader@hotmail.example', subscriberUuid: '', campaignUuid: CAMPAIGN_UUID, type: 'complaint' }, meta: { feedback_type: 'abuse' } },
  ];
  for (const c of cases) {
    it(`${c.file}: ${c.want.type} bounce of ${c.want.email}`, async () => {
      const got = await parseBounceMail(fixture(c.file));
      assert.ok(got);
      const { meta, ...rest } = got;
      assert.deepEqual(rest, c.want);
      for (const [k, v] of Object.entries(c.meta)) assert.equal(meta[k], v, k);
      assert.equal(meta.recipient, c.want.email);
    });
  }

  it('an ordinary reply is not a bounce', async () => {
    assert.equal(await parseBounceMail(fixture('not-a-bounce')), null);
  });

  it('a DSN reporting a successful delivery is not a bounce', async () => {
    const delivered = fixture('postfix-hard').toString().replace('Action: failed', 'Action: delivered').replace('Status: 5.1.1', 'Status: 2.0.0');
    assert.equal(await parseBounceMail(Buffer.from(delivered)), null);
  });

  it('a bounce without a report part is classified by its status code or wording', async () => {
    const plain = (body: string) => Buffer.from(`From: MAILER-DAEMON@mx.example\r\nTo: bounces@news.example.org\r\nSubject: failure notice\r\nX-Failed-Recipients: gone@example.org\r\n\r\n${body}\r\n`);
    assert.equal((await parseBounceMail(plain('Remote said: 452 4.2.2 mailbox full')))?.type, 'soft');
    assert.equal((await parseBounceMail(plain('Sorry, no such user here')))?.type, 'hard');
    assert.equal((await parseBounceMail(plain('Something odd happened')))?.type, 'soft');
    assert.equal((await parseBounceMail(plain('x')))?.email, 'gone@example.org');
  });
});

describe('POP3 client', () => {
  it('undoes dot-stuffing and falls back to LIST numbering only when needed', async () => {
    const msg = Buffer.from('Subject: dots\r\n\r\n.starts with a dot\r\n..two dots\r\nend\r\n');
    const server = await startFakePop3([msg]);
    try {
      const pop = await Pop3Client.connect({ host: '127.0.0.1', port: server.port, tls: false, timeoutMs: 5000 });
      await pop.login('bounces', 'secret');
      assert.deepEqual(await pop.stat(), { count: 1, size: msg.length });
      assert.deepEqual(await pop.list(), [{ n: 1, id: 'uid-1' }]);
      assert.deepEqual(await pop.retr(1), msg);
      await pop.quit();
    } finally {
      await server.close();
    }
  });

  it('reports a refused login', async () => {
    const server = await startFakePop3([]);
    try {
      const pop = await Pop3Client.connect({ host: '127.0.0.1', port: server.port, tls: false, timeoutMs: 5000 });
      await assert.rejects(pop.login('bounces', 'wrong'), /PASS failed: \[AUTH\] invalid credentials/);
      pop.close();
    } finally {
      await server.close();
    }
  });
});

/** A TCP server that accepts connections and says nothing until told to hang up. */
async function startSilentServer(): Promise<{ port: number; connected: Promise<void>; hangUp(): void; close(): Promise<void> }> {
  const sockets: Socket[] = [];
  let onConnect = () => undefined as void;
  const connected = new Promise<void>((resolve) => (onConnect = resolve));
  const server = createServer((socket) => {
    sockets.push(socket);
    socket.on('error', () => undefined);
    onConnect();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connected,
    hangUp: () => sockets.forEach((s) => s.destroy()),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe('POP3 client time limits', () => {
  it('gives up on a server that never greets', async () => {
    const silent = await startSilentServer();
    try {
      await assert.rejects(Pop3Client.connect({ host: '127.0.0.1', port: silent.port, tls: false, timeoutMs: 100 }), /did not answer in time/);
    } finally {
      silent.hangUp();
      await silent.close();
    }
  });
});

describe('scanning bounce mailboxes', () => {
  let t: TestServer;
  let subs: Record<string, Seeded>;
  let camp: Seeded;

  before(async () => {
    t = await startTestServer();
    const f = fixtures(t.server.ctx.db);
    // The uuids the sample bounce messages carry.
    camp = f.campaign({ name: 'March digest #1', uuid: CAMPAIGN_UUID });
    subs = {};
    for (const email of ['old.address@example.net', 'jane.roe@contoso.example', 'slow.box@example.com', 'angry.reader@hotmail.example']) {
      subs[email] = f.subscriber({ email, uuid: email === 'old.address@example.net' ? SUBSCRIBER_UUID : undefined });
    }
    const res = await t.request('PUT', '/api/settings', {
      'bounce.enabled': true,
      'bounce.actions': { soft: { count: 5, action: 'none' }, hard: { count: 5, action: 'none' }, complaint: { count: 5, action: 'none' } },
    });
    assert.equal(res.status, 200, res.text);
  });
  after(() => t.stop());
  // Each test points the server at its own fake mailbox: put the settings back after each.
  keepSettings(() => t, ['bounce.mailboxes', 'bounce.enabled'], { each: true });
  beforeEach(() => {
    fixtures(t.server.ctx.db).clearBounces();
  });

  const mailbox = (type: 'pop' | 'imap', port: number, password = 'secret') => ({
    enabled: true, type, host: '127.0.0.1', port, auth_protocol: 'userpass', return_path: 'bounces@news.example.org',
    username: 'bounces', password, tls_enabled: false, tls_skip_verify: false, scan_interval: '15m',
  });
  const useMailbox = async (m: Record<string, unknown>) => assert.equal((await t.request('PUT', '/api/settings', { 'bounce.mailboxes': [m] })).status, 200);
  // The delayed report names a subscriber UUID nobody has: its recipient address is used.
  const messages = () => [fixture('postfix-hard'), fixture('not-a-bounce'), fixture('exchange-headers-only'), fixture('delayed-soft', OTHER_SUBSCRIBER_UUID), fixture('arf-complaint')];

  async function expectScanned(box: FakeMailbox): Promise<void> {
    const result = await t.server.ctx.bounces.scheduler.scanNow();
    assert.deepEqual(result, { seen: 5, bounces: 4, deleted: 4 }, box.log.join('\n'));
    const rows = t.server.ctx.db.prepare('SELECT s.email, b.type, b.campaign_id, b.source FROM bounces b JOIN subscribers s ON s.id = b.subscriber_id ORDER BY b.id').all();
    assert.deepEqual(rows, [
      { email: 'old.address@example.net', type: 'hard', campaign_id: camp.id, source: '127.0.0.1' },
      { email: 'jane.roe@contoso.example', type: 'hard', campaign_id: camp.id, source: '127.0.0.1' },
      { email: 'slow.box@example.com', type: 'soft', campaign_id: camp.id, source: '127.0.0.1' },
      { email: 'angry.reader@hotmail.example', type: 'complaint', campaign_id: camp.id, source: '127.0.0.1' },
    ]);
    assert.equal(box.messages.length, 1, 'only the non-bounce stays');
    assert.match(box.messages[0].toString(), /Thanks for the newsletter/);
  }

  it('POP3: records the bounces and deletes only them', async () => {
    const box = await startFakePop3(messages());
    try {
      await useMailbox(mailbox('pop', box.port));
      await expectScanned(box);
    } finally {
      await box.close();
    }
  });

  it('IMAP: records the bounces and deletes only them', async () => {
    const box = await startFakeImap(messages());
    try {
      await useMailbox(mailbox('imap', box.port));
      await expectScanned(box);
    } finally {
      await box.close();
    }
  });

  for (const type of ['pop', 'imap'] as const) {
    it(`${type}: a refused login records and deletes nothing`, async () => {
      const box = type === 'pop' ? await startFakePop3(messages()) : await startFakeImap(messages());
      try {
        await useMailbox(mailbox(type, box.port, 'wrong'));
        await assert.rejects(t.server.ctx.bounces.scheduler.scanNow());
        assert.equal(bounceCount(t), 0);
        assert.equal(box.messages.length, 5);
      } finally {
        await box.close();
      }
    });
  }

  it('scans nothing while bounce processing or the mailbox is off', async () => {
    const box = await startFakePop3(messages());
    try {
      await useMailbox({ ...mailbox('pop', box.port), enabled: false });
      assert.equal(await t.server.ctx.bounces.scheduler.scanNow(), null);
      await useMailbox(mailbox('pop', box.port));
      await t.request('PUT', '/api/settings', { 'bounce.enabled': false });
      assert.equal(await t.server.ctx.bounces.scheduler.scanNow(), null);
      assert.equal(box.log.length, 0);
      assert.equal(box.messages.length, 5);
    } finally {
      await box.close();
    }
  });

  describe('a failing mailbox', () => {
    /** Timers the test fires itself: "the next interval" without waiting for it. */
    class ManualClock implements SchedulerClock {
      private timers: { fn: () => Promise<void>; ms: number; cancelled: boolean }[] = [];
      setTimer(fn: () => Promise<void>, ms: number) {
        const timer = { fn, ms, cancelled: false };
        this.timers.push(timer);
        return { cancel: () => void (timer.cancelled = true) };
      }
      /** Intervals of the timers still planned. */
      planned(): number[] {
        return this.timers.filter((x) => !x.cancelled).map((x) => x.ms);
      }
      /** Runs the one planned timer as if its time had come. */
      async fire(): Promise<void> {
        const live = this.timers.filter((x) => !x.cancelled);
        assert.equal(live.length, 1, 'one scan planned');
        this.timers = [];
        await live[0].fn();
      }
    }
    const PASSWORD = 'Not-The-Password-42';
    const isBounce = async (raw: Buffer) => (await parseBounceMail(raw)) !== null;
    const errors = (log: Logger) => log.recent().filter((l) => / ERROR /.test(l));

    for (const type of ['pop', 'imap'] as const) {
      it(`${type}: a refused login is logged, nothing is touched, and the next interval tries again`, async () => {
        const box = type === 'pop' ? await startFakePop3(messages()) : await startFakeImap(messages());
        const clock = new ManualClock();
        const log = new Logger(true);
        const scheduler = new MailboxScheduler(t.server.ctx.settings, log, isBounce, { clock });
        try {
          await useMailbox({ ...mailbox(type, box.port, PASSWORD), scan_interval: '5m' });
          scheduler.start();
          assert.deepEqual(clock.planned(), [5 * 60_000]);

          await clock.fire();
          assert.equal(errors(log).length, 1, log.recent().join('\n'));
          assert.match(errors(log)[0], new RegExp(`bounce mailbox ${type}://127\\.0\\.0\\.1:${box.port}: scan failed, login refused, check the user name and password: .*(PASS|LOGIN) failed.*; next attempt in 5 min`));
          assert.ok(!log.recent().some((l) => l.includes(PASSWORD)), 'the password is never logged');
          assert.equal(box.messages.length, 5);
          assert.deepEqual(clock.planned(), [5 * 60_000], 'the next scan is planned');
          assert.equal((await t.request('GET', '/api/health')).status, 200);

          await clock.fire();
          assert.equal(errors(log).length, 2, 'each failed scan is logged');
          assert.deepEqual(clock.planned(), [5 * 60_000]);

          await useMailbox({ ...mailbox(type, box.port), scan_interval: '5m' }); // the right password: planned anew
          await clock.fire();
          assert.equal(box.messages.length, 1, 'the bounces are deleted once the login works');
          assert.ok(log.recent().some((l) => l.includes('scanned again after failing')), log.recent().join('\n'));
          assert.ok(log.recent().some((l) => /5 message\(s\), 4 bounce\(s\) recorded and deleted/.test(l)));
          assert.equal(errors(log).length, 2);
          assert.deepEqual(clock.planned(), [5 * 60_000]);
        } finally {
          await scheduler.stop();
          await box.close();
        }
      });
    }

    it('a host that refuses connections is logged as unreachable and tried again', async () => {
      const gone = await startSilentServer();
      await gone.close(); // nothing listens on this port now
      const clock = new ManualClock();
      const log = new Logger(true);
      const scheduler = new MailboxScheduler(t.server.ctx.settings, log, isBounce, { clock });
      try {
        await useMailbox(mailbox('pop', gone.port));
        scheduler.start();
        await clock.fire();
        assert.match(errors(log)[0] ?? '', /scan failed, cannot connect \(ECONNREFUSED\).*; next attempt in 15 min/);
        assert.deepEqual(clock.planned(), [15 * 60_000]);
      } finally {
        await scheduler.stop();
      }
    });

    it('a server that hangs does not block the app; the scan fails when it hangs up', async () => {
      const silent = await startSilentServer();
      const log = new Logger(true);
      const scheduler = new MailboxScheduler(t.server.ctx.settings, log, isBounce, { clock: new ManualClock() });
      try {
        await useMailbox(mailbox('pop', silent.port));
        const scan = scheduler.scanNow();
        await silent.connected;
        // The scan waits for a greeting that never comes; the API answers meanwhile.
        assert.equal((await t.request('GET', '/api/health')).status, 200);
        assert.equal((await t.request('GET', '/api/bounces')).status, 200);
        silent.hangUp();
        await assert.rejects(scan, /POP3 connection closed/);
        assert.match(errors(log)[0] ?? '', /scan failed, POP3 connection closed/);
      } finally {
        await scheduler.stop();
        await silent.close();
      }
    });
  });
});
