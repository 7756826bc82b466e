// Every server-rendered page with hostile values in every field a user controls (settings,
// lists, subscribers, campaigns, admin users, query and form input): each page must show the
// value as text, escaped, never as markup. Each page is read as a sequence of well-formed tags
// and text; any tag, attribute or script a value smuggled in fails the test.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashPassword } from '../../src/users/secrets.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

/** A value that is a script, an onerror image and an attribute breakout at once, named by its field. */
const evil = (field: string) => `${field}<script>alert('${field}')</script>"><img src=x onerror=alert('${field}')>`;

const SITE = evil('site-name');
// The appearance settings take any text as the logo and favicon URLs; the shell puts them in
// <img src> and <link href> as they are (a later change may refuse `javascript:` there).
const LOGO = `javascript:alert('logo')//"><script>alert('logo-url')</script>`;
const FAVICON = `javascript:alert('favicon')//"><img src=x onerror=alert('favicon-url')>`;
const LIST = evil('list-name');
const LIST_DESC = evil('list-description');
const OPTIN_LIST = evil('optin-list');
const PRIVATE_LIST = evil('private-list');
const SUB_NAME = evil('subscriber-name');
const SUBJECT = evil('campaign-subject');
const CAMPAIGN_NAME = evil('campaign-name');
const USER_NAME = evil('user-name');
const BAD_EMAIL = `"><script>alert('email')</script><img src=x onerror=alert('email')>@example.com`;
const NEXT = `/admin/x?q="><script>alert('next')</script>`;
const ZERO = '00000000-0000-0000-0000-000000000000';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
const unesc = (s: string) => s.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/** The tags the pages are made of; anything else came from a value. */
const TAGS = new Set([
  'html', 'head', 'meta', 'title', 'link', 'style', 'script', 'body', 'div', 'header', 'span', 'img', 'main', 'h1', 'h2', 'p',
  'form', 'input', 'label', 'fieldset', 'legend', 'br', 'button', 'ul', 'li', 'a', 'footer', 'strong', 'code', 'time', 'nav', 'section',
]);
const SCRIPTS = new Set(['/public/custom.js']);
const URL_ATTRS = new Set(['href', 'src', 'action', 'formaction']);
const TAG = /<(\/?)([a-zA-Z][a-zA-Z0-9-]*)((?:\s+[a-zA-Z][a-zA-Z0-9-]*(?:="[^"]*")?)*)\s*\/?>/y;
const ATTR = /\s+([a-zA-Z][a-zA-Z0-9-]*)(?:="([^"]*)")?/g;

/**
 * Reads a page as tags and text: every `<` must open a well-formed tag of the pages' own
 * vocabulary (double-quoted attributes only), text holds no `<` or `>`, no attribute is an
 * event handler, scripts are only the ones the settings ask for, and no URL attribute holds a
 * `javascript:` URL except the logo and favicon settings, which must come back attribute-escaped.
 */
function assertInert(page: string, where: string): void {
  let text = page.replace(/^<!doctype html>\s*/, '');
  // The stylesheet is ours (and the custom CSS, empty here); its text is not markup.
  text = text.replace(/<style>[^<]*<\/style>/g, '<style></style>');
  for (let i = text.indexOf('<'); i !== -1; i = text.indexOf('<', i + 1)) {
    TAG.lastIndex = i;
    const m = TAG.exec(text);
    assert.ok(m, `${where}: "<" that is no well-formed tag: ${text.slice(i, i + 80)}`);
    const [whole, closing, name, attrText] = m;
    assert.ok(TAGS.has(name.toLowerCase()), `${where}: unexpected <${name}>`);
    const attrs = new Map<string, string>();
    for (const [, key, value] of attrText.matchAll(ATTR)) attrs.set(key.toLowerCase(), unesc(value ?? ''));
    assert.ok(!closing || attrs.size === 0, `${where}: attributes on a closing tag: ${whole}`);
    for (const [key, value] of attrs) {
      assert.ok(!key.startsWith('on'), `${where}: event handler attribute ${key} in ${whole}`);
      if (!URL_ATTRS.has(key) || !/^\s*javascript:/i.test(value)) continue;
      // The one known exception: the logo and favicon URLs go in as the settings hold them.
      const setting = name === 'img' && key === 'src' ? LOGO : name === 'link' && key === 'href' ? FAVICON : null;
      assert.equal(value, setting, `${where}: javascript: URL in ${whole}`);
      assert.ok(whole.includes(`${key}="${esc(setting!)}"`), `${where}: ${key} not attribute-escaped: ${whole}`);
    }
    if (name === 'script' && !closing) {
      assert.deepEqual([...attrs.keys()], ['src', 'defer'], `${where}: ${whole}`);
      assert.ok(SCRIPTS.has(attrs.get('src')!), `${where}: unexpected script ${whole}`);
      assert.ok(text.startsWith('</script>', i + whole.length), `${where}: inline script after ${whole}`);
    }
    text = text.slice(0, i) + text.slice(i + whole.length);
    i--;
  }
  assert.doesNotMatch(text, /[<>]/, `${where}: stray angle bracket in text`);
  assert.ok(!page.includes('<script>'), `${where}: an inline <script>`);
  assert.ok(!/<img src=x onerror/i.test(page), `${where}: an onerror image`);
}

let t: TestServer;
let sink: SmtpSink;
const ids: Record<string, string> = {};

async function fetchPage(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(t.url + path, { method, body: form && new URLSearchParams(form), headers, redirect: 'manual' });
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: await res.text(), location: res.headers.get('location') };
}

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await useSmtpSink(t, sink);
  const set = await t.request('PUT', '/api/settings', {
    'security.public_rate_limit': 0, 'app.site_name': SITE, 'app.logo_url': LOGO, 'app.favicon_url': FAVICON,
    'app.enable_public_archive': true, 'privacy.allow_preferences': true, 'privacy.allow_blocklist': true,
    'privacy.allow_export': true, 'privacy.allow_wipe': true,
  });
  assert.equal(set.status, 200, set.text);
  const list = async (body: Record<string, unknown>) => {
    const res = await t.request('POST', '/api/lists', body);
    assert.equal(res.status, 200, res.text);
    return res.body.data as { id: number; uuid: string };
  };
  const pub = await list({ name: LIST, type: 'public', optin: 'single', description: LIST_DESC });
  const dbl = await list({ name: OPTIN_LIST, type: 'public', optin: 'double' });
  const priv = await list({ name: PRIVATE_LIST, type: 'private', optin: 'double' });
  ids.pub = pub.uuid;
  ids.dbl = dbl.uuid;

  // A subscriber on every list: the public ones pending or confirmed, the private one pending.
  const sub = await t.request('POST', '/api/subscribers', { email: 'hostile@example.com', name: SUB_NAME, lists: [pub.id, dbl.id, priv.id] });
  assert.equal(sub.status, 200, sub.text);
  ids.sub = (await t.request('GET', `/api/subscribers/${sub.body.data.id}`)).body.data.uuid;

  // Three archived, sent campaigns, so the listing pages with Newer/Older links.
  for (let i = 0; i < 3; i++) {
    const c = await t.request('POST', '/api/campaigns', { name: CAMPAIGN_NAME, subject: SUBJECT, lists: [pub.id], body: '<p>Hello</p>', content_type: 'html' });
    assert.equal(c.status, 200, c.text);
    assert.equal((await t.request('PUT', `/api/campaigns/${c.body.data.id}/archive`, { archive: true })).status, 200);
    fixtures(t.server.ctx.db).campaignState(c.body.data.id, { status: 'finished' });
  }
});
after(async () => {
  await t.stop();
  await sink.close();
});

