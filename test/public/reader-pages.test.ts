// The reader's pages (issue 17): a refused subscription keeps what was typed; a second click on
// a confirm link; where the outcome pages lead; heading order; the landing page's title; and
// links whose UUID a mail client's linkifier followed with punctuation.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { PAGE_STYLE } from '../../src/http/layout.tsx';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

const ZERO = '00000000-0000-0000-0000-000000000000';
let t: TestServer;
let sink: SmtpSink;
const lists: Record<string, { id: number; uuid: string }> = {};

async function page(method: string, path: string, form?: Record<string, string | string[]>) {
  let body: URLSearchParams | undefined;
  if (form) {
    body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
  }
  const res = await fetch(t.url + path, { method, body, redirect: 'manual', headers: method === 'POST' ? { origin: t.url } : {} });
  return { status: res.status, text: await res.text(), location: res.headers.get('location') };
}

const db = () => t.server.ctx.db;
const subscriberUuid = (email: string) => db().prepare('SELECT uuid FROM subscribers WHERE email = ?').pluck().get(email) as string;
const status = (email: string, listId: number) => db().prepare(
  'SELECT sl.status FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email = ? AND sl.list_id = ?',
).pluck().get(email, listId) as string | undefined;
/** The hrefs of the links a page offers, in order. */
const hrefs = (html: string) => [...html.matchAll(/<a href="([^"]*)"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
const headings = (html: string) => [...html.matchAll(/<h([1-6])\b/g)].map((m) => Number(m[1]));

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await useSmtpSink(t, sink);
  const set = await t.request('PUT', '/api/settings', {
    'security.public_rate_limit': 0, 'app.site_name': 'The Weekly', 'app.root_url': 'https://news.example',
    'privacy.allow_preferences': true, 'privacy.allow_export': true, 'privacy.allow_wipe': true, 'privacy.allow_blocklist': true,
  });
  assert.equal(set.status, 200, set.text);
  for (const [key, body] of Object.entries({
    one: { name: 'List one', type: 'public', optin: 'single' },
    two: { name: 'List two', type: 'public', optin: 'single' },
    dbl: { name: 'Double', type: 'public', optin: 'double' },
  })) {
    const d = (await t.request('POST', '/api/lists', body)).body.data;
    lists[key] = { id: d.id, uuid: d.uuid };
  }
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('the subscription form after a refusal', () => {
  it('gives the form back with the reason, the address and name typed, and the lists ticked as they were', async () => {
    const res = await page('POST', '/subscription/form', { email: 'not an address', name: 'Ann Reader', l: lists.two.uuid });
    assert.equal(res.status, 400);
    assert.match(res.text, /<p class="error" id="form-error" role="alert">[^<]+<\/p>/);
    assert.match(res.text, /<form method="post" action="\/subscription\/form">/);
    assert.match(res.text, /<input type="email" id="email" name="email" required="" autocomplete="email" value="not an address"/);
    assert.match(res.text, /name="name" autocomplete="name" value="Ann Reader"/);
    assert.match(res.text, new RegExp(`<input type="checkbox" name="l" value="${lists.two.uuid}" checked=""`));
    assert.match(res.text, new RegExp(`<input type="checkbox" name="l" value="${lists.one.uuid}"\\s*/>`), 'an unticked list stays unticked');
    assert.match(res.text, /name="robots" content="noindex"/, 'a refusal is not a page to index');
  });

  it('keeps the input when no list was ticked', async () => {
    const res = await page('POST', '/subscription/form', { email: 'ann@example.com', name: 'Ann' });
    assert.equal(res.status, 400);
    assert.match(res.text, /value="ann@example\.com"/);
    assert.match(res.text, /class="error"/);
    assert.equal(subscriberUuid('ann@example.com'), undefined, 'nobody was subscribed');
  });

  it('a filled honeypot still gets no form back', async () => {
    const res = await page('POST', '/subscription/form', { email: 'bot@example.com', l: lists.one.uuid, nonce: 'x' });
    assert.equal(res.status, 400);
    assert.doesNotMatch(res.text, /<form/);
  });
});

