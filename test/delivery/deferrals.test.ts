// A relay that defers (4xx at any stage), drops connections or stalls (issue 29): the campaign
// stays running, tries the deferred recipients again with backoff and finishes with every
// recipient sent once and none failed; a relay deferring past app.defer_limit pauses it with
// the reason; a 5xx for one address fails that address alone. Transactional and opt-in mail
// are tried again too.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import nodemailer from 'nodemailer';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, openDatabase } from '../../src/db/connection.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { classifySendFailure, deferBackoff } from '../../src/mail/failures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startFaultySmtp, startSmtpSink, type FaultySmtp, type SmtpFaults } from '../helpers/smtp.ts';
import { adminSession, getPage } from '../helpers/admin.ts';
import { addList, addMany, until } from '../campaigns/fixtures.ts';

const DEFER = { code: 451, message: '4.7.1 Try again later' };

describe('what a failed send means', () => {
  let sink: FaultySmtp;
  let faults: SmtpFaults = {};

  before(async () => {
    sink = await startFaultySmtp({
      connect: (n) => faults.connect?.(n),
      mailFrom: (a) => faults.mailFrom?.(a),
      rcptTo: (a) => faults.rcptTo?.(a),
      data: (to) => faults.data?.(to),
    });
  });
  after(() => sink.close());

  /** The error of one message sent straight through nodemailer while the relay fails as `f` says. */
  async function failure(f: SmtpFaults, port = sink.port): Promise<unknown> {
    faults = f;
    const transport = nodemailer.createTransport({ host: '127.0.0.1', port, ignoreTLS: true, greetingTimeout: 500, connectionTimeout: 500 });
    try {
      await transport.sendMail({ from: 'a@example.com', to: 'b@example.com', subject: 's', text: 't' });
      return null;
    } catch (e) {
      return e;
    } finally {
      transport.close();
    }
  }

  it('a 4xx at MAIL FROM, RCPT TO or after the data, a dropped connection and a stalled greeting are transient', async () => {
    assert.equal(classifySendFailure(await failure({ mailFrom: () => DEFER })), 'transient');
    assert.equal(classifySendFailure(await failure({ rcptTo: () => ({ code: 452, message: '4.2.2 Mailbox full' }) })), 'transient');
    assert.equal(classifySendFailure(await failure({ data: () => DEFER })), 'transient');
    assert.equal(classifySendFailure(await failure({ data: () => 'drop' })), 'transient');
    assert.equal(classifySendFailure(await failure({ connect: () => 'drop' })), 'transient');
    assert.equal(classifySendFailure(await failure({ connect: () => 2000 })), 'transient');
  });

  it('a 5xx for the recipient or the message is its refusal; a server that cannot be reached is unusable', async () => {
    assert.equal(classifySendFailure(await failure({ rcptTo: () => ({ code: 550, message: '5.1.1 No such user' }) })), 'refused');
    assert.equal(classifySendFailure(await failure({ data: () => ({ code: 554, message: '5.7.1 Rejected' }) })), 'refused');
    const closed = await startSmtpSink();
    await closed.close();
    assert.equal(classifySendFailure(await failure({}, closed.port)), 'unusable');
  });

  it('backs off 1 s doubling, to at most a sixth of the limit and 5 minutes', () => {
    const limit = 30 * 60_000;
    assert.deepEqual([1, 2, 3, 4, 5, 6, 9, 10, 20].map((n) => deferBackoff(n, limit) / 1000), [1, 2, 4, 8, 16, 32, 256, 300, 300]);
    assert.deepEqual([1, 2, 3, 4].map((n) => deferBackoff(n, 6000)), [1000, 1000, 1000, 1000]);
    assert.equal(deferBackoff(1, 600), 250);
  });
});

