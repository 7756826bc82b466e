// /api/webhooks against the real server: each endpoint's answer, each refusal (400 naming the
// field, 403, 404) changing nothing, the secret shown only by a create and a rotation, the
// deliveries' pages, and the webhooks' interest in the change log.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import type { DB } from '../../src/db/connection.ts';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { roleCaller, useFreshServer, type TestServer } from '../helpers/server.ts';
import { logRead } from '../helpers/events.ts';
import { until } from '../campaigns/fixtures.ts';
import { eventBody } from '../../src/webhooks/body.ts';
import { deliveriesOf, startReceiver, type Receiver } from './receivers.ts';

const WHSEC = /^whsec_([A-Za-z0-9+/]+={0,2})$/;
const HOOK = { name: 'CRM', url: 'https://crm.example.com/hooks/listmgr', events: ['list.created', 'subscriber.created'] };

/** Whether `secret` is whsec_ + base64 of at least 24 bytes. */
function wellFormedSecret(secret: unknown): boolean {
  const m = typeof secret === 'string' ? WHSEC.exec(secret) : null;
  return m !== null && Buffer.from(m[1], 'base64').length >= 24 && Buffer.from(m[1], 'base64').toString('base64') === m[1];
}

async function createHook(t: TestServer, over: Record<string, unknown> = {}): Promise<any> {
  const res = await t.request('POST', '/api/webhooks', { ...HOOK, ...over });
  assert.equal(res.status, 200, res.text);
  return res.body.data;
}

function row(t: TestServer, id: number): any {
  return t.server.ctx.db.prepare('SELECT * FROM webhooks WHERE id = ?').get(id);
}

/**
 * Deliveries to a webhook in the given states, each of its own webhook.test event (the
 * dispatcher leaves those to the test endpoint, so it adds none of its own): a state no API call
 * reaches without a receiver, written here. Returns their ids, oldest first.
 */
function seedDeliveries(t: TestServer, webhookId: number, states: { status: string; attempts?: number; attempted_at?: string; lease_until?: string }[]): number[] {
  const { db, events } = t.server.ctx;
  const insert = db.prepare(`INSERT INTO webhook_deliveries (webhook_id, event_id, status, attempts, attempted_at, lease_until, next_attempt_at)
    VALUES (:webhook, last_insert_rowid(), :status, :attempts, :attempted_at, :lease_until, '2999-01-01T00:00:00.000Z')`);
  return db.transaction(() => states.map((s, i) => {
    events.record('webhook.test', { webhook: { id: webhookId, name: 'seeded' }, message: `seeded ${i}` });
    return Number(insert.run({ webhook: webhookId, status: s.status, attempts: s.attempts ?? 0, attempted_at: s.attempted_at ?? null, lease_until: s.lease_until ?? null }).lastInsertRowid);
  })).immediate();
}