interface Scenario {
  name: string;
  method?: 'GET' | 'POST';
  path: () => string;
  form?: () => Record<string, string>;
  status: number;
  /** Hostile values the page shows (as escaped text). */
  shows: string[];
  /** Hostile values the page must not show in any form. */
  hides?: string[];
}

const scenarios: Scenario[] = [
  { name: 'landing page', path: () => '/', status: 200, shows: [SITE] },
  { name: 'subscription form', path: () => '/subscription/form', status: 200, shows: [SITE, LIST, LIST_DESC, OPTIN_LIST], hides: [PRIVATE_LIST] },
  {
    // The form comes back with the reason and what was typed, in the fields.
    name: 'subscription form: an invalid address is echoed in the error and kept in the form', method: 'POST', path: () => '/subscription/form',
    form: () => ({ email: BAD_EMAIL, name: SUB_NAME, l: ids.pub }), status: 400, shows: [SITE, BAD_EMAIL.toLowerCase(), BAD_EMAIL, SUB_NAME, LIST, LIST_DESC],
  },
  {
    name: 'subscription form: a hostile list value is not echoed', method: 'POST', path: () => '/subscription/form',
    form: () => ({ email: BAD_EMAIL, name: SUB_NAME, l: LIST }), status: 400, shows: [SITE, SUB_NAME],
  },
  {
    name: 'subscription form: subscribed with a hostile name', method: 'POST', path: () => '/subscription/form',
    form: () => ({ email: 'new-hostile@example.com', name: SUB_NAME, l: ids.pub }), status: 200, shows: [SITE],
  },
  { name: 'opt-in confirmation', path: () => `/subscription/optin/${ids.sub}`, status: 200, shows: [SITE, OPTIN_LIST], hides: [PRIVATE_LIST] },
  { name: 'opt-in link with a hostile list parameter', path: () => `/subscription/optin/${ids.sub}?l=${encodeURIComponent(LIST)}`, status: 400, shows: [SITE], hides: [LIST] },
  { name: 'unsubscribe page', path: () => `/subscription/${ZERO}/${ids.sub}`, status: 200, shows: [SITE] },
  { name: 'preferences page', path: () => `/subscription/${ZERO}/${ids.sub}?manage=true`, status: 200, shows: [SITE, SUB_NAME, LIST, OPTIN_LIST], hides: [PRIVATE_LIST] },
  { name: 'wipe question', path: () => `/subscription/wipe/${ids.sub}`, status: 200, shows: [SITE] },
  // The outcome pages name the site in their "back to" link.
  { name: 'opt-in confirmed', method: 'POST', path: () => `/subscription/optin/${ids.sub}`, form: () => ({ confirm: 'true' }), status: 200, shows: [SITE] },
  { name: 'opt-in already confirmed', path: () => `/subscription/optin/${ids.sub}?l=${ids.dbl}`, status: 200, shows: [SITE] },
  { name: 'opt-in link followed by punctuation', path: () => `/subscription/optin/${ids.sub})?l=${ids.dbl})`, status: 200, shows: [SITE] },
  { name: 'preferences saved with a hostile name', method: 'POST', path: () => `/subscription/${ZERO}/${ids.sub}`, form: () => ({ manage: 'true', name: SUB_NAME, l: ids.pub }), status: 200, shows: [SITE] },
  { name: 'unknown subscriber', path: () => `/subscription/${ZERO}/11111111-1111-4111-8111-111111111111`, status: 404, shows: [SITE] },
  { name: 'archive', path: () => '/archive', status: 200, shows: [SITE, SUBJECT], hides: [CAMPAIGN_NAME] },
  { name: 'archive, second page of one', path: () => '/archive?page=2&per_page=1', status: 200, shows: [SITE, SUBJECT] },
  { name: 'archive entry not found', path: () => '/archive/no-such-entry', status: 404, shows: [SITE] },
  { name: 'tracking link not valid', path: () => `/link/${encodeURIComponent(LIST)}/x/y`, status: 400, shows: [SITE] },
  { name: 'web view not available', path: () => `/campaign/${ZERO}/${ZERO}`, status: 404, shows: [SITE] },
  { name: 'unsubscribed', method: 'POST', path: () => `/subscription/${ZERO}/${ids.sub}`, form: () => ({}), status: 200, shows: [SITE] },
  { name: 'login page with a hostile next', path: () => `/admin/login?next=${encodeURIComponent(NEXT)}`, status: 200, shows: [SITE] },
  {
    name: 'login refused, with a hostile username and next', method: 'POST', path: () => '/admin/login',
    form: () => ({ username: USER_NAME, password: 'wrong-password', next: NEXT }), status: 200, shows: [SITE],
  },
  { name: 'forgot password', path: () => '/admin/forgot', status: 200, shows: [SITE] },
  { name: 'forgot password sent', method: 'POST', path: () => '/admin/forgot', form: () => ({ email: BAD_EMAIL }), status: 200, shows: [SITE] },
  { name: 'reset link not valid', path: () => `/admin/reset?token=${encodeURIComponent(USER_NAME)}`, status: 400, shows: [SITE] },
  { name: 'unknown page', path: () => `/no/such/${encodeURIComponent(LIST)}`, status: 404, shows: [] },
];

