// A double opt-in list's opt-in action (GET/POST /api/lists/:id/optin): the list's unconfirmed
// subscribers get the opt-in confirmation mail, sent by the sending engine under its rate
// limits, each at most once per 24 hours.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { until } from '../campaigns/fixtures.ts';
import { adminSession, apiAs, userWithRole } from '../helpers/admin.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

/** A server whose SMTP is the sink, with the automatic opt-in mail off (so only the action mails). */
async function serverWithSink(settings: Record<string, unknown> = {}): Promise<{ t: TestServer; sink: SmtpSink }> {
  const t = await startTestServer();
  const sink = await startSmtpSink();
  await useSmtpSink(t, sink);
  const res = await t.request('PUT', '/api/settings', { 'app.send_optin_confirmation': false, ...settings });
  assert.equal(res.status, 200, res.text);
  return { t, sink };
}

async function list(t: TestServer, name: string, optin: 'single' | 'double'): Promise<{ id: number; uuid: string }> {
  const res = await t.request('POST', '/api/lists', { name, type: 'private', optin });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

async function subscriber(t: TestServer, email: string, lists: number[], over: Record<string, unknown> = {}): Promise<{ id: number; uuid: string }> {
  const res = await t.request('POST', '/api/subscribers', { email, name: email.split('@')[0], lists, ...over });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

function optinRows(t: TestServer): { subscriber_id: number; list_id: number; status: string }[] {
  const db = new Database(t.dbPath, { readonly: true });
  try {
    return db.prepare('SELECT subscriber_id, list_id, status FROM optin_mails ORDER BY id').all() as { subscriber_id: number; list_id: number; status: string }[];
  } finally {
    db.close();
  }
}

describe('a double opt-in list\'s opt-in action', () => {
  let t: TestServer;
  let sink: SmtpSink;
  let dbl: { id: number; uuid: string };
  let single: { id: number; uuid: string };
  const unconfirmed: Record<string, { id: number; uuid: string }> = {};

  before(async () => {
    ({ t, sink } = await serverWithSink());
    dbl = await list(t, 'Imported readers', 'double');
    single = await list(t, 'Single list', 'single');
    for (const e of ['ann@example.com', 'bob@example.com', 'cy@example.com']) unconfirmed[e] = await subscriber(t, e, [dbl.id]);
    await subscriber(t, 'confirmed@example.com', [dbl.id], { preconfirm_subscriptions: true });
    const gone = await subscriber(t, 'gone@example.com', [dbl.id]);
    assert.equal((await t.request('PUT', '/api/subscribers/lists', { ids: [gone.id], action: 'unsubscribe', target_list_ids: [dbl.id] })).status, 200);
    const blocked = await subscriber(t, 'blocked@example.com', [dbl.id]);
    assert.equal((await t.request('PUT', `/api/subscribers/${blocked.id}/blocklist`)).status, 200);
    await subscriber(t, 'single@example.com', [single.id]);
  });
  after(async () => {
    await t.stop();
    await sink.close();
  });

  it('counts the unconfirmed subscribers it would mail', async () => {
    const res = await t.request('GET', `/api/lists/${dbl.id}/optin`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { data: { unconfirmed: 3, sendable: 3 } });
  });

  it('sends each unconfirmed subscriber exactly one opt-in mail for the list', async () => {
    const res = await t.request('POST', `/api/lists/${dbl.id}/optin`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { data: { queued: 3 } });
    const mails = await sink.waitFor(3);
    assert.deepEqual(mails.flatMap((m) => m.to).sort(), Object.keys(unconfirmed).sort());
    for (const m of mails) {
      const sub = unconfirmed[m.to[0]];
      // The mail a new double opt-in subscriber gets: its confirmation link names this list.
      assert.match(String(m.parsed.html), new RegExp(`/subscription/optin/${sub.uuid}\\?l=${dbl.uuid}`));
      assert.equal(m.parsed.headers.get('x-listmonk-subscriber'), sub.uuid);
    }
  });

  it('mails nobody a second time within 24 hours', async () => {
    assert.deepEqual((await t.request('GET', `/api/lists/${dbl.id}/optin`)).body, { data: { unconfirmed: 3, sendable: 0 } });
    const again = await t.request('POST', `/api/lists/${dbl.id}/optin`);
    assert.equal(again.status, 200, again.text);
    assert.deepEqual(again.body, { data: { queued: 0 } });
    // A newcomer is queued by the next call, and is the only one mailed: the second call sent none.
    const dan = await subscriber(t, 'dan@example.com', [dbl.id]);
    assert.deepEqual((await t.request('POST', `/api/lists/${dbl.id}/optin`)).body, { data: { queued: 1 } });
    const mails = await sink.waitFor(4);
    assert.equal(mails.length, 4);
    assert.deepEqual(mails[3].to, ['dan@example.com']);
    const rows = optinRows(t);
    assert.equal(rows.length, 4);
    assert.equal(rows[3].subscriber_id, dan.id);
  });

  it('refuses a single opt-in list, an unknown list and a bad id, queueing nothing', async () => {
    const before = optinRows(t).length;
    for (const method of ['GET', 'POST']) {
      const refused = await t.request(method, `/api/lists/${single.id}/optin`);
      assert.equal(refused.status, 400, refused.text);
      assert.match(refused.body.message, /single opt-in.*double opt-in lists/);
      assert.equal((await t.request(method, '/api/lists/999999/optin')).status, 404);
      assert.equal((await t.request(method, '/api/lists/abc/optin')).status, 400);
    }
    assert.equal(optinRows(t).length, before);
  });

  it('is for those who may manage the list: a list-restricted role only for its own lists', async () => {
    const other = await list(t, 'Other double', 'double');
    await subscriber(t, 'other@example.com', [other.id]);
    const manager = await userWithRole(t, ['subscribers:get'], [{ id: other.id, permissions: ['list:get', 'list:manage'] }, { id: dbl.id, permissions: ['list:get'] }]);
    const session = await adminSession(t, manager.username, manager.password);
    const before = optinRows(t).length;
    for (const method of ['GET', 'POST']) {
      const refused = await apiAs(t, session, method, `/api/lists/${dbl.id}/optin`);
      assert.equal(refused.status, 403, refused.text);
    }
    assert.equal(optinRows(t).length, before);
    assert.deepEqual((await apiAs(t, session, 'GET', `/api/lists/${other.id}/optin`)).body, { data: { unconfirmed: 1, sendable: 1 } });
    assert.deepEqual((await apiAs(t, session, 'POST', `/api/lists/${other.id}/optin`)).body, { data: { queued: 1 } });
    const mails = await sink.waitFor(5);
    assert.deepEqual(mails[4].to, ['other@example.com']);
  });
});

describe('opt-in mails sent on subscribing count for the 24-hour rule', () => {
  let t: TestServer;
  let sink: SmtpSink;
  before(async () => {
    ({ t, sink } = await serverWithSink({ 'app.send_optin_confirmation': true }));
  });
  after(async () => {
    await t.stop();
    await sink.close();
  });

  it('does not mail again a subscriber who was just sent the opt-in mail', async () => {
    const dbl = await list(t, 'Readers', 'double');
    await subscriber(t, 'new@example.com', [dbl.id]);
    await sink.waitFor(1);
    assert.equal((await t.request('PUT', '/api/settings', { 'app.send_optin_confirmation': false })).status, 200);
    await subscriber(t, 'imported@example.com', [dbl.id]);
    assert.deepEqual((await t.request('GET', `/api/lists/${dbl.id}/optin`)).body, { data: { unconfirmed: 2, sendable: 1 } });
    assert.deepEqual((await t.request('POST', `/api/lists/${dbl.id}/optin`)).body, { data: { queued: 1 } });
    const mails = await sink.waitFor(2);
    assert.deepEqual(mails.map((m) => m.to), [['new@example.com'], ['imported@example.com']]);
  });
});

describe('the opt-in action without an SMTP server', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    const smtp = (await t.request('GET', '/api/settings')).body.data.smtp as Record<string, unknown>[];
    const res = await t.request('PUT', '/api/settings', { 'app.send_optin_confirmation': false, smtp: smtp.map((s) => ({ ...s, enabled: false })) });
    assert.equal(res.status, 200, res.text);
  });
  after(() => t.stop());

  it('refuses with the reason and queues nothing', async () => {
    const dbl = await list(t, 'Readers', 'double');
    await subscriber(t, 'x@example.com', [dbl.id]);
    const res = await t.request('POST', `/api/lists/${dbl.id}/optin`);
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.message, /no SMTP server is enabled/);
    assert.deepEqual(optinRows(t), []);
  });
});

