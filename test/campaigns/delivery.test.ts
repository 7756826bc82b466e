// Sending a campaign end to end: the right recipients, each once, rendered per subscriber,
// with working tracking links and unsubscribe headers; pause/resume/cancel; the error
// threshold; analytics from the recorded views and clicks.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addMany, addSubscriber, until } from './fixtures.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

let t: TestServer;
let sink: SmtpSink;

const campaignStatus = async (id: number) => (await t.request('GET', `/api/campaigns/${id}`)).body.data;
const received = (campaignUuid: string) => sink.messages.filter((m) => m.parsed.headers.get('x-listmonk-campaign') === campaignUuid);
const idle = (id: number) => until(`campaign ${id} to stop sending`, () => !t.server.ctx.delivery.isSending(id));

async function settings(over: Record<string, unknown>) {
  const r = await t.request('PUT', '/api/settings', over);
  assert.equal(r.status, 200, r.text);
}

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await settings({
    smtp: [sink.settingsBlock({ max_conns: 2 })], 'app.root_url': t.url, 'app.concurrency': 4, 'app.message_rate': 1000,
    'app.notify_emails': ['admin@example.com'],
  });
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('a campaign to a mixed audience', () => {
  let camp: { id: number; uuid: string };
  let expected: string[];

  before(async () => {
    const db = t.server.ctx.db;
    const single = addList(db, 'Single', 'single');
    const double = addList(db, 'Double', 'double');
    addSubscriber(db, 'single-confirmed@example.com', 'Ann Single', [[single, 'confirmed']]);
    addSubscriber(db, 'single-unconfirmed@example.com', 'Bob Single', [[single, 'unconfirmed']]);
    addSubscriber(db, 'single-unsub@example.com', 'Cid Unsub', [[single, 'unsubscribed']]);
    addSubscriber(db, 'double-confirmed@example.com', 'Dee Double', [[double, 'confirmed']]);
    addSubscriber(db, 'double-unconfirmed@example.com', 'Eve Pending', [[double, 'unconfirmed']]);
    addSubscriber(db, 'blocked@example.com', 'Fay Blocked', [[single, 'confirmed']], 'blocklisted');
    addSubscriber(db, 'both@example.com', 'Gus Both', [[single, 'confirmed'], [double, 'confirmed']]);
    addSubscriber(db, 'both-mixed@example.com', 'Hal Mixed', [[single, 'unsubscribed'], [double, 'confirmed']]);
    addSubscriber(db, 'elsewhere@example.com', 'Ivy Other', []);
    expected = ['both-mixed@example.com', 'both@example.com', 'double-confirmed@example.com', 'single-confirmed@example.com', 'single-unconfirmed@example.com'];

    const r = await t.request('POST', '/api/campaigns', {
      name: 'Mixed', subject: 'Hello {{ .Subscriber.Name }}', lists: [single, double], from_email: 'News <news@example.com>',
      content_type: 'html', body: '<p>Dear {{ .Subscriber.Name }}</p><p><a href="{{ TrackLink "https://example.org/read?a=1" . }}">Read</a></p>{{ TrackView . }}',
      headers: [{ 'X-Custom': 'for {{ .Subscriber.Email }}' }, { 'X-Listmonk-Campaign': 'spoofed' }],
    });
    assert.equal(r.status, 200, r.text);
    camp = r.body.data;
    assert.equal(r.body.data.status, 'draft');
    const s = await t.request('PUT', `/api/campaigns/${camp.id}/status`, { status: 'running' });
    assert.equal(s.status, 200, s.text);
    await until('campaign to finish', async () => (await campaignStatus(camp.id)).status === 'finished');
  });

  it('reaches exactly the eligible subscribers, each once', async () => {
    const to = received(camp.uuid).map((m) => m.to[0]).sort();
    assert.deepEqual(to, expected);
    const c = await campaignStatus(camp.id);
    assert.equal(c.to_send, expected.length);
    assert.equal(c.sent, expected.length);
    assert.equal(typeof c.views, 'number');
  });

  it('renders per subscriber with the listmonk headers and a text alternative', () => {
    const m = received(camp.uuid).find((x) => x.to[0] === 'both@example.com')!;
    assert.equal(m.parsed.subject, 'Hello Gus Both');
    assert.match(String(m.parsed.html), /Dear Gus Both/);
    assert.match(String(m.parsed.html), /<title>Hello Gus Both<\/title>/, 'the default template titles the page with the rendered subject');
    const text = String(m.parsed.text);
    assert.match(text, /Dear Gus Both/);
    assert.match(text, new RegExp(`Read <${t.url}/link/[0-9a-f-]{36}/${camp.uuid}/`));
    assert.doesNotMatch(text, /<img|px\.png|\{\{/);
    assert.equal(m.parsed.headers.get('x-listmonk-campaign'), camp.uuid);
    assert.equal(m.parsed.headers.get('x-custom'), 'for both@example.com');
    const subUuid = t.server.ctx.db.prepare('SELECT uuid FROM subscribers WHERE email = ?').pluck().get('both@example.com');
    assert.equal(m.parsed.headers.get('x-listmonk-subscriber'), subUuid);
    const unfolded = m.raw.replace(/\r\n[ \t]+/g, ' ');
    assert.ok(unfolded.includes(`List-Unsubscribe: <${t.url}/subscription/${camp.uuid}/${subUuid}>\r\n`));
    assert.ok(unfolded.includes('List-Unsubscribe-Post: List-Unsubscribe=One-Click\r\n'));
    const ids = received(camp.uuid).map((x) => x.parsed.messageId);
    assert.equal(new Set(ids).size, ids.length);
    assert.match(ids[0]!, /^<[A-Za-z0-9]{24}@example\.com>$/);
  });

  it('records a click when the link in the mail is followed, and redirects', async () => {
    const m = received(camp.uuid)[0];
    const link = /href="([^"]*\/link\/[^"]+)"/.exec(String(m.parsed.html))![1];
    assert.ok(link.startsWith(`${t.url}/link/`));
    const res = await fetch(link, { redirect: 'manual' });
    assert.equal(res.status, 307);
    assert.equal(res.headers.get('location'), 'https://example.org/read?a=1');
    const pixel = /<img src="([^"]*px\.png)"/.exec(String(m.parsed.html))![1];
    const px = await fetch(pixel);
    assert.equal(px.headers.get('content-type'), 'image/png');
    const c = await campaignStatus(camp.id);
    assert.equal(c.clicks, 1);
    assert.equal(c.views, 1);
  });

  it('answers analytics that match the recorded views and clicks', async () => {
    const day = new Date().toISOString().slice(0, 10);
    const next = new Date(Date.now() + 86400_000).toISOString().slice(0, 10);
    for (const [type, count] of [['views', 1], ['clicks', 1]] as const) {
      const r = await t.request('GET', `/api/campaigns/analytics/${type}?id=${camp.id}&from=${day}&to=${next}`);
      assert.equal(r.status, 200, r.text);
      assert.equal(r.body.data.reduce((n: number, b: { count: number }) => n + b.count, 0), count);
      assert.equal(r.body.data[0].campaign_id, camp.id);
    }
    const links = await t.request('GET', `/api/campaigns/analytics/links?id=${camp.id}&from=${day}&to=${next}`);
    assert.deepEqual(links.body.data, [{ url: 'https://example.org/read?a=1', count: 1 }]);
    const bad = await t.request('GET', `/api/campaigns/analytics/opens?id=${camp.id}&from=${day}&to=${next}`);
    assert.equal(bad.status, 400);
    const noId = await t.request('GET', `/api/campaigns/analytics/views?from=${day}&to=${next}`);
    assert.equal(noId.status, 400);
  });

  it('shows the web view only to recipients', async () => {
    const subUuid = t.server.ctx.db.prepare('SELECT uuid FROM subscribers WHERE email = ?').pluck().get('both@example.com');
    const ok = await fetch(`${t.url}/campaign/${camp.uuid}/${subUuid}`);
    assert.equal(ok.status, 200);
    assert.equal(ok.headers.get('content-security-policy'), 'sandbox', 'campaign HTML is sandboxed');
    assert.match(await ok.text(), /Dear Gus Both/);
    const other = t.server.ctx.db.prepare('SELECT uuid FROM subscribers WHERE email = ?').pluck().get('blocked@example.com');
    assert.equal((await fetch(`${t.url}/campaign/${camp.uuid}/${other}`)).status, 404);
  });

  it('sends the admins the finished notice, rendered from the campaign-status template', async () => {
    const notice = await until('the notice', () => sink.messages.find((m) => m.parsed.subject === 'Finished: Mixed'));
    assert.deepEqual(notice.to, ['admin@example.com']);
    const html = String(notice.parsed.html);
    assert.match(html, /^<!doctype html>/);
    assert.match(html, /<h1>Campaign status changed<\/h1>/);
    assert.ok(html.includes(`<a href="${t.url}/admin/campaigns/${camp.id}">Mixed</a>`));
    assert.match(html, /<strong>Finished<\/strong>/);
    assert.match(html, /5 \/ 5/);
    assert.doesNotMatch(html, /Reason/);
    assert.match(String(notice.parsed.text), /Status\s+Finished/);
  });

  it('unsubscribes with one click from the List-Unsubscribe URL; the next campaign skips the subscriber', async () => {
    const db = t.server.ctx.db;
    const m = received(camp.uuid).find((x) => x.to[0] === 'single-confirmed@example.com')!;
    const header = m.raw.replace(/\r\n[ \t]+/g, ' ').match(/^List-Unsubscribe: <([^>]+)>/m)![1];
    const res = await fetch(header, { method: 'POST', body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }) });
    assert.equal(res.status, 200);
    const subId = db.prepare('SELECT id FROM subscribers WHERE email = ?').pluck().get('single-confirmed@example.com');
    const lists = db.prepare('SELECT l.name, sl.status FROM subscriber_lists sl JOIN lists l ON l.id = sl.list_id WHERE sl.subscriber_id = ?').all(subId);
    assert.deepEqual(lists, [{ name: 'Single', status: 'unsubscribed' }]);

    await settings({ 'privacy.unsubscribe_mailto': ' Unsub@Example.com ' });
    try {
      const single = db.prepare(`SELECT id FROM lists WHERE name = 'Single'`).pluck().get();
      const next = (await t.request('POST', '/api/campaigns', { name: 'Next', subject: 'Next', lists: [single], body: '<p>again</p>', content_type: 'html' })).body.data;
      await t.request('PUT', `/api/campaigns/${next.id}/status`, { status: 'running' });
      await until('the next campaign to finish', async () => (await campaignStatus(next.id)).status === 'finished');
      const to = received(next.uuid).map((x) => x.to[0]).sort();
      assert.deepEqual(to, ['both@example.com', 'single-unconfirmed@example.com']);
      const unfolded = received(next.uuid)[0].raw.replace(/\r\n[ \t]+/g, ' ');
      assert.match(unfolded, /List-Unsubscribe: <[^>]+\/subscription\/[^>]+>, <mailto:unsub@example\.com\?subject=unsubscribe>\r\n/);
    } finally {
      await settings({ 'privacy.unsubscribe_mailto': '' });
    }
    const bad = await t.request('PUT', '/api/settings', { 'privacy.unsubscribe_mailto': 'not an address' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /privacy\.unsubscribe_mailto/);
  });
});