describe('the opt-in link', () => {
  it('confirms once; a second click says the subscription is already confirmed, with links onwards', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'twice@example.com', list_uuids: [lists.dbl.uuid] }, { auth: null });
    const sub = subscriberUuid('twice@example.com');
    const link = `/subscription/optin/${sub}?l=${lists.dbl.uuid}`;
    assert.match((await page('GET', link)).text, /Confirm subscription/);
    const first = await page('POST', link, { confirm: 'true' });
    assert.equal(first.status, 200);
    assert.match(first.text, /<h1>Subscription confirmed<\/h1>/);
    assert.deepEqual(hrefs(first.text), ['https://news.example/', `/subscription/${ZERO}/${sub}?manage=true`]);
    assert.match(first.text, />Back to The Weekly</);
    for (const again of [await page('GET', link), await page('POST', link, { confirm: 'true' })]) {
      assert.equal(again.status, 200);
      assert.match(again.text, /<h1>Already confirmed<\/h1>/);
      assert.match(again.text, /already confirmed/);
      assert.deepEqual(hrefs(again.text), ['https://news.example/', `/subscription/${ZERO}/${sub}?manage=true`]);
    }
  });

  it('says there is nothing to confirm when the lists were never confirmed', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'none@example.com', list_uuids: [lists.one.uuid] }, { auth: null });
    const res = await page('GET', `/subscription/optin/${subscriberUuid('none@example.com')}?l=${lists.dbl.uuid}`);
    assert.match(res.text, /Nothing to confirm/);
  });
});

describe('the unsubscribed and preferences-saved pages', () => {
  it('link back to the site and offer subscribing again and the preferences', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'leaver@example.com', list_uuids: [lists.one.uuid, lists.two.uuid] }, { auth: null });
    const sub = subscriberUuid('leaver@example.com');
    const res = await page('POST', `/subscription/${ZERO}/${sub}`, {});
    assert.equal(res.status, 200);
    assert.match(res.text, /<h1>Unsubscribed<\/h1>/);
    assert.equal(status('leaver@example.com', lists.one.id), 'unsubscribed');
    // From an opt-in mail (zero campaign) every list is left, so there are no preferences to offer.
    assert.deepEqual(hrefs(res.text), ['https://news.example/', '/subscription/form']);
    assert.match(res.text, /Subscribe again/);
  });

  it('after a blocklist: back to the site only', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'gone@example.com', list_uuids: [lists.one.uuid] }, { auth: null });
    const res = await page('POST', `/subscription/${ZERO}/${subscriberUuid('gone@example.com')}`, { blocklist: 'true' });
    assert.deepEqual(hrefs(res.text), ['https://news.example/']);
  });

  it('the site link is the root URL; without a site name it says "the website"', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'plain@example.com', list_uuids: [lists.one.uuid] }, { auth: null });
    assert.equal((await t.request('PUT', '/api/settings', { 'app.site_name': '' })).status, 200);
    try {
      const res = await page('POST', `/subscription/${ZERO}/${subscriberUuid('plain@example.com')}`, {});
      assert.match(res.text, /<a href="https:\/\/news\.example\/">Back to the website<\/a>/);
    } finally {
      await t.request('PUT', '/api/settings', { 'app.site_name': 'The Weekly' });
    }
  });
});

