import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { readFileSync } from 'node:fs';
import { loadLanguage } from '../../src/i18n/index.ts';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

let t: TestServer;
let sink: SmtpSink;
const lists: Record<string, { id: number; uuid: string }> = {};

async function page(method: string, path: string, form?: Record<string, string | string[]>) {
  let body: URLSearchParams | undefined;
  if (form) {
    body = new URLSearchParams();
    for (const [k, v] of Object.entries(form)) for (const x of [v].flat()) body.append(k, x);
  }
  const res = await fetch(t.url + path, { method, body, redirect: 'manual' });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

function subscriberByEmail(email: string): { id: number; uuid: string; status: string; name: string } | undefined {
  const db = new Database(t.dbPath, { readonly: true });
  try {
    return db.prepare('SELECT id, uuid, status, name FROM subscribers WHERE email = ?').get(email) as any;
  } finally {
    db.close();
  }
}

async function statusOn(subId: number, listId: number): Promise<string | undefined> {
  const sub = (await t.request('GET', `/api/subscribers/${subId}`)).body.data;
  return sub.lists.find((l: any) => l.id === listId)?.subscription_status;
}

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await useSmtpSink(t, sink);
  await t.request('PUT', '/api/settings', { 'security.public_rate_limit': 0 });
  for (const [key, body] of Object.entries({
    pub: { name: 'Public single', type: 'public', optin: 'single', description: 'Weekly <b>news</b>' },
    dbl: { name: 'Public double', type: 'public', optin: 'double' },
    priv: { name: 'Secret list', type: 'private', optin: 'single' },
    arch: { name: 'Archived list', type: 'public', optin: 'single', status: 'archived' },
  })) {
    const d = (await t.request('POST', '/api/lists', body)).body.data;
    lists[key] = { id: d.id, uuid: d.uuid };
  }
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('public API', () => {
  it('lists only public active lists, bare, without credentials', async () => {
    const res = await t.request('GET', '/api/public/lists', undefined, { auth: null });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body, [{ uuid: lists.pub.uuid, name: 'Public single' }, { uuid: lists.dbl.uuid, name: 'Public double' }]);
  });

  const bad: [string, unknown][] = [
    ['no lists', { email: 'x@example.com', list_uuids: [] }],
    ['invalid e-mail', { email: 'nope', list_uuids: [lists.pub?.uuid] }],
    ['only a private list', { email: 'p@example.com', list_uuids: ['PRIV'] }],
    ['only an archived list', { email: 'a@example.com', list_uuids: ['ARCH'] }],
    ['unknown and malformed uuids', { email: 'u@example.com', list_uuids: ['00000000-0000-4000-8000-000000000000', 'garbage'] }],
  ];
  for (const [name, body] of bad) {
    it(`refuses ${name} and creates nobody`, async () => {
      const b = JSON.parse(JSON.stringify(body).replace('"PRIV"', JSON.stringify(lists.priv.uuid)).replace('"ARCH"', JSON.stringify(lists.arch.uuid)));
      const res = await t.request('POST', '/api/public/subscription', b, { auth: null });
      assert.equal(res.status, 400, res.text);
      assert.equal(typeof res.body.message, 'string');
      if (typeof b.email === 'string') assert.equal(subscriberByEmail(b.email.toLowerCase()), undefined);
    });
  }

  it('subscribes (JSON) with unconfirmed status and sends the opt-in for double lists', async () => {
    const start = sink.messages.length;
    const res = await t.request('POST', '/api/public/subscription', { email: 'Reader@Example.com', name: '', list_uuids: [lists.pub.uuid, lists.dbl.uuid, lists.priv.uuid] }, { auth: null });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { data: { has_optin: true } });
    const sub = subscriberByEmail('reader@example.com')!;
    assert.equal(sub.name, 'reader');
    assert.equal(await statusOn(sub.id, lists.dbl.id), 'unconfirmed');
    assert.equal(await statusOn(sub.id, lists.priv.id), undefined, 'private lists are never joined publicly');
    const s = (await t.request('GET', `/api/subscribers/${sub.id}`)).body.data;
    assert.equal(s.lists[0].subscription_source, 'form');
    const [mail] = (await sink.waitFor(start + 1)).slice(start);
    // The system template optin.html, in English: subject, the pending double opt-in list only, the link.
    assert.equal(mail.parsed.subject, 'Please confirm your subscription');
    const html = String(mail.parsed.html);
    assert.match(html, /<html lang="en">/);
    const link = `/subscription/optin/${sub.uuid}?l=${lists.dbl.uuid}`;
    assert.ok(html.includes(`href="http://localhost:9000${link}"`), html);
    assert.match(html, /<li>Public double<\/li>/);
    assert.doesNotMatch(html, /Public single|Secret list/);
    assert.match(html, /Hello reader,/);
    assert.ok((mail.parsed.text ?? '').includes(`http://localhost:9000${link}`), mail.parsed.text);
  });

  it('answers the same for a known address (no enumeration)', async () => {
    const first = await t.request('POST', '/api/public/subscription', { email: 'known@example.com', list_uuids: [lists.dbl.uuid] }, { auth: null });
    const again = await t.request('POST', '/api/public/subscription', { email: 'known@example.com', list_uuids: [lists.dbl.uuid] }, { auth: null });
    assert.equal(first.status, again.status);
    assert.equal(first.text, again.text);
  });

  it('accepts form-encoded bodies with repeated l', async () => {
    const body = new URLSearchParams([['email', 'form@example.com'], ['name', 'Form User'], ['l', lists.pub.uuid], ['l', lists.dbl.uuid]]);
    const res = await t.request('POST', '/api/public/subscription', undefined, { auth: null, raw: body });
    assert.equal(res.status, 200, res.text);
    const sub = subscriberByEmail('form@example.com')!;
    assert.equal(sub.name, 'Form User');
    assert.equal(await statusOn(sub.id, lists.pub.id), 'unconfirmed');
    assert.equal(await statusOn(sub.id, lists.dbl.id), 'unconfirmed');
  });
});

