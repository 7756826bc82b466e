// Mail that is not configured, or failing (issue 17): a fresh install says so and refuses to
// start campaigns; a mail server that cannot be reached pauses the campaign with the error and
// resuming it reaches everyone once; a recipient refused with a 5xx is counted as failed and
// can be sent to again, once; opt-in mails that cannot go out are logged once per cause.
import { after, before, describe, it, mock } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { Logger, RepeatedFailures } from '../../src/log.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { installDatabase } from '../helpers/child-server.ts';
import { sendRequest, startTestServer, type ApiResponse, type TestServer } from '../helpers/server.ts';
import { startScriptedSmtp, startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addMany, addSubscriber, until } from '../campaigns/fixtures.ts';

const NO_SMTP = 'no SMTP server is enabled: set one up in Settings → SMTP';

/** The log lines written since `from` lines were there. */
const logSince = (s: RunningServer, from: number) => s.ctx.log.recent().slice(from);

describe('a fresh install', () => {
  let dir: string;
  let server: RunningServer;
  let request: (method: string, path: string, body?: unknown) => Promise<ApiResponse>;
  let list = 0;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listmgr-fresh-'));
    const dbPath = join(dir, 'listmgr.db');
    const token = await installDatabase(dbPath, (db) => {
      list = addList(db, 'Readers', 'double');
      addSubscriber(db, 'reader@example.com', 'Reader', [[list, 'confirmed']]);
    });
    server = await startServer(loadConfig({ db: dbPath, address: '127.0.0.1:0', uploads: join(dir, 'uploads') }, {}), { quiet: true });
    request = (method, path, body) => sendRequest(server.url, token, method, path, body);
  });
  after(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ships its SMTP servers disabled and says at start-up that mail is not set up', async () => {
    const smtp = (await request('GET', '/api/settings')).body.data.smtp as { enabled: boolean }[];
    assert.ok(smtp.length > 0);
    assert.deepEqual(smtp.map((s) => s.enabled), smtp.map(() => false));
    assert.ok(server.ctx.log.recent().some((l) => l.includes('WARN') && l.includes(NO_SMTP)), 'start-up warning');
  });

  it('says so in GET /api/config, also after other settings are saved', async () => {
    const saved = await request('PUT', '/api/settings', { 'app.site_name': 'Fresh' });
    assert.equal(saved.status, 200, saved.text);
    const r = await request('GET', '/api/config');
    assert.equal(r.status, 200);
    assert.equal(r.body.data.mail_configured, false);
  });

  let campaign = 0;
  it('saves a campaign but refuses to start or schedule it, saying why', async () => {
    const c = await request('POST', '/api/campaigns', { name: 'First', subject: 'Hi', lists: [list], body: '<p>x</p>', content_type: 'html' });
    assert.equal(c.status, 200, c.text);
    campaign = c.body.data.id;
    assert.equal(c.body.data.messenger, 'email');
    const start = await request('PUT', `/api/campaigns/${campaign}/status`, { status: 'running' });
    assert.equal(start.status, 400);
    assert.ok(start.body.message.includes(NO_SMTP), start.body.message);
    await request('PUT', `/api/campaigns/${campaign}`, { name: 'First', subject: 'Hi', lists: [list], send_at: new Date(Date.now() + 86400_000).toISOString() });
    const schedule = await request('PUT', `/api/campaigns/${campaign}/status`, { status: 'scheduled' });
    assert.equal(schedule.status, 400);
    assert.ok(schedule.body.message.includes(NO_SMTP));
    assert.equal((await request('GET', `/api/campaigns/${campaign}`)).body.data.status, 'draft');
  });

  it('refuses a test send with a 400 saying why', async () => {
    const r = await request('POST', `/api/campaigns/${campaign}/test`, { subscribers: ['reader@example.com'] });
    assert.equal(r.status, 400);
    assert.ok(r.body.message.includes(NO_SMTP), r.body.message);
  });

  it('logs opt-in mails that cannot be sent once per cause, with a count', async () => {
    const from = server.ctx.log.recent().length;
    for (let i = 0; i < 4; i++) {
      const r = await request('POST', '/api/subscribers', { email: `new${i}@example.com`, name: `New ${i}`, lists: [list], status: 'enabled' });
      assert.equal(r.status, 200, r.text);
    }
    let lines = logSince(server, from).filter((l) => l.includes('opt-in') && l.includes('failed'));
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.ok(lines[0].includes(NO_SMTP));

    // Another cause: the repeats of the first are counted in one line, the new one logged in full.
    const sink = await startSmtpSink();
    const port = sink.port;
    await sink.close();
    const r = await request('PUT', '/api/settings', { smtp: [sink.settingsBlock()] });
    assert.equal(r.status, 200, r.text);
    assert.equal((await request('GET', '/api/config')).body.data.mail_configured, true);
    for (let i = 0; i < 2; i++) await request('POST', '/api/subscribers', { email: `down${i}@example.com`, name: 'Down', lists: [list] });
    lines = logSince(server, from).filter((l) => l.includes('opt-in') && l.includes('failed'));
    assert.equal(lines.length, 3, lines.join('\n'));
    assert.ok(lines[1].includes(`3 more opt-in mails failed: ${NO_SMTP}`), lines[1]);
    assert.match(lines[2], new RegExp(`ECONNREFUSED 127\\.0\\.0\\.1:${port}`));
  });
});

