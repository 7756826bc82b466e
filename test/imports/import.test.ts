// POST/GET/DELETE /api/import/subscribers over real HTTP into a real database.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { ImportStore, isLargeImport } from '../../src/imports/store.ts';
import { EventLog } from '../../src/events/log.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { zipOfEntries } from '../helpers/zip.ts';

let t: TestServer;
let sink: SmtpSink;
let listA: number;
let listB: number;

function zipOf(files: Record<string, string | Buffer>): Promise<Buffer> {
  return zipOfEntries(Object.entries(files));
}

function form(params: unknown, file?: { name: string; content: string | Buffer }): FormData {
  const f = new FormData();
  f.set('params', typeof params === 'string' ? params : JSON.stringify(params));
  if (file) f.set('file', new Blob([typeof file.content === 'string' ? file.content : new Uint8Array(file.content)]), file.name);
  return f;
}

const post = (params: unknown, file?: { name: string; content: string | Buffer }) =>
  t.request('POST', '/api/import/subscribers', undefined, { raw: form(params, file) });

async function waitDone(): Promise<{ name: string; total: number; imported: number; status: string }> {
  for (;;) {
    const s = (await t.request('GET', '/api/import/subscribers')).body.data;
    if (s.status !== 'importing' && s.status !== 'stopping') return s;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const sub = (email: string) => t.server.ctx.db.prepare('SELECT * FROM subscribers WHERE email = ?').get(email) as
  { id: number; name: string; attribs: string; status: string; uuid: string } | undefined;
const subs = (email: string) => t.server.ctx.db.prepare(
  'SELECT sl.list_id, sl.status, sl.source FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email = ? ORDER BY sl.list_id',
).all(email) as { list_id: number; status: string; source: string }[];

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await useSmtpSink(t, sink);
  assert.equal((await t.request('PUT', '/api/settings', { 'app.notify_emails': ['admin@example.org'], 'privacy.domain_blocklist': ['blocked.example'] })).status, 200);
  const f = fixtures(t.server.ctx.db);
  listA = f.list({ name: 'A' }).id;
  listB = f.list({ name: 'B' }).id;
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('refused uploads change nothing', () => {
  const bigZeros = Buffer.alloc(30 * 1024 * 1024);
  const cases: { name: string; params: unknown; file?: () => Promise<{ name: string; content: string | Buffer }>; status: number; message: RegExp }[] = [
    { name: 'params not JSON', params: '{mode', file: async () => ({ name: 'a.csv', content: 'email\na@x.io\n' }), status: 400, message: /params.*not JSON/ },
    { name: 'bad mode', params: { mode: 'delete', delim: ',', lists: [1] }, file: async () => ({ name: 'a.csv', content: 'email\n' }), status: 400, message: /mode/ },
    { name: 'no lists in subscribe mode', params: { mode: 'subscribe', delim: ',' }, file: async () => ({ name: 'a.csv', content: 'email\n' }), status: 403, message: /lists/ },
    { name: 'unknown list', params: { mode: 'subscribe', delim: ',', lists: [999] }, file: async () => ({ name: 'a.csv', content: 'email\n' }), status: 400, message: /999/ },
    { name: 'bad subscription status', params: { mode: 'subscribe', delim: ',', lists: [1], subscription_status: 'maybe' }, file: async () => ({ name: 'a.csv', content: 'email\n' }), status: 400, message: /subscription_status/ },
    { name: 'two-character delimiter', params: { mode: 'subscribe', delim: ';;', lists: [1] }, file: async () => ({ name: 'a.csv', content: 'email\n' }), status: 400, message: /delim/ },
    { name: 'missing file', params: { mode: 'blocklist', delim: ',' }, status: 400, message: /"file"/ },
    { name: 'not a ZIP or CSV', params: { mode: 'blocklist', delim: ',' }, file: async () => ({ name: 'photo.png', content: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0]) }), status: 400, message: /neither a ZIP archive nor a CSV/ },
    { name: 'broken ZIP', params: { mode: 'blocklist', delim: ',' }, file: async () => ({ name: 'x.zip', content: 'PK\x03\x04 this is not really a zip' }), status: 400, message: /not a valid ZIP/ },
    { name: 'ZIP without a CSV', params: { mode: 'blocklist', delim: ',' }, file: async () => ({ name: 'x.zip', content: await zipOf({ 'readme.txt': 'hello' }) }), status: 400, message: /no \.csv file/ },
    { name: 'ZIP bomb', params: { mode: 'blocklist', delim: ',' }, file: async () => ({ name: 'x.zip', content: await zipOf({ 'huge.csv': bigZeros }) }), status: 400, message: /ZIP bomb/ },
    // Entries of one name were each checked, then all read as the last one: 14 KB read as 80,000 rows.
    { name: 'ZIP with an entry name twice', params: { mode: 'blocklist', delim: ',' }, file: async () => ({ name: 'x.zip', content: await zipOfEntries([['people.csv', 'email\na@x.io\n'], ['other.csv', 'email\nb@x.io\n'], ['people.csv', 'email\nc@x.io\n']]) }), status: 400, message: /"people\.csv" more than once/ },
    { name: 'ZIP with an entry name twice in other folders or case', params: { mode: 'blocklist', delim: ',' }, file: async () => ({ name: 'x.zip', content: await zipOfEntries([['a/People.csv', 'email\na@x.io\n'], ['a/people.CSV', 'email\nc@x.io\n']]) }), status: 400, message: /more than once/ },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const res = await post(c.params, c.file ? await c.file() : undefined);
      assert.equal(res.status, c.status, res.text);
      assert.match(res.body.message, c.message);
      assert.equal((await t.request('GET', '/api/import/subscribers')).body.data.status, 'none');
      assert.equal(t.server.ctx.db.prepare('SELECT COUNT(*) FROM subscribers').pluck().get(), 0);
    });
  }
  it('needs subscribers:import', async () => {
    const creds = fixtures(t.server.ctx.db).apiUser('viewer', { permissions: ['subscribers:get'] });
    for (const [method, path] of [['GET', '/api/import/subscribers'], ['GET', '/api/import/subscribers/logs'], ['DELETE', '/api/import/subscribers']]) {
      const res = await t.request(method, path, undefined, { auth: creds });
      assert.equal(res.status, 403);
    }
    const res = await t.request('POST', '/api/import/subscribers', undefined, { auth: creds, raw: form({ mode: 'blocklist', delim: ',' }, { name: 'a.csv', content: 'email\nx@y.io\n' }) });
    assert.equal(res.status, 403);
    assert.equal(sub('x@y.io'), undefined);
  });
});