describe('subscription form page', () => {
  it('shows public lists with escaped text and a honeypot', async () => {
    const res = await page('GET', '/subscription/form');
    assert.equal(res.status, 200);
    assert.match(res.text, /Public single/);
    assert.doesNotMatch(res.text, /Secret list|Archived list/);
    assert.match(res.text, /Weekly &lt;b&gt;news&lt;\/b&gt;/);
    assert.match(res.text, /name="nonce"/);
    // Crawlers may index the form (robots.txt allows it).
    assert.equal(res.headers.get('x-robots-tag'), null);
    assert.doesNotMatch(res.text, /name="robots"/);
  });

  it('loads the public custom JS when one is set', async () => {
    assert.doesNotMatch((await page('GET', '/subscription/form')).text, /custom\.js/);
    assert.equal((await t.request('PUT', '/api/settings', { 'appearance.public.custom_js': 'console.log(1)' })).status, 200);
    try {
      for (const path of ['/subscription/form', `/subscription/optin/${'0'.repeat(8)}-0000-0000-0000-000000000000`, '/archive']) {
        assert.match((await page('GET', path)).text, /<script src="\/public\/custom\.js" defer><\/script>/, path);
      }
    } finally {
      await t.request('PUT', '/api/settings', { 'appearance.public.custom_js': '' });
    }
  });

  it('subscribes through the form; a filled honeypot subscribes nobody', async () => {
    const ok = await page('POST', '/subscription/form', { email: 'page@example.com', name: 'Page', l: [lists.pub.uuid] });
    assert.equal(ok.status, 200);
    assert.ok(subscriberByEmail('page@example.com'));
    const bot = await page('POST', '/subscription/form', { email: 'bot@example.com', l: [lists.pub.uuid], nonce: 'x' });
    assert.equal(bot.status, 400);
    assert.equal(subscriberByEmail('bot@example.com'), undefined);
    const bad = await page('POST', '/subscription/form', { email: 'bad', l: [lists.pub.uuid] });
    assert.equal(bad.status, 400);
    assert.match(bad.headers.get('content-type') ?? '', /text\/html/);
  });

  it('with the feature off: the page is a 404 page, the form POST a 404 JSON message', async () => {
    assert.equal((await t.request('PUT', '/api/settings', { 'app.enable_public_subscription_page': false })).status, 200);
    try {
      assert.equal((await page('GET', '/subscription/form')).status, 404);
      const posted = await page('POST', '/subscription/form', { email: 'off@example.com', l: [lists.pub.uuid] });
      assert.equal(posted.status, 404);
      assert.match(posted.headers.get('content-type') ?? '', /application\/json/);
      assert.equal(JSON.parse(posted.text).message, 'public subscriptions are disabled');
      assert.equal(subscriberByEmail('off@example.com'), undefined);
    } finally {
      await t.request('PUT', '/api/settings', { 'app.enable_public_subscription_page': true });
    }
  });
});

