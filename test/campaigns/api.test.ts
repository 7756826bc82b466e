// The campaigns API: create/update validation, the request object round trip, every
// forbidden status change, preview, test send, archive and visibility per user.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import type { CampaignStatus } from '../../src/campaigns/store.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addSubscriber } from './fixtures.ts';

let t: TestServer;
let sink: SmtpSink;
let listA: number;
let listB: number;

/**
 * An API user with campaigns:get and campaigns:manage whose list role grants list B only
 * (get and manage); returns its credentials.
 */
function campaignManagerOnListB(username: string, roleName: string, listRoleName: string): string {
  const f = fixtures(t.server.ctx.db);
  return f.apiUser(username, { roleId: f.role(['campaigns:get', 'campaigns:manage'], roleName), lists: [listB], listRoleName });
}

const base = () => ({ name: 'News', subject: 'Hi {{ .Subscriber.Name }}', lists: [listA], body: '<p>Hello {{ .Subscriber.Name }}</p>', content_type: 'html' });

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock()], 'app.root_url': t.url });
  assert.equal(r.status, 200);
  // Status rows are set directly in the DB here; the sender must not act on them.
  await t.server.ctx.delivery.stop();
  listA = addList(t.server.ctx.db, 'A', 'single');
  listB = addList(t.server.ctx.db, 'B', 'double');
  addSubscriber(t.server.ctx.db, 'tester@example.com', 'Tess Tester', [[listA, 'confirmed']]);
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('create and update', () => {
  const create = (name: string, over: () => Record<string, unknown>, message?: RegExp): Scenario => ({
    name, method: 'POST', path: '/api/campaigns', body: () => ({ ...base(), ...over() }), status: message ? 400 : 200, contains: message && [message],
  });
  runScenarios(() => t, [
    create('valid', () => ({})),
    create('missing name', () => ({ name: '' }), /"name" is required/),
    create('missing subject', () => ({ subject: null }), /"subject" is required/),
    create('no lists', () => ({ lists: [] }), /"lists" is required/),
    create('unknown lists only', () => ({ lists: [9999] }), /lists/),
    create('past send_at', () => ({ send_at: '2001-01-01T00:00:00Z' }), /future/),
    create('bad send_at', () => ({ send_at: 'soon' }), /send_at/),
    create('bad from_email', () => ({ from_email: 'not an address' }), /from_email/),
    create('unknown messenger', () => ({ messenger: 'pigeon' }), /messenger/),
    create('bad headers', () => ({ headers: { 'X-A': 'b' } }), /headers/),
    create('broken template action', () => ({ body: '<p>{{ .Subscriber.Name </p>' }), /compile/),
    create('opt-in without double opt-in list', () => ({ type: 'optin' }), /double opt-in/),
    create('bad type', () => ({ type: 'weekly' }), /type/),
  ]);

  it('answers listmonk\'s campaign object with defaults filled in', async () => {
    const r = await t.request('POST', '/api/campaigns', { ...base(), content_type: 'bogus', tags: [' a b ', ''], archive_slug: 'Hello, World!' });
    const c = r.body.data;
    assert.equal(c.status, 'draft');
    assert.equal(c.content_type, 'richtext');
    assert.deepEqual(c.tags, ['a-b']);
    assert.equal(c.archive_slug, 'hello-world');
    assert.deepEqual(c.lists, [{ id: listA, name: 'A' }]);
    for (const k of ['views', 'clicks', 'to_send', 'sent', 'bounces']) assert.equal(c[k], 0);
    assert.equal(c.type, 'regular');
    assert.equal(c.messenger, 'email');
    assert.deepEqual(c.headers, []);
    const dup = await t.request('POST', '/api/campaigns', { ...base(), archive_slug: 'hello world' });
    assert.equal(dup.status, 409);
  });

  it('accepts a full object from a GET back on PUT, read-only fields included', async () => {
    const created = (await t.request('POST', '/api/campaigns', { ...base(), send_at: new Date(Date.now() + 3600_000).toISOString() })).body.data;
    const got = (await t.request('GET', `/api/campaigns/${created.id}`)).body.data;
    const r = await t.request('PUT', `/api/campaigns/${created.id}`, { ...got, name: 'Renamed' });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.data.name, 'Renamed');
    assert.deepEqual(r.body.data.lists, got.lists);
    const nulls = await t.request('PUT', `/api/campaigns/${created.id}`, { lists: [listA, listB], name: null, subject: null, body: null });
    assert.equal(nulls.status, 200, nulls.text);
    assert.equal(nulls.body.data.name, 'Renamed');
    assert.equal(nulls.body.data.lists.length, 2);
  });

  it('takes back a GET that shows deleted lists and media as {id: null}, and keeps the template for a null or 0 template_id', async () => {
    const gone = (await t.request('POST', '/api/lists', { name: 'Soon gone', type: 'private', optin: 'single' })).body.data.id;
    const created = (await t.request('POST', '/api/campaigns', { ...base(), lists: [listA, gone] })).body.data;
    assert.equal((await t.request('DELETE', `/api/lists/${gone}`)).status, 200);
    const got = (await t.request('GET', `/api/campaigns/${created.id}`)).body.data;
    assert.deepEqual(got.lists.map((l: { id: number | null }) => l.id), [listA, null]);
    const r = await t.request('PUT', `/api/campaigns/${created.id}`, { ...got, media: [{ id: null, filename: 'deleted.pdf' }], name: 'Echoed' });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body.data.lists.map((l: { id: number | null }) => l.id), [listA]);
    assert.deepEqual(r.body.data.media, []);
    for (const template_id of [null, 0]) {
      const kept = await t.request('PUT', `/api/campaigns/${created.id}`, { ...got, lists: [listA], template_id });
      assert.equal(kept.status, 200, kept.text);
      assert.equal(kept.body.data.template_id, created.template_id, `template_id ${template_id} keeps the template`);
    }
  });

  it('lists with filters, paging and no_body', async () => {
    const r = await t.request('GET', '/api/campaigns?status=draft&no_body=true&per_page=2&order_by=name&order=asc');
    assert.equal(r.status, 200);
    assert.equal(r.body.data.per_page, 2);
    assert.ok(r.body.data.total >= 2);
    assert.ok(r.body.data.results.every((c: { body: string; status: string }) => c.body === '' && c.status === 'draft'));
    const search = await t.request('GET', '/api/campaigns?query=Renamed');
    assert.deepEqual(search.body.data.results.map((c: { name: string }) => c.name), ['Renamed']);
  });
  runScenarios(() => t, [
    { name: 'a status filter that is not a status is 400', method: 'GET', path: '/api/campaigns?status=sending', status: 400 },
    { name: 'an unknown campaign is 404', method: 'GET', path: '/api/campaigns/99999', status: 404 },
  ]);
});