describe('import in subscribe mode', () => {
  it('reads every CSV of a ZIP, skips and logs bad rows, and records source = import', async () => {
    const a = [
      'email,name,attributes',
      'Jane.Doe@Example.org,,"{""city"":""Lima""}"',
      'not-an-address,Bad,',
      'someone@blocked.example,Blocked,',
      'ann@example.org,Ann,{broken json',
      'short@example.org',
      'john@example.org,John Smith,"{""plan"":""pro"",""n"":2}"',
    ].join('\n') + '\n';
    const res = await post({ mode: 'subscribe', delim: ',', lists: [listA, listB], subscription_status: 'confirmed' }, { name: 'people.zip', content: await zipOf({ 'dir/a.csv': a, 'readme.md': '# not csv' }) });
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.status, 'importing');
    const done = await waitDone();
    assert.deepEqual(done, { name: 'people.zip', total: 6, imported: 3, status: 'finished', new: 3, updated: 0, unchanged: 0, skipped: 3, duplicates: 0 });

    assert.equal(sub('jane.doe@example.org')!.name, 'Jane Doe');
    assert.deepEqual(JSON.parse(sub('jane.doe@example.org')!.attribs), { city: 'Lima' });
    assert.deepEqual(JSON.parse(sub('ann@example.org')!.attribs), {});
    assert.deepEqual(JSON.parse(sub('john@example.org')!.attribs), { plan: 'pro', n: 2 });
    assert.match(sub('john@example.org')!.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(sub('not-an-address'), undefined);
    assert.equal(sub('someone@blocked.example'), undefined);
    assert.equal(sub('short@example.org'), undefined);
    assert.deepEqual(subs('john@example.org'), [
      { list_id: listA, status: 'confirmed', source: 'import' },
      { list_id: listB, status: 'confirmed', source: 'import' },
    ]);
    const logs = (await t.request('GET', '/api/import/subscribers/logs')).body.data as string;
    assert.match(logs, /a\.csv line 3: skipped: "not-an-address" is not a valid e-mail address/);
    assert.match(logs, /a\.csv line 4: skipped: e-mail addresses on this domain are not accepted/);
    assert.match(logs, /a\.csv line 5: "attributes" is not a JSON object; imported without it/);
    assert.match(logs, /a\.csv line 6: skipped: 1 fields where the header has 3/);
    assert.doesNotMatch(logs, /name index/);
    const mail = await sink.waitFor(1);
    assert.deepEqual(mail[0].to, ['admin@example.org']);
    assert.match(mail[0].parsed.subject ?? '', /Import finished: people\.zip/);
  });

  it('reads two CSV files with another delimiter, a BOM and column order', async () => {
    const a = '\ufeffName;Extra;EMAIL\nBo;x;bo@example.org\n;y;"li.wei@example.org"\n';
    const b = 'email;name\nzed@example.org;Zed\n';
    assert.equal((await post({ mode: 'subscribe', delim: ';', lists: [listA] }, { name: 'two.zip', content: await zipOf({ 'a.csv': a, 'b.CSV': b }) })).status, 200);
    assert.deepEqual(await waitDone(), { name: 'two.zip', total: 3, imported: 3, status: 'finished', new: 3, updated: 0, unchanged: 0, skipped: 0, duplicates: 0 });
    assert.equal(sub('li.wei@example.org')!.name, 'Li Wei');
    assert.equal(sub('bo@example.org')!.name, 'Bo');
    assert.deepEqual(subs('zed@example.org'), [{ list_id: listA, status: 'unconfirmed', source: 'import' }]);
    // A column that is none of listmonk's becomes an attribute named after it.
    assert.match((await t.request('GET', '/api/import/subscribers/logs')).body.data, /a\.csv: columns "name" → name, "extra" → attribute "extra", "email" → email/);
    assert.deepEqual(JSON.parse(sub('bo@example.org')!.attribs), { extra: 'x' });
  });

  it('numbers the subscribers of a small import in file order', async () => {
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA] }, { name: 'order.csv', content: 'email\nzz.order@example.org\naa.order@example.org\n' })).status, 200);
    assert.equal((await waitDone()).imported, 2);
    assert.ok(sub('zz.order@example.org')!.id < sub('aa.order@example.org')!.id);
  });

  it('logs the physical line of a bad row after quoted line breaks, CRLF and empty lines', async () => {
    const csv = 'email,name\r\nmulti@example.org,"Two\r\nLines"\r\n\r\nnot-an-address,X\r\n"quoted\nbreak@",Y\r\nlast-bad\r\n';
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA] }, { name: 'lines.csv', content: Buffer.from(csv) })).status, 200);
    assert.equal((await waitDone()).imported, 1);
    assert.equal(sub('multi@example.org')!.name, 'Two\r\nLines');
    const logs = (await t.request('GET', '/api/import/subscribers/logs')).body.data as string;
    assert.match(logs, /lines\.csv line 5: skipped: "not-an-address" is not a valid e-mail address/);
    assert.match(logs, /lines\.csv line 7: skipped: "quoted\nbreak@" is not a valid e-mail address/);
    assert.match(logs, /lines\.csv line 8: skipped: 1 fields where the header has 2/);
  });

  it('keeps existing subscribers and subscriptions without overwrite, replaces them with it', async () => {
    const csv = 'email,name,attributes\njohn@example.org,Johnny,"{""plan"":""free""}"\n';
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA], subscription_status: 'unsubscribed' }, { name: 'again.csv', content: csv })).status, 200);
    assert.equal((await waitDone()).status, 'finished');
    assert.equal(sub('john@example.org')!.name, 'John Smith');
    assert.equal(subs('john@example.org')[0].status, 'confirmed');

    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA], subscription_status: 'unsubscribed', overwrite: true }, { name: 'again.csv', content: csv })).status, 200);
    assert.deepEqual(await waitDone(), { name: 'again.csv', total: 1, imported: 1, status: 'finished', new: 0, updated: 1, unchanged: 0, skipped: 0, duplicates: 0 });
    assert.equal(sub('john@example.org')!.name, 'Johnny');
    assert.deepEqual(JSON.parse(sub('john@example.org')!.attribs), { plan: 'free' });
    assert.deepEqual(subs('john@example.org').map((s) => s.status), ['unsubscribed', 'confirmed']);
  });

  it('overwrite_subscription_status alone leaves name and attributes', async () => {
    const csv = 'email,name\nzed@example.org,Zorro\n';
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA], subscription_status: 'confirmed', overwrite_subscription_status: true }, { name: 'z.csv', content: csv })).status, 200);
    await waitDone();
    assert.equal(sub('zed@example.org')!.name, 'Zed');
    assert.equal(subs('zed@example.org')[0].status, 'confirmed');
  });
});