describe('unsubscribe, preferences, export and wipe pages', () => {
  const zero = '00000000-0000-0000-0000-000000000000';
  let sub: { id: number; uuid: string };
  before(async () => {
    const id = (await t.request('POST', '/api/subscribers', { email: 'unsub@example.com', name: 'Un Sub', lists: [lists.pub.id, lists.dbl.id, lists.priv.id], preconfirm_subscriptions: true })).body.data.id;
    sub = { id, uuid: subscriberByEmail('unsub@example.com')!.uuid };
  });

  it('bad and unknown UUIDs', async () => {
    assert.equal((await page('GET', `/subscription/${zero}/not-a-uuid`)).status, 400);
    assert.equal((await page('GET', `/subscription/${zero}/11111111-1111-4111-8111-111111111111`)).status, 404);
    assert.equal((await page('GET', '/subscription/optin/nope')).status, 400);
  });

  it('GET shows the page and changes nothing', async () => {
    const res = await page('GET', `/subscription/${zero}/${sub.uuid}`);
    assert.equal(res.status, 200);
    assert.match(res.text, /<form method="post"/);
    assert.equal(res.headers.get('x-robots-tag'), 'noindex');
    assert.equal(await statusOn(sub.id, lists.pub.id), 'confirmed');
    const manage = await page('GET', `/subscription/${zero}/${sub.uuid}?manage=true`);
    assert.match(manage.text, /Public double/);
    assert.doesNotMatch(manage.text, /Secret list/);
  });

  it('manage preferences: renames and unsubscribes unticked non-private lists', async () => {
    const bad = await page('POST', `/subscription/${zero}/${sub.uuid}`, { manage: 'true', name: ' ', l: [lists.pub.uuid] });
    assert.equal(bad.status, 400);
    const res = await page('POST', `/subscription/${zero}/${sub.uuid}`, { manage: 'true', name: 'New Name', l: [lists.pub.uuid] });
    assert.equal(res.status, 200);
    assert.equal(await statusOn(sub.id, lists.pub.id), 'confirmed');
    assert.equal(await statusOn(sub.id, lists.dbl.id), 'unsubscribed');
    assert.equal(await statusOn(sub.id, lists.priv.id), 'confirmed', 'private lists are not touched');
    assert.equal(subscriberByEmail('unsub@example.com')!.name, 'New Name');
  });

  it('manage preferences on private lists only says there is nothing to untick', async () => {
    await t.request('POST', '/api/subscribers', { email: 'private-only@example.com', name: 'Frank', lists: [lists.priv.id] });
    const uuid = subscriberByEmail('private-only@example.com')!.uuid;
    const res = await page('GET', `/subscription/${zero}/${uuid}?manage=true`);
    assert.equal(res.status, 200);
    assert.match(res.text, /You are not on any list you can change here\./);
    assert.doesNotMatch(res.text, /Untick a list/);
  });

  it('unsubscribe POST from an opt-in mail (zero campaign) unsubscribes every list', async () => {
    const res = await page('POST', `/subscription/${zero}/${sub.uuid}`, {});
    assert.equal(res.status, 200);
    assert.equal(await statusOn(sub.id, lists.pub.id), 'unsubscribed');
    assert.equal(await statusOn(sub.id, lists.priv.id), 'unsubscribed');
    assert.equal(subscriberByEmail('unsub@example.com')!.status, 'enabled');
  });

  it('RFC 8058 one-click unsubscribes from the campaign lists only', async () => {
    const id = (await t.request('POST', '/api/subscribers', { email: 'oneclick@example.com', name: 'One', lists: [lists.pub.id, lists.dbl.id], preconfirm_subscriptions: true })).body.data.id;
    const uuid = subscriberByEmail('oneclick@example.com')!.uuid;
    const campUuid = '22222222-2222-4222-8222-222222222222';
    fixtures(t.server.ctx.db).campaign({ uuid: campUuid, name: 'c', subject: 's', from_email: 'a@b.c', lists: [lists.pub.id] });
    const res = await fetch(`${t.url}/subscription/${campUuid}/${uuid}`, {
      method: 'POST', body: 'List-Unsubscribe=One-Click', headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(res.status, 200);
    assert.equal(await statusOn(id, lists.pub.id), 'unsubscribed');
    assert.equal(await statusOn(id, lists.dbl.id), 'confirmed');
  });

  it('blocklist checkbox blocklists when allowed', async () => {
    const id = (await t.request('POST', '/api/subscribers', { email: 'blk@example.com', name: 'B', lists: [lists.pub.id], preconfirm_subscriptions: true })).body.data.id;
    const uuid = subscriberByEmail('blk@example.com')!.uuid;
    assert.equal((await page('POST', `/subscription/${zero}/${uuid}`, { blocklist: 'true' })).status, 200);
    assert.equal(subscriberByEmail('blk@example.com')!.status, 'blocklisted');
    assert.equal(await statusOn(id, lists.pub.id), 'unsubscribed');
    assert.match((await page('GET', `/subscription/${zero}/${uuid}`)).text, /unsubscribed from all/);
  });

  it('self-export mails the data; wipe deletes; both obey the privacy switches', async () => {
    await t.request('POST', '/api/subscribers', { email: 'mine@example.com', name: 'Mine', lists: [lists.priv.id] });
    const uuid = subscriberByEmail('mine@example.com')!.uuid;
    const start = sink.messages.length;
    assert.equal((await page('POST', `/subscription/export/${uuid}`)).status, 200);
    const [mail] = (await sink.waitFor(start + 1)).slice(start);
    assert.deepEqual(mail.to, ['mine@example.com']);
    const att = JSON.parse(mail.parsed.attachments[0].content.toString());
    assert.equal(att.profile[0].email, 'mine@example.com');
    assert.equal(att.subscriptions[0].name, 'Private list');
    await withSettings(t, { 'privacy.allow_wipe': false }, async () => {
      assert.equal((await page('POST', `/subscription/wipe/${uuid}`)).status, 400);
      assert.ok(subscriberByEmail('mine@example.com'));
    });
    // The page's button asks first: a GET shows the question and deletes nothing.
    assert.match((await page('GET', `/subscription/${zero}/${uuid}`)).text, new RegExp(`<form method="get" action="/subscription/wipe/${uuid}">`));
    const ask = await page('GET', `/subscription/wipe/${uuid}`);
    assert.equal(ask.status, 200);
    assert.match(ask.text, /This deletes all your subscriptions and data for good/);
    assert.match(ask.text, new RegExp(`<form method="post" action="/subscription/wipe/${uuid}">`));
    assert.ok(subscriberByEmail('mine@example.com'));
    assert.equal((await page('POST', `/subscription/wipe/${uuid}`)).status, 200);
    assert.equal(subscriberByEmail('mine@example.com'), undefined);
  });

  it('mails a subscriber\'s export at most three times an hour', async () => {
    await t.request('POST', '/api/subscribers', { email: 'often@example.com', name: 'Often', lists: [lists.priv.id] });
    const uuid = subscriberByEmail('often@example.com')!.uuid;
    const start = sink.messages.length;
    for (let i = 0; i < 3; i++) assert.equal((await page('POST', `/subscription/export/${uuid}`)).status, 200);
    const fourth = await page('POST', `/subscription/export/${uuid}`);
    assert.equal(fourth.status, 429);
    await sink.waitFor(start + 3);
    await new Promise((r) => setTimeout(r, 100));
    assert.equal(sink.messages.slice(start).filter((m) => m.to[0] === 'often@example.com').length, 3);
  });

  it('every message key the pages use is in the English pack', () => {
    const source = ['routes.ts', 'pages.tsx'].map((f) => readFileSync(new URL(`../../src/public/${f}`, import.meta.url), 'utf8')).join('\n');
    const keys = [...source.matchAll(/\bt\('([a-zA-Z]+\.[a-zA-Z.]+)'/g)].map((m) => m[1]);
    assert.ok(keys.length > 30, `found ${keys.length} keys`);
    const en = loadLanguage('en')!;
    assert.deepEqual(keys.filter((k) => !Object.hasOwn(en, k)), []);
  });

  it('pages speak the app.lang language; an unknown language falls back to English', async () => {
    const s = subscriberByEmail('confirm@example.com') ?? subscriberByEmail('reader@example.com')!;
    assert.equal((await t.request('PUT', '/api/settings', { 'app.lang': 'zz' })).status, 200);
    try {
      const res = await page('GET', `/subscription/${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}/${s.uuid}`);
      assert.equal(res.status, 200);
      assert.match(res.text, /<html lang="en">/);
      assert.match(res.text, /Do you want to stop receiving e-mails from this mailing list\?/);
    } finally {
      await t.request('PUT', '/api/settings', { 'app.lang': 'en' });
    }
  });

  it('opt-in page: nothing pending, then confirmation with l and confirm=true', async () => {
    await t.request('POST', '/api/public/subscription', { email: 'confirm@example.com', list_uuids: [lists.dbl.uuid] }, { auth: null });
    const s = subscriberByEmail('confirm@example.com')!;
    const get = await page('GET', `/subscription/optin/${s.uuid}?l=${lists.dbl.uuid}&confirm=true`);
    assert.equal(get.status, 200);
    assert.equal(await statusOn(s.id, lists.dbl.id), 'unconfirmed', 'a GET never confirms, even with confirm=true');
    const post = await page('POST', `/subscription/optin/${s.uuid}`, { l: lists.dbl.uuid, confirm: 'true' });
    assert.ok(post.status < 400);
    assert.equal(await statusOn(s.id, lists.dbl.id), 'confirmed');
    // A second click on the link says so, rather than "nothing to confirm".
    const again = await page('GET', `/subscription/optin/${s.uuid}?l=${lists.dbl.uuid}`);
    assert.match(again.text, /already confirmed/);
  });
});
