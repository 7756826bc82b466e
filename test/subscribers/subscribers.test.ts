import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { parse } from 'csv-parse/sync';
import { neutraliseCell } from '../../src/http/csv.ts';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

let t: TestServer;
let sink: SmtpSink;
const L: Record<string, number> = {};

function rowCount(sql: string): number {
  const db = new Database(t.dbPath, { readonly: true });
  try {
    return db.prepare(sql).pluck().get() as number;
  } finally {
    db.close();
  }
}

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await useSmtpSink(t, sink);
  L.single = (await t.request('POST', '/api/lists', { name: 'Single', type: 'public', optin: 'single' })).body.data.id;
  L.double = (await t.request('POST', '/api/lists', { name: 'Double', type: 'public', optin: 'double' })).body.data.id;
  L.other = (await t.request('POST', '/api/lists', { name: 'Other', type: 'private', optin: 'single' })).body.data.id;
  const people = [
    ['ana.silva@example.com', 'Ana Silva', { city: 'Porto', plan: 'pro', stack: { lang: 'go' } }, [L.single]],
    ['bob@example.com', 'Bob Stone', { city: 'Lisbon', plan: 'free' }, [L.single, L.other]],
    ['carla@example.org', 'Carla Dias', { city: 'Porto', plan: 'free', tags: ['a', 'b'] }, [L.other]],
    ['dan@example.org', 'Dan Brown', { city: 'Faro', n: 3 }, []],
  ] as const;
  for (const [email, name, attribs, lists] of people) {
    const r = await t.request('POST', '/api/subscribers', { email, name, attribs, lists, preconfirm_subscriptions: true, status: 'enabled' });
    assert.equal(r.status, 200, r.text);
  }
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('create and validation', () => {
  let count = 0;
  const refused = (name: string, body: unknown, status: number): Scenario => ({
    name: `refuses ${name}`, method: 'POST', path: '/api/subscribers', body, status,
    before: () => {
      count = rowCount('SELECT COUNT(*) FROM subscribers');
    },
    after: () => assert.equal(rowCount('SELECT COUNT(*) FROM subscribers'), count),
  });
  runScenarios(() => t, [
    refused('missing e-mail', { name: 'x' }, 400),
    refused('invalid e-mail', { email: 'not-an-address', name: 'x' }, 400),
    refused('display name form', { email: 'Jane <jane@x.io>', name: 'x' }, 400),
    refused('quoted local part', { email: '"a b"@x.io', name: 'x' }, 400),
    refused('bad status', { email: 'ok1@example.com', name: 'x', status: 'gone' }, 400),
    refused('attribs not an object', { email: 'ok2@example.com', name: 'x', attribs: [1, 2] }, 400),
    refused('lists not integers', { email: 'ok3@example.com', name: 'x', lists: ['a'] }, 400),
    refused('duplicate e-mail (any case)', { email: ' ANA.SILVA@example.com ', name: 'x' }, 409),
  ]);

  it('normalises the e-mail, derives the name, answers list ids', async () => {
    const res = await t.request('POST', '/api/subscribers', { email: '  Jane.Doe@Example.COM ', lists: [L.single, 9999], attribs: { deep: { x: [1, true, null] } } });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.email, 'jane.doe@example.com');
    assert.equal(res.body.data.name, 'Jane Doe');
    assert.deepEqual(res.body.data.lists, [L.single]);
    assert.deepEqual(res.body.data.attribs, { deep: { x: [1, true, null] } });
    const got = (await t.request('GET', `/api/subscribers/${res.body.data.id}`)).body.data;
    assert.equal(got.lists[0].subscription_status, 'unconfirmed');
    assert.equal(got.lists[0].subscription_source, 'api');
  });

  it('honours the domain blocklist', () => withSettings(t, { 'privacy.domain_blocklist': ['*.blocked.test'] }, async () => {
    const res = await t.request('POST', '/api/subscribers', { email: 'x@mail.blocked.test', name: 'x' });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /domain/);
  }));

  it('blocklisted on create unsubscribes the lists', async () => {
    const res = await t.request('POST', '/api/subscribers', { email: 'blocked@example.net', name: 'B', status: 'blocklisted', lists: [L.single] });
    const got = (await t.request('GET', `/api/subscribers/${res.body.data.id}`)).body.data;
    assert.equal(got.lists[0].subscription_status, 'unsubscribed');
  });
});

