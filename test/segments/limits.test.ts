// Segment queries through the real server: bounded in time (they run on a worker thread under
// a deadline, the server answering meanwhile), in subquery nesting, and in what their
// subqueries may read (what the caller could read through the API, nothing more).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIMITS } from '../../src/core/limits.ts';
import { type ChildServer, healthMs, installDatabase, killChildServers, startChildServer } from '../helpers/child-server.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

after(killChildServers);

/** CPU time (user + system) the process has used, from /proc. */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** Times of `GET /health`, one after another (20 ms apart), until `done` settles. */
async function healthTimesWhile(url: string, done: Promise<unknown>): Promise<number[]> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => {});
  const times: number[] = [];
  while (!finished) {
    times.push(await healthMs(url));
    await new Promise((r) => setTimeout(r, 20));
  }
  return times;
}

const list = (query: string) => `/api/subscribers?per_page=5&query=${encodeURIComponent(query)}`;

/** `depth` subqueries, each inside the previous one's WHERE. */
function nested(depth: number): string {
  let inner = 'TRUE';
  for (let i = depth; i >= 1; i--) inner = `EXISTS (SELECT 1 FROM subscriber_lists s${i} WHERE ${inner})`;
  return inner;
}

// Three correlated levels over 2,000 memberships: 2,000 subscribers × 2,000³ rows, hours of work.
const HOSTILE = `EXISTS (SELECT 1 FROM subscriber_lists a WHERE EXISTS (SELECT 1 FROM subscriber_lists b WHERE EXISTS (
  SELECT 1 FROM subscriber_lists c WHERE c.meta::text = a.meta::text || b.meta::text || subscribers.email)))`;

describe('a segment query that would run for hours (the built server)', () => {
  let dir: string;
  let s: ChildServer;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listmgr-segment-limits-'));
    const dbPath = join(dir, 'listmgr.db');
    const token = await installDatabase(dbPath, (db) => {
      const f = fixtures(db);
      const listId = f.list({ name: 'All' }).id;
      db.transaction(() => {
        for (let i = 0; i < 2000; i++) f.subscriber({ email: `s${i}@example.com`, name: 'Someone', lists: [listId] });
      })();
    });
    s = await startChildServer({ dbPath, uploads: join(dir, 'uploads'), token });
    // Started, as in a server that has run a while: a query thread exists, /health has answered.
    assert.equal((await s.request('GET', list('subscribers.id = 1'))).status, 200);
    await healthMs(s.url);
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers 400 naming the deadline once it has passed, and /health answers at once meanwhile', async () => {
    const started = performance.now();
    const hostile = s.request('GET', list(HOSTILE));
    const times = await healthTimesWhile(s.url, hostile);
    const res = await hostile;
    const took = performance.now() - started;
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.message, /longer than 5 s \(the segment deadline\)/);
    assert.ok(took < LIMITS.segmentDeadlineMs + 3000, `the answer took ${took.toFixed(0)} ms`);
    // The query held the main thread for its whole run before: the first /health waited for
    // the deadline, and no other was asked before the answer. Now /health is answered over and
    // over while the query runs. (Counted, not timed: a shared machine's scheduling delays
    // single answers by whole seconds, which says nothing about the server.)
    assert.ok(times.length >= 5, `only ${times.length} /health answers in the ${took.toFixed(0)} ms the query ran`);
    // The query's thread was stopped, not left running: the idle server uses next to no CPU.
    await new Promise((r) => setTimeout(r, 300));
    const before = cpuSeconds(s.pid);
    await new Promise((r) => setTimeout(r, 1000));
    const used = cpuSeconds(s.pid) - before;
    assert.ok(used < 0.3, `the server used ${used.toFixed(2)} s of CPU in the second after the deadline`);
  });

  it('and the same for a by-query change, which then changes nothing', async () => {
    const res = await s.request('PUT', '/api/subscribers/query/blocklist', { query: HOSTILE });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.message, /segment deadline/);
    const blocked = await s.request('GET', list(`subscribers.status = 'blocklisted'`));
    assert.equal(blocked.body.data.total, 0);
  });

  it('leaves the server running ordinary segments, on a fresh thread, at once', async () => {
    const started = performance.now();
    const res = await s.request('GET', list(`subscribers.email LIKE 's1%' AND EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = subscribers.id)`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.total, 1111); // s1, s10–s19, s100–s199, s1000–s1999
    assert.ok(performance.now() - started < 3000);
  });
});

