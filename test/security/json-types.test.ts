// A JSON body must send an array where the API expects one, as listmonk's decoder requires: a
// string or a number there ("lists": "1", "ids": 5) is a 400 naming the field, never read as a
// one-item array. Forms (url-encoded, multipart, a by-query route's URL fields), which carry a
// list as repeated fields, may send one value; query strings repeat keys as they always did.
// The table covers every array field of every JSON body the API reference describes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
const ids: Record<string, number> = {};
let listUuid = '';

before(async () => {
  t = await startTestServer();
  const list = (await t.request('POST', '/api/lists', { name: 'Open', type: 'public', optin: 'single' })).body.data;
  ids.list = list.id;
  listUuid = list.uuid;
  ids.subscriber = (await t.request('POST', '/api/subscribers', { email: 'one@example.com', name: 'One', lists: [ids.list] })).body.data.id;
  ids.campaign = (await t.request('POST', '/api/campaigns', { name: 'C', subject: 'S', lists: [ids.list], body: '<p>x</p>', content_type: 'html' })).body.data.id;
  ids.userRole = (await t.request('POST', '/api/roles/users', { name: 'R', permissions: ['lists:get_all'] })).body.data.id;
  ids.listRole = (await t.request('POST', '/api/roles/lists', { name: 'LR', lists: [{ id: ids.list, permissions: ['list:get'] }] })).body.data.id;
  ids.webhook = (await t.request('POST', '/api/webhooks', { name: 'W', url: 'https://hooks.example.com/in', events: ['*'] })).body.data.id;
});
after(() => t.stop());

interface Row {
  method: string;
  /** As the API reference writes it ({id} for the resource made in `before`). */
  path: string;
  field: string;
  /** Valid values of the fields read before `field`, so that `field` is the first problem. */
  rest?: Record<string, unknown>;
  /** A value of the right element type, sent alone instead of in an array. */
  single: unknown;
}