describe('import in blocklist mode', () => {
  it('blocklists existing subscribers (all subscriptions unsubscribed) and adds new ones without lists', async () => {
    const csv = 'email\njohn@example.org\nnew.person@example.org\nbad address\n';
    assert.equal((await post({ mode: 'blocklist', delim: ',', lists: [listA] }, { name: 'block.csv', content: csv })).status, 200);
    assert.deepEqual(await waitDone(), { name: 'block.csv', total: 3, imported: 2, status: 'finished', new: 1, updated: 1, unchanged: 0, skipped: 1, duplicates: 0 });
    assert.equal(sub('john@example.org')!.status, 'blocklisted');
    assert.deepEqual(subs('john@example.org').map((s) => s.status), ['unsubscribed', 'unsubscribed']);
    assert.equal(sub('new.person@example.org')!.status, 'blocklisted');
    assert.equal(sub('new.person@example.org')!.name, 'New Person');
    assert.deepEqual(subs('new.person@example.org'), []);
  });

  it('a blocklisted subscriber imported in subscribe mode gets unsubscribed subscriptions and stays blocklisted', async () => {
    const csv = 'email\nnew.person@example.org\n';
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listB], subscription_status: 'confirmed' }, { name: 'c.csv', content: csv })).status, 200);
    await waitDone();
    assert.equal(sub('new.person@example.org')!.status, 'blocklisted');
    assert.deepEqual(subs('new.person@example.org'), [{ list_id: listB, status: 'unsubscribed', source: 'import' }]);
  });

  it('the dashboard counters match the imported data', async () => {
    const db = t.server.ctx.db;
    const counts = (await t.request('GET', '/api/dashboard/counts')).body.data;
    assert.equal(counts.subscribers.total, db.prepare('SELECT COUNT(*) FROM subscribers').pluck().get());
    assert.equal(counts.subscribers.blocklisted, db.prepare("SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted'").pluck().get());
    assert.equal(counts.subscribers.orphans, db.prepare('SELECT COUNT(*) FROM subscribers s WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = s.id)').pluck().get());
    assert.equal(counts.subscribers.blocklisted, 2);
  });
});