describe('double opt-in', () => {
  it('sends one mail whose link confirms only on POST', async () => {
    const start = sink.messages.length;
    const res = await t.request('POST', '/api/subscribers', { email: 'optin@example.com', name: 'Opt In', lists: [L.double, L.single] });
    assert.equal(res.status, 200);
    const id = res.body.data.id;
    const [mail] = (await sink.waitFor(start + 1)).slice(start);
    assert.deepEqual(mail.to, ['optin@example.com']);
    const link = /https?:\/\/\S+\/subscription\/optin\/[0-9a-f-]+\?l=[0-9a-f-]+/.exec(mail.parsed.text ?? '')?.[0];
    assert.ok(link, mail.parsed.text);
    const path = new URL(link).pathname + new URL(link).search;
    const page = await fetch(t.url + path);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /<form method="post"/);
    let sub = (await t.request('GET', `/api/subscribers/${id}`)).body.data;
    assert.equal(sub.lists.find((l: any) => l.id === L.double).subscription_status, 'unconfirmed');
    const listUuid = new URL(link).searchParams.get('l')!;
    const post = await fetch(t.url + new URL(link).pathname, {
      method: 'POST', body: new URLSearchParams({ l: listUuid, confirm: 'true' }), headers: { 'user-agent': 'test-agent' },
    });
    assert.ok(post.status < 400);
    sub = (await t.request('GET', `/api/subscribers/${id}`)).body.data;
    const d = sub.lists.find((l: any) => l.id === L.double);
    assert.equal(d.subscription_status, 'confirmed');
    assert.ok(d.subscription_meta.confirmed_at);
    assert.equal(d.subscription_meta.optin_ip, undefined, 'no IP recorded unless privacy.record_optin_ip');
    // Only double opt-in lists were in the mail; the single opt-in one stays as it was.
    assert.equal(sub.lists.find((l: any) => l.id === L.single).subscription_status, 'unconfirmed');
  });

  it('records IP and user agent when allowed; export carries the consent', () => withSettings(t, { 'privacy.record_optin_ip': true }, async () => {
    const id = (await t.request('POST', '/api/subscribers', { email: 'ip@example.com', name: 'Ip', lists: [L.double] })).body.data.id;
    const sub = (await t.request('GET', `/api/subscribers/${id}`)).body.data;
    const post = await fetch(`${t.url}/subscription/optin/${sub.uuid}`, { method: 'POST', body: new URLSearchParams({ confirm: 'true' }), headers: { 'user-agent': 'agent/1' } });
    assert.equal(post.status, 200);
    const exp = await t.request('GET', `/api/subscribers/${id}/export`);
    assert.equal(exp.status, 200);
    assert.match(exp.headers.get('content-disposition') ?? '', /attachment; filename="data\.json"/);
    assert.ok(exp.headers.get('cache-control'));
    const doc = JSON.parse(exp.text);
    assert.equal(doc.profile[0].email, 'ip@example.com');
    assert.equal(doc.subscriptions[0].source, 'api');
    assert.equal(doc.subscriptions[0].meta.optin_user_agent, 'agent/1');
    assert.equal(doc.subscriptions[0].meta.optin_ip, '127.0.0.1');
  }));

  it('the mail lists the pending double opt-in lists, naming private ones only as private', async () => {
    const hidden = (await t.request('POST', '/api/lists', { name: 'Hidden double', type: 'private', optin: 'double' })).body.data.id;
    const start = sink.messages.length;
    const res = await t.request('POST', '/api/subscribers', { email: 'names@example.com', name: 'Nina <Names>', lists: [L.double, hidden, L.single] });
    assert.equal(res.status, 200, res.text);
    const [mail] = (await sink.waitFor(start + 1)).slice(start);
    const html = String(mail.parsed.html);
    const items = [...html.matchAll(/<li>([^<]*)<\/li>/g)].map((m) => m[1]);
    assert.deepEqual(items, ['Double', 'Private list']);
    assert.match(html, /Hello Nina &lt;Names&gt;,/, 'data is HTML-escaped');
    const sub = (await t.request('GET', `/api/subscribers/${res.body.data.id}`)).body.data;
    const uuids = [L.double, hidden].map((id) => sub.lists.find((l: any) => l.id === id).uuid);
    assert.ok(html.includes(`/subscription/optin/${sub.uuid}?l=${uuids[0]}&amp;l=${uuids[1]}"`), html);
    await t.request('DELETE', `/api/subscribers/${sub.id}`);
    await t.request('DELETE', `/api/lists/${hidden}`);
  });

  it('preconfirmed subscriptions send nothing; POST optin resends', async () => {
    const start = sink.messages.length;
    const id = (await t.request('POST', '/api/subscribers', { email: 'pre@example.com', name: 'Pre', lists: [L.double], preconfirm_subscriptions: true })).body.data.id;
    const sub = (await t.request('GET', `/api/subscribers/${id}`)).body.data;
    assert.equal(sub.lists[0].subscription_status, 'confirmed');
    await t.request('PUT', '/api/subscribers/lists', { ids: [id], action: 'add', target_list_ids: [L.double], status: 'unconfirmed' });
    assert.equal(sink.messages.length, start, 'no mail for preconfirmed or list actions');
    assert.equal((await t.request('POST', `/api/subscribers/${id}/optin`, {})).status, 200);
    await sink.waitFor(start + 1);
    assert.deepEqual(sink.messages[start].to, ['pre@example.com']);
  });
  runScenarios(() => t, [{ name: 'POST optin for an unknown subscriber is 404', method: 'POST', path: '/api/subscribers/99999/optin', body: {}, status: 404 }]);
});