describe('sending a campaign while the mail server is down, and after it is back', () => {
  let t: TestServer;
  let sink: SmtpSink;
  let list = 0;
  let emails: string[];

  before(async () => {
    t = await startTestServer();
    const down = await startSmtpSink();
    await down.close(); // its port is now closed: every connection is refused
    sink = down;
    list = addList(t.server.ctx.db, 'Readers', 'single');
    emails = addMany(t.server.ctx.db, list, 'down', 6);
    const r = await t.request('PUT', '/api/settings', { smtp: [down.settingsBlock({ max_conns: 1 })], 'app.concurrency': 1, 'app.message_rate': 1000 });
    assert.equal(r.status, 200, r.text);
  });
  after(async () => {
    await t.stop();
    await sink.close();
  });

  let id = 0;
  it('pauses the campaign after a few refused connections, with the error as the reason, failing nobody', async () => {
    const c = await t.request('POST', '/api/campaigns', { name: 'Outage', subject: 'S', lists: [list], body: '<p>x</p>', content_type: 'html' });
    id = c.body.data.id;
    assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status, 200);
    const paused = await until('the campaign to pause', async () => {
      const d = (await t.request('GET', `/api/campaigns/${id}`)).body.data;
      return d.status === 'paused' && d;
    });
    assert.match(paused.status_reason, /3 sends failed in a row; last: connect ECONNREFUSED/);
    assert.equal(paused.sent, 0);
    assert.equal(paused.failed, 0);
    const sends = t.server.ctx.db.prepare('SELECT status, COUNT(*) AS n FROM campaign_sends WHERE campaign_id = ? GROUP BY status').all(id) as { status: string; n: number }[];
    assert.deepEqual(sends.filter((s) => s.status !== 'queued'), [], 'no recipient is recorded failed or sent');
    const listed = (await t.request('GET', `/api/campaigns?status=paused`)).body.data.results.find((x: { id: number }) => x.id === id);
    assert.equal(listed.failed, 0);
    assert.match(listed.status_reason, /ECONNREFUSED/);
  });

  it('sends to every recipient exactly once when resumed with the server back', async () => {
    sink = await startSmtpSink({ port: sink.port });
    const from = t.server.ctx.log.recent().length;
    await t.request('PUT', '/api/settings', { 'app.message_rate': 3 });
    assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status, 200);
    const stats = await until('running stats', async () => (await t.request('GET', `/api/campaigns/running/stats?campaign_id=${id}`)).body.data[0]);
    assert.equal(stats.failed, 0);
    await until('the campaign to finish', async () => (await t.request('GET', `/api/campaigns/${id}`)).body.data.status === 'finished');
    assert.deepEqual(sink.messages.map((m) => m.to[0]).sort(), emails);
    const d = (await t.request('GET', `/api/campaigns/${id}`)).body.data;
    assert.equal(d.sent, 6);
    assert.equal(d.failed, 0);
    assert.equal(d.status_reason, '');
    assert.ok(logSince(t.server, from).some((l) => l.includes(`campaign ${id} "Outage" finished: 6 sent, 0 failed, 0 skipped`)), 'end-of-campaign log line');
  });

  it('sends the rest, each once, when the server goes away in the middle of a send and comes back', async () => {
    const closed = await startSmtpSink();
    await closed.close();
    await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ max_conns: 1 })], 'app.message_rate': 4 });
    const c = (await t.request('POST', '/api/campaigns', { name: 'Midway', subject: 'S', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
    const mine = () => sink.messages.filter((m) => m.parsed.headers.get('x-listmonk-campaign') === c.uuid).map((m) => m.to[0]).sort();
    assert.equal((await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status, 200);
    await until('two messages', () => mine().length >= 2);
    assert.equal((await t.request('PUT', '/api/settings', { smtp: [closed.settingsBlock({ max_conns: 1 })] })).status, 200);
    const paused = await until('the campaign to pause', async () => {
      const d = (await t.request('GET', `/api/campaigns/${c.id}`)).body.data;
      return d.status === 'paused' && d;
    });
    assert.match(paused.status_reason, /ECONNREFUSED/);
    assert.ok(paused.sent >= 2 && paused.sent < 6, `sent ${paused.sent}`);
    assert.equal(paused.failed, 0);
    assert.equal((await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ max_conns: 1 })], 'app.message_rate': 1000 })).status, 200);
    assert.equal((await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status, 200);
    await until('the campaign to finish', async () => (await t.request('GET', `/api/campaigns/${c.id}`)).body.data.status === 'finished');
    assert.deepEqual(mine(), emails);
    assert.equal((await t.request('GET', `/api/campaigns/${c.id}`)).body.data.sent, 6);
  });
});