describe('pause, resume and cancel', () => {
  it('pauses within a batch and resumes without repeating or skipping anyone', async () => {
    await settings({ 'app.concurrency': 1, 'app.message_rate': 20 });
    const db = t.server.ctx.db;
    const list = addList(db, 'Pause list', 'single');
    const emails = addMany(db, list, 'pause', 40);
    const c = (await t.request('POST', '/api/campaigns', { name: 'Pausing', subject: 'P', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
    await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    await until('a few messages', () => received(c.uuid).length >= 5);
    const p = await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'paused' });
    assert.equal(p.status, 200);
    assert.equal(p.body.data.status, 'paused');
    await idle(c.id);
    const atPause = received(c.uuid).length;
    assert.ok(atPause < emails.length, `sent ${atPause} of ${emails.length} before pausing`);
    assert.equal((await campaignStatus(c.id)).sent, atPause);

    await settings({ 'app.concurrency': 4, 'app.message_rate': 1000 });
    await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    await until('campaign to finish', async () => (await campaignStatus(c.id)).status === 'finished');
    const to = received(c.uuid).map((m) => m.to[0]).sort();
    assert.deepEqual(to, emails);
    assert.equal((await campaignStatus(c.id)).sent, emails.length);
  });

  it('cancels: nothing more is sent', async () => {
    await settings({ 'app.concurrency': 1, 'app.message_rate': 20 });
    const db = t.server.ctx.db;
    const list = addList(db, 'Cancel list', 'single');
    const emails = addMany(db, list, 'cancel', 40);
    const c = (await t.request('POST', '/api/campaigns', { name: 'Cancelling', subject: 'C', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
    await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    await until('a few messages', () => received(c.uuid).length >= 3);
    const r = await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'cancelled' });
    assert.equal(r.body.data.status, 'cancelled');
    await idle(c.id);
    const n = received(c.uuid).length;
    assert.ok(n < emails.length);
    const again = await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    assert.equal(again.status, 400);
    assert.equal((await campaignStatus(c.id)).status, 'cancelled');
    await settings({ 'app.concurrency': 4, 'app.message_rate': 1000 });
  });
});

describe('send errors', () => {
  it('pauses at the error threshold and sends the admins the paused notice with the reason', async () => {
    // The campaign goes through a postback messenger that always fails; the notice goes by e-mail.
    const hook = createServer((_req, res) => res.writeHead(500).end('down'));
    await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
    try {
      await settings({
        messengers: [{ enabled: true, name: 'failing', root_url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`, username: '', password: '', max_conns: 1, timeout: '5s', max_msg_retries: 0 }],
        'app.max_send_errors': 2,
        // The receiver is local.
        'security.allow_private_outbound': true,
      });
      const db = t.server.ctx.db;
      const list = addList(db, 'Hook list', 'single');
      addMany(db, list, 'hook', 6);
      const c = (await t.request('POST', '/api/campaigns', { name: 'Hooked', subject: 'H', lists: [list], body: '<p>x</p>', content_type: 'html', messenger: 'failing' })).body.data;
      await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
      const notice = await until('the paused notice', () => sink.messages.find((m) => m.parsed.subject === 'Paused: Hooked'));
      const html = String(notice.parsed.html);
      assert.match(html, /<strong>Paused<\/strong>/);
      assert.match(html, /Reason[\s\S]*Too many errors \(2\); last: postback failing: HTTP 500/);
      assert.equal((await campaignStatus(c.id)).status, 'paused');
    } finally {
      await settings({ messengers: [], 'app.max_send_errors': 1000, 'security.allow_private_outbound': false });
      hook.close();
    }
  });

  it('logs messages that do not render: the first 20 in full, then a count; the others are sent', async () => {
    const db = t.server.ctx.db;
    const list = addList(db, 'Render list', 'single');
    // Attribs numbers are float64: comparing one with an int literal fails, as in Go (25 of 30 here).
    const f = fixtures(db);
    for (let i = 0; i < 30; i++) f.subscriber({ name: `Reader render ${i}`, attribs: i < 25 ? { n: 1 } : {}, lists: [list] });
    const c = (await t.request('POST', '/api/campaigns', { name: 'Renders', subject: 'R', lists: [list], body: '<p>{{ if eq .Subscriber.Attribs.n 1 }}one{{ end }}</p>', content_type: 'html' })).body.data;
    await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    await until('campaign to finish', async () => (await campaignStatus(c.id)).status === 'finished');
    assert.equal(received(c.uuid).length, 5);
    const lines = ((await t.request('GET', '/api/logs')).body.data as string[]).filter((l) => l.includes(`campaign ${c.id}: `) && / ERROR /.test(l));
    const renderLines = lines.filter((l) => /message to subscriber \d+ does not render: .*incompatible types for comparison/.test(l));
    assert.equal(renderLines.length, 20);
    assert.match(renderLines[19], /further failures of this run are counted, not logged/);
    assert.ok(lines.some((l) => l.endsWith(`campaign ${c.id}: 25 messages failed in this run`)), lines.join('\n'));
  });

  it('pauses the campaign when app.max_send_errors is reached', async () => {
    const failing = await startSmtpSink({ rejectWith: { code: 550, message: 'No such user' } });
    try {
      await settings({ smtp: [failing.settingsBlock()], 'app.max_send_errors': 3 });
      const db = t.server.ctx.db;
      const list = addList(db, 'Fail list', 'single');
      addMany(db, list, 'fail', 10);
      const c = (await t.request('POST', '/api/campaigns', { name: 'Failing', subject: 'F', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
      await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
      await until('campaign to pause', async () => (await campaignStatus(c.id)).status === 'paused');
      const reason = db.prepare('SELECT status_reason FROM campaigns WHERE id = ?').pluck().get(c.id) as string;
      assert.match(reason, /Too many errors/);
      const failed = db.prepare(`SELECT COUNT(*) FROM campaign_sends WHERE campaign_id = ? AND status = 'failed'`).pluck().get(c.id) as number;
      assert.ok(failed >= 3);
      const logs = ((await t.request('GET', '/api/logs')).body.data as string[]).join('\n');
      assert.match(logs, new RegExp(`ERROR campaign ${c.id}: message to subscriber \\d+ failed: .*No such user`));
      assert.equal((await campaignStatus(c.id)).sent, 0);
    } finally {
      await settings({ smtp: [sink.settingsBlock({ max_conns: 2 })], 'app.max_send_errors': 1000 });
      await failing.close();
    }
  });
});