describe('pages with hostile values', () => {
  for (const s of scenarios) {
    it(`${s.name}: shows the values as text only`, async () => {
      const headers: Record<string, string> = {};
      if (s.method === 'POST') headers.origin = t.url;
      const res = await fetchPage(s.method ?? 'GET', s.path(), s.form?.(), headers);
      assert.equal(res.status, s.status, res.text.slice(0, 500));
      assert.match(res.type, /^text\/html/);
      assertInert(res.text, s.name);
      for (const v of s.shows) assert.ok(res.text.includes(esc(v)), `${s.name}: does not show ${v.slice(0, 30)} escaped`);
      for (const v of s.hides ?? []) assert.ok(!res.text.includes(esc(v)), `${s.name}: shows ${v.slice(0, 30)}`);
    });
  }

  it('the login page keeps next as a local path, percent-encoded, in its hidden field', async () => {
    const res = await fetchPage('GET', `/admin/login?next=${encodeURIComponent(NEXT)}`);
    assert.match(res.text, /<input type="hidden" name="next" value="\/admin\/x\?q=%22%3E%3Cscript%3Ealert\(%27next%27\)%3C\/script%3E"/);
  });

  it('the logo and favicon URLs come back attribute-escaped, in place', async () => {
    const res = await fetchPage('GET', '/subscription/form');
    assert.ok(res.text.includes(`<img src="${esc(LOGO)}" alt="${esc(SITE)}"`), res.text);
    assert.ok(res.text.includes(`<link rel="icon" href="${esc(FAVICON)}"`), res.text);
  });

  it('the archive feed escapes the site name and subjects', async () => {
    const res = await fetch(`${t.url}/archive.xml`);
    const xml = await res.text();
    assert.equal(res.status, 200);
    assert.ok(xml.includes(`<title>${esc(SITE)}</title>`), xml);
    assert.ok(xml.includes(`<title>${esc(SUBJECT)}</title>`), xml);
    assert.ok(!xml.includes('<script>') && !/<img src=x onerror/.test(xml), xml);
  });

  it('the checker itself catches a breakout', () => {
    assert.throws(() => assertInert(`<p><input value="${SUB_NAME}"></p>`, 'raw value'));
    assert.throws(() => assertInert(`<p>${LIST}</p>`, 'raw text'));
    assert.throws(() => assertInert('<a href="javascript:alert(1)">x</a>', 'javascript link'));
    assert.doesNotThrow(() => assertInert(`<p title="${esc(SUB_NAME)}">${esc(LIST)}</p>`, 'escaped'));
  });
});