describe('segment queries (the server from source)', () => {
  let t: TestServer;
  let lists: { mine: number; theirs: number };
  let campaignsReader = '';
  let restricted = '';

  before(async () => {
    t = await startTestServer();
    const mine = (await t.request('POST', '/api/lists', { name: 'Mine', type: 'private', optin: 'single' })).body.data.id;
    const theirs = (await t.request('POST', '/api/lists', { name: 'Theirs', type: 'private', optin: 'single' })).body.data.id;
    lists = { mine, theirs };
    await t.request('POST', '/api/subscribers', { email: 'both@example.com', name: 'Both', lists: [mine, theirs], preconfirm_subscriptions: true });
    await t.request('POST', '/api/subscribers', { email: 'theirs-too@example.com', name: 'Theirs too', lists: [mine, theirs], preconfirm_subscriptions: true });
    await t.request('POST', '/api/subscribers', { email: 'mine-only@example.com', name: 'Mine only', lists: [mine], preconfirm_subscriptions: true });
    await t.request('POST', '/api/campaigns', { name: 'Secret', subject: 'Launch of project Zeppelin', lists: [theirs], content_type: 'html', body: '<p>x</p>' });
    const f = fixtures(t.server.ctx.db);
    campaignsReader = f.apiUser('segments', { permissions: ['subscribers:get_all', 'subscribers:get', 'subscribers:sql_query'] });
    restricted = f.apiUser('restricted', { permissions: ['subscribers:get', 'subscribers:sql_query'], lists: [mine] });
  });
  after(() => t?.stop());

  it(`allows ${LIMITS.segmentSubqueryDepth} levels of subqueries and refuses one more, naming the limit`, async () => {
    const ok = await t.request('GET', list(nested(LIMITS.segmentSubqueryDepth)));
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const deeper = await t.request('GET', list(nested(LIMITS.segmentSubqueryDepth + 1)));
    assert.equal(deeper.status, 400);
    assert.match(deeper.body.message, /subqueries are nested more than 3 levels deep \(the segment nesting limit\)/);
  });

  it('normal segments still select what they did, by-query changes included', async () => {
    const res = await t.request('GET', list(`subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = ${lists.theirs}) AND subscribers.email LIKE 'both%'`));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.results.map((r: { email: string }) => r.email), ['both@example.com']);
    const all = await t.request('GET', `/api/subscribers?per_page=all&query=${encodeURIComponent("subscribers.email LIKE '%@example.com'")}`);
    assert.equal(all.body.data.total, 3);
    const csv = await t.request('GET', `/api/subscribers/export?query=${encodeURIComponent("subscribers.name = 'Mine only'")}`);
    assert.equal(csv.status, 200);
    assert.match(String(csv.body), /mine-only@example\.com/);
    const add = await t.request('PUT', '/api/subscribers/query/lists', { query: "subscribers.name = 'Mine only'", action: 'add', target_list_ids: [lists.theirs], status: 'confirmed' });
    assert.equal(add.status, 200, JSON.stringify(add.body));
    const member = await t.request('GET', list(`subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = ${lists.theirs})`));
    assert.equal(member.body.data.total, 3);
    await t.request('PUT', '/api/subscribers/query/lists', { query: "subscribers.name = 'Mine only'", action: 'remove', target_list_ids: [lists.theirs] });
  });

  it('refuses campaign tables to a caller without campaigns:get_all, and bounces without bounces:get', async () => {
    const oracle = `EXISTS (SELECT 1 FROM campaigns WHERE subject LIKE 'Launch of project Z%')`;
    const refused = await t.request('GET', list(oracle), undefined, { auth: campaignsReader });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /table "campaigns" needs the campaigns:get_all permission/);
    for (const table of ['links', 'link_clicks', 'campaign_views', 'campaign_lists']) {
      const res = await t.request('GET', list(`EXISTS (SELECT 1 FROM ${table})`), undefined, { auth: campaignsReader });
      assert.equal(res.status, 400, table);
      assert.match(res.body.message, new RegExp(`table "${table}" needs the campaigns:get_all permission`));
    }
    const bounces = await t.request('GET', list('EXISTS (SELECT 1 FROM bounces WHERE subscriber_id = subscribers.id)'), undefined, { auth: campaignsReader });
    assert.equal(bounces.status, 400);
    assert.match(bounces.body.message, /table "bounces" needs the bounces:get permission/);
    // The Super Admin reads them as before.
    const admin = await t.request('GET', list(oracle));
    assert.equal(admin.status, 200, JSON.stringify(admin.body));
    assert.equal(admin.body.data.total, 3);
  });

  it('a list-restricted caller cannot probe memberships of lists outside its role', async () => {
    const probe = (listId: number) => list(`subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = ${listId})`);
    const foreign = await t.request('GET', probe(lists.theirs), undefined, { auth: restricted });
    assert.equal(foreign.status, 200, JSON.stringify(foreign.body));
    assert.equal(foreign.body.data.total, 0);
    const byName = await t.request('GET', list(`EXISTS (SELECT 1 FROM lists WHERE name = 'Theirs')`), undefined, { auth: restricted });
    assert.equal(byName.body.data.total, 0);
    const own = await t.request('GET', probe(lists.mine), undefined, { auth: restricted });
    assert.equal(own.body.data.total, 3);
    // The Super Admin sees both memberships.
    assert.equal((await t.request('GET', probe(lists.theirs))).body.data.total, 2);
  });
});