describe('headings and the landing page', () => {
  it('every page has one h1 first and no heading level skipped; h2 is styled smaller than h1', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'heads@example.com', list_uuids: [lists.one.uuid] }, { auth: null });
    const sub = subscriberUuid('heads@example.com');
    for (const path of ['/', '/subscription/form', `/subscription/${ZERO}/${sub}`, `/subscription/${ZERO}/${sub}?manage=true`, `/subscription/wipe/${sub}`, `/subscription/optin/${sub}`]) {
      const h = headings((await page('GET', path)).text);
      assert.equal(h[0], 1, `${path}: starts with ${h[0]}`);
      assert.equal(h.filter((x) => x === 1).length, 1, `${path}: one h1`);
      for (let i = 1; i < h.length; i++) assert.ok(h[i] <= h[i - 1] + 1, `${path}: h${h[i - 1]} then h${h[i]}`);
    }
    const size = (tag: string) => Number(new RegExp(`(?:^|\\})${tag}\\{font-size:([\\d.]+)rem`, 'm').exec(PAGE_STYLE)?.[1]);
    assert.ok(size('h2') < size('h1'), `h2 ${size('h2')}rem, h1 ${size('h1')}rem`);
  });

  it('the landing page names the site once: in its title and its heading', async () => {
    const res = await page('GET', '/');
    assert.match(res.text, /<title>The Weekly<\/title>/);
    assert.equal(res.text.split('The Weekly').length - 1, 2, res.text);
    const form = await page('GET', '/subscription/form');
    assert.match(form.text, /<title>Subscribe to our newsletter · The Weekly<\/title>/);
    assert.match(form.text, /<span class="site">The Weekly<\/span>/);
  });
});

describe('links followed by punctuation', () => {
  let sub = '';
  let camp = '';
  let link = '';
  before(async () => {
    await t.request('POST', '/api/public/subscription', { email: 'punct@example.com', list_uuids: [lists.dbl.uuid, lists.one.uuid] }, { auth: null });
    sub = subscriberUuid('punct@example.com');
    const c = await t.request('POST', '/api/campaigns', { name: 'P', subject: 'P', lists: [lists.one.id], body: '<p>x</p>', content_type: 'html' });
    camp = c.body.data.uuid;
    link = fixtures(db()).link('https://example.org/target').uuid;
  });

  for (const p of [')', '.', ',', '>', ']', ').', '%3E', '%29']) {
    it(`reads a UUID followed by "${p}" as the UUID`, async () => {
      const optin = await page('GET', `/subscription/optin/${sub}${p}`);
      assert.equal(optin.status, 200, optin.text);
      assert.match(optin.text, /Confirm subscription/);
      // The opt-in link's query: the punctuation lands on its last list UUID.
      const withList = await page('GET', `/subscription/optin/${sub}?l=${lists.dbl.uuid}${p}`);
      assert.equal(withList.status, 200, withList.text);
      assert.match(withList.text, /<li>Double<\/li>/);
      const unsub = await page('GET', `/subscription/${camp}/${sub}${p}`);
      assert.equal(unsub.status, 200, unsub.text);
      // The form posts to the clean URL.
      assert.match(unsub.text, new RegExp(`<form method="post" action="/subscription/${camp}/${sub}">`));
      const manage = await page('GET', `/subscription/${camp}/${sub}?manage=true${p}`);
      assert.match(manage.text, /<h1>Manage your subscriptions<\/h1>/);
      const click = await page('GET', `/link/${link}/${camp}/${sub}${p}`);
      assert.equal(click.status, 307);
      assert.equal(click.location, 'https://example.org/target');
      const view = await page('GET', `/campaign/${camp}/${sub}${p}`);
      assert.notEqual(view.status, 400, 'the web view reads the UUID');
    });
  }

  it('one-click unsubscribe works on the URL with a trailing parenthesis', async () => {
    const res = await page('POST', `/subscription/${camp}/${sub})`, { 'List-Unsubscribe': 'One-Click' });
    assert.equal(res.status, 200);
    assert.equal(status('punct@example.com', lists.one.id), 'unsubscribed');
  });

  it('other junk after a UUID is still a bad link', async () => {
    for (const path of [`/subscription/optin/${sub}x`, `/subscription/${camp}/${sub}-)`, `/link/${link}/${camp}/${sub}))x`, `/campaign/${camp}/${sub}(`]) {
      assert.equal((await page('GET', path)).status, 400, path);
    }
  });
});