describe('webhooks API', () => {
  const server = useFreshServer();

  describe('POST /api/webhooks', () => {
    it('creates an enabled webhook and answers it with its secret, whsec_ + base64 of 32 bytes', async () => {
      const t = server();
      const maxEvent = t.server.ctx.db.prepare('SELECT COALESCE(MAX(id), 0) FROM events').pluck().get() as number;
      const res = await t.request('POST', '/api/webhooks', { ...HOOK, description: 'Sync to the CRM' });
      assert.equal(res.status, 200, res.text);
      const hook = res.body.data;
      assert.ok(wellFormedSecret(hook.secret), hook.secret);
      assert.equal(Buffer.from(WHSEC.exec(hook.secret)![1], 'base64').length, 32);
      assert.deepEqual(
        { name: hook.name, url: hook.url, events: hook.events, enabled: hook.enabled, description: hook.description, disabled_reason: hook.disabled_reason },
        { ...HOOK, enabled: true, description: 'Sync to the CRM', disabled_reason: '' },
      );
      assert.match(hook.uuid, /^[0-9a-f-]{36}$/);
      assert.deepEqual(hook.counts, { pending: 0, delivered: 0, retrying: 0, failed: 0 });
      assert.equal(hook.failure_rate, null);
      assert.equal(hook.last_delivery_at, null);
      const stored = row(t, hook.id);
      assert.equal(stored.secret, hook.secret);
      assert.equal(stored.after_event_id, maxEvent, 'it receives the events from its creation on');
    });

    it('takes ["*"] for every event, and enabled false', async () => {
      const hook = await createHook(server(), { events: ['*'], enabled: false });
      assert.deepEqual(hook.events, ['*']);
      assert.equal(hook.enabled, false);
    });

    const refused = (name: string, body: Record<string, unknown>, message: RegExp): Scenario => ({
      name, method: 'POST', path: '/api/webhooks', body: { ...HOOK, ...body }, status: 400, contains: [message],
    });
    runScenarios(server, [
      refused('without a name: 400', { name: undefined }, /"name" is required/),
      refused('an empty name: 400', { name: '  ' }, /"name" is required/),
      refused('a name over 200 characters: 400', { name: 'é'.repeat(201) }, /invalid "name": longer than 200 characters/),
      refused('without a URL: 400', { url: undefined }, /"url" is required/),
      refused('a URL not http(s): 400', { url: 'ftp://crm.example.com/hook' }, /invalid "url": expected an absolute http:\/\/ or https:\/\/ URL/),
      refused('a relative URL: 400', { url: '/hooks/listmgr' }, /invalid "url": expected an absolute/),
      refused('a URL with credentials: 400', { url: 'https://user:pw@crm.example.com/hook' }, /invalid "url": must not hold a user name or password/),
      refused('a URL over 2,000 characters: 400', { url: `https://crm.example.com/${'a'.repeat(1980)}` }, /invalid "url": longer than 2000 characters/),
      refused('without events: 400', { events: undefined }, /"events" is required/),
      refused('no events: 400', { events: [] }, /"events" is required/),
      refused('an unknown event type: 400 naming it', { events: ['list.created', 'list.exploded'] }, /invalid "events": unknown event type "list.exploded"/),
      refused('"*" with other types: 400', { events: ['*', 'list.created'] }, /invalid "events": "\*" \(every event\) stands alone/),
      refused('events not an array: 400', { events: 'list.created' }, /invalid "events": expected an array of strings/),
      refused('enabled not a boolean: 400', { enabled: 'maybe' }, /invalid "enabled": expected true or false/),
    ]);
  });

  describe('reading, changing and deleting', () => {
    let hook: any;
    before(async () => {
      hook = await createHook(server());
    });

    it('GET /api/webhooks and /api/webhooks/{id} never show the secret', async () => {
      const t = server();
      const list = await t.request('GET', '/api/webhooks');
      assert.equal(list.status, 200);
      assert.ok(list.body.data.some((w: any) => w.id === hook.id && w.name === 'CRM'));
      const one = await t.request('GET', `/api/webhooks/${hook.id}`);
      assert.equal(one.status, 200);
      assert.equal(one.body.data.url, HOOK.url);
      for (const text of [list.text, one.text]) {
        assert.doesNotMatch(text, /whsec_|"secret"|previous_secret/);
        assert.ok(!text.includes(hook.secret));
      }
    });

    it('PUT changes the fields given and keeps the others', async () => {
      const t = server();
      const res = await t.request('PUT', `/api/webhooks/${hook.id}`, { name: 'CRM sync', events: ['*'] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual([res.body.data.name, res.body.data.url, res.body.data.events], ['CRM sync', HOOK.url, ['*']]);
      assert.doesNotMatch(res.text, /whsec_/);
    });

    it('enabling a disabled webhook clears why it was disabled and how long it had failed', async () => {
      const t = server();
      t.server.ctx.db.prepare(`UPDATE webhooks SET enabled = 0, disabled_reason = 'Disabled on 2026-01-01: every delivery failed for 24 hours', failing_since = '2025-12-31T00:00:00.000Z' WHERE id = ?`).run(hook.id);
      const disabled = await t.request('GET', `/api/webhooks/${hook.id}`);
      assert.match(disabled.body.data.disabled_reason, /every delivery failed/);
      const res = await t.request('PUT', `/api/webhooks/${hook.id}`, { enabled: true });
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.enabled, true);
      assert.equal(res.body.data.disabled_reason, '');
      assert.equal(row(t, hook.id).failing_since, null);
    });

    const put = (name: string, body: Record<string, unknown>, message: RegExp): Scenario => ({
      name, method: 'PUT', path: () => `/api/webhooks/${hook.id}`, body, status: 400, contains: [message],
    });
    runScenarios(server, [
      put('PUT an unknown event type: 400 naming it', { events: ['campaign.exploded'] }, /unknown event type "campaign.exploded"/),
      put('PUT no events: 400', { events: [] }, /"events" is required/),
      put('PUT an empty name: 400', { name: '' }, /"name" is required/),
      put('PUT a URL that is not http(s): 400', { url: 'javascript:alert(1)' }, /invalid "url"/),
      put('PUT a name over 200 characters: 400', { name: 'x'.repeat(201) }, /invalid "name"/),
    ]);

    const missing = (method: string, path: string): Scenario => ({ name: `${method} ${path}: 404`, method, path, body: method === 'PUT' ? { name: 'x' } : undefined, status: 404, contains: [/not found/] });
    runScenarios(server, [
      missing('GET', '/api/webhooks/999999'),
      missing('PUT', '/api/webhooks/999999'),
      missing('DELETE', '/api/webhooks/999999'),
      missing('POST', '/api/webhooks/999999/secret'),
      missing('POST', '/api/webhooks/999999/test'),
      missing('GET', '/api/webhooks/999999/deliveries'),
      missing('GET', '/api/webhooks/999999/deliveries/1'),
      missing('POST', '/api/webhooks/999999/deliveries/1/retry'),
      { name: 'GET /api/webhooks/abc: 400', method: 'GET', path: '/api/webhooks/abc', status: 400, contains: [/invalid ID/] },
    ]);

    it('DELETE removes the webhook and its deliveries', async () => {
      const t = server();
      const doomed = await createHook(t, { name: 'Doomed' });
      seedDeliveries(t, doomed.id, [{ status: 'pending' }, { status: 'failed', attempts: 8 }]);
      const res = await t.request('DELETE', `/api/webhooks/${doomed.id}`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data, true);
      assert.equal(row(t, doomed.id), undefined);
      assert.equal(t.server.ctx.db.prepare('SELECT COUNT(*) FROM webhook_deliveries WHERE webhook_id = ?').pluck().get(doomed.id), 0);
      assert.equal((await t.request('GET', `/api/webhooks/${doomed.id}`)).status, 404);
    });
  });

  describe('POST /api/webhooks/{id}/secret', () => {
    it('answers a new secret and keeps the old one signing until 24 hours from now', async () => {
      const t = server();
      const hook = await createHook(t);
      const t0 = Date.now();
      const res = await t.request('POST', `/api/webhooks/${hook.id}/secret`);
      assert.equal(res.status, 200, res.text);
      const rotated = res.body.data;
      assert.ok(wellFormedSecret(rotated.secret));
      assert.notEqual(rotated.secret, hook.secret);
      const stored = row(t, hook.id);
      assert.equal(stored.secret, rotated.secret);
      assert.equal(stored.previous_secret, hook.secret);
      assert.equal(stored.previous_secret_until, rotated.previous_secret_until);
      const until = Date.parse(stored.previous_secret_until);
      assert.ok(until >= t0 + 24 * 3_600_000 && until <= Date.now() + 24 * 3_600_000, stored.previous_secret_until);
      const after = await t.request('GET', `/api/webhooks/${hook.id}`);
      assert.ok(!after.text.includes(rotated.secret) && !after.text.includes(hook.secret));
    });
  });

  describe('permissions', () => {
    it('refuses a caller without webhooks:manage (403, nothing made) and lets one whose role grants it', async () => {
      const t = server();
      const count = () => t.server.ctx.db.prepare('SELECT COUNT(*) FROM webhooks').pluck().get() as number;
      const before = count();
      const settingsOnly = roleCaller(t, ['settings:manage', 'settings:get', 'events:get']);
      for (const [method, path, body] of [['GET', '/api/webhooks'], ['POST', '/api/webhooks', HOOK]] as const) {
        const res = await t.request(method, path, body, { auth: settingsOnly });
        assert.equal(res.status, 403, res.text);
        assert.match(res.body.message, /permission denied: webhooks:manage/);
      }
      assert.equal(count(), before);
      const manager = roleCaller(t, ['webhooks:manage']);
      const created = await t.request('POST', '/api/webhooks', HOOK, { auth: manager });
      assert.equal(created.status, 200, created.text);
      assert.ok(wellFormedSecret(created.body.data.secret));
      assert.equal((await t.request('GET', '/api/webhooks', undefined, { auth: manager })).status, 200);
    });

    it('shows webhooks:manage and events:get on the role form, to be granted', async () => {
      const t = server();
      const res = await t.request('POST', '/api/roles/users', { name: 'Integrations', permissions: ['webhooks:manage', 'events:get'] });
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body.data.permissions.sort(), ['events:get', 'webhooks:manage']);
    });
  });

  describe('deliveries', () => {
    let hook: any;
    let ids: number[];
    before(async () => {
      const t = server();
      // Types no test event is: the dispatcher adds no delivery of its own to this webhook.
      hook = await createHook(t, { name: 'Deliveries', events: ['campaign.finished'] });
      const states = Array.from({ length: 25 }, (_, i) => (i % 5 === 0
        ? { status: 'failed', attempts: 8, attempted_at: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z` }
        : { status: 'delivered', attempts: i % 2 ? 1 : 2, attempted_at: `2026-01-01T00:00:${String(i).padStart(2, '0')}.000Z` }));
      ids = seedDeliveries(t, hook.id, states);
      await logRead(t);
    });

    it('pages them newest first: {results, total, per_page, page}', async () => {
      const t = server();
      const pages = [];
      for (const page of [1, 2, 3]) {
        const res = await t.request('GET', `/api/webhooks/${hook.id}/deliveries?page=${page}&per_page=10`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(Object.keys(res.body.data).sort(), ['page', 'per_page', 'results', 'total']);
        assert.equal(res.body.data.total, 25);
        assert.equal(res.body.data.page, page);
        assert.equal(res.body.data.per_page, 10);
        pages.push(...res.body.data.results.map((d: any) => d.id));
      }
      assert.deepEqual(pages, [...ids].reverse());
      const first = (await t.request('GET', `/api/webhooks/${hook.id}/deliveries?per_page=1`)).body.data.results[0];
      assert.deepEqual(Object.keys(first).sort(), ['attempted_at', 'attempts', 'created_at', 'delivered_at', 'error', 'event_id', 'event_uuid', 'id', 'next_attempt_at', 'response_body', 'response_ms', 'response_status', 'status', 'type'].sort());
      assert.equal(first.type, 'webhook.test');
      assert.equal(first.next_attempt_at, null, 'a delivered one is not tried again');
    });

    it('filters them by status', async () => {
      const res = await server().request('GET', `/api/webhooks/${hook.id}/deliveries?status=failed`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.total, 5);
      assert.deepEqual(res.body.data.results.map((d: any) => d.id), ids.filter((_, i) => i % 5 === 0).reverse());
      assert.ok(res.body.data.results.every((d: any) => d.status === 'failed'));
    });

    runScenarios(server, [
      { name: 'an unknown status: 400', method: 'GET', path: () => `/api/webhooks/${hook.id}/deliveries?status=lost`, status: 400, contains: [/invalid "status": "lost" is not one of pending, delivered, retrying, failed/] },
      { name: 'another webhook\'s delivery: 404', method: 'GET', path: () => `/api/webhooks/${hook.id}/deliveries/999999`, status: 404 },
    ]);

    it('counts them by status on the webhook, with the failure rate of their attempts and the last one', async () => {
      const res = await server().request('GET', `/api/webhooks/${hook.id}`);
      const w = res.body.data;
      assert.deepEqual(w.counts, { pending: 0, delivered: 20, retrying: 0, failed: 5 });
      // Failed: 5 × 8 attempts, and the first of each delivered one that took 2 (10 of them).
      const attempts = 5 * 8 + 10 * 1 + 10 * 2;
      assert.equal(w.failure_rate, (5 * 8 + 10) / attempts);
      assert.equal(w.last_delivery_at, '2026-01-01T00:00:24.000Z');
      assert.equal(w.last_delivery_status, 'delivered');
    });

    it('shows one with the request it sends: the body as signed, the headers without the signature', async () => {
      const t = server();
      const id = ids[3];
      const res = await t.request('GET', `/api/webhooks/${hook.id}/deliveries/${id}`);
      assert.equal(res.status, 200, res.text);
      const d = res.body.data;
      const event = t.server.ctx.db.prepare('SELECT e.uuid, e.type, e.occurred_at, e.data FROM events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE d.id = ?').get(id) as any;
      assert.equal(d.request.body, eventBody(event));
      assert.deepEqual(JSON.parse(d.request.body), { type: 'webhook.test', timestamp: event.occurred_at, data: JSON.parse(event.data) });
      assert.equal(d.request.headers['webhook-id'], event.uuid);
      assert.equal(d.request.headers['webhook-timestamp'], String(Date.parse('2026-01-01T00:00:03.000Z') / 1000));
      assert.equal(d.request.headers['content-type'], 'application/json');
      assert.match(d.request.headers['user-agent'], /^listmgr\/\S+$/);
      assert.equal(d.event_uuid, event.uuid);
      const secret = row(t, hook.id).secret as string;
      assert.ok(!res.text.includes(secret) && !res.text.includes('whsec_'));
    });

    it('retry makes one due now: pending, next attempt now, lease cleared', async () => {
      const t = server();
      // Of a disabled webhook, whose deliveries wait: the worker leaves the row as the retry made it.
      const disabled = await createHook(t, { name: 'Disabled', enabled: false });
      const [id] = seedDeliveries(t, disabled.id, [{ status: 'failed', attempts: 8, lease_until: '2999-01-01T00:00:00.000Z' }]);
      const res = await t.request('POST', `/api/webhooks/${disabled.id}/deliveries/${id}/retry`);
      assert.equal(res.status, 200, res.text);
      assert.equal(res.body.data.id, id);
      assert.equal(res.body.data.status, 'pending');
      const stored = t.server.ctx.db.prepare('SELECT status, next_attempt_at, lease_until FROM webhook_deliveries WHERE id = ?').get(id) as any;
      assert.equal(stored.status, 'pending');
      assert.equal(stored.lease_until, null);
      assert.ok(Date.parse(stored.next_attempt_at) <= Date.now(), stored.next_attempt_at);
      assert.equal(res.body.data.next_attempt_at, stored.next_attempt_at);
    });

    it('a delivery of another webhook is not found under this one', async () => {
      const t = server();
      const other = await createHook(t, { name: 'Other', events: ['campaign.finished'] });
      const [id] = seedDeliveries(t, other.id, [{ status: 'failed', attempts: 8 }]);
      assert.equal((await t.request('GET', `/api/webhooks/${hook.id}/deliveries/${id}`)).status, 404);
      assert.equal((await t.request('POST', `/api/webhooks/${hook.id}/deliveries/${id}/retry`)).status, 404);
      assert.equal((t.server.ctx.db.prepare('SELECT status FROM webhook_deliveries WHERE id = ?').get(id) as any).status, 'failed');
    });
  });

  it('describes its routes in the OpenAPI document, with their permission', async () => {
    const doc = (await server().request('GET', '/api/openapi.json')).body;
    for (const [path, method] of [['/api/webhooks', 'post'], ['/api/webhooks/{id}', 'put'], ['/api/webhooks/{id}/secret', 'post'], ['/api/webhooks/{id}/test', 'post'],
      ['/api/webhooks/{id}/deliveries', 'get'], ['/api/webhooks/{id}/deliveries/{delivery_id}', 'get'], ['/api/webhooks/{id}/deliveries/{delivery_id}/retry', 'post']]) {
      assert.deepEqual(doc.paths[path]?.[method]?.['x-permissions'], ['webhooks:manage'], `${method} ${path}`);
    }
    const input = doc.components.schemas.WebhookInput;
    assert.deepEqual(input.required, ['name', 'url', 'events']);
    assert.deepEqual(doc.paths['/api/changes'].get['x-permissions'], ['events:get']);
    assert.deepEqual(doc.paths['/api/changes'].get.parameters.map((p: { name: string }) => p.name), ['after', 'types', 'limit']);
  });

  describe('the webhooks\' interest in the change log', () => {
    it('wants the types of the enabled webhooks, updated on each change of one', async () => {
      const t = server();
      const { events } = t.server.ctx;
      for (const w of (await t.request('GET', '/api/webhooks')).body.data) {
        assert.equal((await t.request('DELETE', `/api/webhooks/${w.id}`)).status, 200);
      }
      assert.equal(events.wants('subscriber.updated'), false);
      const hook = await createHook(t, { events: ['subscriber.updated'] });
      assert.equal(events.wants('subscriber.updated'), true);
      assert.equal(events.wants('subscriber.deleted'), false);
      await t.request('PUT', `/api/webhooks/${hook.id}`, { enabled: false });
      assert.equal(events.wants('subscriber.updated'), false, 'a disabled webhook wants nothing');
      await t.request('PUT', `/api/webhooks/${hook.id}`, { enabled: true, events: ['*'] });
      assert.equal(events.wants('subscriber.deleted'), true);
      await t.request('DELETE', `/api/webhooks/${hook.id}`);
      assert.equal(events.wants('subscriber.deleted'), false);
    });
  });
});

describe('webhooks API with a receiver on the loopback', () => {
  const allowPrivate = (db: DB) => {
    db.prepare(`INSERT INTO settings (key, value) VALUES ('security.webhooks_allow_private', 'true')
      ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run();
  };
  const server = useFreshServer({ setup: allowPrivate, env: { LISTMGR_WEBHOOK_BACKOFF: '1h' } });
  let receiver: Receiver;
  before(async () => {
    receiver = await startReceiver();
  });
  after(() => receiver.close());

  it('POST /test sends a webhook.test event to this webhook alone and answers the delivery after the attempt', async () => {
    const t = server();
    const hook = await createHook(t, { url: receiver.url, events: ['*'] });
    const other = await createHook(t, { name: 'Other', url: `${receiver.url}?other`, events: ['*'] });
    const res = await t.request('POST', `/api/webhooks/${hook.id}/test`);
    assert.equal(res.status, 200, res.text);
    const d = res.body.data;
    assert.deepEqual([d.type, d.status, d.attempts, d.response_status], ['webhook.test', 'delivered', 1, 200]);
    assert.equal(receiver.received.length, 1);
    const [got] = receiver.received;
    assert.equal(got.headers['webhook-id'], d.event_uuid);
    assert.equal(got.body, d.request.body);
    assert.deepEqual(JSON.parse(got.body).data.webhook, { id: hook.id, name: 'CRM' });
    new Webhook(hook.secret).verify(got.body, got.headers as Record<string, string>);
    assert.ok(!res.text.includes(hook.secret));
    assert.ok(!t.server.ctx.log.recent().some((line) => line.includes('whsec_')), 'no secret in the log');
    // The dispatcher fans test events out to no one: after its next rounds, still one delivery.
    await new Promise((r) => setTimeout(r, 600));
    assert.equal(receiver.received.length, 1);
    assert.equal(deliveriesOf(t.server.ctx.db, other.id).length, 0);
    assert.equal(deliveriesOf(t.server.ctx.db, hook.id).length, 1);
  });

  it('POST /test answers a refused delivery as retrying, with the answer it got', async () => {
    const t = server();
    receiver.answer(() => 500);
    const hook = await createHook(t, { url: receiver.url });
    const res = await t.request('POST', `/api/webhooks/${hook.id}/test`);
    assert.equal(res.status, 200, res.text);
    assert.deepEqual([res.body.data.status, res.body.data.attempts, res.body.data.response_status], ['retrying', 1, 500]);
    assert.match(res.body.data.response_body, /answered 500/);
    assert.ok(Date.parse(res.body.data.next_attempt_at) > Date.now() + 30 * 60_000, 'next tried on the backoff schedule');

    receiver.answer(() => 200);
    const retried = await t.request('POST', `/api/webhooks/${hook.id}/deliveries/${res.body.data.id}/retry`);
    assert.equal(retried.status, 200, retried.text);
    await until('the retried delivery to arrive', () => deliveriesOf(t.server.ctx.db, hook.id)[0].status === 'delivered', 5000);
    const [d] = deliveriesOf(t.server.ctx.db, hook.id);
    assert.equal(d.attempts, 2);
    const ids = receiver.ids();
    assert.equal(ids.at(-1), ids.at(-2), 'the retry is sent with the same webhook-id');
  });
});