describe('status changes', () => {
  const setStatus = (id: number, status: CampaignStatus) => fixtures(t.server.ctx.db).campaignState(id, { status });
  // [from, requested, has send_at]: every change the state machine refuses.
  const forbidden: [CampaignStatus, string, boolean][] = [
    ['draft', 'draft', false], ['running', 'draft', false], ['paused', 'draft', false], ['cancelled', 'draft', false], ['finished', 'draft', false],
    ['draft', 'scheduled', false], ['running', 'scheduled', true], ['cancelled', 'scheduled', true], ['finished', 'scheduled', true], ['scheduled', 'scheduled', true],
    ['running', 'running', false], ['scheduled', 'running', true], ['cancelled', 'running', false], ['finished', 'running', false],
    ['draft', 'paused', false], ['scheduled', 'paused', true], ['paused', 'paused', false], ['cancelled', 'paused', false], ['finished', 'paused', false],
    ['draft', 'cancelled', false], ['scheduled', 'cancelled', true], ['cancelled', 'cancelled', false], ['finished', 'cancelled', false],
    ['draft', 'finished', false], ['running', 'finished', false], ['paused', 'finished', false], ['scheduled', 'finished', true],
    ['draft', 'sending', false], ['draft', '', false],
  ];
  let id = 0;
  runScenarios(() => t, forbidden.map(([from, to, sendAt]): Scenario => ({
    name: `refuses ${from} → ${to || '(empty)'}`, method: 'PUT', path: () => `/api/campaigns/${id}/status`, body: { status: to }, status: 400,
    contains: [(b) => b.message.length > 10],
    before: async () => {
      const body = { ...base(), ...(sendAt ? { send_at: new Date(Date.now() + 86400_000).toISOString() } : {}) };
      id = (await t.request('POST', '/api/campaigns', body)).body.data.id;
      setStatus(id, from);
    },
    after: async () => assert.equal((await t.request('GET', `/api/campaigns/${id}`)).body.data.status, from),
  })));

  it('schedules, unschedules, and stores "running" with a future send_at as scheduled', async () => {
    const c = (await t.request('POST', '/api/campaigns', { ...base(), send_at: new Date(Date.now() + 86400_000).toISOString() })).body.data;
    const r = await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
    assert.equal(r.body.data.status, 'scheduled');
    const d = await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'draft' });
    assert.equal(d.body.data.status, 'draft');
    const s = await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'scheduled' });
    assert.equal(s.body.data.status, 'scheduled');
    const cleared = await t.request('PUT', `/api/campaigns/${c.id}`, { ...base(), send_at: null });
    assert.equal(cleared.body.data.status, 'draft');
  });

  it('refuses edits of running/finished campaigns and deleting a running one', async () => {
    const c = (await t.request('POST', '/api/campaigns', base())).body.data;
    setStatus(c.id, 'finished');
    assert.equal((await t.request('PUT', `/api/campaigns/${c.id}`, base())).status, 400);
    setStatus(c.id, 'running');
    assert.equal((await t.request('DELETE', `/api/campaigns/${c.id}`)).status, 400);
    setStatus(c.id, 'cancelled');
    assert.equal((await t.request('DELETE', `/api/campaigns/${c.id}`)).status, 200);
    assert.equal((await t.request('GET', `/api/campaigns/${c.id}`)).status, 404);
  });
});