describe('a mail server that refuses the login', () => {
  let t: TestServer;
  let sink: SmtpSink;

  before(async () => {
    t = await startTestServer();
    sink = await startSmtpSink({ auth: { user: 'news', pass: 'right-password' } });
    const list = addList(t.server.ctx.db, 'Readers', 'single');
    addMany(t.server.ctx.db, list, 'auth', 5);
    await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ password: 'wrong-password' })], 'app.message_rate': 1000 });
    const c = (await t.request('POST', '/api/campaigns', { name: 'Login', subject: 'S', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
    assert.equal((await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status, 200);
  });
  after(async () => {
    await t.stop();
    await sink.close();
  });

  it('pauses the campaign with the authentication error, failing nobody', async () => {
    const paused = await until('the campaign to pause', async () => {
      const d = (await t.request('GET', '/api/campaigns?status=paused')).body.data.results[0];
      return d?.status === 'paused' && d;
    });
    assert.match(paused.status_reason, /Invalid username or password/);
    assert.equal(paused.failed, 0);
    assert.equal(sink.messages.length, 0);
  });
});

describe('a recipient refused with a 5xx', () => {
  let t: TestServer;
  let sink: SmtpSink;
  const refuse = new Map([['refused-0001@example.com', { code: 550, message: 'No such user here' }]]);
  let list = 0;
  let id = 0;

  before(async () => {
    t = await startTestServer();
    sink = await startSmtpSink({ refuse });
    list = addList(t.server.ctx.db, 'Readers', 'single');
    addMany(t.server.ctx.db, list, 'refused', 3);
    const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock()], 'app.message_rate': 1000 });
    assert.equal(r.status, 200, r.text);
  });
  after(async () => {
    await t.stop();
    await sink.close();
  });

  const campaign = async () => (await t.request('GET', `/api/campaigns/${id}`)).body.data;
  const receivedBy = () => sink.messages.map((m) => m.to[0]).sort();

  it('is recorded as failed; the campaign finishes with the count, logged', async () => {
    const from = t.server.ctx.log.recent().length;
    id = (await t.request('POST', '/api/campaigns', { name: 'Refusal', subject: 'S', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data.id;
    assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status, 200);
    await until('the campaign to finish', async () => (await campaign()).status === 'finished');
    const c = await campaign();
    assert.equal(c.sent, 2);
    assert.equal(c.failed, 1);
    assert.deepEqual(receivedBy(), ['refused-0000@example.com', 'refused-0002@example.com']);
    const failed = t.server.ctx.db.prepare(`SELECT s.email, cs.error FROM campaign_sends cs JOIN subscribers s ON s.id = cs.subscriber_id WHERE cs.campaign_id = ? AND cs.status = 'failed'`).all(id) as { email: string; error: string }[];
    assert.equal(failed.length, 1);
    assert.equal(failed[0].email, 'refused-0001@example.com');
    assert.match(failed[0].error, /550/);
    assert.ok(logSince(t.server, from).some((l) => l.includes(`campaign ${id} "Refusal" finished: 2 sent, 1 failed, 0 skipped`)));
  });

  it('is sent again, once, when the finished campaign is set running; nobody else is', async () => {
    addSubscriber(t.server.ctx.db, 'joined-later@example.com', 'Later', [[list, 'confirmed']]);
    refuse.clear();
    const r = await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' });
    assert.equal(r.status, 200, r.text);
    await until('the retry to finish', async () => (await campaign()).status === 'finished' && !t.server.ctx.delivery.isSending(id));
    assert.deepEqual(receivedBy(), ['refused-0000@example.com', 'refused-0001@example.com', 'refused-0002@example.com']);
    const c = await campaign();
    assert.equal(c.sent, 3);
    assert.equal(c.failed, 0);
  });

  it('refuses a second retry: there are no failed recipients left', async () => {
    const r = await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /no failed recipients/);
    await new Promise((res) => setTimeout(res, 300));
    assert.equal(sink.messages.length, 3);
    assert.equal((await campaign()).status, 'finished');
  });
});

