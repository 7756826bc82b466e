// The self-service subscriber service (src/subscribers/self-service.ts) through the real
// server: each change a subscriber makes from a link is one transaction, so a write that fails
// half-way leaves nothing behind. The failure is a temporary trigger on the server's writer
// connection; the pages' answers and the privacy switches are covered by test/public/.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useFreshServer } from '../helpers/server.ts';

describe('self-service changes are one transaction each', () => {
  const server = useFreshServer();
  const lists: Record<'a' | 'b' | 'x' | 'y', number> = { a: 0, b: 0, x: 0, y: 0 };

  before(async () => {
    const t = server();
    // No opt-in mails (the tests' SMTP server is not a real one) and no rate limit.
    const set = await t.request('PUT', '/api/settings', { 'security.public_rate_limit': 0, 'app.send_optin_confirmation': false });
    assert.equal(set.status, 200, set.text);
    for (const [key, optin] of [['a', 'single'], ['b', 'single'], ['x', 'double'], ['y', 'double']] as const) {
      lists[key] = (await t.request('POST', '/api/lists', { name: `List ${key}`, type: 'public', optin })).body.data.id;
    }
  });

  async function subscriber(email: string, listIds: number[], preconfirm: boolean): Promise<{ id: number; uuid: string }> {
    const res = await server().request('POST', '/api/subscribers', { email, name: 'Self', lists: listIds, preconfirm_subscriptions: preconfirm });
    assert.equal(res.status, 200, res.text);
    return { id: res.body.data.id, uuid: res.body.data.uuid };
  }

  async function statuses(id: number): Promise<{ status: string; lists: Record<number, string> }> {
    const sub = (await server().request('GET', `/api/subscribers/${id}`)).body.data;
    return { status: sub.status, lists: Object.fromEntries(sub.lists.map((l: { id: number; subscription_status: string }) => [l.id, l.subscription_status])) };
  }

  /** Runs `fn` while every write the trigger's `when` matches on `table` fails. */
  async function failing<T>(table: string, event: 'INSERT' | 'UPDATE' | 'DELETE', when: string, fn: () => Promise<T>): Promise<T> {
    const db = server().server.ctx.db;
    db.exec(`CREATE TEMP TRIGGER fail_write BEFORE ${event} ON main.${table} WHEN ${when} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    try {
      return await fn();
    } finally {
      db.exec('DROP TRIGGER temp.fail_write');
    }
  }

  function post(path: string, form: Record<string, string> = {}) {
    return fetch(server().url + path, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });
  }

  function campaignNotes(subscriberId: number): number {
    return server().server.ctx.db.prepare('SELECT count(*) FROM campaign_unsubscribes WHERE subscriber_id = ?').pluck().get(subscriberId) as number;
  }

  async function campaignTo(listId: number): Promise<string> {
    const res = await server().request('POST', '/api/campaigns', { name: 'Self-service', subject: 'S', lists: [listId], content_type: 'html', body: '<p>x</p>' });
    assert.equal(res.status, 200, res.text);
    return res.body.data.uuid;
  }

  it('an unsubscribe whose campaign note fails unsubscribes nothing; once it can, both are written', async () => {
    const sub = await subscriber('unsub@example.com', [lists.a, lists.b], true);
    const camp = await campaignTo(lists.a);
    const res = await failing('campaign_unsubscribes', 'INSERT', '1', () => post(`/subscription/${camp}/${sub.uuid}`));
    assert.equal(res.status, 500);
    assert.deepEqual(await statuses(sub.id), { status: 'enabled', lists: { [lists.a]: 'confirmed', [lists.b]: 'confirmed' } });
    assert.equal((await post(`/subscription/${camp}/${sub.uuid}`)).status, 200);
    assert.deepEqual((await statuses(sub.id)).lists, { [lists.a]: 'unsubscribed', [lists.b]: 'confirmed' });
    assert.equal(campaignNotes(sub.id), 1);
  });

  it('a blocklist whose campaign note fails leaves the subscriber enabled and subscribed', async () => {
    const sub = await subscriber('block@example.com', [lists.a], true);
    const camp = await campaignTo(lists.a);
    const res = await failing('campaign_unsubscribes', 'INSERT', '1', () => post(`/subscription/${camp}/${sub.uuid}`, { blocklist: 'true' }));
    assert.equal(res.status, 500);
    assert.deepEqual(await statuses(sub.id), { status: 'enabled', lists: { [lists.a]: 'confirmed' } });
    assert.equal(campaignNotes(sub.id), 0);
  });

  it('a confirmation that fails on one of its lists confirms none of them', async () => {
    const sub = await subscriber('confirm@example.com', [lists.x, lists.y], false);
    const path = `/subscription/optin/${sub.uuid}`;
    const res = await failing('subscriber_lists', 'UPDATE', `NEW.list_id = ${lists.y} AND NEW.status = 'confirmed'`, () => post(path, { confirm: 'true' }));
    assert.equal(res.status, 500);
    assert.deepEqual((await statuses(sub.id)).lists, { [lists.x]: 'unconfirmed', [lists.y]: 'unconfirmed' });
    assert.equal((await post(path, { confirm: 'true' })).status, 200);
    assert.deepEqual((await statuses(sub.id)).lists, { [lists.x]: 'confirmed', [lists.y]: 'confirmed' });
  });

  it('a wipe that fails on one subscription deletes nothing', async () => {
    const sub = await subscriber('wipe@example.com', [lists.a, lists.b], true);
    const res = await failing('subscriber_lists', 'DELETE', `OLD.list_id = ${lists.b}`, () => post(`/subscription/wipe/${sub.uuid}`));
    assert.equal(res.status, 500);
    assert.deepEqual(await statuses(sub.id), { status: 'enabled', lists: { [lists.a]: 'confirmed', [lists.b]: 'confirmed' } });
    assert.equal((await post(`/subscription/wipe/${sub.uuid}`)).status, 200);
    assert.equal((await server().request('GET', `/api/subscribers/${sub.id}`)).status, 404);
  });
});