describe('what an import says it did', () => {
  const counts = (s: Record<string, unknown>) => ({ new: s.new, updated: s.updated, unchanged: s.unchanged, skipped: s.skipped, duplicates: s.duplicates });
  const maxId = () => t.server.ctx.db.prepare('SELECT max(id) FROM subscribers').pluck().get() as number;
  const logs = async () => (await t.request('GET', '/api/import/subscribers/logs')).body.data as string;

  it('a re-import of the same file: 0 new, all already on file, and no subscriber id spent on them', async () => {
    const csv = 'email,name\n' + Array.from({ length: 2000 }, (_, i) => `again${i}@honest.example,Again ${i}\n`).join('');
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA] }, { name: 'honest.csv', content: csv })).status, 200);
    assert.deepEqual(counts(await waitDone()), { new: 2000, updated: 0, unchanged: 0, skipped: 0, duplicates: 0 });
    const before = maxId();
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA] }, { name: 'honest.csv', content: csv })).status, 200);
    assert.deepEqual(counts(await waitDone()), { new: 0, updated: 0, unchanged: 2000, skipped: 0, duplicates: 0 });
    assert.match(await logs(), /summary: 0 new, 2,000 already on file \(0 updated, 2,000 unchanged\)$/m);
    assert.equal(maxId(), before);
    // Known addresses before and between new ones take no id: the new ones get the next two.
    const mixed = 'email\nagain0@honest.example\nfresh.one@honest.example\nagain1@honest.example\nfresh.two@honest.example\n';
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listB] }, { name: 'mixed.csv', content: mixed })).status, 200);
    assert.deepEqual(counts(await waitDone()), { new: 2, updated: 2, unchanged: 0, skipped: 0, duplicates: 0 });
    assert.deepEqual([sub('fresh.one@honest.example')!.id, sub('fresh.two@honest.example')!.id], [before + 1, before + 2]);
    assert.match(await logs(), /summary: 2 new, 2 already on file \(2 updated, 0 unchanged\)$/m);
  });

  it('names the duplicates inside the file in the log, within a batch and across batches', async () => {
    // 3,000 rows: the parser's batches hold 2,500, so the last row's address comes back in another one.
    const rows = Array.from({ length: 3000 }, (_, i) => `twice${i}@honest.example`);
    rows[1] = 'TWICE0@honest.example';
    rows[2999] = 'twice5@honest.example';
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA] }, { name: 'dups.csv', content: `email\n${rows.join('\n')}\n` })).status, 200);
    const done = await waitDone();
    assert.deepEqual(counts(done), { new: 2998, updated: 0, unchanged: 0, skipped: 0, duplicates: 2 });
    assert.equal(done.imported, 3000);
    const log = await logs();
    assert.match(log, /duplicate twice0@honest\.example: the address is on an earlier row; the earlier row counts/);
    assert.match(log, /duplicate twice5@honest\.example: the address is on an earlier row/);
    assert.match(log, /summary: 2,998 new, 0 already on file \(0 updated, 0 unchanged\), 2 duplicates in the file$/m);
    const ids = t.server.ctx.db.prepare("SELECT id FROM subscribers WHERE email LIKE 'twice%' ORDER BY id").pluck().all() as number[];
    assert.equal(ids.length, 2998);
    assert.equal(ids[ids.length - 1] - ids[0], 2997, 'consecutive ids');
  });
});