describe('bulk delete', () => {
  const setStatus = (id: number, status: CampaignStatus) => fixtures(t.server.ctx.db).campaignState(id, { status });
  const exists = (id: number) => t.server.ctx.db.prepare('SELECT 1 FROM campaigns WHERE id = ?').get(id) !== undefined;
  const make = async (name: string, lists = [listA]) => (await t.request('POST', '/api/campaigns', { ...base(), name, lists })).body.data.id as number;

  describe('refuses a request that selects nothing or has bad ids, changing nothing', () => {
    let keep = 0;
    before(async () => {
      keep = await make('Bulk keep');
    });
    const refused = (name: string, path: string): Scenario => ({
      name, method: 'DELETE', path, status: 400, contains: [(b) => b.message.length > 10], after: () => assert.ok(exists(keep)),
    });
    runScenarios(() => t, [
      refused('no selection', '/api/campaigns'),
      refused('all=false', '/api/campaigns?all=false'),
      refused('an id that is not a number', '/api/campaigns?id=abc'),
      refused('id 0', '/api/campaigns?id=0'),
      refused('an empty query', '/api/campaigns?query='),
    ]);
  });

  it('deletes by id (unknown ids ignored) and by name/subject search', async () => {
    const [a, b, c] = [await make('Bulk alpha'), await make('Bulk beta'), await make('Bulk gamma 100%')];
    const r = await t.request('DELETE', `/api/campaigns?id=${a}&id=${b}&id=99999`);
    assert.deepEqual(r.body, { data: true });
    assert.ok(!exists(a) && !exists(b) && exists(c));
    // The search is a literal substring: "%" does not match everything.
    assert.deepEqual((await t.request('DELETE', '/api/campaigns?query=zz%25')).body, { data: true });
    assert.ok(exists(c));
    assert.equal((await t.request('DELETE', '/api/campaigns?query=gamma 100%25')).status, 200);
    assert.ok(!exists(c));
  });

  it('refuses the whole request when it selects a running campaign', async () => {
    const [idle, running] = [await make('Bulk idle'), await make('Bulk running')];
    setStatus(running, 'running');
    const r = await t.request('DELETE', `/api/campaigns?id=${idle}&id=${running}`);
    assert.equal(r.status, 400);
    assert.match(r.body.message, new RegExp(`running.*${running}`));
    assert.ok(exists(idle) && exists(running));
    setStatus(running, 'cancelled');
    assert.equal((await t.request('DELETE', `/api/campaigns?id=${idle}&id=${running}`)).status, 200);
    assert.ok(!exists(idle) && !exists(running));
  });

  it('deletes only campaigns the caller may manage; all=true deletes every one of them', async () => {
    const db = t.server.ctx.db;
    const creds = campaignManagerOnListB('bulk-manager', 'bulk-manager', 'bulk-only-b');
    const onA = await make('Bulk on A');
    const onB = await make('Bulk on B', [listB]);
    assert.equal((await t.request('DELETE', `/api/campaigns?id=${onA}`, undefined, { auth: creds })).status, 200);
    assert.ok(exists(onA));
    assert.equal((await t.request('DELETE', '/api/campaigns?all=true', undefined, { auth: creds })).status, 200);
    assert.ok(exists(onA) && !exists(onB));
    const noPerm = fixtures(db).apiUser('bulk-reader', { permissions: ['campaigns:get_all'] });
    assert.equal((await t.request('DELETE', '/api/campaigns?all=true', undefined, { auth: noPerm })).status, 403);
    assert.ok(exists(onA));
  });
});

