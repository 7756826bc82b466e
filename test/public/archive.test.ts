// The public archive a reader would want: new campaigns on public lists are published with a
// slug made from their subject (unique, editable); the index lists issues by date, pages, is
// searchable (FTS5 over subject and text) and has an RSS feed; an issue's page names the site,
// its title and date, links to its neighbours, offers a subscribe box, and greets nobody
// unless the campaign's archive subscriber (archive_meta) names someone.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { archiveSearchQuery } from '../../src/campaigns/store.ts';

let t: TestServer;
let publicList: { id: number; uuid: string };
let privateList: number;

interface Issue { id: number; uuid: string; archive: boolean; archive_slug: string | null }

async function list(name: string, type: 'public' | 'private'): Promise<{ id: number; uuid: string }> {
  const r = await t.request('POST', '/api/lists', { name, type, optin: 'single' });
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

async function campaign(over: Record<string, unknown>): Promise<Issue> {
  const r = await t.request('POST', '/api/campaigns', { name: String(over.subject), lists: [publicList.id], content_type: 'html', body: '<p>Body</p>', ...over });
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

/** Marks a campaign sent on `day` (what the archive shows and orders by). */
function sent(c: Issue, day: string): void {
  fixtures(t.server.ctx.db).campaignState(c.id, { status: 'finished', started_at: `${day}T09:00:00.000Z` });
}

const page = async (path: string) => {
  const r = await fetch(`${t.url}${path}`);
  return { status: r.status, type: r.headers.get('content-type') ?? '', text: await r.text() };
};
const issueLinks = (html: string) => [...html.matchAll(/<li><a href="[^"]*\/archive\/([^"]+)">/g)].map((m) => m[1]);

before(async () => {
  // A campaign another writer (the listmonk import) put in before the server started (not
  // published): the index holds its stored body until the server indexes its text, on start.
  t = await startTestServer({
    setup: (db) => {
      db.prepare(`INSERT INTO campaigns (uuid, name, subject, from_email, body, content_type, status, archive, archive_slug, started_at)
        VALUES ('0190a000-0000-7000-8000-000000000001', 'Imported', 'Imported issue', 'a@example.com',
        '<p>Mulching <a href="https://imported.example/">beds</a></p>', 'html', 'finished', 0, 'imported-issue', '2024-01-01T09:00:00.000Z')`).run();
    },
  });
  const r = await t.request('PUT', '/api/settings', { 'app.root_url': t.url, 'app.site_name': 'The Garden Letter' });
  assert.equal(r.status, 200, r.text);
  publicList = await list('Garden news', 'public');
  privateList = (await list('Staff notes', 'private')).id;
});
after(() => t.stop());

describe('publishing new campaigns', () => {
  it('publishes a campaign whose lists are all public, with a slug made from its subject', async () => {
    const c = await campaign({ subject: 'Spring: Tomatoes & Basil!' });
    assert.equal(c.archive, true);
    assert.equal(c.archive_slug, 'spring-tomatoes-basil');
  });

  it('keeps a campaign with a private list out of the archive', async () => {
    const c = await campaign({ subject: 'Staff rota', lists: [publicList.id, privateList] });
    assert.equal(c.archive, false);
    assert.equal(c.archive_slug, 'staff-rota', 'the slug is ready for when it is published');
  });

  it('takes the given archive flag and slug over the defaults', async () => {
    const c = await campaign({ subject: 'Given', archive: false, archive_slug: 'My Own Slug' });
    assert.equal(c.archive, false);
    assert.equal(c.archive_slug, 'my-own-slug');
  });

  it('publishes nothing by default while the setting is off', async () => {
    await withSettings(t, { 'app.archive_new_campaigns': false }, async () => {
      assert.equal((await campaign({ subject: 'Quiet one' })).archive, false);
    });
  });

  it('numbers a slug already taken, leaves template actions out of it, and never takes "latest"', async () => {
    assert.equal((await campaign({ subject: 'Spring: tomatoes, basil' })).archive_slug, 'spring-tomatoes-basil-2');
    assert.equal((await campaign({ subject: 'Spring tomatoes basil' })).archive_slug, 'spring-tomatoes-basil-3');
    assert.equal((await campaign({ subject: 'News for {{ .Subscriber.FirstName }}' })).archive_slug, 'news-for');
    assert.equal((await campaign({ subject: 'Latest' })).archive_slug, 'latest-2');
    assert.equal((await campaign({ subject: '!!!' })).archive_slug, null);
  });

  it('lets the slug be edited, and refuses one another campaign has', async () => {
    const c = await campaign({ subject: 'Edit me' });
    const r = await t.request('PUT', `/api/campaigns/${c.id}/archive`, { archive: true, archive_slug: 'Edited Slug' });
    assert.equal(r.status, 200, r.text);
    assert.equal((await t.request('GET', `/api/campaigns/${c.id}`)).body.data.archive_slug, 'edited-slug');
    const taken = await t.request('PUT', `/api/campaigns/${c.id}/archive`, { archive_slug: 'spring-tomatoes-basil' });
    assert.equal(taken.status, 409);
    assert.match(taken.body.message, /archive_slug "spring-tomatoes-basil" is already used/);
  });
});

describe('the archive index, its search and its feed', () => {
  const days = ['2026-01-05', '2026-02-02', '2026-03-02', '2026-04-06', '2026-05-04'];
  const slugs = days.map((d) => `issue-${d}`);

  before(async () => {
    // Created in another order than they were sent: the archive goes by the day they went out.
    for (const i of [2, 0, 4, 1, 3]) {
      const bodies = ['<p>Pruning <b>roses</b> in winter.</p>', '<p>Sowing <a href="https://seeds.example/peas">peas</a> early.</p>',
        '<p>Compost, worms &amp; leaf mould.</p>', '<p>Watering roses in a dry April.</p>', '<p>Harvesting rhubarb.</p>'];
      const c = await campaign({ subject: `Garden issue ${i + 1} <${days[i]}>`, archive_slug: slugs[i], body: bodies[i] });
      sent(c, days[i]);
    }
    // A draft is never listed, even published.
    await campaign({ subject: 'Roses draft', body: '<p>roses</p>' });
  });

  it('lists the issues newest first, with their dates, paged', async () => {
    const first = await page('/archive?per_page=2');
    assert.equal(first.status, 200);
    assert.deepEqual(issueLinks(first.text), [slugs[4], slugs[3]]);
    assert.match(first.text, /<time class="muted" datetime="2026-05-04">2026-05-04<\/time>/);
    assert.match(first.text, /<span class="site">The Garden Letter<\/span><\/header><main><h1>Archive<\/h1>/);
    assert.match(first.text, /<a href="\?page=2&amp;per_page=2">Older →<\/a>/);
    const third = await page('/archive?page=3&per_page=2');
    assert.deepEqual(issueLinks(third.text), [slugs[0]]);
    assert.match(third.text, /<a href="\?page=2&amp;per_page=2">← Newer<\/a>/);
    assert.doesNotMatch(third.text, /Older/);
  });

  it('finds issues by the words of their subject and text (markup and link targets left out), as prefixes', async () => {
    const roses = await page('/archive?q=roses');
    assert.deepEqual(issueLinks(roses.text), [slugs[3], slugs[0]], 'both issues about roses, newest first; the draft is not listed');
    assert.match(roses.text, /2 issues with “roses”/);
    assert.deepEqual(issueLinks((await page('/archive?q=Garden%20issue%203')).text), [slugs[2]], 'every word must match');
    assert.deepEqual(issueLinks((await page('/archive?q=rhub')).text), [slugs[4]], 'a word matches as a prefix');
    assert.deepEqual(issueLinks((await page('/archive?q=worms')).text), [slugs[2]]);
    assert.deepEqual(issueLinks((await page('/archive?q=seeds.example')).text), [], 'a link\'s target is not its text');
    assert.deepEqual(issueLinks((await page('/archive?q=href')).text), [], 'markup is not text');
    assert.match((await page('/archive?q=nothing-like-this')).text, /No issue matches\./);
  });

  it('indexes the text of a campaign another writer put in, on start', async () => {
    const db = t.server.ctx.db;
    const id = db.prepare(`SELECT id FROM campaigns WHERE archive_slug = 'imported-issue'`).pluck().get();
    const matching = (query: string) => db.prepare('SELECT rowid FROM campaign_search WHERE campaign_search MATCH ?').pluck().all(archiveSearchQuery(query));
    assert.deepEqual(matching('mulching beds'), [id]);
    assert.deepEqual(matching('imported.example'), [], 'its link target is not its text');
    assert.equal(db.prepare('SELECT COUNT(*) FROM campaign_search_pending').pluck().get(), 0);
  });

  it('takes any search text as words: FTS5 syntax is never run', async () => {
    for (const q of ['"', 'roses OR', 'NEAR(', '*', 'subject:roses', '^roses', 'a"b']) {
      const r = await page(`/archive?q=${encodeURIComponent(q)}`);
      assert.equal(r.status, 200, `${q}: ${r.status}`);
    }
    assert.deepEqual(issueLinks((await page(`/archive?q=${encodeURIComponent('subject:roses')}`)).text), [], '"subject:roses" is the words subject and roses');
    assert.deepEqual(issueLinks((await page(`/archive?q=${encodeURIComponent('"roses')}`)).text), [slugs[3], slugs[0]]);
  });

  it('pages a search, keeping it in the links; the API searches the same way', async () => {
    const r = await page('/archive?q=roses&per_page=1');
    assert.match(r.text, /<a href="\?page=2&amp;q=roses&amp;per_page=1">Older →<\/a>/);
    const api = await fetch(`${t.url}/api/public/archive?q=roses`);
    const body = await api.json() as { data: { results: { url: string }[]; total: number } };
    assert.equal(body.data.total, 2);
    assert.deepEqual(body.data.results.map((x) => x.url), [`${t.url}/archive/${slugs[3]}`, `${t.url}/archive/${slugs[0]}`]);
  });

  it('follows an edit of the text', async () => {
    const c = await campaign({ subject: 'Edited later', body: '<p>Dahlias</p>' });
    assert.deepEqual(issueLinks((await page('/archive?q=tulips')).text), []);
    const r = await t.request('PUT', `/api/campaigns/${c.id}`, { lists: [publicList.id], body: '<p>Tulips</p>' });
    assert.equal(r.status, 200, r.text);
    sent(c, '2025-12-01');
    assert.deepEqual(issueLinks((await page('/archive?q=tulips')).text), [c.archive_slug]);
    assert.deepEqual(issueLinks((await page('/archive?q=dahlias')).text), []);
    t.server.ctx.db.prepare('DELETE FROM campaigns WHERE id = ?').run(c.id);
    assert.equal(t.server.ctx.db.prepare('SELECT COUNT(*) FROM campaign_search WHERE rowid = ?').pluck().get(c.id), 0, 'a deleted campaign leaves the index');
  });

  it('has an RSS 2.0 feed of the issues, newest first, with their links, dates and escaped titles', async () => {
    const r = await page('/archive.xml');
    assert.equal(r.status, 200);
    assert.match(r.type, /^application\/rss\+xml/);
    assert.match(r.text, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<rss version="2\.0" xmlns:atom="http:\/\/www\.w3\.org\/2005\/Atom"><channel><title>The Garden Letter<\/title>/);
    assert.ok(r.text.includes(`<atom:link href="${t.url}/archive.xml" rel="self" type="application/rss+xml"/>`));
    const items = [...r.text.matchAll(/<item><title>([^<]*)<\/title><link>([^<]*)<\/link><guid isPermaLink="true">[^<]*<\/guid><pubDate>([^<]*)<\/pubDate>/g)];
    assert.deepEqual(items.slice(0, 5).map((m) => m[2]), [...slugs].reverse().map((s) => `${t.url}/archive/${s}`));
    assert.equal(items[0][1], 'Garden issue 5 &lt;2026-05-04&gt;', 'the title is escaped');
    assert.equal(items[0][3], 'Mon, 04 May 2026 09:00:00 GMT');
    assert.ok(!items.some((m) => m[1].includes('Roses draft')));
    assert.match(r.text, /<description>&lt;!doctype html&gt;/, 'the content is escaped HTML');
    assert.match((await page('/archive')).text, /<link rel="alternate" type="application\/rss\+xml" title="The Garden Letter" href="\/archive\.xml"\/>/);
  });

  it('gives each issue the site name, its title and date, its neighbours and a subscribe box', async () => {
    const r = await page(`/archive/${slugs[2]}`);
    assert.equal(r.status, 200);
    assert.match(r.text, new RegExp(`<a class="brand" href="${t.url}/archive"[^>]*>The Garden Letter</a>`));
    assert.match(r.text, /<p class="issue-date"[^>]*>2026-03-02<\/p>/);
    assert.match(r.text, /<h1 class="issue-title"[^>]*>Garden issue 3 &lt;2026-03-02&gt;<\/h1>/);
    assert.match(r.text, new RegExp(`<a rel="next" href="${t.url}/archive/${slugs[3]}"[^>]*>← Garden issue 4 &lt;2026-04-06&gt;</a>`));
    assert.match(r.text, new RegExp(`<a rel="prev" href="${t.url}/archive/${slugs[1]}"[^>]*>Garden issue 2 &lt;2026-02-02&gt; →</a>`));
    assert.match(r.text, new RegExp(`<a class="button" href="${t.url}/subscription/form\\?l=${publicList.uuid}">Subscribe</a>`));
    const newest = await page(`/archive/${slugs[4]}`);
    assert.doesNotMatch(newest.text, /rel="next"/, 'the newest issue has no newer one');
    const oldest = await page(`/archive/${slugs[0]}`);
    assert.doesNotMatch(oldest.text, /rel="prev"/, 'the oldest issue has no older one');
  });

  it('ticks the issue\'s lists on the subscription form it links to', async () => {
    const other = await list('Seed swap', 'public');
    const form = await page(`/subscription/form?l=${publicList.uuid}`);
    assert.match(form.text, new RegExp(`<input type="checkbox" name="l" value="${publicList.uuid}" checked=""`));
    assert.match(form.text, new RegExp(`<input type="checkbox" name="l" value="${other.uuid}"/>`));
    const all = await page('/subscription/form');
    assert.match(all.text, new RegExp(`value="${other.uuid}" checked=""`), 'without l, every list is ticked');
  });
});

describe('no greeting on public pages', () => {
  const body = '<p>Hello {{ .Subscriber.FirstName }},</p><h2>Hi {{ .Subscriber.Name }}!</h2><p>Dear {{ .Subscriber.FirstName }}, the roses are out.</p><p>Thanks for reading.</p>';

  it('leaves out the greetings made for a reader when archive_meta names nobody', async () => {
    const c = await campaign({ subject: 'Greetings test', body });
    sent(c, '2025-11-01');
    const html = (await page(`/archive/${c.archive_slug}`)).text;
    assert.doesNotMatch(html, /Hello|Hi |Dear|Subscriber/);
    assert.match(html, /<p>the roses are out\.<\/p>/);
    assert.match(html, /<p>Thanks for reading\.<\/p>/);
    const preview = await t.request('POST', `/api/campaigns/${c.id}/preview/archive`, {});
    assert.doesNotMatch(preview.text, /Hello|Subscriber/);
  });

  it('greets the archive subscriber archive_meta names', async () => {
    const c = await campaign({ subject: 'Named reader', body, archive_meta: { name: 'Garden Friend' } });
    sent(c, '2025-10-01');
    const html = (await page(`/archive/${c.archive_slug}`)).text;
    assert.match(html, /<p>Hello Garden,<\/p>/);
    assert.match(html, /<h2>Hi Garden Friend!<\/h2>/);
  });

  it('sends subscribers their greeting as before', async () => {
    const c = await campaign({ subject: 'Mail preview', body });
    const p = await t.request('POST', `/api/campaigns/${c.id}/preview`, {});
    assert.match(p.text, /Hello Demo,/);
  });
});