const ROWS: Row[] = [
  { method: 'POST', path: '/api/lists', field: 'tags', rest: { name: 'T', type: 'private', optin: 'single' }, single: 'x' },
  { method: 'PUT', path: '/api/lists/{id}', field: 'tags', single: 'x' },
  { method: 'POST', path: '/api/subscribers', field: 'lists', rest: { email: 'two@example.com' }, single: 1 },
  { method: 'PUT', path: '/api/subscribers/{id}', field: 'lists', rest: { email: 'one@example.com' }, single: 1 },
  { method: 'PATCH', path: '/api/subscribers/{id}', field: 'lists', single: 1 },
  { method: 'PUT', path: '/api/subscribers/blocklist', field: 'ids', single: 5 },
  { method: 'PUT', path: '/api/subscribers/lists', field: 'ids', single: 5 },
  { method: 'PUT', path: '/api/subscribers/lists', field: 'target_list_ids', rest: { ids: [1], action: 'add' }, single: 1 },
  { method: 'PUT', path: '/api/subscribers/lists/{id}', field: 'target_list_ids', rest: { action: 'add' }, single: 1 },
  { method: 'POST', path: '/api/subscribers/query/delete', field: 'list_ids', single: 1 },
  { method: 'PUT', path: '/api/subscribers/query/blocklist', field: 'list_ids', single: 1 },
  { method: 'PUT', path: '/api/subscribers/query/lists', field: 'list_ids', single: 1 },
  { method: 'PUT', path: '/api/subscribers/query/lists', field: 'target_list_ids', rest: { action: 'add' }, single: 1 },
  { method: 'POST', path: '/api/public/subscription', field: 'list_uuids', rest: { email: 'pub@example.com' }, single: 'uuid' },
  { method: 'POST', path: '/api/public/subscription', field: 'l', rest: { email: 'pub@example.com' }, single: 'uuid' },
  { method: 'POST', path: '/api/campaigns', field: 'lists', rest: { name: 'C2', subject: 'S' }, single: 1 },
  { method: 'POST', path: '/api/campaigns', field: 'tags', rest: { name: 'C2', subject: 'S', lists: [1] }, single: 'x' },
  { method: 'POST', path: '/api/campaigns', field: 'media', rest: { name: 'C2', subject: 'S', lists: [1] }, single: 1 },
  { method: 'POST', path: '/api/campaigns', field: 'headers', rest: { name: 'C2', subject: 'S', lists: [1] }, single: { 'X-A': 'b' } },
  { method: 'PUT', path: '/api/campaigns/{id}', field: 'lists', single: 1 },
  { method: 'PUT', path: '/api/campaigns/{id}', field: 'tags', single: 'x' },
  { method: 'PUT', path: '/api/campaigns/{id}', field: 'media', single: 1 },
  { method: 'PUT', path: '/api/campaigns/{id}', field: 'headers', single: { 'X-A': 'b' } },
  { method: 'POST', path: '/api/campaigns/{id}/test', field: 'subscribers', single: 'one@example.com' },
  { method: 'POST', path: '/api/campaigns/{id}/test', field: 'lists', rest: { subscribers: ['one@example.com'] }, single: 1 },
  { method: 'POST', path: '/api/campaigns/{id}/test', field: 'tags', rest: { subscribers: ['one@example.com'] }, single: 'x' },
  { method: 'POST', path: '/api/campaigns/{id}/test', field: 'media', rest: { subscribers: ['one@example.com'] }, single: 1 },
  { method: 'POST', path: '/api/campaigns/{id}/test', field: 'headers', rest: { subscribers: ['one@example.com'] }, single: { 'X-A': 'b' } },
  { method: 'POST', path: '/api/tx', field: 'subscriber_emails', single: 'a@b.example' },
  { method: 'POST', path: '/api/tx', field: 'subscriber_ids', single: 1 },
  { method: 'POST', path: '/api/tx', field: 'headers', single: { 'X-A': 'b' } },
  { method: 'POST', path: '/api/roles/users', field: 'permissions', rest: { name: 'R2' }, single: 'lists:get_all' },
  { method: 'PUT', path: '/api/roles/users/{id}', field: 'permissions', rest: { name: 'R' }, single: 'lists:get_all' },
  { method: 'POST', path: '/api/roles/lists', field: 'lists', rest: { name: 'LR2' }, single: { id: 1, permissions: ['list:get'] } },
  { method: 'PUT', path: '/api/roles/lists/{id}', field: 'lists', rest: { name: 'LR' }, single: { id: 1, permissions: ['list:get'] } },
  { method: 'POST', path: '/api/webhooks', field: 'events', rest: { name: 'W2', url: 'https://hooks.example.com/in' }, single: 'list.created' },
  { method: 'PUT', path: '/api/webhooks/{id}', field: 'events', single: 'list.created' },
  { method: 'PUT', path: '/api/settings', field: 'app.notify_emails', single: 'ops@example.com' },
  { method: 'PUT', path: '/api/settings', field: 'privacy.exportable', single: 'profile' },
  { method: 'PUT', path: '/api/settings', field: 'privacy.domain_blocklist', single: 'example.com' },
  { method: 'PUT', path: '/api/settings', field: 'privacy.domain_allowlist', single: 'example.com' },
  { method: 'PUT', path: '/api/settings', field: 'security.trusted_urls', single: '*' },
  { method: 'PUT', path: '/api/settings', field: 'security.trusted_proxies', single: '127.0.0.1' },
  { method: 'PUT', path: '/api/settings', field: 'upload.extensions', single: 'jpg' },
  { method: 'PUT', path: '/api/settings', field: 'smtp', single: { host: 'smtp.example.com' } },
  { method: 'PUT', path: '/api/settings', field: 'messengers', single: { name: 'sms' } },
  { method: 'PUT', path: '/api/settings', field: 'bounce.ses_topic_arns', single: 'arn:aws:sns:us-east-1:123456789012:bounces' },
  { method: 'PUT', path: '/api/settings', field: 'bounce.mailboxes', single: { host: 'pop.example.com' } },
];