describe('derived tables after imports', () => {
  // Counters are filled in bulk for imported rows (sql/0040, 0041, src/imports/bulk.ts), the
  // search index after the import (sql/0060), and both by triggers for everything else; all
  // must give the truth.
  const db = () => t.server.ctx.db;
  const count = (sql: string, ...params: unknown[]) => db().prepare(sql).pluck().get(...params) as number;
  const ids = (sql: string, ...params: unknown[]) => (db().prepare(sql).pluck().all(...params) as number[]).sort((a, b) => a - b);
  const csv = (rows: string[][]) => ['email,name,attributes', ...rows.map((r) => r.map((v) => `"${v.replace(/"/g, '""')}"`).join(','))].join('\n') + '\n';
  const importCsv = async (params: unknown, name: string, content: string) => {
    const res = await post(params, { name, content });
    assert.equal(res.status, 200, res.text);
    assert.equal((await waitDone()).status, 'finished');
  };

  before(async () => {
    // More rows than one write transaction takes, with an in-file duplicate at the end.
    const fresh = Array.from({ length: 2500 }, (_, i) => [`dt${i}@derived.example`, `Derived Person ${i}`, JSON.stringify({ city: `Quito${i % 7}`, n: i })]);
    fresh.push(['dt10@derived.example', 'Duplicate Later', '{"city":"Nowhere"}']);
    await importCsv({ mode: 'subscribe', delim: ',', lists: [listA, listB], subscription_status: 'confirmed' }, 'fresh.csv', csv(fresh));
    // Overwrite names, attributes and subscription status of 100 of them; add 50 new ones
    // between them (the existing rows are skipped by the insert and updated after).
    const renamed = Array.from({ length: 100 }, (_, i) => [`dt${i}@derived.example`, `Renamed ${i}`, '{"city":"Zanzibar"}']);
    const again = [
      ...renamed.slice(0, 50),
      ...Array.from({ length: 50 }, (_, i) => [`dtnew${i}@derived.example`, `Newcomer ${i}`, '{"city":"Zanzibar"}']),
      ...renamed.slice(50),
    ];
    await importCsv({ mode: 'subscribe', delim: ',', lists: [listA], subscription_status: 'unsubscribed', overwrite: true }, 'again.csv', csv(again));
    // Blocklist 50 existing and 20 new addresses.
    const block = [
      ...Array.from({ length: 50 }, (_, i) => [`dt${100 + i}@derived.example`, '', '']),
      ...Array.from({ length: 20 }, (_, i) => [`dtblock${i}@derived.example`, `Blocked ${i}`, '{"city":"Quarantine"}']),
    ];
    await importCsv({ mode: 'blocklist', delim: ',' }, 'block.csv', csv(block));
  });

  it('imported what was sent', () => {
    assert.equal(count("SELECT COUNT(*) FROM subscribers WHERE email LIKE 'dt%@derived.example'"), 2500 + 50 + 20);
    assert.equal(sub('dt10@derived.example')!.name, 'Renamed 10');
    assert.equal(sub('dt150@derived.example')!.name, 'Derived Person 150');
    assert.equal(count("SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted' AND email LIKE 'dt%@derived.example'"), 70);
    assert.equal(sub('dt99@derived.example')!.name, 'Renamed 99');
    assert.equal(count("SELECT COUNT(*) FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email LIKE 'dtnew%' AND sl.list_id = ? AND sl.status = 'unsubscribed'", listA), 50);
    assert.equal(count("SELECT COUNT(*) FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email LIKE 'dtnew%'"), 50);
  });

  it('every row the importer wrote meets the CHECK constraints its connection does not run', () => {
    // The writer sets ignore_check_constraints (write-worker.ts); integrity_check checks them
    // all (attributes are JSON objects, statuses known ones), on every table.
    assert.equal(db().pragma('integrity_check', { simple: true }), 'ok');
  });

  it('subscriber total and per-list counts match COUNT(*)', () => {
    assert.equal(count('SELECT n FROM subscriber_total WHERE id = 1'), count('SELECT COUNT(*) FROM subscribers'));
    const kept = db().prepare('SELECT list_id, status, n FROM list_subscriber_counts WHERE n <> 0 ORDER BY list_id, status').all();
    const truth = db().prepare('SELECT list_id, status, COUNT(*) AS n FROM subscriber_lists GROUP BY list_id, status ORDER BY list_id, status').all();
    assert.deepEqual(kept, truth);
  });

  it('dashboard counters match COUNT(*)', async () => {
    for (const status of ['enabled', 'disabled', 'blocklisted']) {
      assert.equal(count('SELECT n FROM dashboard_counts WHERE key = ?', status), count('SELECT COUNT(*) FROM subscribers WHERE status = ?', status), status);
    }
    assert.equal(count("SELECT n FROM dashboard_counts WHERE key = 'subscribed'"), count('SELECT COUNT(DISTINCT subscriber_id) FROM subscriber_lists'));
    const counts = (await t.request('GET', '/api/dashboard/counts')).body.data;
    assert.equal(counts.subscribers.total, count('SELECT COUNT(*) FROM subscribers'));
    assert.equal(counts.subscribers.blocklisted, count("SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted'"));
    assert.equal(counts.subscribers.orphans, count('SELECT COUNT(*) FROM subscribers s WHERE NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = s.id)'));
  });

  it('the search index finds exactly what LIKE finds, once the imports are indexed', async () => {
    while (count('SELECT COUNT(*) FROM subscriber_search_backlog') > 0) await new Promise((r) => setTimeout(r, 20));
    // Terms that occur in names, addresses or attribute values but never in attribute keys;
    // old names and attributes of overwritten rows must be gone from the index.
    for (const term of ['Zanzibar', 'Renamed', 'Derived Person 5', 'Quito3', 'Quarantine', 'dtnew4', 'derived.example', 'Newcomer 1']) {
      const found = ids('SELECT rowid FROM subscribers_fts WHERE subscribers_fts MATCH ?', `"${term}"`);
      const truth = ids('SELECT id FROM subscribers WHERE name LIKE ? OR email LIKE ? OR attribs LIKE ?', ...Array(3).fill(`%${term}%`));
      assert.ok(truth.length > 0, term);
      assert.deepEqual(found, truth, term);
    }
    // The in-file duplicate came after the first row without overwrite: neither stored nor indexed.
    assert.deepEqual(ids('SELECT rowid FROM subscribers_fts WHERE subscribers_fts MATCH ?', '"Duplicate Later"'), []);
    const renamed = sub('dt10@derived.example')!.id;
    assert.ok(!ids('SELECT rowid FROM subscribers_fts WHERE subscribers_fts MATCH ?', '"Derived Person 10"').includes(renamed));
    assert.ok(ids('SELECT rowid FROM subscribers_fts WHERE subscribers_fts MATCH ?', '"Renamed 10"').includes(renamed));
  });
});