describe('an isolated connection failure', () => {
  let t: TestServer;
  let server: { port: number; close(): Promise<void> };
  const accepted: string[] = [];
  let list = 0;

  before(async () => {
    t = await startTestServer();
    // The second message meets a 421 (service not available); every other one is accepted.
    let n = 0;
    server = await startScriptedSmtp((to, reply) => {
      if (++n === 2) return reply(Object.assign(new Error('Try again later'), { responseCode: 421 }));
      accepted.push(...to);
      reply();
    });
    list = addList(t.server.ctx.db, 'Readers', 'single');
    addMany(t.server.ctx.db, list, 'isolated', 4);
    const block = { enabled: true, host: '127.0.0.1', port: server.port, auth_protocol: 'none', username: '', password: '', tls_type: 'none', max_conns: 1, max_msg_retries: 0 };
    const r = await t.request('PUT', '/api/settings', { smtp: [block], 'app.concurrency': 1, 'app.message_rate': 1000 });
    assert.equal(r.status, 200, r.text);
  });
  after(async () => {
    await t.stop();
    await server.close();
  });

  it('does not pause the campaign nor fail its recipient: the message is tried again and the campaign finishes with all sent', async () => {
    const c = (await t.request('POST', '/api/campaigns', { name: 'Blip', subject: 'S', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
    assert.equal((await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status, 200);
    await until('the campaign to finish', async () => (await t.request('GET', `/api/campaigns/${c.id}`)).body.data.status === 'finished');
    const d = (await t.request('GET', `/api/campaigns/${c.id}`)).body.data;
    assert.equal(d.sent, 4);
    assert.equal(d.failed, 0);
    assert.equal(d.deferred, 0);
    // The low-water mark passed it: every recipient has an outcome.
    const low = t.server.ctx.db.prepare('SELECT last_subscriber_id, max_subscriber_id FROM campaigns WHERE id = ?').get(c.id) as { last_subscriber_id: number; max_subscriber_id: number };
    assert.equal(low.last_subscriber_id, low.max_subscriber_id);
    assert.deepEqual([...accepted].sort(), ['isolated-0000@example.com', 'isolated-0001@example.com', 'isolated-0002@example.com', 'isolated-0003@example.com']);
  });
});

describe('failures logged once per cause', () => {
  it('logs the count of repeats once a minute, not one line each', () => {
    mock.timers.enable({ apis: ['setTimeout'] });
    try {
      const log = new Logger(true);
      const failures = new RepeatedFailures(log, 'opt-in mails', 60_000);
      for (let i = 1; i <= 5; i++) failures.add(`opt-in mail to subscriber ${i}`, 'connect ECONNREFUSED 127.0.0.1:25');
      assert.equal(log.recent().length, 1);
      assert.match(log.recent()[0], /opt-in mail to subscriber 1 failed: connect ECONNREFUSED/);
      mock.timers.tick(59_000);
      assert.equal(log.recent().length, 1);
      mock.timers.tick(1_000);
      assert.equal(log.recent().length, 2);
      assert.match(log.recent()[1], /4 more opt-in mails failed: connect ECONNREFUSED 127\.0\.0\.1:25$/);
      mock.timers.tick(120_000);
      assert.equal(log.recent().length, 2, 'nothing more while nothing failed');
      failures.add('opt-in mail to subscriber 6', 'connect ECONNREFUSED 127.0.0.1:25');
      mock.timers.tick(60_000);
      assert.match(log.recent()[2], /1 more opt-in mails failed/);
    } finally {
      mock.timers.reset();
    }
  });
});