/** Arrays inside array items, named as the message names them. */
const NESTED: Row[] = [
  { method: 'POST', path: '/api/roles/lists', field: 'permissions', rest: { name: 'LR3' }, single: 'list:get' },
  { method: 'PUT', path: '/api/roles/lists/{id}', field: 'permissions', rest: { name: 'LR' }, single: 'list:get' },
];

function pathOf(r: Row): string {
  const id = r.path.startsWith('/api/lists') ? ids.list
    : r.path.startsWith('/api/subscribers') ? ids.subscriber
    : r.path.startsWith('/api/campaigns') ? ids.campaign
    : r.path.startsWith('/api/roles/users') ? ids.userRole
    : r.path.startsWith('/api/webhooks') ? ids.webhook
    : ids.listRole;
  return r.path.replace('{id}', String(id));
}

const wrongValues = (r: Row): unknown[] => [r.single, typeof r.single === 'number' ? String(r.single) : 5, true];

describe('a single value where JSON must send an array', () => {
  for (const r of ROWS) {
    it(`${r.method} ${r.path} "${r.field}" is a 400 naming it`, async () => {
      for (const value of wrongValues(r)) {
        const res = await t.request(r.method, pathOf(r), { ...r.rest, [r.field]: value });
        assert.equal(res.status, 400, `${JSON.stringify(value)}: ${res.text}`);
        assert.match(res.body.message, new RegExp(`"${r.field}"`), `${JSON.stringify(value)}: ${res.body.message}`);
      }
    });
  }
  for (const r of NESTED) {
    it(`${r.method} ${r.path} "lists[].${r.field}" is a 400 naming it`, async () => {
      const res = await t.request(r.method, pathOf(r), { ...r.rest, lists: [{ id: ids.list, [r.field]: r.single }] });
      assert.equal(res.status, 400, res.text);
      assert.match(res.body.message, new RegExp(`"${r.field}"`));
    });
  }

  it('the import\'s params too', async () => {
    const form = new FormData();
    form.set('params', JSON.stringify({ mode: 'subscribe', lists: ids.list }));
    form.set('file', new Blob(['email,name\na@example.com,A\n']), 'a.csv');
    const res = await t.request('POST', '/api/import/subscribers', undefined, { raw: form });
    assert.equal(res.status, 400, res.text);
    assert.match(res.body.message, /"lists"/);
  });

  it('the table covers every array field of every JSON body in the API reference', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const schemas = doc.components?.schemas ?? {};
    const resolve = (s: any): any => (s?.$ref ? resolve(schemas[s.$ref.split('/').pop()]) : s);
    const isArray = (s: any) => resolve(s)?.type === 'array' || (resolve(s)?.anyOf ?? []).some((x: any) => resolve(x)?.type === 'array');
    const described: string[] = [];
    for (const [path, ops] of Object.entries<any>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        const body = resolve(op.requestBody?.content?.['application/json']?.schema);
        for (const [field, s] of Object.entries<any>(body?.properties ?? {})) if (isArray(s)) described.push(`${method.toUpperCase()} ${path} ${field}`);
      }
    }
    assert.ok(described.length > 20);
    assert.deepEqual(described.filter((d) => !ROWS.some((r) => `${r.method} ${r.path} ${r.field}` === d)), []);
  });
});