const nameIndexUsed = () => (t.server.ctx.db.prepare('EXPLAIN QUERY PLAN SELECT id FROM subscribers ORDER BY name LIMIT 5').all() as { detail: string }[])
  .some((r) => r.detail.includes('subscribers_name'));

describe('a long import', () => {
  it('refuses a second import, reports progress, and stops on DELETE keeping committed rows', async () => {
    const rows = 300_000;
    let csv = 'email,name\n';
    for (let i = 0; i < rows; i++) csv += `bulk${i}@example.net,Bulk ${i}\n`;
    assert.equal((await post({ mode: 'subscribe', delim: ',', lists: [listA] }, { name: 'big.csv', content: csv })).status, 200);

    const second = await post({ mode: 'subscribe', delim: ',', lists: [listA] }, { name: 'small.csv', content: 'email\nx@example.net\n' });
    assert.equal(second.status, 409);
    assert.match(second.body.message, /already running \("big\.csv"/);

    let s = (await t.request('GET', '/api/import/subscribers')).body.data;
    while (s.imported === 0) s = (await t.request('GET', '/api/import/subscribers')).body.data;
    if (process.platform === 'linux') {
      // The import's threads run below the main thread's priority (this process is the server).
      const nice = readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1].split(' ')[16]));
      assert.ok(nice.filter((n) => n === 10).length >= 2, `thread nice values ${nice.join(',')}`);
      assert.equal(readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')[16], '0');
    }
    // The import's writer checkpoints the WAL meanwhile, not the server's connection (main thread).
    const autocheckpoint = () => t.server.ctx.db.pragma('wal_autocheckpoint', { simple: true });
    assert.equal(autocheckpoint(), 0);
    const stopped = await t.request('DELETE', '/api/import/subscribers');
    assert.equal(stopped.body.data.status, 'stopping');
    const done = await waitDone();
    assert.equal(done.status, 'finished');
    assert.equal(done.total, rows);
    assert.ok(done.imported > 0 && done.imported < rows, `imported ${done.imported}`);
    assert.equal(t.server.ctx.db.prepare("SELECT COUNT(*) FROM subscribers WHERE email LIKE 'bulk%'").pluck().get(), done.imported);
    assert.equal(sub('x@example.net'), undefined);
    const logs = (await t.request('GET', '/api/import/subscribers/logs')).body.data as string;
    assert.match(logs, /stop requested/);
    // 300k rows into a small table: written without the name index (rebuilt below, even when stopped) ...
    assert.match(logs, /writing without the name index, rebuilt in the background after the import/);
    // ... in runs of 50,000 rows, each numbered in e-mail order across the parser's batches of
    // 2,500: row 10,000 (fifth batch) comes right after row 0.
    const written = t.server.ctx.db.prepare("SELECT email FROM subscribers WHERE email LIKE 'bulk%' ORDER BY id").pluck().all() as string[];
    const runOf = (email: string) => Math.floor(Number(/^bulk(\d+)@/.exec(email)![1]) / 50_000);
    assert.deepEqual(written.slice(0, 2), ['bulk0@example.net', 'bulk10000@example.net']);
    for (let k = 1; k < written.length; k++) {
      const [a, b] = [written[k - 1], written[k]];
      assert.ok(runOf(a) < runOf(b) || (runOf(a) === runOf(b) && a < b), `${a} numbered before ${b}`);
    }
    // Their uuids are made as they are inserted, so they increase with the ids (the uuid index appends).
    const uuids = t.server.ctx.db.prepare("SELECT uuid FROM subscribers WHERE email LIKE 'bulk%' ORDER BY id").pluck().all() as string[];
    assert.ok(uuids.every((u, k) => k === 0 || uuids[k - 1] < u), 'uuids in id order');

    // ... and neither while the search indexer indexes the imported rows; afterwards it does again.
    for (let i = 0; i < 1500 && autocheckpoint() !== 1000; i++) await new Promise((r) => setTimeout(r, 20));
    assert.equal(autocheckpoint(), 1000);
    // That background thread has rebuilt the name index too.
    assert.ok(nameIndexUsed(), 'ORDER BY name reads the name index again');

    const reset = await t.request('DELETE', '/api/import/subscribers');
    assert.deepEqual(reset.body.data, { name: '', total: 0, imported: 0, status: 'none', new: 0, updated: 0, unchanged: 0, skipped: 0, duplicates: 0 });
    assert.equal((await t.request('GET', '/api/import/subscribers/logs')).body.data, '');
  });
});