describe('reads, paging, ordering, search and segments', () => {
  it('pages with total and ordering', async () => {
    const res = await t.request('GET', '/api/subscribers?per_page=2&page=1&order_by=email&order=asc');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.per_page, 2);
    assert.equal(res.body.data.page, 1);
    assert.equal(res.body.data.results.length, 2);
    assert.equal(res.body.data.total, rowCount('SELECT COUNT(*) FROM subscribers'));
    assert.equal(res.body.data.results[0].email, 'ana.silva@example.com');
    const p2 = await t.request('GET', '/api/subscribers?per_page=2&page=2&order_by=email&order=asc');
    assert.ok(p2.body.data.results[0].email > res.body.data.results[1].email);
  });

  it('orders by name and by status, ties by id in the same direction', async () => {
    // Statuses and names that sort differently from ids, and a name tie.
    for (const [email, name, status] of [['zed.q@example.net', 'Zed Quill', 'disabled'], ['abe.q@example.net', 'Abe Quill', 'blocklisted'], ['zed2.q@example.net', 'Zed Quill', 'blocklisted']]) {
      assert.equal((await t.request('POST', '/api/subscribers', { email, name, status })).status, 200);
    }
    const all: { id: number; name: string; status: string }[] = (await t.request('GET', '/api/subscribers?per_page=all')).body.data.results;
    const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
    const expected = (key: 'name' | 'status', dir: 1 | -1) =>
      [...all].sort((a, b) => dir * (cmp(a[key], b[key]) || a.id - b.id)).map((s) => s.id);
    for (const key of ['name', 'status'] as const) {
      for (const [order, dir] of [['asc', 1], ['desc', -1]] as const) {
        const res = await t.request('GET', `/api/subscribers?per_page=50&order_by=${key}&order=${order}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.results.map((s: any) => s.id), expected(key, dir), `${key} ${order}`);
        // The second page continues where the first ended.
        const p2 = await t.request('GET', `/api/subscribers?per_page=3&page=2&order_by=${key}&order=${order}`);
        assert.deepEqual(p2.body.data.results.map((s: any) => s.id), expected(key, dir).slice(3, 6), `${key} ${order} page 2`);
      }
    }
    const statuses = (await t.request('GET', '/api/subscribers?per_page=50&order_by=status&order=asc')).body.data.results.map((s: any) => s.status);
    assert.equal(statuses[0], 'blocklisted');
    assert.equal(statuses.at(-1), 'enabled');
  });

  it('default order is newest id first', async () => {
    const ids = (await t.request('GET', '/api/subscribers?per_page=50')).body.data.results.map((s: any) => s.id);
    assert.deepEqual(ids, [...ids].sort((a: number, b: number) => b - a));
  });

  it('list filter returns each subscriber once with a right total', async () => {
    const res = await t.request('GET', `/api/subscribers?list_id=${L.single}&list_id=${L.other}&per_page=50`);
    const emails = res.body.data.results.map((s: any) => s.email);
    assert.equal(new Set(emails).size, emails.length);
    assert.equal(res.body.data.total, emails.length);
    assert.ok(emails.includes('bob@example.com') && emails.includes('carla@example.org'));
    const one = await t.request('GET', `/api/subscribers?list_id=${L.other}&subscription_status=confirmed`);
    assert.deepEqual(one.body.data.results.map((s: any) => s.email).sort(), ['bob@example.com', 'carla@example.org']);
    assert.equal(one.body.data.total, 2);
  });

  it('search matches substrings of name, e-mail and text attributes', async () => {
    const by = async (s: string) => (await t.request('GET', `/api/subscribers?search=${encodeURIComponent(s)}`)).body.data;
    assert.deepEqual((await by('SILVA')).results.map((s: any) => s.email), ['ana.silva@example.com']);
    assert.deepEqual((await by('lisb')).results.map((s: any) => s.email), ['bob@example.com']);
    assert.equal((await by('example.org')).total, 2);
    assert.equal((await by('(.*')).total, 0, 'special characters are literal');
    assert.equal((await by('"')).total, 0);
    assert.equal((await by('Da')).results.some((s: any) => s.email === 'dan@example.org'), true);
  });

  it('segment queries filter (parenthesised) and echo the query', async () => {
    const q = "subscribers.attribs->>'city' = 'Porto'";
    const res = await t.request('GET', `/api/subscribers?query=${encodeURIComponent(q)}&per_page=1`);
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.total, 2);
    assert.equal(res.body.data.results.length, 1);
    assert.equal(res.body.data.query, q);
    // A top-level OR must not escape the list filter.
    const or = await t.request('GET', `/api/subscribers?list_id=${L.other}&query=${encodeURIComponent("subscribers.name = 'x' OR subscribers.id > 0")}&per_page=50`);
    assert.equal(or.status, 200, or.text);
    assert.ok(or.body.data.results.every((s: any) => s.lists.some((l: any) => l.id === L.other)));
  });

  it('attribs string segments find values stored with escapes and nested in arrays', async () => {
    const id = (await t.request('POST', '/api/subscribers', { email: 'zurich@example.net', name: 'Zed Urich', attribs: { tags: ['alpha', 'Zürich'] } })).body.data.id;
    const db = new Database(t.dbPath);
    db.prepare('UPDATE subscribers SET attribs = ? WHERE id = ?').run('{"city":"Z\\u00fcrich","tags":["alpha","Z\\u00fcrich"]}', id);
    db.close();
    try {
      for (const q of ["subscribers.attribs->>'city' = 'Zürich'", "subscribers.attribs->'tags'->>1 = 'Zürich'"]) {
        const res = await t.request('GET', `/api/subscribers?query=${encodeURIComponent(q)}`);
        assert.equal(res.status, 200, res.text);
        assert.deepEqual(res.body.data.results.map((s: any) => s.id), [id], q);
        assert.equal(res.body.data.total, 1);
      }
      const none = await t.request('GET', `/api/subscribers?query=${encodeURIComponent("subscribers.attribs->>'city' = 'Zurich'")}`);
      assert.equal(none.body.data.total, 0);
    } finally {
      await t.request('DELETE', `/api/subscribers/${id}`);
    }
  });

  const badQueries = [
    'subscribers.id = ',
    "1=1; DROP TABLE subscribers",
    'subscribers.id IN (SELECT id FROM users)',
    "(SELECT password FROM users LIMIT 1) = 'x'",
    'nosuchcolumn = 1',
  ];
  const counts = () => [
    rowCount('SELECT COUNT(*) FROM subscribers'),
    rowCount("SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted'"),
    rowCount('SELECT COUNT(*) FROM subscriber_lists'),
  ];
  for (const q of badQueries) {
    describe(`refuses the expression ${JSON.stringify(q)} with 400, changing nothing`, () => {
      let was: number[] = [];
      const refused = (method: string, path: string, body?: unknown): Scenario => ({
        name: `${method} ${path.replace(/\?.*/, '')}`, method, path, body, status: 400,
        before: () => {
          was = counts();
        },
        after: () => assert.deepEqual(counts(), was),
      });
      runScenarios(() => t, [
        refused('GET', `/api/subscribers?query=${encodeURIComponent(q)}`),
        refused('GET', `/api/subscribers/export?query=${encodeURIComponent(q)}`),
        refused('POST', '/api/subscribers/query/delete', { query: q }),
        refused('PUT', '/api/subscribers/query/blocklist', { query: q }),
        { ...refused('PUT', '/api/subscribers/query/lists'), body: () => ({ query: q, action: 'remove', target_list_ids: [L.single] }) },
      ]);
    });
  }

  describe('query needs subscribers:sql_query', () => {
    let reader = '';
    before(() => {
      reader = fixtures(t.server.ctx.db).apiUser('reader', { permissions: ['subscribers:get_all', 'subscribers:get'] });
    });
    runScenarios(() => t, [
      { name: 'a reader lists subscribers', method: 'GET', path: '/api/subscribers', auth: () => reader, status: 200 },
      { name: 'but not by a query', method: 'GET', path: `/api/subscribers?query=${encodeURIComponent('subscribers.id > 0')}`, auth: () => reader, status: 403, contains: [/subscribers:sql_query/] },
    ]);
  });

  it('per_page=all streams every subscriber', async () => {
    const res = await t.request('GET', '/api/subscribers?per_page=all');
    assert.equal(res.status, 200);
    assert.equal(res.body.data.per_page, 0);
    assert.equal(res.body.data.results.length, rowCount('SELECT COUNT(*) FROM subscribers'));
    assert.equal(res.body.data.total, res.body.data.results.length);
  });

  it('honours a huge per_page as existing clients send it (not clamped), streamed in order', async () => {
    const count = rowCount('SELECT COUNT(*) FROM subscribers');
    const huge = await t.request('GET', '/api/subscribers?per_page=1000000&order_by=created_at&order=asc');
    assert.equal(huge.status, 200);
    assert.equal(huge.body.data.per_page, 1000000);
    assert.equal(huge.body.data.page, 1);
    assert.equal(huge.body.data.total, count);
    assert.equal(huge.body.data.results.length, count);
    const beyond = await t.request('GET', '/api/subscribers?per_page=1000000&page=2');
    assert.deepEqual([beyond.body.data.results.length, beyond.body.data.total, beyond.body.data.page], [0, count, 2]);
    const small = await t.request('GET', '/api/subscribers?per_page=2&page=2&order_by=created_at&order=asc');
    assert.deepEqual(small.body.data.results.map((r: { id: number }) => r.id), huge.body.data.results.slice(2, 4).map((r: { id: number }) => r.id));
  });

  describe('bad paging and enum inputs', () => runScenarios(() => t, [
    { name: 'a list_id that is not a number', method: 'GET', path: '/api/subscribers?list_id=abc', status: 400 },
    { name: 'an unknown subscription_status', method: 'GET', path: () => `/api/subscribers?list_id=${L.single}&subscription_status=maybe`, status: 400 },
    { name: 'a bad id', method: 'GET', path: '/api/subscribers/abc', status: 400 },
    { name: 'an unknown id', method: 'GET', path: '/api/subscribers/99999', status: 404 },
  ]));

  it('CSV export', async () => {
    const res = await t.request('GET', `/api/subscribers/export?list_id=${L.other}`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type') ?? '', /text\/csv/);
    const lines = res.text.trim().split('\n');
    assert.equal(lines[0], 'uuid,email,name,attributes,status,created_at,updated_at');
    assert.equal(lines.length, 3);
    assert.ok(lines.some((l) => l.includes('carla@example.org') && l.includes('"{""city"":""Porto""')));
  });
  it('CSV export quotes commas, quotes, line breaks and JSON attributes', async () => {
    const name = 'Doe, "Jo"\nJunior';
    const attribs = { note: 'a,b "c"', n: 1 };
    const id = (await t.request('POST', '/api/subscribers', { email: 'csv.quote@example.net', name, attribs })).body.data.id;
    const res = await t.request('GET', `/api/subscribers/export?id=${id}`);
    assert.equal(res.status, 200, res.text);
    const records: string[][] = parse(res.text);
    assert.equal(records.length, 2);
    assert.deepEqual(records[0], ['uuid', 'email', 'name', 'attributes', 'status', 'created_at', 'updated_at']);
    const [, email, gotName, gotAttribs, status] = records[1];
    assert.deepEqual([email, gotName, JSON.parse(gotAttribs), status], ['csv.quote@example.net', name, attribs, 'enabled']);
    await t.request('DELETE', `/api/subscribers/${id}`);
  });
  it('CSV export neutralises cells a spreadsheet would run as formulas, unless security.csv_escape_formulas is off', async () => {
    // Names are trimmed when saved, so the tab and carriage return cases are the cell function's.
    assert.deepEqual(['\t=1', '\r=1', ' =1', 'a=1', ''].map(neutraliseCell), [`'\t=1`, `'\r=1`, ' =1', 'a=1', '']);
    assert.deepEqual([-1, 2, null].map(neutraliseCell), [-1, 2, null]);
    const starts = ['=HYPERLINK("http://evil.example","x")', '+1+cmd|x', '-2+3', '@SUM(A1)'];
    const ids: number[] = [];
    for (const [i, name] of starts.entries()) {
      const res = await t.request('POST', '/api/subscribers', { email: `csv.formula${i}@example.net`, name });
      assert.equal(res.status, 200, res.text);
      ids.push(res.body.data.id);
    }
    const names = async () => {
      const res = await t.request('GET', `/api/subscribers/export?${ids.map((id) => `id=${id}`).join('&')}`);
      assert.equal(res.status, 200, res.text);
      const records: string[][] = parse(res.text, { relax_quotes: true });
      return records.slice(1).map((r) => r[2]).sort();
    };
    try {
      assert.deepEqual(await names(), starts.map((n) => `'${n}`).sort());
      await withSettings(t, { 'security.csv_escape_formulas': false }, async () => assert.deepEqual(await names(), [...starts].sort()));
    } finally {
      for (const id of ids) await t.request('DELETE', `/api/subscribers/${id}`);
    }
  });
});

describe('updates', () => {
  let id: number;
  before(async () => {
    id = (await t.request('POST', '/api/subscribers', { email: 'upd@example.com', name: 'Up D', attribs: { a: 1, b: 2 }, lists: [L.single, L.other], preconfirm_subscriptions: true })).body.data.id;
  });

  it('PATCH merges attribs and keeps lists unless given', async () => {
    const res = await t.request('PATCH', `/api/subscribers/${id}`, { attribs: { b: 3, c: { d: 4 } } });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.attribs, { a: 1, b: 3, c: { d: 4 } });
    assert.equal(res.body.data.lists.length, 2);
    assert.equal(res.body.data.name, 'Up D');
  });

  it('PUT replaces lists and attribs; absent lists remove all', async () => {
    let res = await t.request('PUT', `/api/subscribers/${id}`, { email: 'upd@example.com', name: 'Up', status: 'enabled', lists: [L.single] });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body.data.lists.map((l: any) => l.id), [L.single]);
    assert.equal(res.body.data.lists[0].subscription_status, 'confirmed', 'confirmed rows stay confirmed');
    assert.deepEqual(res.body.data.attribs, {});
    res = await t.request('PUT', `/api/subscribers/${id}`, { email: 'upd@example.com', name: 'Up', status: 'enabled' });
    assert.deepEqual(res.body.data.lists, []);
  });

  it('PUT accepts the whole object read back from a GET, list summaries included (clients.md)', async () => {
    await t.request('PATCH', `/api/subscribers/${id}`, { lists: [L.single, L.other] });
    const read = (await t.request('GET', `/api/subscribers/${id}`)).body.data;
    const res = await t.request('PUT', `/api/subscribers/${id}`, { ...read, name: 'Read Back' });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.name, 'Read Back');
    assert.deepEqual(res.body.data.lists.map((l: any) => l.id).sort(), [L.single, L.other].sort());
    assert.equal((await t.request('PATCH', `/api/subscribers/${id}`, { lists: [{ id: L.single }, { name: 'no id' }] })).status, 400);
  });

  describe('bad updates change nothing', () => {
    const refused = (name: string, method: string, body: unknown, status: number, path = () => `/api/subscribers/${id}`): Scenario => ({
      name, method, path, body, status,
      after: async () => assert.equal((await t.request('GET', `/api/subscribers/${id}`)).body.data.email, 'upd@example.com'),
    });
    runScenarios(() => t, [
      refused('PUT without an e-mail', 'PUT', { name: 'no email' }, 400),
      refused('PUT onto a taken e-mail', 'PUT', { email: 'bob@example.com', name: 'dup' }, 409),
      refused('PATCH onto a taken e-mail (any case)', 'PATCH', { email: 'Bob@Example.com' }, 409),
      refused('PATCH with a bad status', 'PATCH', { status: 'weird' }, 400),
      refused('PATCH with attribs not an object', 'PATCH', { attribs: 'x' }, 400),
      refused('PATCH an unknown subscriber', 'PATCH', { name: 'x' }, 404, () => '/api/subscribers/99999'),
    ]);
  });
});

