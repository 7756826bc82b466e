// The change log's events of what subscribers do themselves (#31): the public subscription API
// and form, the opt-in confirmation, the unsubscribe link (and RFC 8058's one-click POST) with
// the campaign whose mail it came from, the preferences page, blocklisting and wiping from the
// unsubscribe page. Each writes its events once, as the public actor, with the subscriber as GET
// /api/subscribers/{id} gives it; repeating an action writes nothing; a failing one leaves none.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useFreshServer, type TestServer } from '../helpers/server.ts';
import { eventsOf, type LoggedEvent } from '../helpers/events.ts';

const PUBLIC = { type: 'public' };
const ZERO = '00000000-0000-0000-0000-000000000000';

/** Each event as [type, list name or null, subscription status or null]. */
function summary(events: LoggedEvent[]): [string, string | null, string | null][] {
  return events.map((e) => [e.type, e.data.list?.name ?? null, e.data.status ?? null]);
}

describe('events of the public pages and API', () => {
  const server = useFreshServer();
  let t: TestServer;
  const lists: Record<'single' | 'double' | 'other', { id: number; uuid: string }> = { single: { id: 0, uuid: '' }, double: { id: 0, uuid: '' }, other: { id: 0, uuid: '' } };

  before(async () => {
    t = server();
    const set = await t.request('PUT', '/api/settings', {
      'security.public_rate_limit': 0, 'app.send_optin_confirmation': false, 'app.enable_public_subscription_page': true,
      'privacy.allow_preferences': true, 'privacy.allow_blocklist': true, 'privacy.allow_wipe': true,
    });
    assert.equal(set.status, 200, set.text);
    for (const [key, optin] of [['single', 'single'], ['double', 'double'], ['other', 'single']] as const) {
      const list = (await t.request('POST', '/api/lists', { name: `Public ${key}`, type: 'public', optin })).body.data;
      lists[key] = { id: list.id, uuid: list.uuid };
    }
  });

  function post(path: string, form: Record<string, string | string[]> = {}) {
    const body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
    return fetch(t.url + path, { method: 'POST', body, redirect: 'manual' });
  }

  async function postOk(path: string, form: Record<string, string | string[]> = {}): Promise<void> {
    const res = await post(path, form);
    assert.ok(res.status < 400, `${path}: ${res.status} ${await res.text()}`);
  }

  function subscriberId(email: string): { id: number; uuid: string } {
    return t.server.ctx.db.prepare('SELECT id, uuid FROM subscribers WHERE email = ?').get(email) as { id: number; uuid: string };
  }

  const subscriberNow = async (id: number) => (await t.request('GET', `/api/subscribers/${id}`)).body.data;

  /** A subscriber made through the API, confirmed on the given lists. */
  async function subscriber(email: string, on: { id: number }[]): Promise<{ id: number; uuid: string }> {
    const res = await t.request('POST', '/api/subscribers', { email, name: 'Reader', lists: on.map((l) => l.id), preconfirm_subscriptions: true });
    assert.equal(res.status, 200, res.text);
    return { id: res.body.data.id, uuid: res.body.data.uuid };
  }

  async function campaignTo(list: { id: number }): Promise<{ id: number; uuid: string; name: string }> {
    const res = await t.request('POST', '/api/campaigns', { name: `To ${list.id}`, subject: 'S', lists: [list.id], content_type: 'html', body: '<p>x</p>' });
    assert.equal(res.status, 200, res.text);
    return { id: res.body.data.id, uuid: res.body.data.uuid, name: res.body.data.name };
  }

  function assertPublic(events: LoggedEvent[]): void {
    for (const e of events) assert.deepEqual(e.actor, PUBLIC, e.type);
  }

  it('POST /api/public/subscription: subscriber.created and subscription.added as the public; again, nothing', async () => {
    const body = { email: 'api-sub@example.com', name: 'Api Sub', list_uuids: [lists.single.uuid, lists.double.uuid] };
    const subscribe = async () => {
      const res = await t.request('POST', '/api/public/subscription', body, { auth: null });
      assert.equal(res.status, 200, res.text);
    };
    const events = await eventsOf(t, subscribe);
    assert.deepEqual(summary(events), [['subscriber.created', null, null], ['subscription.added', 'Public single', 'unconfirmed'], ['subscription.added', 'Public double', 'unconfirmed']]);
    const now = await subscriberNow(subscriberId(body.email).id);
    for (const e of events) assert.deepEqual(e.data.subscriber, now);
    assertPublic(events);
    assert.deepEqual(await eventsOf(t, subscribe), []);
  });

  it('POST /subscription/form: subscriber.created and subscription.added as the public', async () => {
    const events = await eventsOf(t, () => postOk('/subscription/form', { email: 'form-sub@example.com', name: 'Form Sub', l: lists.other.uuid }));
    assert.deepEqual(summary(events), [['subscriber.created', null, null], ['subscription.added', 'Public other', 'unconfirmed']]);
    assertPublic(events);
    // A known address adding a list: only the new subscription.
    const more = await eventsOf(t, () => postOk('/subscription/form', { email: 'form-sub@example.com', l: [lists.other.uuid, lists.single.uuid] }));
    assert.deepEqual(summary(more), [['subscription.added', 'Public single', 'unconfirmed']]);
    assert.deepEqual(more[0].data.subscriber, await subscriberNow(subscriberId('form-sub@example.com').id));
  });

  it('the opt-in confirmation: subscription.confirmed as the public; a second click, nothing', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'optin@example.com', list_uuids: [lists.double.uuid] }, { auth: null });
    const sub = subscriberId('optin@example.com');
    const confirm = () => postOk(`/subscription/optin/${sub.uuid}`, { l: lists.double.uuid, confirm: 'true' });
    const events = await eventsOf(t, confirm);
    assert.deepEqual(summary(events), [['subscription.confirmed', 'Public double', 'confirmed']]);
    assert.deepEqual(events[0].data.subscriber, await subscriberNow(sub.id));
    assertPublic(events);
    assert.deepEqual(await eventsOf(t, confirm), []);
  });

  it("the unsubscribe link of a campaign's mail: subscription.unsubscribed naming the campaign; again, nothing", async () => {
    const sub = await subscriber('unsub@example.com', [lists.single, lists.other]);
    const campaign = await campaignTo(lists.single);
    const events = await eventsOf(t, () => postOk(`/subscription/${campaign.uuid}/${sub.uuid}`));
    assert.deepEqual(summary(events), [['subscription.unsubscribed', 'Public single', 'unsubscribed']]);
    assert.deepEqual(events[0].data.campaign, campaign);
    assert.deepEqual(events[0].data.subscriber, await subscriberNow(sub.id));
    assertPublic(events);
    assert.deepEqual(await eventsOf(t, () => postOk(`/subscription/${campaign.uuid}/${sub.uuid}`)), []);
  });

  it('the one-click unsubscribe (RFC 8058) names the campaign too', async () => {
    const sub = await subscriber('one-click@example.com', [lists.other]);
    const campaign = await campaignTo(lists.other);
    const events = await eventsOf(t, async () => {
      const res = await fetch(`${t.url}/subscription/${campaign.uuid}/${sub.uuid}`, {
        method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(res.status, 200);
    });
    assert.deepEqual(summary(events), [['subscription.unsubscribed', 'Public other', 'unsubscribed']]);
    assert.deepEqual(events[0].data.campaign, campaign);
    assertPublic(events);
  });

  it('the unsubscribe link of a mail of no campaign: every list, no campaign', async () => {
    const sub = await subscriber('no-campaign@example.com', [lists.single, lists.other]);
    const events = await eventsOf(t, () => postOk(`/subscription/${ZERO}/${sub.uuid}`));
    assert.deepEqual(summary(events), [['subscription.unsubscribed', 'Public single', 'unsubscribed'], ['subscription.unsubscribed', 'Public other', 'unsubscribed']]);
    for (const e of events) assert.equal('campaign' in e.data, false);
  });

  it('the preferences page: subscriber.updated for the name, subscription.unsubscribed for the lists not kept', async () => {
    const sub = await subscriber('prefs@example.com', [lists.single, lists.other]);
    const events = await eventsOf(t, () => postOk(`/subscription/${ZERO}/${sub.uuid}`, { manage: 'true', name: 'New Name', l: lists.single.uuid }));
    assert.deepEqual(summary(events), [['subscriber.updated', null, null], ['subscription.unsubscribed', 'Public other', 'unsubscribed']]);
    assert.deepEqual(events[0].data.changes, { name: { from: 'Reader', to: 'New Name' } });
    const now = await subscriberNow(sub.id);
    for (const e of events) assert.deepEqual(e.data.subscriber, now);
    assertPublic(events);
    assert.deepEqual(await eventsOf(t, () => postOk(`/subscription/${ZERO}/${sub.uuid}`, { manage: 'true', name: 'New Name', l: lists.single.uuid })), []);
  });

  it("blocklisting from a campaign's unsubscribe page: subscriber.blocklisted, and its subscriptions ended naming the campaign", async () => {
    const sub = await subscriber('self-block@example.com', [lists.single, lists.other]);
    const campaign = await campaignTo(lists.single);
    const events = await eventsOf(t, () => postOk(`/subscription/${campaign.uuid}/${sub.uuid}`, { blocklist: 'true' }));
    assert.deepEqual(summary(events), [['subscriber.blocklisted', null, null], ['subscription.unsubscribed', 'Public single', 'unsubscribed'], ['subscription.unsubscribed', 'Public other', 'unsubscribed']]);
    assert.equal('campaign' in events[0].data, false);
    assert.deepEqual(events.slice(1).map((e) => e.data.campaign), [campaign, campaign]);
    const now = await subscriberNow(sub.id);
    for (const e of events) assert.deepEqual(e.data.subscriber, now);
    assertPublic(events);
  });

  it('wiping from the page: subscriber.deleted with the subscriber as it was', async () => {
    const sub = await subscriber('wipe@example.com', [lists.single]);
    const was = await subscriberNow(sub.id);
    const events = await eventsOf(t, () => postOk(`/subscription/wipe/${sub.uuid}`));
    assert.deepEqual(events.map((e) => [e.type, e.actor, e.data]), [['subscriber.deleted', PUBLIC, { subscriber: was }]]);
  });

  it('an unsubscribe whose campaign note fails leaves no event', async () => {
    const sub = await subscriber('note-fails@example.com', [lists.single]);
    const campaign = await campaignTo(lists.single);
    const db = t.server.ctx.db;
    db.exec(`CREATE TEMP TRIGGER fail_write BEFORE INSERT ON main.campaign_unsubscribes BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    try {
      const events = await eventsOf(t, async () => {
        assert.equal((await post(`/subscription/${campaign.uuid}/${sub.uuid}`)).status, 500);
      });
      assert.deepEqual(events, []);
    } finally {
      db.exec('DROP TRIGGER temp.fail_write');
    }
    assert.equal((await subscriberNow(sub.id)).lists[0].subscription_status, 'confirmed');
  });
});
