// bounce.recorded, and the changes a bounce's action makes (blocklisted, deleted, unsubscribed),
// in the transaction that records the bounce; the bounces page's "blocklist all" as a bulk change.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { addConsumer, eventsAfter, lastEventId, testerActor } from './recorded.ts';

let t: TestServer;
let wanted: Set<string>;
let list: number;

const NONE = { soft: { count: 100, action: 'none' }, hard: { count: 100, action: 'none' }, complaint: { count: 100, action: 'none' } };
const setSettings = async (s: Record<string, unknown>) => assert.equal((await t.request('PUT', '/api/settings', s)).status, 200);
const post = async (body: unknown) => assert.equal((await t.request('POST', '/webhooks/bounce', body)).status, 200);
const subscriber = async (id: number) => (await t.request('GET', `/api/subscribers/${id}`)).body.data;
const bounceListed = async (id: number) => ((await t.request('GET', '/api/bounces?per_page=all')).body.data.results as { id: number; subscriber_id: number }[]).find((b) => b.id === id);
const lastBounceId = () => t.server.ctx.db.prepare('SELECT MAX(id) FROM bounces').pluck().get() as number;

before(async () => {
  t = await startTestServer();
  await setSettings({ 'bounce.enabled': true, 'bounce.webhooks_enabled': true, 'bounce.actions': NONE });
  wanted = addConsumer(t);
  list = fixtures(t.server.ctx.db).list({ name: 'Bounced' }).id;
});
after(() => t.stop());

const reader = (email: string) => fixtures(t.server.ctx.db).subscriber({ email, lists: [list] });

describe('bounce events', () => {
  it('bounce.recorded: once, by the caller, with the bounce as GET /api/bounces lists it', async () => {
    const s = reader('soft@example.com');
    const camp = fixtures(t.server.ctx.db).campaign({ name: 'Bounced campaign' });
    const mark = lastEventId(t);
    await post({ email: 'soft@example.com', type: 'soft', source: 'api', campaign_uuid: camp.uuid, meta: { code: '4.2.2' } });
    const events = eventsAfter(t, mark);
    assert.deepEqual(events.map((e) => e.type), ['bounce.recorded']);
    assert.deepEqual(events[0].actor, testerActor(t));
    const listed = await bounceListed(lastBounceId());
    assert.equal(listed?.subscriber_id, s.id);
    assert.deepEqual(events[0].data, { bounce: listed });
  });

  it('a bounce that blocklists its subscriber: bounce.recorded, then subscriber.blocklisted', async () => {
    const s = reader('hard@example.com');
    await setSettings({ 'bounce.actions': { ...NONE, hard: { count: 1, action: 'blocklist' } } });
    const mark = lastEventId(t);
    await post({ email: 'hard@example.com', type: 'hard', source: 'api' });
    const events = eventsAfter(t, mark);
    assert.deepEqual(events.map((e) => e.type), ['bounce.recorded', 'subscriber.blocklisted']);
    assert.deepEqual(events[1].actor, testerActor(t));
    assert.deepEqual(events[1].data, { subscriber: await subscriber(s.id) });
    assert.equal(events[1].data.subscriber.status, 'blocklisted');
  });

  it('a bounce that deletes its subscriber: subscriber.deleted with the subscriber as they were (no bounce is kept)', async () => {
    const s = reader('complaint@example.com');
    const before = await subscriber(s.id);
    await setSettings({ 'bounce.actions': { ...NONE, complaint: { count: 1, action: 'delete' } } });
    const mark = lastEventId(t);
    await post({ email: 'complaint@example.com', type: 'complaint', source: 'api' });
    const events = eventsAfter(t, mark);
    assert.deepEqual(events.map((e) => e.type), ['subscriber.deleted']);
    assert.deepEqual(events[0].data, { subscriber: before });
  });

  it('a bounce that unsubscribes its subscriber: subscription.unsubscribed for each list left', async () => {
    const s = reader('unsub@example.com');
    await setSettings({ 'bounce.actions': { ...NONE, soft: { count: 1, action: 'unsubscribe' } } });
    const mark = lastEventId(t);
    await post({ email: 'unsub@example.com', type: 'soft', source: 'api' });
    const events = eventsAfter(t, mark);
    assert.deepEqual(events.map((e) => e.type), ['bounce.recorded', 'subscription.unsubscribed']);
    assert.equal(events[1].data.subscriber.id, s.id);
    assert.equal(events[1].data.list.id, list);
    assert.equal(events[1].data.status, 'unsubscribed');
    await setSettings({ 'bounce.actions': NONE });
  });

  it('"blocklist every bounced subscriber" writes subscriber.blocklisted per subscriber only while a consumer wants it', async () => {
    await setSettings({ 'bounce.actions': NONE });
    const first = reader('bulk1@example.com');
    await post({ email: 'bulk1@example.com', type: 'soft', source: 'api' });
    wanted.clear();
    let mark = lastEventId(t);
    assert.equal((await t.request('PUT', '/api/bounces/blocklist')).status, 200);
    assert.deepEqual(eventsAfter(t, mark), [], 'a bulk change without a consumer writes no per-subscriber event');
    assert.equal((await subscriber(first.id)).status, 'blocklisted');

    const second = reader('bulk2@example.com');
    await post({ email: 'bulk2@example.com', type: 'soft', source: 'api' });
    wanted.add('subscriber.blocklisted');
    mark = lastEventId(t);
    assert.equal((await t.request('PUT', '/api/bounces/blocklist')).status, 200);
    const events = eventsAfter(t, mark);
    assert.deepEqual(events.map((e) => [e.type, e.data.subscriber.id]), [['subscriber.blocklisted', second.id]]);
    assert.deepEqual(events[0].actor, testerActor(t));
  });
});
