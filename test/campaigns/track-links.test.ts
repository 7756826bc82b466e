// A campaign's "track links": on by default (privacy.track_links), every literal http(s) link
// of the body is tracked at send time, except those marked @NoTrack and those the helpers
// build; @TrackLink and {{ TrackLink }} work as before; previews register nothing.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addSubscriber, until } from './fixtures.ts';

let t: TestServer;
let sink: SmtpSink;
let list: number;

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({})], 'app.root_url': t.url });
  assert.equal(r.status, 200, r.text);
  list = addList(t.server.ctx.db, 'Readers', 'single');
  addSubscriber(t.server.ctx.db, 'reader@example.com', 'Reader', [[list, 'confirmed']]);
});
after(async () => {
  await t.stop();
  await sink.close();
});

const linkCount = () => t.server.ctx.db.prepare('SELECT COUNT(*) FROM links').pluck().get() as number;

/** Creates and sends a campaign; answers it and the mail the reader got. */
async function send(fields: Record<string, unknown>) {
  const c = await t.request('POST', '/api/campaigns', { name: 'Links', subject: 'Links', lists: [list], ...fields });
  assert.equal(c.status, 200, c.text);
  const s = await t.request('PUT', `/api/campaigns/${c.body.data.id}/status`, { status: 'running' });
  assert.equal(s.status, 200, s.text);
  const mail = await until('the mail', () => sink.messages.find((m) => m.parsed.headers.get('x-listmonk-campaign') === c.body.data.uuid));
  return { campaign: c.body.data, html: String(mail.parsed.html), text: String(mail.parsed.text) };
}

/** Where a tracked link of the mail redirects to. */
async function target(href: string): Promise<string | null> {
  const res = await fetch(href.replaceAll('&amp;', '&'), { redirect: 'manual' });
  return res.headers.get('location');
}

describe('track links', () => {
  const body = '<p><a href="https://example.org/plain?a=1&amp;b=2">Plain</a> '
    + '<a href="https://example.org/untracked@NoTrack">Not tracked</a> '
    + '<a href="https://example.org/explicit@TrackLink">Explicit</a> '
    + '<a href="{{ TrackLink "https://example.org/call" . }}">Call</a> '
    + '<a href="{{ UnsubscribeURL }}">Unsubscribe</a> <a href="{{ MessageURL }}">Web view</a> '
    + '<a href="mailto:editor@example.org">Write</a> <a href="https://example.org/{{ .Subscriber.UUID }}">Yours</a></p>';

  it('is on for a new campaign by default, and tracks every literal link but those marked @NoTrack or built by the helpers', async () => {
    const { campaign, html, text } = await send({ content_type: 'html', body });
    assert.equal(campaign.track_links, true);
    const hrefs = [...html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    const tracked = hrefs.filter((h) => h.startsWith(`${t.url}/link/`));
    assert.deepEqual(await Promise.all(tracked.map(target)), ['https://example.org/plain?a=1&b=2', 'https://example.org/explicit', 'https://example.org/call']);
    assert.ok(hrefs.includes('https://example.org/untracked'), 'the @NoTrack marker is dropped');
    assert.ok(!html.includes('@NoTrack') && !text.includes('@NoTrack'));
    assert.ok(hrefs.some((h) => h.startsWith(`${t.url}/subscription/${campaign.uuid}/`)), 'the unsubscribe link is not tracked');
    assert.ok(hrefs.some((h) => h.startsWith(`${t.url}/campaign/${campaign.uuid}/`)), 'the web view link is not tracked');
    assert.ok(hrefs.includes('mailto:editor@example.org'));
    assert.ok(hrefs.some((h) => /^https:\/\/example\.org\/[0-9a-f-]{36}$/.test(h)), 'a per-subscriber link stays as built');
    assert.match(text, new RegExp(`${t.url}/link/`), 'the text part links the tracked URL too');
  });

  it('tracks markdown links and bare URLs of plain text (not the sentence\'s full stop)', async () => {
    const md = await send({ content_type: 'markdown', body: 'Read [the post](https://example.org/post) or <https://example.org/skip@NoTrack>.' });
    const mdHrefs = [...md.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.deepEqual(await Promise.all(mdHrefs.filter((h) => h.includes('/link/')).map(target)), ['https://example.org/post']);
    assert.ok(mdHrefs.includes('https://example.org/skip'));
    const plain = await send({ content_type: 'plain', body: 'See https://example.org/plain-text. Or https://example.org/x@NoTrack' });
    const link = /(http:\/\/\S+\/link\/\S+?)\. /.exec(plain.text);
    assert.ok(link, plain.text);
    assert.equal(await target(link[1]), 'https://example.org/plain-text');
    assert.match(plain.text, /Or https:\/\/example\.org\/x\s/);
  });

  it('can be switched off per campaign, and by default with privacy.track_links; @TrackLink still works', async () => {
    const off = await send({ content_type: 'html', body, track_links: false });
    assert.equal(off.campaign.track_links, false);
    const hrefs = [...off.html.matchAll(/href="([^"]+)"/g)].map((m) => m[1]);
    assert.ok(hrefs.includes('https://example.org/plain?a=1&amp;b=2'));
    assert.ok(hrefs.includes('https://example.org/untracked'));
    assert.equal(hrefs.filter((h) => h.includes('/link/')).length, 2, '@TrackLink and {{ TrackLink }} only');
    await withSettings(t, { 'privacy.track_links': false }, async () => {
      const c = await t.request('POST', '/api/campaigns', { name: 'Default off', subject: 'x', lists: [list], content_type: 'html', body });
      assert.equal(c.body.data.track_links, false);
    });
    const bad = await t.request('POST', '/api/campaigns', { name: 'Bad', subject: 'x', lists: [list], track_links: 'yes' });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /track_links/);
  });

  it('registers no link on a preview', async () => {
    const c = await t.request('POST', '/api/campaigns', { name: 'Preview', subject: 'x', lists: [list], content_type: 'html', body: '<a href="https://example.org/only-previewed">x</a>' });
    const before = linkCount();
    const p = await t.request('GET', `/api/campaigns/${c.body.data.id}/preview`);
    assert.equal(p.status, 200);
    assert.match(p.text, /\/link\/00000000-0000-0000-0000-000000000000\//);
    assert.equal(linkCount(), before);
  });
});