describe('preview, test send, archive', () => {
  it('previews with the demo subscriber, stored or posted body', async () => {
    const c = (await t.request('POST', '/api/campaigns', base())).body.data;
    const g = await t.request('GET', `/api/campaigns/${c.id}/preview`);
    assert.equal(g.status, 200);
    assert.match(g.headers.get('content-type')!, /text\/html/);
    assert.match(g.text, /Hello Demo Subscriber/);
    assert.equal(g.headers.get('content-security-policy'), 'sandbox');
    const p = await t.request('POST', `/api/campaigns/${c.id}/preview`, undefined, { raw: new URLSearchParams({ body: 'Plain {{ .Subscriber.Email }}', content_type: 'plain' }) });
    assert.match(p.headers.get('content-type')!, /text\/plain/);
    assert.match(p.text, /Plain demo@listmonk.app/);
    const bad = await t.request('POST', `/api/campaigns/${c.id}/preview`, undefined, { raw: new URLSearchParams({ body: '{{ .Nope' }) });
    assert.equal(bad.status, 400);
  });

  describe('refuses a preview template_id that is not a campaign template', () => {
    let c = 0;
    let tx = 0;
    before(async () => {
      c = (await t.request('POST', '/api/campaigns', base())).body.data.id;
      tx = fixtures(t.server.ctx.db).template({ name: 'Tx', type: 'tx', subject: 'S', body: '<p>tx</p>' });
    });
    const refused = (what: string, template: () => number): Scenario[] => [
      {
        name: `preview with ${what}`, method: 'GET', path: () => `/api/campaigns/${c}/preview?template_id=${template()}`, status: 400,
        after: (res) => assert.equal(res.body.message, `invalid "template_id": template ${template()} not found or not a campaign template`),
      },
      { name: `archive preview with ${what}`, method: 'POST', path: () => `/api/campaigns/${c}/preview/archive`, form: () => ({ template_id: String(template()) }), status: 400 },
    ];
    runScenarios(() => t, [
      ...refused('an unknown template', () => 99999),
      ...refused('a tx template', () => tx),
      // 0 (and a visual body) still mean the campaign's own template.
      { name: 'template_id 0 is the campaign\'s own template', method: 'GET', path: () => `/api/campaigns/${c}/preview?template_id=0`, status: 200 },
    ]);
  });

  it('previews the archive page with posted archive_meta and template, sandboxed', async () => {
    const c = (await t.request('POST', '/api/campaigns', { ...base(), archive_meta: { name: 'Stored Reader' } })).body.data;
    const stored = await t.request('POST', `/api/campaigns/${c.id}/preview/archive`, undefined, { raw: new URLSearchParams({}) });
    assert.equal(stored.status, 200, stored.text);
    assert.match(stored.headers.get('content-type')!, /text\/html/);
    assert.equal(stored.headers.get('content-security-policy'), 'sandbox');
    assert.match(stored.text, /Hello Stored Reader/);
    const tpl = fixtures(t.server.ctx.db).template({ name: 'Archive frame', body: '<main class="frame">{{ template "content" . }}</main>' });
    const posted = await t.request('POST', `/api/campaigns/${c.id}/preview/archive`, undefined, {
      raw: new URLSearchParams({ template_id: String(tpl), archive_meta: JSON.stringify({ Name: 'Posted <Reader>', email: 'p@example.com' }) }),
    });
    assert.equal(posted.status, 200, posted.text);
    assert.match(posted.text, /<main class="frame"><p>Hello Posted &lt;Reader&gt;<\/p><\/main>/);
    const db = t.server.ctx.db;
    assert.equal(db.prepare('SELECT COUNT(*) FROM campaign_views').pluck().get(), 0);
  });

  it('test-sends the edited campaign to existing subscribers only, uncounted', async () => {
    const c = (await t.request('POST', '/api/campaigns', base())).body.data;
    const before = sink.messages.length;
    const r = await t.request('POST', `/api/campaigns/${c.id}/test`, { ...base(), subject: 'Test for {{ .Subscriber.Name }}', subscribers: ['Tester@Example.com'] });
    assert.equal(r.status, 200, r.text);
    const [m] = (await sink.waitFor(before + 1)).slice(before);
    assert.equal(m.parsed.subject, 'Test for Tess Tester');
    assert.deepEqual(m.to, ['tester@example.com']);
    assert.equal(m.parsed.headers.get('x-listmonk-campaign'), c.uuid);
    assert.equal((await t.request('GET', `/api/campaigns/${c.id}`)).body.data.sent, 0);
  });

  it('test-sends to an address that is no subscriber as a stand-in named from the address, with the archive subscriber\'s attributes', async () => {
    const c = (await t.request('POST', '/api/campaigns', { ...base(), archive_meta: { name: 'Archive reader', attribs: { city: 'Lisbon' } } })).body.data;
    const before = sink.messages.length;
    const body = { ...base(), subject: 'For {{ .Subscriber.Name }} in {{ .Subscriber.Attribs.city }}', subscribers: ['jane.doe@elsewhere.example', 'tester@example.com'] };
    const r = await t.request('POST', `/api/campaigns/${c.id}/test`, body);
    assert.equal(r.status, 200, r.text);
    const got = (await sink.waitFor(before + 2)).slice(before);
    const to = (addr: string) => got.find((m) => m.to[0] === addr)!;
    assert.equal(to('jane.doe@elsewhere.example').parsed.subject, 'For jane.doe in Lisbon');
    // An existing subscriber still gets their own data.
    assert.match(to('tester@example.com').parsed.subject ?? '', /^For Tess Tester in (?!Lisbon)/);
    assert.equal(t.server.ctx.db.prepare('SELECT COUNT(*) FROM subscribers WHERE email = ?').pluck().get('jane.doe@elsewhere.example'), 0);
    assert.equal((await t.request('GET', `/api/campaigns/${c.id}`)).body.data.sent, 0);
  });

  it('refuses a test to an address that is no subscriber without campaigns:send (403), and more than 10 addresses (400), sending nothing', async () => {
    const c = (await t.request('POST', '/api/campaigns', base())).body.data;
    const before = sink.messages.length;
    const f = fixtures(t.server.ctx.db);
    const creds = f.apiUser('no-send', { roleId: f.role(['campaigns:get_all', 'campaigns:manage_all', 'lists:get_all', 'subscribers:get_all'], 'test-no-send') });
    const stranger = await t.request('POST', `/api/campaigns/${c.id}/test`, { ...base(), subscribers: ['stranger@elsewhere.example'] }, { auth: creds });
    assert.equal(stranger.status, 403, stranger.text);
    assert.match(stranger.body.message, /stranger@elsewhere\.example is not a subscriber you can access; a test to any address needs the campaigns:send permission/);
    // Subscribers it may see: as before.
    const own = await t.request('POST', `/api/campaigns/${c.id}/test`, { ...base(), subscribers: ['tester@example.com'] }, { auth: creds });
    assert.equal(own.status, 200, own.text);
    await sink.waitFor(before + 1);
    const eleven = Array.from({ length: 11 }, (_, i) => `t${i}@elsewhere.example`);
    const many = await t.request('POST', `/api/campaigns/${c.id}/test`, { ...base(), subscribers: eleven });
    assert.equal(many.status, 400);
    assert.equal(many.body.message, '"subscribers": at most 10 addresses per test, not 11');
    const bad = await t.request('POST', `/api/campaigns/${c.id}/test`, { ...base(), subscribers: ['not an address'] });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /^"subscribers": "not an address" is not a valid e-mail address/);
    await new Promise((done) => setTimeout(done, 100));
    assert.equal(sink.messages.length, before + 1);
  });

  it('answers 400 when the campaign does not render for a test recipient, sending nothing', async () => {
    const c = (await t.request('POST', '/api/campaigns', base())).body.data;
    const before = sink.messages.length;
    // A function's error shows only when run with the subscriber's data.
    const r = await t.request('POST', `/api/campaigns/${c.id}/test`, { ...base(), body: '<p>{{ if .Subscriber.Name }}{{ fail "no" }}{{ end }}</p>', subscribers: ['tester@example.com'] });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.message, /^the campaign does not render for tester@example\.com: .*error calling fail: no/);
    await new Promise((done) => setTimeout(done, 100));
    assert.equal(sink.messages.length, before);
  });

  it('converts content between every pair the README lists', async () => {
    const convert = async (from: string, to: string, body: string) => (await t.request('POST', '/api/campaigns/1/content', { from, to, body })).body.data;
    assert.equal(await convert('markdown', 'html', '# Launch day\n\nLine'), '<h1 id="launch-day">Launch day</h1>\n<p>Line</p>\n');
    assert.equal(await convert('html', 'markdown', '<h2>Hi</h2><p>A <strong>b</strong></p>'), '## Hi\n\nA **b**');
    assert.equal(await convert('html', 'plain', '<p>One</p><p>Two</p>'), 'One\n\nTwo');
    assert.match(await convert('plain', 'html', 'a < b'), /a &lt; b/);
  });

  describe('refuses bad previews, test sends and conversions', () => {
    let c = 0;
    before(async () => {
      c = (await t.request('POST', '/api/campaigns', base())).body.data.id;
    });
    runScenarios(() => t, [
      { name: 'archive preview with archive_meta that is not JSON', method: 'POST', path: () => `/api/campaigns/${c}/preview/archive`, form: { archive_meta: '{nope' }, status: 400, contains: [/archive_meta/] },
      { name: 'archive preview with archive_meta that is not an object', method: 'POST', path: () => `/api/campaigns/${c}/preview/archive`, form: { archive_meta: '[1]' }, status: 400 },
      { name: 'archive preview of an unknown campaign', method: 'POST', path: '/api/campaigns/99999/preview/archive', form: {}, status: 404 },
      { name: 'test send to nobody', method: 'POST', path: () => `/api/campaigns/${c}/test`, body: () => ({ ...base(), subscribers: [] }), status: 400 },
      { name: 'converting to visual', method: 'POST', path: '/api/campaigns/1/content', body: { from: 'html', to: 'visual', body: 'x' }, status: 400, contains: [/not supported/] },
      { name: 'converting from an unknown format', method: 'POST', path: '/api/campaigns/1/content', body: { from: 'word', to: 'html', body: 'x' }, status: 400 },
    ]);
  });

  describe('refuses an archive template that is not a campaign template, changing nothing', () => {
    let c: { id: number; archive_template_id: number | null };
    let txTemplate = 0;
    before(async () => {
      c = (await t.request('POST', '/api/campaigns', base())).body.data;
      txTemplate = t.server.ctx.db.prepare("SELECT id FROM templates WHERE type = 'tx'").pluck().get() as number;
    });
    const refused = (what: string, id: () => number): Scenario[] => [
      { name: `create with ${what}`, method: 'POST', path: '/api/campaigns', body: () => ({ ...base(), archive_template_id: id() }), status: 400, contains: [/archive_template_id/] },
      { name: `update with ${what}`, method: 'PUT', path: () => `/api/campaigns/${c.id}`, body: () => ({ ...base(), archive_template_id: id() }), status: 400 },
      { name: `archive with ${what}`, method: 'PUT', path: () => `/api/campaigns/${c.id}/archive`, body: () => ({ archive: true, archive_template_id: id() }), status: 400 },
    ];
    runScenarios(() => t, [...refused('an unknown template', () => 999), ...refused('a tx template', () => txTemplate)]);
    it('the campaign is as it was', async () => {
      const after = (await t.request('GET', `/api/campaigns/${c.id}`)).body.data;
      assert.equal(after.archive, false);
      assert.equal(after.archive_template_id, c.archive_template_id);
    });
  });

  it('publishes archived campaigns that were sent, never drafts', async () => {
    const c = (await t.request('POST', '/api/campaigns', { ...base(), subject: 'Issue for {{ .Subscriber.Name }}' })).body.data;
    const r = await t.request('PUT', `/api/campaigns/${c.id}/archive`, { archive: true, archive_slug: 'Issue One', archive_meta: { name: 'Reader' } });
    assert.deepEqual(r.body, { data: true });
    assert.equal((await fetch(`${t.url}/archive/issue-one`)).status, 404);
    fixtures(t.server.ctx.db).campaignState(c.id, { status: 'finished' });
    const page = await fetch(`${t.url}/archive/issue-one`);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /Hello Reader/);
    const api = await t.request('GET', '/api/public/archive', undefined, { auth: null });
    assert.deepEqual(api.body.data.results.map((e: { subject: string; url: string }) => [e.subject, e.url]), [['Issue for Reader', `${t.url}/archive/issue-one`]]);
    const rss = await (await fetch(`${t.url}/archive.xml`)).text();
    assert.match(rss, /<title>Issue for Reader<\/title>/);
    assert.equal((await fetch(`${t.url}/archive/latest`)).status, 200);
    // The archive is for the public: search engines may index it (a web view is not).
    assert.equal(page.headers.get('x-robots-tag'), null);
    const listing = await fetch(`${t.url}/archive`);
    assert.equal(listing.headers.get('x-robots-tag'), null);
    assert.doesNotMatch(await listing.text(), /name="robots"/);
  });

  it('pages the archive listing, keeping the chosen page size in its links', async () => {
    for (const subject of ['Paged one', 'Paged two']) {
      const c = (await t.request('POST', '/api/campaigns', { ...base(), subject })).body.data;
      await t.request('PUT', `/api/campaigns/${c.id}/archive`, { archive: true });
      fixtures(t.server.ctx.db).campaignState(c.id, { status: 'finished' });
    }
    const first = await (await fetch(`${t.url}/archive?per_page=1`)).text();
    assert.match(first, /<a href="\?page=2&amp;per_page=1">Older →<\/a>/);
    assert.doesNotMatch(first, /Newer/);
    const second = await (await fetch(`${t.url}/archive?page=2&per_page=1`)).text();
    assert.match(second, /<a href="\?page=1&amp;per_page=1">← Newer<\/a>/);
    assert.match(second, /<a href="\?page=3&amp;per_page=1">Older →<\/a>/);
    assert.match(await (await fetch(`${t.url}/archive`)).text(), /Paged two/);
  });
});

describe('visibility per user', () => {
  it('hides campaigns on lists the user has no grant for', async () => {
    const creds = campaignManagerOnListB('reader', 'camp-reader', 'only-b');
    const onA = (await t.request('POST', '/api/campaigns', base())).body.data;
    const onB = (await t.request('POST', '/api/campaigns', { ...base(), lists: [listB] })).body.data;
    const list = await t.request('GET', '/api/campaigns?per_page=all', undefined, { auth: creds });
    const ids = list.body.data.results.map((c: { id: number }) => c.id);
    assert.ok(ids.includes(onB.id));
    assert.ok(!ids.includes(onA.id));
    assert.equal((await t.request('GET', `/api/campaigns/${onA.id}`, undefined, { auth: creds })).status, 403);
    assert.equal((await t.request('GET', `/api/campaigns/${onB.id}`, undefined, { auth: creds })).status, 200);
  });
});