describe('the opt-in mails go through the sending engine\'s rate limits', () => {
  let t: TestServer;
  let sink: SmtpSink;
  before(async () => {
    // At most 2 messages an hour, as the campaigns: the third opt-in mail must wait its turn.
    ({ t, sink } = await serverWithSink({ 'app.message_sliding_window': true, 'app.message_sliding_window_duration': '1h', 'app.message_sliding_window_rate': 2 }));
  });
  after(async () => {
    await t.stop();
    await sink.close();
  });

  it('queues them all at once and sends them as the limits allow', async () => {
    const dbl = await list(t, 'Readers', 'double');
    for (const e of ['a@example.com', 'b@example.com', 'c@example.com']) await subscriber(t, e, [dbl.id]);
    assert.deepEqual((await t.request('POST', `/api/lists/${dbl.id}/optin`)).body, { data: { queued: 3 } });
    await sink.waitFor(2);
    await until('two opt-in mails recorded as sent', () => optinRows(t).filter((r) => r.status === 'sent').length === 2 || null);
    assert.deepEqual(optinRows(t).map((r) => r.status), ['sent', 'sent', 'queued']);
    assert.equal(sink.messages.length, 2);
    // Still queued, so not mailed again by another call: each subscriber once.
    assert.deepEqual((await t.request('POST', `/api/lists/${dbl.id}/optin`)).body, { data: { queued: 0 } });
  });
});
