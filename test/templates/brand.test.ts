// The newsletter's brand (Settings → General: name, logo, accent colour, postal address) in the
// default campaign template and the system mails, and the upgrade that brings an existing
// install's shipped templates to the branded ones unless someone edited them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { defaultTemplates } from '../../src/templates/defaults/index.ts';

const BEFORE_BRAND = readFileSync(new URL('./fixtures/campaign-before-brand.html', import.meta.url), 'utf8');
const EDITED_ARCHIVE = '<html><body><p>Our own archive page</p>{{ template "content" . }}</body></html>';
const shipped = (name: string) => defaultTemplates.find((d) => d.name === name)!.body;

let t: TestServer;
let sink: SmtpSink;

before(async () => {
  // An install from before the brand: its campaign template as that version shipped it, its
  // archive template edited by someone.
  t = await startTestServer({
    setup: (db) => {
      db.prepare(`UPDATE templates SET body = ? WHERE name = 'Default campaign template'`).run(BEFORE_BRAND);
      db.prepare(`UPDATE templates SET body = ? WHERE name = 'Default archive template'`).run(EDITED_ARCHIVE);
    },
  });
  sink = await startSmtpSink();
  const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({})], 'app.root_url': t.url });
  assert.equal(r.status, 200, r.text);
});
after(async () => {
  await t.stop();
  await sink.close();
});

const templateBody = async (name: string) => {
  const all = (await t.request('GET', '/api/templates')).body.data as { id: number; name: string }[];
  return (await t.request('GET', `/api/templates/${all.find((x) => x.name === name)!.id}`)).body.data.body as string;
};

describe('shipped templates on an existing install', () => {
  it('brings a shipped template nobody edited up to this version, and leaves an edited one alone', async () => {
    assert.equal(await templateBody('Default campaign template'), shipped('Default campaign template'));
    assert.equal(await templateBody('Default archive template'), EDITED_ARCHIVE);
  });
});

describe('the brand settings', () => {
  it('refuses an accent colour that is not #rrggbb and an address over 500 characters, changing nothing', async () => {
    for (const [key, value, message] of [
      ['app.accent_color', 'red', /invalid setting "app\.accent_color": "red" is not a colour like #0b57d0/],
      ['app.accent_color', '#12345', /app\.accent_color/],
      ['app.postal_address', 'x'.repeat(501), /invalid setting "app\.postal_address": at most 500 characters/],
    ] as const) {
      const r = await t.request('PUT', '/api/settings', { [key]: value, 'app.site_name': 'Changed?' });
      assert.equal(r.status, 400, `${key}=${value}`);
      assert.match(r.body.message, message);
    }
    const now = (await t.request('GET', '/api/settings')).body.data;
    assert.equal(now['app.site_name'], 'Mailing list');
    assert.equal(now['app.accent_color'], '#0b57d0');
  });

  it('stores the colour in lower case and the address with its lines', async () => {
    const r = await t.request('PUT', '/api/settings', { 'app.site_name': 'The Garden Letter', 'app.accent_color': '#A0522D', 'app.postal_address': '  Garden Letter Ltd\r\n12 High Street <b>\r\nSpringfield  ' });
    assert.equal(r.status, 200, r.text);
    const now = (await t.request('GET', '/api/settings')).body.data;
    assert.equal(now['app.accent_color'], '#a0522d');
    assert.equal(now['app.postal_address'], 'Garden Letter Ltd\n12 High Street <b>\nSpringfield');
  });
});

describe('the brand in mails', () => {
  it('puts the name in the campaign\'s header, the accent colour on links and buttons, and the address in its footer', async () => {
    const list = (await t.request('POST', '/api/lists', { name: 'Garden', type: 'private', optin: 'single' })).body.data;
    await t.request('POST', '/api/subscribers', { email: 'ann@example.com', name: 'Ann', lists: [list.id], preconfirm_subscriptions: true });
    const c = (await t.request('POST', '/api/campaigns', { name: 'Branded', subject: 'Branded', lists: [list.id], content_type: 'html', body: '<p><a class="button" href="https://example.com/">Read</a></p>' })).body.data;
    assert.equal((await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status, 200);
    const [mail] = await sink.waitFor(1);
    const html = String(mail.parsed.html);
    assert.match(html, /<span class="brand"[^>]*>The Garden Letter<\/span>/);
    assert.match(html, /\.content a \{ color: #a0522d; \}/);
    assert.match(html, /\.button \{[^}]*background-color: #a0522d;\s*color: #ffffff !important;/);
    assert.match(html, /<p class="address"[^>]*>Garden Letter Ltd<br>12 High Street &lt;b&gt;<br>Springfield<\/p>/);
    assert.match(String(mail.parsed.text), /Garden Letter Ltd/, 'the text part has the address too');
  });

  it('shows the logo instead of the name when there is one, and no address block without an address', async () => {
    assert.equal((await t.request('PUT', '/api/settings', { 'app.logo_url': '/uploads/logo.png', 'app.postal_address': '' })).status, 200);
    const c = (await t.request('GET', '/api/campaigns?per_page=1')).body.data.results[0];
    const p = await t.request('POST', `/api/campaigns/${c.id}/preview`, {});
    assert.match(p.text, new RegExp(`<img src="${t.url}/uploads/logo.png" alt="The Garden Letter"`));
    assert.doesNotMatch(p.text, /class="address"/);
    assert.equal((await t.request('PUT', '/api/settings', { 'app.logo_url': '', 'app.postal_address': 'Garden Letter Ltd\n12 High Street' })).status, 200);
  });

  it('brands the system mails: the opt-in confirmation has the name, the accent colour and the address', async () => {
    const list = (await t.request('POST', '/api/lists', { name: 'Seeds', type: 'public', optin: 'double' })).body.data;
    const before = sink.messages.length;
    const r = await fetch(`${t.url}/api/public/subscription`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ email: 'bob@example.com', name: 'Bob', list_uuids: [list.uuid] }) });
    assert.equal(r.status, 200);
    const mail = (await sink.waitFor(before + 1))[before];
    const html = String(mail.parsed.html);
    assert.match(html, /<span class="brand"[^>]*>The Garden Letter<\/span>/);
    assert.match(html, /<a class="button" href="[^"]*" style="[^"]*background-color: #a0522d; color: #ffffff;/, 'the confirm button has the accent colour');
    assert.match(html, /Garden Letter Ltd<br>12 High Street<\/p>/);
  });
});