describe('list changes, blocklist and deletes', () => {
  const mk = async (email: string, lists: number[] = []) =>
    (await t.request('POST', '/api/subscribers', { email, name: email, lists, preconfirm_subscriptions: true })).body.data.id as number;

  describe('by ids: add / unsubscribe / remove, with bad inputs refused', () => {
    let a = 0;
    let b = 0;
    before(async () => {
      a = await mk('la@example.net');
      b = await mk('lb@example.net');
    });
    const listsOfA = async () => assert.equal((await t.request('GET', `/api/subscribers/${a}`)).body.data.lists.length, 0);
    const change = (name: string, body: () => unknown, status: number): Scenario => ({ name, method: 'PUT', path: '/api/subscribers/lists', body, status, after: listsOfA });
    runScenarios(() => t, [
      change('refuses no ids', () => ({ action: 'add', target_list_ids: [L.other], status: 'confirmed' }), 400),
      change('refuses no target lists', () => ({ ids: [a], action: 'add', target_list_ids: [], status: 'confirmed' }), 400),
      change('refuses an unknown action', () => ({ ids: [a], action: 'move', target_list_ids: [L.other] }), 400),
      change('refuses an unknown status', () => ({ ids: [a], action: 'add', target_list_ids: [L.other], status: 'maybe' }), 400),
      change('refuses add without a status', () => ({ ids: [a], action: 'add', target_list_ids: [L.other] }), 400),
      change('ignores unknown subscribers', () => ({ ids: [99999], action: 'add', target_list_ids: [L.other], status: 'confirmed' }), 200),
    ]);

    it('adds, unsubscribes and removes', async () => {
      await t.request('PUT', '/api/subscribers/lists', { ids: [a, b], action: 'add', target_list_ids: [L.other], status: 'confirmed' });
      assert.equal((await t.request('GET', `/api/subscribers/${b}`)).body.data.lists[0].subscription_status, 'confirmed');
      await t.request('PUT', `/api/subscribers/lists/${a}`, { action: 'unsubscribe', target_list_ids: [L.other] });
      assert.equal((await t.request('GET', `/api/subscribers/${a}`)).body.data.lists[0].subscription_status, 'unsubscribed');
      await t.request('PUT', '/api/subscribers/lists', { ids: [a, b], action: 'remove', target_list_ids: [L.other] });
      assert.equal((await t.request('GET', `/api/subscribers/${b}`)).body.data.lists.length, 0);
    });
  });

  it('by query (JSON and plain text): add leaves existing rows alone', async () => {
    const a = await mk('qa@bulk.test');
    const b = await mk('qb@bulk.test', [L.double]);
    await t.request('PUT', '/api/subscribers/lists', { ids: [b], action: 'unsubscribe', target_list_ids: [L.double] });
    const res = await t.request('PUT', '/api/subscribers/query/lists', { query: "subscribers.email LIKE '%@bulk.test'", action: 'add', target_list_ids: [L.double], status: 'confirmed' });
    assert.equal(res.status, 200, res.text);
    assert.equal((await t.request('GET', `/api/subscribers/${a}`)).body.data.lists[0].subscription_status, 'confirmed');
    assert.equal((await t.request('GET', `/api/subscribers/${b}`)).body.data.lists[0].subscription_status, 'unsubscribed');
    // A plain-text expression, the other fields in the URL.
    const plain = { headers: { 'content-type': 'text/plain' } };
    const c = await mk('qc@bulk.test');
    assert.equal((await t.request('PUT', `/api/subscribers/query/lists?action=add&target_list_ids=${L.other}&status=unconfirmed`, undefined, { ...plain, raw: "subscribers.email = 'qc@bulk.test'" })).status, 200);
    assert.deepEqual((await t.request('GET', `/api/subscribers/${c}`)).body.data.lists.map((l: any) => [l.id, l.subscription_status]), [[L.other, 'unconfirmed']]);
    const bl = await t.request('PUT', '/api/subscribers/query/blocklist', undefined, { ...plain, raw: "subscribers.email = 'qa@bulk.test'" });
    assert.equal(bl.status, 200, bl.text);
    const sa = (await t.request('GET', `/api/subscribers/${a}`)).body.data;
    assert.equal(sa.status, 'blocklisted');
    assert.equal(sa.lists[0].subscription_status, 'unsubscribed');
    assert.equal((await t.request('GET', `/api/subscribers/${b}`)).body.data.status, 'enabled');
    const del = await t.request('POST', '/api/subscribers/query/delete', { search: 'bulk.test' });
    assert.equal(del.status, 200);
    assert.equal((await t.request('GET', `/api/subscribers/${a}`)).status, 404);
    assert.equal((await t.request('GET', `/api/subscribers/${b}`)).status, 404);
  });
  runScenarios(() => t, [
    {
      name: 'by query: a plain-text expression without an action is refused', method: 'PUT', path: '/api/subscribers/query/lists',
      raw: "subscribers.email = 'qc@bulk.test'", headers: { 'content-type': 'text/plain' }, status: 400, contains: [/"action"/],
    },
    { name: 'by query: delete needs a query, search or all', method: 'POST', path: '/api/subscribers/query/delete', body: {}, status: 400 },
  ]);

  it('add by query keeps list and dashboard counters exact', async () => {
    const orphan = await mk('orphan@count.test');
    const onOther = await mk('other@count.test', [L.other]);
    const already = await mk('already@count.test', [L.double]);
    const target = (await t.request('POST', '/api/lists', { name: 'Count target', type: 'private', optin: 'single' })).body.data.id;
    const exact = () => ({
      lists: rowCount(`SELECT json_group_array(json_array(list_id, status, n)) FROM (SELECT * FROM list_subscriber_counts WHERE n > 0 ORDER BY 1, 2)`),
      subscribed: rowCount(`SELECT n FROM dashboard_counts WHERE key = 'subscribed'`),
    });
    const truth = () => ({
      lists: rowCount(`SELECT json_group_array(json_array(list_id, status, n)) FROM (SELECT list_id, status, COUNT(*) AS n FROM subscriber_lists GROUP BY 1, 2 ORDER BY 1, 2)`),
      subscribed: rowCount('SELECT COUNT(DISTINCT subscriber_id) FROM subscriber_lists'),
    });
    assert.deepEqual(exact(), truth());
    const res = await t.request('PUT', '/api/subscribers/query/lists', {
      query: "subscribers.email LIKE '%@count.test'", action: 'add', target_list_ids: [target, L.double, 99999], status: 'unconfirmed',
    });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(exact(), truth());
    assert.equal(rowCount('SELECT from_id IS NULL FROM subscriber_bulk_insert'), 1, 'the bulk gate is closed again');
    const list = (await t.request('GET', `/api/lists/${target}`)).body.data;
    assert.equal(list.subscriber_count, 3);
    const subs = await Promise.all([orphan, onOther, already].map(async (id) => (await t.request('GET', `/api/subscribers/${id}`)).body.data));
    assert.deepEqual(subs.map((x: any) => x.lists.find((l: any) => l.id === L.double).subscription_status), ['unconfirmed', 'unconfirmed', 'confirmed'], 'existing rows stay');
    await t.request('POST', '/api/subscribers/query/delete', { search: 'count.test' });
    await t.request('DELETE', `/api/lists/${target}`);
    assert.deepEqual(exact(), truth());
  });

  it('blocklist and delete by ids, one and many', async () => {
    const a = await mk('da@example.net', [L.single]);
    const b = await mk('db@example.net');
    assert.equal((await t.request('PUT', `/api/subscribers/${a}/blocklist`)).status, 200);
    assert.equal((await t.request('GET', `/api/subscribers/${a}`)).body.data.lists[0].subscription_status, 'unsubscribed');
    assert.equal((await t.request('PUT', '/api/subscribers/blocklist', { ids: [b] })).status, 200);
    assert.equal((await t.request('GET', `/api/subscribers/${b}`)).body.data.status, 'blocklisted');
    assert.equal((await t.request('DELETE', `/api/subscribers?id=${a}&id=${b}`)).status, 200);
    assert.equal((await t.request('GET', `/api/subscribers/${b}`)).status, 404);
  });
  describe('blocklist and delete refusals', () => runScenarios(() => t, [
    { name: 'blocklist with no ids', method: 'PUT', path: '/api/subscribers/blocklist', body: { ids: [] }, status: 400 },
    { name: 'blocklist an unknown subscriber', method: 'PUT', path: '/api/subscribers/99999/blocklist', status: 404 },
    { name: 'delete with no ids', method: 'DELETE', path: '/api/subscribers', status: 400 },
    { name: 'delete a bad id', method: 'DELETE', path: '/api/subscribers?id=x', status: 400 },
    { name: 'delete an unknown subscriber', method: 'DELETE', path: '/api/subscribers/99999', status: 404 },
    { name: 'the bounces of an unknown subscriber', method: 'GET', path: '/api/subscribers/99999/bounces', status: 404 },
  ]));

  it('bounces of a subscriber', async () => {
    const a = await mk('bounce@example.net');
    fixtures(t.server.ctx.db).bounce({ subscriber: a, meta: { x: 1 } });
    const res = await t.request('GET', `/api/subscribers/${a}/bounces`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data.length, 1);
    assert.equal(res.body.data[0].email, 'bounce@example.net');
    assert.deepEqual(res.body.data[0].meta, { x: 1 });
    assert.equal(res.body.data[0].campaign, null);
    assert.equal((await t.request('DELETE', `/api/subscribers/${a}/bounces`)).status, 200);
    assert.equal((await t.request('GET', `/api/subscribers/${a}/bounces`)).body.data.length, 0);
    const act = await t.request('GET', `/api/subscribers/${a}/activity`);
    assert.deepEqual(act.body.data, { campaign_views: [], link_clicks: [] });
  });

  it('counters stay right', async () => {
    assert.equal(rowCount('SELECT n FROM subscriber_total'), rowCount('SELECT COUNT(*) FROM subscribers'));
    assert.equal(rowCount('SELECT COALESCE(SUM(n), 0) FROM list_subscriber_counts'), rowCount('SELECT COUNT(*) FROM subscriber_lists'));
  });

  it('delete all', async () => {
    assert.equal((await t.request('POST', '/api/subscribers/query/delete', { all: true })).status, 200);
    assert.equal(rowCount('SELECT COUNT(*) FROM subscribers'), 0);
    assert.equal(rowCount('SELECT n FROM subscriber_total'), 0);
  });
});