describe('JSON nested deeper than 100 levels', () => {
  const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  const deepList = (n: number) => '['.repeat(n) + ']'.repeat(n);

  it('is a 400 in a body, wherever the value goes, and 100 levels still parse', async () => {
    for (const [method, path, field] of [['DELETE', '/api/maintenance/subscriptions/unconfirmed', 'before_date'], ['POST', '/api/subscribers', 'attribs'], ['PUT', '/api/settings', 'app.site_name']]) {
      for (const value of [deep(20_000), deepList(20_000), deepList(101)]) {
        const res = await t.request(method!, path!, undefined, { raw: `{"${field}":${value}}`, headers: { 'content-type': 'application/json' } });
        assert.equal(res.status, 400, `${path}: ${res.text.slice(0, 200)}`);
        assert.match(res.body.message, /nested deeper than 100 levels/);
      }
    }
    const ok = await t.request('POST', '/api/subscribers', undefined, { raw: `{"email":"deep@example.com","attribs":${deep(99)}}`, headers: { 'content-type': 'application/json' } });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
  });

  it('is a 400 in the JSON parts of multipart requests (tx data, import params)', async () => {
    const tx = new FormData();
    tx.set('data', `{"subscriber_id":1,"template_id":1,"data":${deepList(20_000)}}`);
    const sent = await t.request('POST', '/api/tx', undefined, { raw: tx });
    assert.equal(sent.status, 400, sent.text.slice(0, 200));
    assert.match(sent.body.message, /nested deeper than 100 levels/);
    const imp = new FormData();
    imp.set('params', `{"mode":"subscribe","lists":${deepList(20_000)}}`);
    imp.set('file', new Blob(['email\na@example.com\n']), 'a.csv');
    const imported = await t.request('POST', '/api/import/subscribers', undefined, { raw: imp });
    assert.equal(imported.status, 400, imported.text.slice(0, 200));
    assert.match(imported.body.message, /nested deeper than 100 levels/);
  });
});

describe('forms and query strings keep their repeated fields', () => {
  it('a form sends one value of an array field', async () => {
    const pub = await t.request('POST', '/api/public/subscription', undefined, { raw: new URLSearchParams({ email: 'form@example.com', l: listUuid }), auth: null });
    assert.equal(pub.status, 200, pub.text);
    const multipart = new FormData();
    multipart.set('email', 'multi@example.com');
    multipart.set('list_uuids', listUuid);
    assert.equal((await t.request('POST', '/api/public/subscription', undefined, { raw: multipart, auth: null })).status, 200);
    const found = (await t.request('GET', `/api/subscribers?list_id=${ids.list}&per_page=all`)).body.data.results.map((s: { email: string }) => s.email);
    assert.ok(found.includes('form@example.com') && found.includes('multi@example.com'), found.join());
  });

  it('a by-query route takes its fields from the URL, once or repeated', async () => {
    const other = (await t.request('POST', '/api/lists', { name: 'Other', type: 'private', optin: 'single' })).body.data.id;
    const res = await t.request('PUT', `/api/subscribers/query/lists?action=add&status=confirmed&target_list_ids=${other}&list_ids=${ids.list}`, undefined, {
      raw: "subscribers.email = 'one@example.com'", headers: { 'content-type': 'text/plain' },
    });
    assert.equal(res.status, 200, res.text);
    const lists = (await t.request('GET', `/api/subscribers/${ids.subscriber}`)).body.data.lists.map((l: { id: number }) => l.id);
    assert.ok(lists.includes(other), JSON.stringify(lists));
  });

  it('a query string sends one id or several', async () => {
    const a = (await t.request('POST', '/api/subscribers', { email: 'q1@example.com' })).body.data.id;
    const b = (await t.request('POST', '/api/subscribers', { email: 'q2@example.com' })).body.data.id;
    assert.equal((await t.request('DELETE', `/api/subscribers?id=${a}`)).status, 200);
    assert.equal((await t.request('GET', `/api/subscribers/${a}`)).status, 404);
    assert.equal((await t.request('DELETE', `/api/subscribers?id=${b}&id=999999`)).status, 200);
    assert.equal((await t.request('GET', `/api/subscribers/${b}`)).status, 404);
  });
});