describe('a name index left dropped by an interrupted import', () => {
  let restarted: TestServer;
  before(async () => {
    restarted = await startTestServer({ setup: (db) => db.exec('DROP INDEX subscribers_name') });
  });
  after(() => restarted.stop());

  it('is rebuilt in the background when the server starts', async () => {
    const db = restarted.server.ctx.db;
    const hasIndex = () => db.prepare("SELECT 1 FROM sqlite_schema WHERE name = 'subscribers_name'").get() !== undefined;
    for (let i = 0; i < 1500 && !hasIndex(); i++) await new Promise((r) => setTimeout(r, 20));
    const plan = db.prepare('EXPLAIN QUERY PLAN SELECT id FROM subscribers ORDER BY name LIMIT 5').all() as { detail: string }[];
    assert.ok(plan.some((r) => r.detail.includes('subscribers_name')), JSON.stringify(plan));
  });
});

describe('which imports write without the name index', () => {
  let fresh: TestServer;
  before(async () => (fresh = await startTestServer()));
  after(() => fresh.stop());

  it('are those of 100k rows or more that leave the table at most 2M rows and at most 5 times its size', async () => {
    const db = fresh.server.ctx.db;
    const store = new ImportStore(db, new EventLog(db));
    assert.equal(store.writesWithoutNameIndex(99_999), false);
    assert.equal(store.writesWithoutNameIndex(100_000), true);
    assert.equal(store.writesWithoutNameIndex(2_000_000), true);
    // Its rebuild would hold the write lock for seconds: the server's writes would time out.
    assert.equal(store.writesWithoutNameIndex(2_000_001), false);
    // 100k rows into a table of 400,001: the rebuild would sort 5 times what was imported.
    db.prepare('UPDATE subscriber_total SET n = 400001').run();
    assert.equal(store.writesWithoutNameIndex(100_000), false);
    assert.equal(store.writesWithoutNameIndex(1_000_000), true);
    assert.equal(store.writesWithoutNameIndex(1_599_999), true);
    assert.equal(store.writesWithoutNameIndex(1_600_000), false);
    // Writing in sorted runs depends on the import's size alone.
    assert.equal(isLargeImport(99_999), false);
    assert.equal(isLargeImport(100_000), true);
  });
});

