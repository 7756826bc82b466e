// The change log's events of subscribers and subscriptions through the API (#31): each change
// writes its events once, in its own transaction, with the subscriber as GET /api/subscribers/{id}
// gives it and the caller as the actor; a call that changes nothing writes nothing; a bulk change
// (several ids, or a query) writes its per-subscriber events only while a consumer wants them;
// a change that fails half-way leaves no event. Events are read from the `events` table.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useFreshServer, type TestServer } from '../helpers/server.ts';
import { adminSession, apiAs } from '../helpers/admin.ts';
import { eventsOf, testConsumer, type LoggedEvent } from '../helpers/events.ts';

/** Each event as [type, subscriber id, list id or null, subscription status or null]. */
function summary(events: LoggedEvent[]): [string, number, number | null, string | null][] {
  return events.map((e) => [e.type, e.data.subscriber.id, e.data.list?.id ?? null, e.data.status ?? null]);
}

describe('subscriber and subscription events of the API', () => {
  const server = useFreshServer();
  const lists = { a: 0, b: 0, c: 0 };
  const listSummaries: Record<number, unknown> = {};
  let consumer: ReturnType<typeof testConsumer>;
  let apiActor: { type: string; id: number; name: string };
  let t: TestServer;

  before(async () => {
    t = server();
    const set = await t.request('PUT', '/api/settings', { 'app.send_optin_confirmation': false });
    assert.equal(set.status, 200, set.text);
    for (const [key, optin] of [['a', 'single'], ['b', 'double'], ['c', 'single']] as const) {
      const list = (await call('POST', '/api/lists', { name: `List ${key}`, type: 'private', optin })).body.data;
      lists[key] = list.id;
      listSummaries[list.id] = { id: list.id, uuid: list.uuid, name: list.name, type: list.type, optin: list.optin };
    }
    consumer = testConsumer(t);
    apiActor = { type: 'api', id: t.server.ctx.db.prepare(`SELECT id FROM users WHERE username = 'tester'`).pluck().get() as number, name: 'tester' };
  });

  async function call(method: string, path: string, body?: unknown) {
    const res = await t.request(method, path, body);
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
    return res;
  }

  async function subscriberNow(id: number) {
    return (await call('GET', `/api/subscribers/${id}`)).body.data;
  }

  async function create(email: string, listIds: number[], preconfirm = false): Promise<number> {
    return (await call('POST', '/api/subscribers', { email, name: email, lists: listIds, preconfirm_subscriptions: preconfirm })).body.data.id;
  }

  function assertActor(events: LoggedEvent[], actor: unknown = apiActor): void {
    for (const e of events) assert.deepEqual(e.actor, actor, e.type);
  }

  it('POST /api/subscribers: subscriber.created, then subscription.added per list, the subscriber as GET gives it', async () => {
    let id = 0;
    const events = await eventsOf(t, async () => {
      id = (await call('POST', '/api/subscribers', { email: 'created@example.com', name: 'Created', lists: [lists.a, lists.b], attribs: { city: 'Oslo' } })).body.data.id;
    });
    assert.deepEqual(summary(events), [
      ['subscriber.created', id, null, null], ['subscription.added', id, lists.a, 'unconfirmed'], ['subscription.added', id, lists.b, 'unconfirmed'],
    ]);
    const now = await subscriberNow(id);
    for (const e of events) assert.deepEqual(e.data.subscriber, now);
    assert.deepEqual(events[1].data.list, listSummaries[lists.a]);
    assert.deepEqual(Object.keys(events[0].data), ['subscriber']);
    assertActor(events);
  });

  it('PUT: subscription.removed (as it was), subscriber.updated with what changed, subscription.added; the same PUT again writes nothing', async () => {
    const id = await create('put@example.com', [lists.a, lists.b]);
    const body = { email: 'put@example.com', name: 'Renamed', lists: [lists.a, lists.c], attribs: { plan: 'pro' } };
    const events = await eventsOf(t, () => call('PUT', `/api/subscribers/${id}`, body));
    assert.deepEqual(summary(events), [
      ['subscription.removed', id, lists.b, 'unconfirmed'], ['subscriber.updated', id, null, null], ['subscription.added', id, lists.c, 'unconfirmed'],
    ]);
    // Recorded before the row went: the subscriber is still on the list.
    assert.deepEqual(events[0].data.subscriber.lists.map((l: { id: number }) => l.id), [lists.a, lists.b]);
    const now = await subscriberNow(id);
    assert.deepEqual(events[1].data.subscriber, now);
    assert.deepEqual(events[1].data.changes, { name: { from: 'put@example.com', to: 'Renamed' }, attribs: { from: {}, to: { plan: 'pro' } } });
    assert.deepEqual(events[2].data.subscriber, now);
    assertActor(events);
    assert.deepEqual(await eventsOf(t, () => call('PUT', `/api/subscribers/${id}`, body)), []);
  });

  it('PATCH to blocklisted: subscriber.blocklisted and subscription.unsubscribed per subscription; back to enabled: subscriber.updated', async () => {
    const id = await create('patch@example.com', [lists.a, lists.b]);
    const events = await eventsOf(t, () => call('PATCH', `/api/subscribers/${id}`, { status: 'blocklisted' }));
    assert.deepEqual(summary(events), [
      ['subscriber.blocklisted', id, null, null], ['subscription.unsubscribed', id, lists.a, 'unsubscribed'], ['subscription.unsubscribed', id, lists.b, 'unsubscribed'],
    ]);
    const now = await subscriberNow(id);
    for (const e of events) assert.deepEqual(e.data.subscriber, now);
    assert.deepEqual(await eventsOf(t, () => call('PATCH', `/api/subscribers/${id}`, { status: 'blocklisted' })), []);
    const back = await eventsOf(t, () => call('PATCH', `/api/subscribers/${id}`, { status: 'enabled' }));
    assert.deepEqual(back.map((e) => [e.type, e.data.changes]), [['subscriber.updated', { status: { from: 'blocklisted', to: 'enabled' } }]]);
  });

  it('a change from the admin (a signed-in user) names the user', async () => {
    const id = await create('admin-made@example.com', []);
    const session = await adminSession(t);
    const events = await eventsOf(t, async () => {
      const res = await apiAs(t, session, 'PATCH', `/api/subscribers/${id}`, { name: 'By the admin' });
      assert.equal(res.status, 200, res.text);
    });
    const admin = t.server.ctx.db.prepare(`SELECT id FROM users WHERE username = 'admin'`).pluck().get();
    assert.deepEqual(events.map((e) => [e.type, e.actor]), [['subscriber.updated', { type: 'user', id: admin, name: 'admin' }]]);
  });

  it('PUT /api/subscribers/lists/:id: confirmed, unsubscribed, removed, added, each only when the subscription moves', async () => {
    const id = await create('lists@example.com', [lists.a]);
    const run = async (body: unknown) => summary(await eventsOf(t, () => call('PUT', `/api/subscribers/lists/${id}`, body)));
    assert.deepEqual(await run({ action: 'add', target_list_ids: [lists.a, lists.b], status: 'confirmed' }), [
      ['subscription.added', id, lists.b, 'confirmed'], ['subscription.confirmed', id, lists.a, 'confirmed'],
    ]);
    assert.deepEqual(await run({ action: 'add', target_list_ids: [lists.a, lists.b], status: 'confirmed' }), []);
    assert.deepEqual(await run({ action: 'unsubscribe', target_list_ids: [lists.a] }), [['subscription.unsubscribed', id, lists.a, 'unsubscribed']]);
    assert.deepEqual(await run({ action: 'unsubscribe', target_list_ids: [lists.a] }), []);
    assert.deepEqual(await run({ action: 'remove', target_list_ids: [lists.b, lists.c] }), [['subscription.removed', id, lists.b, 'confirmed']]);
    assert.deepEqual(await run({ action: 'remove', target_list_ids: [lists.b] }), []);
    // One id is not a bulk change: written with no consumer.
    const byIds = await eventsOf(t, () => call('PUT', '/api/subscribers/lists', { ids: [id], action: 'add', target_list_ids: [lists.c], status: 'unconfirmed' }));
    assert.deepEqual(summary(byIds), [['subscription.added', id, lists.c, 'unconfirmed']]);
  });

  it('DELETE /api/subscribers/:id: subscriber.deleted with the subscriber as it was', async () => {
    const id = await create('deleted@example.com', [lists.a]);
    const was = await subscriberNow(id);
    const events = await eventsOf(t, () => call('DELETE', `/api/subscribers/${id}`));
    assert.deepEqual(events.map((e) => [e.type, e.data]), [['subscriber.deleted', { subscriber: was }]]);
    assertActor(events);
  });

  it('PUT /api/subscribers/:id/blocklist: subscriber.blocklisted and its subscriptions ended; a second time nothing', async () => {
    const id = await create('blocked@example.com', [lists.a, lists.c], true);
    const events = await eventsOf(t, () => call('PUT', `/api/subscribers/${id}/blocklist`));
    assert.deepEqual(summary(events), [
      ['subscriber.blocklisted', id, null, null], ['subscription.unsubscribed', id, lists.a, 'unsubscribed'], ['subscription.unsubscribed', id, lists.c, 'unsubscribed'],
    ]);
    assert.deepEqual(events[0].data.subscriber, await subscriberNow(id));
    assert.deepEqual(await eventsOf(t, () => call('PUT', `/api/subscribers/${id}/blocklist`)), []);
  });

  // Bulk changes: two subscribers on list a each time, selected by ids or by a query on their e-mails.
  let pairs = 0;
  async function pair(): Promise<{ ids: [number, number]; query: string }> {
    const prefix = `pair${++pairs}-`;
    const ids: [number, number] = [await create(`${prefix}1@example.com`, [lists.a]), await create(`${prefix}2@example.com`, [lists.a])];
    return { ids, query: `subscribers.email LIKE '${prefix}%'` };
  }

  const BULK: { name: string; run: (p: { ids: number[]; query: string }) => Promise<unknown>; expect: (ids: number[]) => [string, number, number | null, string | null][] }[] = [
    {
      name: 'PUT /api/subscribers/blocklist', run: ({ ids }) => call('PUT', '/api/subscribers/blocklist', { ids }),
      expect: ([x, y]) => [['subscriber.blocklisted', x, null, null], ['subscriber.blocklisted', y, null, null], ['subscription.unsubscribed', x, lists.a, 'unsubscribed'], ['subscription.unsubscribed', y, lists.a, 'unsubscribed']],
    },
    {
      name: 'PUT /api/subscribers/query/blocklist', run: ({ query }) => call('PUT', '/api/subscribers/query/blocklist', { query }),
      expect: ([x, y]) => [['subscriber.blocklisted', x, null, null], ['subscriber.blocklisted', y, null, null], ['subscription.unsubscribed', x, lists.a, 'unsubscribed'], ['subscription.unsubscribed', y, lists.a, 'unsubscribed']],
    },
    {
      name: 'DELETE /api/subscribers', run: ({ ids }) => call('DELETE', `/api/subscribers?${ids.map((id) => `id=${id}`).join('&')}`),
      expect: ([x, y]) => [['subscriber.deleted', x, null, null], ['subscriber.deleted', y, null, null]],
    },
    {
      name: 'POST /api/subscribers/query/delete', run: ({ query }) => call('POST', '/api/subscribers/query/delete', { query }),
      expect: ([x, y]) => [['subscriber.deleted', x, null, null], ['subscriber.deleted', y, null, null]],
    },
    {
      name: 'PUT /api/subscribers/lists (add)', run: ({ ids }) => call('PUT', '/api/subscribers/lists', { ids, action: 'add', target_list_ids: [lists.a, lists.b], status: 'confirmed' }),
      expect: ([x, y]) => [['subscription.added', x, lists.b, 'confirmed'], ['subscription.added', y, lists.b, 'confirmed'], ['subscription.confirmed', x, lists.a, 'confirmed'], ['subscription.confirmed', y, lists.a, 'confirmed']],
    },
    {
      name: 'PUT /api/subscribers/lists (remove)', run: ({ ids }) => call('PUT', '/api/subscribers/lists', { ids, action: 'remove', target_list_ids: [lists.a] }),
      expect: ([x, y]) => [['subscription.removed', x, lists.a, 'unconfirmed'], ['subscription.removed', y, lists.a, 'unconfirmed']],
    },
    {
      name: 'PUT /api/subscribers/query/lists (add: existing ones stay)', run: ({ query }) => call('PUT', '/api/subscribers/query/lists', { query, action: 'add', target_list_ids: [lists.a, lists.c], status: 'confirmed' }),
      expect: ([x, y]) => [['subscription.added', x, lists.c, 'confirmed'], ['subscription.added', y, lists.c, 'confirmed']],
    },
    {
      name: 'PUT /api/subscribers/query/lists (unsubscribe)', run: ({ query }) => call('PUT', '/api/subscribers/query/lists', { query, action: 'unsubscribe', target_list_ids: [lists.a] }),
      expect: ([x, y]) => [['subscription.unsubscribed', x, lists.a, 'unsubscribed'], ['subscription.unsubscribed', y, lists.a, 'unsubscribed']],
    },
  ];

  for (const scenario of BULK) {
    it(`${scenario.name}: nothing without a consumer; one event per subscriber and subscription with one`, async () => {
      consumer.wants([]);
      const quiet = await pair();
      const before = await subscriberNow(quiet.ids[0]);
      assert.deepEqual(await eventsOf(t, () => scenario.run(quiet)), []);
      const after = await t.request('GET', `/api/subscribers/${quiet.ids[0]}`);
      assert.notDeepEqual(after.body.data ?? null, before, 'the change itself was made');

      const watched = await pair();
      const was = await Promise.all(watched.ids.map(subscriberNow));
      consumer.wants(['*']);
      try {
        const events = await eventsOf(t, () => scenario.run(watched));
        assert.deepEqual(summary(events), scenario.expect(watched.ids));
        assertActor(events);
        for (const e of events) {
          const id = e.data.subscriber.id as number;
          const expected = e.type === 'subscriber.deleted' || e.type === 'subscription.removed' ? was[watched.ids.indexOf(id)] : await subscriberNow(id);
          assert.deepEqual(e.data.subscriber, expected, `${e.type} of subscriber ${id}`);
        }
      } finally {
        consumer.wants([]);
      }
    });
  }

  it('a consumer of one type gets that type only from a bulk change', async () => {
    const p = await pair();
    consumer.wants(['subscriber.blocklisted']);
    try {
      const events = await eventsOf(t, () => call('PUT', '/api/subscribers/blocklist', { ids: p.ids }));
      assert.deepEqual(summary(events), [['subscriber.blocklisted', p.ids[0], null, null], ['subscriber.blocklisted', p.ids[1], null, null]]);
    } finally {
      consumer.wants([]);
    }
  });

  /** Runs `fn` while the trigger makes every matching write fail (a constraint error mid-change). */
  async function failing<T>(trigger: string, fn: () => Promise<T>): Promise<T> {
    t.server.ctx.db.exec(`CREATE TEMP TRIGGER fail_write ${trigger} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    try {
      return await fn();
    } finally {
      t.server.ctx.db.exec('DROP TRIGGER temp.fail_write');
    }
  }

  it('a PUT that fails after its removal was recorded rolls back with its events', async () => {
    const id = await create('fails@example.com', [lists.a, lists.b]);
    const was = await subscriberNow(id);
    const events = await eventsOf(t, () => failing(`BEFORE INSERT ON main.subscriber_lists WHEN NEW.list_id = ${lists.c}`, async () => {
      const res = await t.request('PUT', `/api/subscribers/${id}`, { email: 'fails@example.com', name: 'Not saved', lists: [lists.a, lists.c] });
      assert.equal(res.status, 500, res.text);
    }));
    assert.deepEqual(events, []);
    assert.deepEqual(await subscriberNow(id), was);
  });

  it('a PUT refused for a duplicate e-mail writes no event', async () => {
    await create('taken@example.com', []);
    const id = await create('other@example.com', [lists.a]);
    const events = await eventsOf(t, async () => {
      const res = await t.request('PUT', `/api/subscribers/${id}`, { email: 'taken@example.com', name: 'Other', lists: [] });
      assert.equal(res.status, 409, res.text);
    });
    assert.deepEqual(events, []);
  });

  it('a bulk removal whose second delete fails leaves no event, with a consumer', async () => {
    const p = await pair();
    consumer.wants(['*']);
    try {
      const events = await eventsOf(t, () => failing(`BEFORE DELETE ON main.subscriber_lists WHEN OLD.subscriber_id = ${p.ids[1]}`, async () => {
        const res = await t.request('PUT', '/api/subscribers/lists', { ids: p.ids, action: 'remove', target_list_ids: [lists.a] });
        assert.equal(res.status, 500, res.text);
      }));
      assert.deepEqual(events, []);
    } finally {
      consumer.wants([]);
    }
    for (const id of p.ids) assert.deepEqual((await subscriberNow(id)).lists.map((l: { id: number }) => l.id), [lists.a]);
  });
});

describe('subscriber and subscription events of the maintenance deletions (bulk)', () => {
  const server = useFreshServer();
  let consumer: ReturnType<typeof testConsumer>;

  before(() => {
    consumer = testConsumer(server());
  });

  async function call(method: string, path: string, body?: unknown) {
    const res = await server().request(method, path, body);
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
    return res;
  }

  it('deleting the blocklisted and orphan subscribers: subscriber.deleted per subscriber, as it was, only with a consumer', async () => {
    const t = server();
    consumer.wants([]);
    const make = async (email: string, status: string) => (await call('POST', '/api/subscribers', { email, status })).body.data.id as number;
    await make('gc-quiet@example.com', 'blocklisted');
    assert.deepEqual(await eventsOf(t, () => call('DELETE', '/api/maintenance/subscribers/blocklisted')), []);
    const ids = [await make('gc-1@example.com', 'blocklisted'), await make('gc-2@example.com', 'blocklisted')];
    const was = await Promise.all(ids.map(async (id) => (await call('GET', `/api/subscribers/${id}`)).body.data));
    consumer.wants(['*']);
    const events = await eventsOf(t, () => call('DELETE', '/api/maintenance/subscribers/blocklisted'));
    assert.deepEqual(events.map((e) => [e.type, e.data]), was.map((subscriber) => ['subscriber.deleted', { subscriber }]));
    const orphan = await make('orphan@example.com', 'enabled');
    assert.deepEqual((await eventsOf(t, () => call('DELETE', '/api/maintenance/subscribers/orphan'))).map((e) => [e.type, e.data.subscriber.id]), [['subscriber.deleted', orphan]]);
  });

  it('deleting old unconfirmed subscriptions: subscription.removed per subscription, only with a consumer', async () => {
    const t = server();
    const list = (await call('POST', '/api/lists', { name: 'Double', type: 'private', optin: 'double' })).body.data.id as number;
    const subscribe = async (email: string) => (await call('POST', '/api/subscribers', { email, lists: [list] })).body.data.id as number;
    const deleteUnconfirmed = () => call('DELETE', `/api/maintenance/subscriptions/unconfirmed?before_date=${encodeURIComponent(new Date(Date.now() + 86_400_000).toISOString())}`);
    consumer.wants([]);
    await subscribe('unconfirmed-quiet@example.com');
    assert.deepEqual(await eventsOf(t, deleteUnconfirmed), []);
    const id = await subscribe('unconfirmed@example.com');
    consumer.wants(['subscription.removed']);
    const events = await eventsOf(t, deleteUnconfirmed);
    assert.deepEqual(summary(events), [['subscription.removed', id, list, 'unconfirmed']]);
  });
});