describe('a campaign while the relay defers, drops connections or stalls', () => {
  let t: TestServer;
  let sink: FaultySmtp;
  /** The faults of the relay now (each test sets its own). */
  let faults: SmtpFaults = {};

  before(async () => {
    t = await startTestServer();
    sink = await startFaultySmtp({
      connect: (n) => faults.connect?.(n),
      mailFrom: (a) => faults.mailFrom?.(a),
      rcptTo: (a) => faults.rcptTo?.(a),
      data: (to) => faults.data?.(to),
    });
  });
  after(async () => {
    await t.stop();
    await sink.close();
  });

  async function relay(over: Record<string, unknown> = {}, settings: Record<string, unknown> = {}): Promise<void> {
    const block = { enabled: true, host: '127.0.0.1', port: sink.port, auth_protocol: 'none', username: '', password: '', tls_type: 'none', max_conns: 4, max_msg_retries: 0, wait_timeout: '5s', idle_timeout: '15s', ...over };
    const r = await t.request('PUT', '/api/settings', { smtp: [block], 'app.concurrency': 4, 'app.message_rate': 1000, 'app.defer_limit': '30m', ...settings });
    assert.equal(r.status, 200, r.text);
  }

  const campaign = async (id: number) => (await t.request('GET', `/api/campaigns/${id}`)).body.data;

  /** A campaign to `n` new subscribers, started; its id and their addresses. */
  async function start(name: string, n: number): Promise<{ id: number; emails: string[] }> {
    const db = t.server.ctx.db;
    const list = addList(db, name, 'single');
    const emails = addMany(db, list, name.toLowerCase(), n);
    const id = (await t.request('POST', '/api/campaigns', { name, subject: 'S', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data.id;
    assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status, 200);
    return { id, emails };
  }

  /** Waits for the campaign to finish; at that moment every recipient has an outcome. */
  async function finished(id: number, timeoutMs = 90_000) {
    return until(`campaign ${id} to finish`, async () => {
      const d = await campaign(id);
      assert.notEqual(d.status, 'paused', `paused: ${d.status_reason}`);
      return d.status === 'finished' && !t.server.ctx.delivery.isSending(id) && d;
    }, timeoutMs);
  }

  const ledger = (id: number) => t.server.ctx.db.prepare('SELECT status, COUNT(*) AS n FROM campaign_sends WHERE campaign_id = ? GROUP BY status ORDER BY status').all(id);
  const received = (emails: string[]) => sink.accepted.filter((a) => emails.includes(a)).sort();

  /** Every recipient got it exactly once, none failed, nothing deferred. */
  async function allSentOnce(id: number, emails: string[]): Promise<void> {
    const d = await finished(id);
    assert.deepEqual(received(emails), emails, 'each recipient exactly once');
    assert.equal(d.sent, emails.length);
    assert.equal(d.failed, 0);
    assert.equal(d.deferred, 0);
    assert.deepEqual(ledger(id), [{ status: 'sent', n: emails.length }]);
  }

  it('451 for 2 s: stays running with the deferred counted, then sends everyone once; a 550 fails that address alone', async () => {
    await relay();
    const refused = 'briefly-0007@example.com';
    let since = 0;
    const deferring = () => since > 0 && Date.now() - since < 2000;
    faults = {
      // The first second at MAIL FROM, the next at RCPT TO.
      mailFrom: () => {
        since ||= Date.now();
        return Date.now() - since < 1000 ? DEFER : undefined;
      },
      rcptTo: (to) => (to === refused ? { code: 550, message: '5.1.1 No such user' } : deferring() ? DEFER : undefined),
    };
    const { id, emails } = await start('Briefly', 100);
    const stats = await until('deferred recipients in the running stats', async () => {
      const s = (await t.request('GET', `/api/campaigns/running/stats?campaign_id=${id}`)).body.data[0];
      return s?.deferred > 0 && s;
    });
    assert.equal(stats.status, 'running');
    assert.ok(stats.sent < emails.length);
    assert.equal(stats.failed, 0, 'no deferred recipient counted as failed');
    const listed = (await t.request('GET', '/api/campaigns?status=running')).body.data.results.find((c: { id: number }) => c.id === id);
    assert.equal(typeof listed.deferred, 'number', 'the campaign object carries deferred');

    const d = await finished(id);
    const others = emails.filter((e) => e !== refused);
    assert.deepEqual(received(emails), others, 'each of the others exactly once');
    assert.equal(d.sent, others.length);
    assert.equal(d.failed, 1);
    assert.equal(d.deferred, 0);
    const failed = t.server.ctx.db.prepare(`SELECT s.email, cs.error FROM campaign_sends cs JOIN subscribers s ON s.id = cs.subscriber_id WHERE cs.campaign_id = ? AND cs.status = 'failed'`).all(id) as { email: string; error: string }[];
    assert.equal(failed.length, 1);
    assert.equal(failed[0].email, refused);
    assert.match(failed[0].error, /550/);
  });

  it('451 after the data for 30 s (limit 1 min): stays running, shown deferred in the admin, then sends everyone once', async () => {
    await relay({}, { 'app.defer_limit': '1m' });
    let since = 0;
    faults = {
      data: () => {
        since ||= Date.now();
        return Date.now() - since < 30_000 ? DEFER : undefined;
      },
    };
    const { id, emails } = await start('Longer', 60);
    await until('deferred recipients', async () => (await campaign(id)).deferred > 0);
    const session = await adminSession(t);
    const page = (await getPage(t, session, '/admin/campaigns')).text;
    const row = page.slice(page.indexOf(`data-campaign="${id}"`));
    assert.match(row, /<div data-deferred-line="true" title="[^"]*">Deferred: <span data-deferred="true">[1-9]/, 'the deferred count is shown in its row');
    const one = (await getPage(t, session, `/admin/campaigns/${id}`)).text;
    assert.match(one, /<span data-deferred-line="true" title="[^"]*">Deferred: <span data-deferred="true">[1-9]/, 'and on its page');
    assert.equal((await campaign(id)).status, 'running');
    await allSentOnce(id, emails);
  });

  it('a connection dropped at every 50th message, before it or after its data: sends everyone once', async () => {
    await relay();
    let messages = 0;
    let data = 0;
    faults = {
      // Dropped before the message (MAIL FROM), or after its data went out unanswered (the
      // relay did not take it: the client cannot know, and sends it again).
      mailFrom: () => (++messages % 50 === 0 ? 'drop' : undefined),
      data: () => (++data % 50 === 25 ? 'drop' : undefined),
    };
    const before = sink.faults;
    const { id, emails } = await start('Dropped', 160);
    await allSentOnce(id, emails);
    assert.ok(sink.faults - before >= 5, `connections dropped: ${sink.faults - before}`);
  });

  it('a relay that stops greeting new connections past the timeout for 3 s: sends everyone once', async () => {
    await relay({ wait_timeout: '500ms' });
    let messages = 0;
    let since = 0;
    faults = {
      // At the 10th message every connection is closed, and new ones get no greeting for 3 s.
      mailFrom: () => {
        if (++messages !== 10) return undefined;
        since = Date.now();
        sink.dropAll();
        return 'drop';
      },
      connect: () => (since && Date.now() - since < 3000 ? 1500 : undefined),
    };
    const before = sink.faults;
    const { id, emails } = await start('Stalled', 40);
    await allSentOnce(id, emails);
    assert.ok(sink.faults - before >= 2, 'connections stalled');
  });

  it('a relay deferring past app.defer_limit pauses the campaign with the reason; resumed, it sends everyone once', async () => {
    await relay({}, { 'app.defer_limit': '3s' });
    let deferring = true;
    faults = { rcptTo: () => (deferring ? DEFER : undefined) };
    const { id, emails } = await start('Forever', 12);
    const paused = await until('the campaign to pause', async () => {
      const d = await campaign(id);
      return d.status === 'paused' && !t.server.ctx.delivery.isSending(id) && d;
    });
    assert.match(paused.status_reason, /the mail server deferred every message for 3 s \(app\.defer_limit; last: .*451 4\.7\.1 Try again later\)/);
    assert.equal(paused.sent, 0);
    assert.equal(paused.failed, 0);
    assert.equal(paused.deferred, 0, 'nothing is deferred once paused: they are queued');
    assert.deepEqual(ledger(id).filter((r) => (r as { status: string }).status !== 'queued'), []);
    deferring = false;
    assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status, 200);
    await allSentOnce(id, emails);
  });

  it('one address the relay keeps deferring while it takes the others is that address\'s failure after the limit', async () => {
    await relay({}, { 'app.defer_limit': '3s' });
    const stuck = 'stuck-0002@example.com';
    faults = { rcptTo: (to) => (to === stuck ? { code: 452, message: '4.2.2 Mailbox full' } : undefined) };
    const { id, emails } = await start('Stuck', 10);
    const d = await finished(id);
    assert.deepEqual(received(emails), emails.filter((e) => e !== stuck));
    assert.equal(d.sent, 9);
    assert.equal(d.failed, 1);
    const row = t.server.ctx.db.prepare(`SELECT cs.error FROM campaign_sends cs JOIN subscribers s ON s.id = cs.subscriber_id WHERE cs.campaign_id = ? AND s.email = ?`).get(id, stuck) as { error: string };
    assert.match(row.error, /^deferred for longer than 3 s; last: .*452 4\.2\.2 Mailbox full/);
  });

  it('a deferred recipient who unsubscribes meanwhile is not sent to; the campaign finishes without them', async () => {
    await relay();
    const gone = 'leaving-0001@example.com';
    let deferring = true;
    faults = { rcptTo: (to) => (to === gone && deferring ? { code: 452, message: '4.2.2 Mailbox full' } : undefined) };
    const { id, emails } = await start('Leaving', 3);
    await until('the recipient deferred', async () => (await campaign(id)).deferred === 1);
    const subscriber = (await t.request('GET', `/api/subscribers?query=${encodeURIComponent(`subscribers.email = '${gone}'`)}`)).body.data.results[0];
    assert.equal((await t.request('PUT', '/api/subscribers/blocklist', { ids: [subscriber.id] })).status, 200);
    deferring = false;
    const d = await finished(id);
    assert.deepEqual(received(emails), emails.filter((e) => e !== gone));
    assert.equal(d.sent, 2);
    assert.equal(d.failed, 0);
    assert.deepEqual(ledger(id), [{ status: 'queued', n: 1 }, { status: 'sent', n: 2 }]);
  });

  it('transactional and opt-in mail the relay defers for 2 s are sent once, not failed', async () => {
    await relay();
    let since = 0;
    faults = {
      rcptTo: () => {
        since ||= Date.now();
        return Date.now() - since < 2000 ? DEFER : undefined;
      },
    };
    const deferredBefore = t.server.ctx.mailer.outcomes().get('email')?.deferred ?? 0;
    const tpl = (await t.request('GET', '/api/templates')).body.data.find((x: { type: string }) => x.type === 'tx');
    const tx = await t.request('POST', '/api/tx', { subscriber_email: 'tx-deferred@example.com', subscriber_mode: 'external', template_id: tpl.id, data: {} });
    assert.equal(tx.status, 200, tx.text);
    assert.deepEqual(sink.accepted.filter((a) => a === 'tx-deferred@example.com'), ['tx-deferred@example.com']);
    assert.ok(t.server.ctx.mailer.outcomes().get('email')!.deferred > deferredBefore, 'the deferrals are counted as such (GET /metrics), not as failures');

    since = 0;
    const list = addList(t.server.ctx.db, 'Double', 'double');
    const sub = await t.request('POST', '/api/subscribers', { email: 'optin-deferred@example.com', name: 'Optin', lists: [list] });
    assert.equal(sub.status, 200, sub.text);
    assert.ok(since > 0, 'the opt-in mail met the deferral');
    await until('the opt-in mail', () => sink.accepted.includes('optin-deferred@example.com'));
    assert.deepEqual(sink.accepted.filter((a) => a === 'optin-deferred@example.com'), ['optin-deferred@example.com']);
  });
});

describe('a restart while recipients are deferred', () => {
  let t: TestServer;
  let sink: FaultySmtp;
  let deferring = true;
  let second: RunningServer | null = null;

  before(async () => {
    t = await startTestServer();
    sink = await startFaultySmtp({ rcptTo: (to) => (deferring && to.endsWith('7@example.com') ? DEFER : undefined) });
  });
  after(async () => {
    await second?.stop();
    rmSync(t.dir, { recursive: true, force: true });
    await sink.close();
  });

  it('leaves them queued, the campaign running; the next process sends each once', async () => {
    const block = { enabled: true, host: '127.0.0.1', port: sink.port, auth_protocol: 'none', username: '', password: '', tls_type: 'none', max_conns: 2, max_msg_retries: 0 };
    assert.equal((await t.request('PUT', '/api/settings', { smtp: [block], 'app.concurrency': 2, 'app.message_rate': 1000 })).status, 200);
    const list = addList(t.server.ctx.db, 'Restart', 'single');
    const emails = addMany(t.server.ctx.db, list, 'restart', 30);
    const c = (await t.request('POST', '/api/campaigns', { name: 'Restart', subject: 'R', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
    await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    // restart-0007, -0017 and -0027 are deferred; the others go through.
    await until('the others sent and three deferred', async () => {
      const d = (await t.request('GET', `/api/campaigns/${c.id}`)).body.data;
      return d.sent === 27 && d.deferred === 3;
    });
    await t.server.stop();
    const db = openDatabase(t.dbPath);
    const row = db.prepare('SELECT status, sent, failed, deferred FROM campaigns WHERE id = ?').get(c.id);
    const queued = db.prepare(`SELECT COUNT(*) FROM campaign_sends WHERE campaign_id = ? AND status = 'queued'`).pluck().get(c.id);
    closeDatabase(db);
    assert.deepEqual(row, { status: 'running', sent: 27, failed: 0, deferred: 0 });
    assert.equal(queued, 3);

    deferring = false;
    second = await startServer(loadConfig({ db: t.dbPath, address: '127.0.0.1:0', uploads: join(t.dir, 'uploads') }, {}), { quiet: true });
    const status = () => second!.ctx.db.prepare('SELECT status FROM campaigns WHERE id = ?').pluck().get(c.id);
    await until('the campaign to finish', () => status() === 'finished', 30_000);
    assert.deepEqual([...sink.accepted].sort(), emails);
    assert.equal(second.ctx.db.prepare(`SELECT COUNT(*) FROM campaign_sends WHERE campaign_id = ? AND status = 'sent'`).pluck().get(c.id), 30);
  });
});

describe('the app.defer_limit setting', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
  });
  after(() => t.stop());

  it('is 30 minutes by default and must be a duration above 0', async () => {
    assert.equal((await t.request('GET', '/api/settings')).body.data['app.defer_limit'], '30m');
    for (const bad of ['soon', '0', '']) {
      const r = await t.request('PUT', '/api/settings', { 'app.defer_limit': bad });
      assert.equal(r.status, 400, bad);
      assert.match(r.body.message, /app\.defer_limit/);
    }
    assert.equal((await t.request('PUT', '/api/settings', { 'app.defer_limit': '45m' })).status, 200);
  });
});