describe('a list-restricted importer', () => {
  // Its own server: subscribers of its own, whatever the tests above left.
  let s: TestServer;
  let mine: number;
  let theirs: number;
  let importer = '';
  const db = () => s.server.ctx.db;
  const row = (email: string) => db().prepare('SELECT name, attribs, status FROM subscribers WHERE email = ?').get(email) as { name: string; attribs: string; status: string };
  const listsOf = (email: string) => db().prepare(
    'SELECT sl.list_id, sl.status FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email = ? ORDER BY sl.list_id',
  ).all(email) as { list_id: number; status: string }[];
  const run = async (params: unknown, csv: string) => {
    const f = new FormData();
    f.set('params', JSON.stringify(params));
    f.set('file', new Blob([csv]), 'people.csv');
    const res = await s.request('POST', '/api/import/subscribers', undefined, { raw: f, auth: importer });
    assert.equal(res.status, 200, res.text);
    for (;;) {
      const st = (await s.request('GET', '/api/import/subscribers')).body.data;
      if (st.status !== 'importing' && st.status !== 'stopping') {
        assert.equal(st.status, 'finished');
        return (await s.request('GET', '/api/import/subscribers/logs')).body.data as string;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };

  before(async () => {
    s = await startTestServer();
    const f = fixtures(db());
    mine = f.list({ name: 'Mine' }).id;
    theirs = f.list({ name: 'Theirs' }).id;
    importer = f.apiUser('importer', { permissions: ['subscribers:get', 'subscribers:manage', 'subscribers:import'], lists: [mine] });
    for (const [email, name, lists] of [['on.mine@x.io', 'On Mine', [mine]], ['on.theirs@x.io', 'On Theirs', [theirs]], ['on.none@x.io', 'On None', []]] as const) {
      const res = await s.request('POST', '/api/subscribers', { email, name, attribs: { keep: true }, lists, preconfirm_subscriptions: true });
      assert.equal(res.status, 200, res.text);
    }
  });
  after(() => s.stop());

  it('overwrites the name and attributes only of subscribers on a list it manages; the others are skipped and logged', async () => {
    const logs = await run({ mode: 'subscribe', delim: ',', lists: [mine], overwrite: true },
      'email,name,attributes\non.mine@x.io,Renamed Mine,"{""x"":1}"\non.theirs@x.io,Renamed Theirs,"{""x"":1}"\non.none@x.io,Renamed None,"{""x"":1}"\nnew.one@x.io,New One,"{}"\n');
    assert.equal(row('on.mine@x.io').name, 'Renamed Mine');
    assert.deepEqual(JSON.parse(row('on.mine@x.io').attribs), { x: 1 });
    for (const [email, name] of [['on.theirs@x.io', 'On Theirs'], ['on.none@x.io', 'On None']]) {
      assert.equal(row(email).name, name);
      assert.deepEqual(JSON.parse(row(email).attribs), { keep: true });
      assert.match(logs, new RegExp(`skipped ${email.replace(/\./g, '\\.')}: not changed, the subscriber is on none of the lists you manage`));
    }
    assert.doesNotMatch(logs, /skipped on\.mine@x\.io|skipped new\.one@x\.io/);
    assert.equal(row('new.one@x.io').name, 'New One');
    assert.match(logs, /summary: 1 new, 1 already on file \(1 updated, 0 unchanged\), 2 skipped$/m);
  });

  it('never takes over a subscriber outside its lists: not attached, so a second import cannot change them either', async () => {
    // M7: the first import used to attach on.theirs and on.none to "mine" as subscribers, and
    // the second then overwrote their name and attributes or blocklisted them everywhere.
    for (const status of ['confirmed', 'unconfirmed']) {
      const logs = await run({ mode: 'subscribe', delim: ',', lists: [mine], subscription_status: status }, 'email,name\non.theirs@x.io,Taken Over\non.none@x.io,Taken Over\n');
      assert.match(logs, /skipped on\.theirs@x\.io: not changed, the subscriber is on none of the lists you manage/);
      assert.match(logs, /skipped on\.none@x\.io: not changed/);
    }
    assert.deepEqual(listsOf('on.theirs@x.io'), [{ list_id: theirs, status: 'confirmed' }]);
    assert.deepEqual(listsOf('on.none@x.io'), []);
    await run({ mode: 'subscribe', delim: ',', lists: [mine], overwrite: true }, 'email,name\non.theirs@x.io,Taken Over\n');
    await run({ mode: 'blocklist', delim: ',' }, 'email\non.theirs@x.io\non.none@x.io\n');
    for (const [email, name] of [['on.theirs@x.io', 'On Theirs'], ['on.none@x.io', 'On None']]) {
      assert.deepEqual({ ...row(email), attribs: JSON.parse(row(email).attribs) }, { name, attribs: { keep: true }, status: 'enabled' });
    }
    // Nor can it read them: the subscriber API answers as for anyone outside its lists.
    const id = db().prepare("SELECT id FROM subscribers WHERE email = 'on.theirs@x.io'").pluck().get() as number;
    assert.notEqual((await s.request('GET', `/api/subscribers/${id}`, undefined, { auth: importer })).status, 200);
  });

  it('blocklists only subscribers on a list it manages; the others are skipped and logged', async () => {
    db().prepare("DELETE FROM subscriber_lists WHERE list_id = ? AND subscriber_id IN (SELECT id FROM subscribers WHERE email <> 'on.mine@x.io')").run(mine);
    const logs = await run({ mode: 'blocklist', delim: ',' }, 'email\non.mine@x.io\non.theirs@x.io\non.none@x.io\n');
    assert.equal(row('on.mine@x.io').status, 'blocklisted');
    assert.deepEqual(listsOf('on.mine@x.io'), [{ list_id: mine, status: 'unsubscribed' }]);
    for (const email of ['on.theirs@x.io', 'on.none@x.io']) {
      assert.equal(row(email).status, 'enabled');
      assert.match(logs, new RegExp(`skipped ${email.replace(/\./g, '\\.')}: not blocklisted`));
    }
    assert.deepEqual(listsOf('on.theirs@x.io'), [{ list_id: theirs, status: 'confirmed' }]);
  });

  it('an importer who may change every subscriber still overwrites and blocklists them all', async () => {
    importer = s.token;
    await run({ mode: 'blocklist', delim: ',' }, 'email\non.theirs@x.io\non.none@x.io\n');
    assert.equal(row('on.theirs@x.io').status, 'blocklisted');
    assert.equal(row('on.none@x.io').status, 'blocklisted');
  });
});
