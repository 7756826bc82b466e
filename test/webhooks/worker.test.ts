// The webhook dispatcher and delivery worker against real receivers on the loopback (with
// security.webhooks_allow_private on): Standard Webhooks signatures checked by the
// specification's own library, retries with the same webhook-id, the failed state, the two
// signatures of a rotation, fan-out by event type, caps that keep a slow endpoint from
// delaying another, and auto-disable after the (shortened) window.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { VERSION } from '../../src/config.ts';
import type { DB } from '../../src/db/connection.ts';
import { eventBody } from '../../src/webhooks/body.ts';
import { until } from '../campaigns/fixtures.ts';
import { adminSession, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { useFreshServer } from '../helpers/server.ts';
import { addWebhook, deliveriesOf, newSecret, recordEvent, startReceiver, type Receiver } from './receivers.ts';

const allowPrivate = (db: DB) => {
  db.prepare(`INSERT INTO settings (key, value) VALUES ('security.webhooks_allow_private', 'true')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run();
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const receivers: Receiver[] = [];
async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}
after(() => Promise.all(receivers.map((r) => r.close())));

describe('webhook deliveries', () => {
  // Two retries, 100 ms apart: a delivery fails on its third attempt.
  const server = useFreshServer({ setup: allowPrivate, env: { LISTMGR_WEBHOOK_BACKOFF: '100ms,100ms' } });
  const ctx = () => server().server.ctx;
  const event = (type: Parameters<typeof recordEvent>[2], data: Record<string, unknown> = { n: 1 }) => recordEvent(ctx().db, ctx().events, type, data);

  it('signs each delivery to the Standard Webhooks specification, with the event as its body', async () => {
    const r = await receiver();
    const { secret } = addWebhook(ctx().db, { url: r.url });
    const e = event('list.created', { list: { id: 7, name: 'Readers "A" ü' } });
    await until('the delivery', () => r.received.length === 1);
    const [got] = r.received;
    const row = ctx().db.prepare('SELECT type, occurred_at, data FROM events WHERE id = ?').get(e.id) as { type: string; occurred_at: string; data: string };
    assert.equal(got.body, eventBody(row));
    assert.deepEqual(JSON.parse(got.body), { type: 'list.created', timestamp: row.occurred_at, data: { list: { id: 7, name: 'Readers "A" ü' } } });
    assert.equal(got.headers['content-type'], 'application/json');
    assert.equal(got.headers['user-agent'], `listmgr/${VERSION}`);
    assert.equal(got.headers['webhook-id'], e.uuid);
    assert.ok(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000) < 10, 'webhook-timestamp is the Unix time of the attempt');
    assert.deepEqual(new Webhook(secret).verify(got.body, got.headers as Record<string, string>), JSON.parse(got.body));
    assert.throws(() => new Webhook(newSecret()).verify(got.body, got.headers as Record<string, string>), /No matching signature/);
  });

  it('retries a 500 with the same webhook-id, and a 200 then delivers it after 2 attempts', async () => {
    const r = await receiver((_, n) => (n === 0 ? 500 : 200));
    const { id } = addWebhook(ctx().db, { url: r.url });
    const e = event('list.updated');
    const [d] = await until('delivered', () => deliveriesOf(ctx().db, id).find((x) => x.status === 'delivered') && deliveriesOf(ctx().db, id));
    assert.deepEqual(r.ids(), [e.uuid, e.uuid]);
    assert.equal(d.attempts, 2);
    assert.equal(d.response_status, 200);
    assert.equal(d.response_body, 'answered 200');
    assert.ok(d.delivered_at);
    assert.equal(d.lease_until, null);
    const hook = ctx().db.prepare('SELECT enabled, failing_since FROM webhooks WHERE id = ?').get(id);
    assert.deepEqual(hook, { enabled: 1, failing_since: null }, 'the success ended the failing streak');
  });

  it('gives a delivery up as failed after its last retry, with the last answer kept', async () => {
    const r = await receiver(() => 503);
    const { id } = addWebhook(ctx().db, { url: r.url });
    event('list.deleted');
    const [d] = await until('failed', () => deliveriesOf(ctx().db, id).find((x) => x.status === 'failed') && deliveriesOf(ctx().db, id));
    assert.equal(d.attempts, 3);
    assert.equal(d.response_status, 503);
    assert.equal(d.response_body, 'answered 503');
    assert.equal(d.delivered_at, null);
    await sleep(300);
    assert.equal(r.received.length, 3, 'no attempt after the last');
    assert.ok(ctx().db.prepare('SELECT failing_since FROM webhooks WHERE id = ?').pluck().get(id), 'its failing streak began');
  });

  it('retries a delivery whose endpoint cannot be reached, with the reason and no answer', async () => {
    const closed = await startReceiver();
    await closed.close();
    const { id } = addWebhook(ctx().db, { url: `${closed.url}?token=secret-in-the-url` });
    event('list.created');
    const [d] = await until('the first attempt', () => deliveriesOf(ctx().db, id).find((x) => x.attempts > 0) && deliveriesOf(ctx().db, id));
    assert.equal(d.response_status, null);
    assert.match(d.error, /ECONNREFUSED/);
    assert.ok(!d.error.includes('secret-in-the-url'), d.error);
  });

  it('signs with the rotated-out secret too while it still signs, and only with the new one after', async () => {
    const r = await receiver();
    const [oldSecret, newer] = [newSecret(), newSecret()];
    const { id } = addWebhook(ctx().db, { url: r.url, secret: newer, previous_secret: oldSecret, previous_secret_until: new Date(Date.now() + 3_600_000).toISOString() });
    event('campaign.created');
    await until('the delivery', () => r.received.length === 1);
    const overlap = r.received[0];
    assert.equal(String(overlap.headers['webhook-signature']).split(' ').length, 2);
    for (const secret of [oldSecret, newer]) new Webhook(secret).verify(overlap.body, overlap.headers as Record<string, string>);

    ctx().db.prepare('UPDATE webhooks SET previous_secret_until = ? WHERE id = ?').run(new Date(Date.now() - 1000).toISOString(), id);
    event('campaign.started');
    await until('the delivery', () => r.received.length === 2);
    const later = r.received[1];
    assert.equal(String(later.headers['webhook-signature']).split(' ').length, 1);
    new Webhook(newer).verify(later.body, later.headers as Record<string, string>);
    assert.throws(() => new Webhook(oldSecret).verify(later.body, later.headers as Record<string, string>), /No matching signature/);
  });

  it('fans each event out only to the enabled webhooks that subscribed to its type, from their creation on', async () => {
    const early = event('list.created');
    const r = await receiver();
    const db = ctx().db;
    const subscribers = addWebhook(db, { url: `${r.url}?subscribers`, events: ['subscriber.created', 'subscriber.deleted'] }).id;
    const lists = addWebhook(db, { url: `${r.url}?lists`, events: ['list.created'] }).id;
    const all = addWebhook(db, { url: `${r.url}?all`, events: ['*'] }).id;
    const disabled = addWebhook(db, { url: `${r.url}?disabled`, events: ['*'], enabled: false }).id;
    const types = ['subscriber.created', 'list.created', 'subscriber.deleted', 'campaign.finished', 'webhook.test'] as const;
    const ids = Object.fromEntries(types.map((type) => [type, event(type).id]));
    await until('every delivery', () => r.received.length === 2 + 1 + 4);
    const typesOf = (webhook: number) => (db.prepare(`SELECT e.type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.webhook_id = ? ORDER BY e.id`).pluck().all(webhook) as string[]);
    assert.deepEqual(typesOf(subscribers), ['subscriber.created', 'subscriber.deleted']);
    assert.deepEqual(typesOf(lists), ['list.created']);
    assert.deepEqual(typesOf(all), ['subscriber.created', 'list.created', 'subscriber.deleted', 'campaign.finished'], 'every type but webhook.test, none from before it');
    assert.deepEqual(typesOf(disabled), []);
    const typesSentTo = (q: string) => r.received.filter((x) => x.url.endsWith(`?${q}`)).map((x) => JSON.parse(x.body).type as string);
    assert.deepEqual(typesSentTo('subscribers'), ['subscriber.created', 'subscriber.deleted']);
    assert.deepEqual(typesSentTo('lists'), ['list.created']);
    assert.deepEqual(typesSentTo('all').sort(), ['campaign.finished', 'list.created', 'subscriber.created', 'subscriber.deleted']);
    const cursor = db.prepare(`SELECT last_event_id FROM event_cursors WHERE consumer = 'webhooks'`).pluck().get() as number;
    assert.ok(cursor >= ids['webhook.test'] && cursor > early.id, 'the cursor moved past them');
  });

  it('never lets a receiver that does not answer delay another endpoint', async () => {
    const stuck = await receiver(() => 'hang');
    const quick = await receiver();
    addWebhook(ctx().db, { url: stuck.url });
    addWebhook(ctx().db, { url: quick.url });
    const t0 = Date.now();
    const uuids = Array.from({ length: 40 }, (_, n) => event('list.updated', { n }).uuid);
    await until('all delivered to the quick one', () => quick.received.length === 40, 5000);
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    assert.deepEqual(new Set(quick.ids()), new Set(uuids));
    await until('the stuck one holding its share', () => stuck.received.length === 8);
    await sleep(300);
    assert.equal(stuck.received.length, 8, 'the stuck one holds its own share of requests only');
    const health = await server().request('GET', '/health');
    assert.equal(health.status, 200);
  });

  it('keeps the deliveries of a disabled webhook waiting until it is enabled again', async () => {
    const r = await receiver();
    const { id } = addWebhook(ctx().db, { url: r.url });
    ctx().db.prepare('UPDATE webhooks SET enabled = 0 WHERE id = ?').run(id);
    // The delivery of an event from before the webhook was disabled.
    const e = recordEvent(ctx().db, ctx().events, 'list.created');
    ctx().db.prepare('INSERT INTO webhook_deliveries (webhook_id, event_id) VALUES (?, ?)').run(id, e.id);
    await sleep(600);
    assert.equal(r.received.length, 0);
    ctx().db.prepare('UPDATE webhooks SET enabled = 1 WHERE id = ?').run(id);
    await until('the delivery', () => r.received.length === 1);
    assert.deepEqual(r.ids(), [e.uuid]);
  });

  it('deliverNow sends a delivery at once and resolves once its outcome is written', async () => {
    const r = await receiver(() => 418);
    const { id } = addWebhook(ctx().db, { url: r.url });
    const e = event('webhook.test', { webhook: { id, name: 'x' }, message: 'hello' });
    const delivery = ctx().db.prepare('INSERT INTO webhook_deliveries (webhook_id, event_id) VALUES (?, ?) RETURNING id').pluck().get(id, e.id) as number;
    await ctx().webhookWorker.deliverNow(delivery);
    const [d] = deliveriesOf(ctx().db, id);
    assert.deepEqual([d.status, d.attempts, d.response_status], ['retrying', 1, 418]);
    assert.deepEqual(r.ids(), [e.uuid]);
  });
});

describe('auto-disable', () => {
  // Retries every 50 ms; an endpoint failing for 300 ms is disabled.
  const server = useFreshServer({ setup: allowPrivate, env: { LISTMGR_WEBHOOK_BACKOFF: '50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms,50ms', LISTMGR_WEBHOOK_DISABLE_AFTER: '300ms' } });
  const ctx = () => server().server.ctx;
  let r: Receiver;
  before(async () => {
    r = await receiver(() => 500);
  });

  it('disables an endpoint whose every delivery failed for the window, with the reason and a log line', async () => {
    const { id } = addWebhook(ctx().db, { url: r.url });
    recordEvent(ctx().db, ctx().events, 'list.created');
    const hook = await until('disabled', () => ctx().db.prepare('SELECT enabled, disabled_reason FROM webhooks WHERE id = ? AND enabled = 0').get(id) as { enabled: number; disabled_reason: string } | undefined);
    assert.match(hook.disabled_reason, /^Disabled on \d{4}-\d\d-\d\d \d\d:\d\d UTC: every delivery failed for 0\.3 seconds \(last: HTTP 500\)$/);
    assert.ok(ctx().log.recent().some((line) => line.includes('WARN') && line.includes(`webhook ${id} `) && line.includes('disabled')));
    const [d] = deliveriesOf(ctx().db, id);
    assert.equal(d.status, 'retrying', 'its delivery waits, not sent while disabled');
    const attempts = r.received.length;
    await sleep(300);
    assert.equal(r.received.length, attempts);
  });

  it('puts the disabled webhooks on the dashboard, with their reasons, for those who may manage webhooks', async () => {
    const { id } = addWebhook(ctx().db, { url: r.url });
    ctx().db.prepare('UPDATE webhooks SET name = ? WHERE id = ?').run(HOSTILE, id);
    recordEvent(ctx().db, ctx().events, 'list.created');
    await until('disabled', () => ctx().db.prepare('SELECT 1 FROM webhooks WHERE id = ? AND enabled = 0').get(id));
    const dash = (await getPage(server(), await adminSession(server()), '/admin')).body;
    const banner = /<section class="banner warn disabled-webhooks"[^>]*>(.*?)<\/section>/s.exec(dash)?.[1] ?? '';
    assert.match(banner, /2 webhooks were disabled: their deliveries kept failing/);
    assert.match(banner, new RegExp(`<a href="/admin/settings/webhooks/${id}">[^<]+</a>: Disabled on [^<]+ \\(last: HTTP 500\\)`));
    assert.match(banner, /<a href="\/admin\/settings\/webhooks">/);
    assertEscaped(dash);
    const manager = await userWithRole(server(), ['webhooks:manage']);
    assert.ok((await getPage(server(), await adminSession(server(), manager.username, manager.password), '/admin')).body.includes('disabled-webhooks'));
    const settings = await userWithRole(server(), ['settings:get', 'settings:manage']);
    assert.ok(!(await getPage(server(), await adminSession(server(), settings.username, settings.password), '/admin')).body.includes('disabled-webhooks'), 'webhooks are shown to those who may manage them only');
  });

  it('a success ends the failing streak, so failures spread over a long time disable nothing', async () => {
    r.answer((_, n) => (n % 2 ? 200 : 500));
    const { id } = addWebhook(ctx().db, { url: r.url });
    for (let i = 0; i < 6; i++) {
      recordEvent(ctx().db, ctx().events, 'list.updated');
      await sleep(100);
    }
    await until('all delivered', () => deliveriesOf(ctx().db, id).filter((d) => d.status === 'delivered').length === 6);
    assert.deepEqual(ctx().db.prepare('SELECT enabled, failing_since FROM webhooks WHERE id = ?').get(id), { enabled: 1, failing_since: null });
  });
});
