// The exports of the tools people move from (docs/examples/, made by us in their shape),
// recognised by their headers and imported through the real API: the right columns, their
// statuses and tags; and a column mapping given in params.columns.
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { zipOfEntries } from '../helpers/zip.ts';

let t: TestServer;
let list: number;
const example = (name: string) => readFileSync(new URL(`../../docs/examples/${name}`, import.meta.url));

/** The files of docs/examples/<dir> as one ZIP, as the tool exports them. */
function zipOf(dir: string): Promise<Buffer> {
  return zipOfEntries(readdirSync(new URL(`../../docs/examples/${dir}`, import.meta.url)).sort().map((name) => [name, example(`${dir}/${name}`)]));
}

async function importFile(name: string, content: Buffer | string, params: Record<string, unknown> = {}) {
  const f = new FormData();
  f.set('params', JSON.stringify({ mode: 'subscribe', lists: [list], subscription_status: 'confirmed', ...params }));
  f.set('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name);
  const res = await t.request('POST', '/api/import/subscribers', undefined, { raw: f });
  assert.equal(res.status, 200, res.text);
  await t.server.ctx.importer.whenIdle();
  const status = (await t.request('GET', '/api/import/subscribers')).body.data;
  const logs = (await t.request('GET', '/api/import/subscribers/logs')).body.data as string;
  assert.equal(status.status, 'finished', logs);
  return { status, logs };
}

interface Person {
  name: string;
  status: string;
  attribs: Record<string, unknown>;
  /** The subscription to the import's list. */
  subscription: string | undefined;
}

function person(email: string): Person {
  const db = t.server.ctx.db;
  const s = db.prepare('SELECT id, name, status, attribs FROM subscribers WHERE email = ?').get(email) as { id: number; name: string; status: string; attribs: string } | undefined;
  assert.ok(s, `${email} was imported`);
  const subscription = db.prepare('SELECT status FROM subscriber_lists WHERE subscriber_id = ? AND list_id = ?').pluck().get(s.id, list) as string | undefined;
  return { name: s.name, status: s.status, attribs: JSON.parse(s.attribs), subscription };
}

before(async () => {
  t = await startTestServer();
  const res = await t.request('POST', '/api/lists', { name: 'Moved here', type: 'public', optin: 'single' });
  assert.equal(res.status, 200, res.text);
  list = res.body.data.id;
});
after(() => t.stop());

describe('exports of other tools', () => {
  it('Mailchimp: the audience ZIP; unsubscribed stay unsubscribed, cleaned (bounced) are blocklisted, TAGS become tags', async () => {
    const { status, logs } = await importFile('audience_export.zip', await zipOf('mailchimp'));
    assert.deepEqual({ new: status.new, skipped: status.skipped }, { new: 4, skipped: 0 });
    assert.match(logs, /subscribed_email_audience_export\.csv: recognised as a Mailchimp audience export$/m);
    assert.match(logs, /unsubscribed_email_audience_export\.csv: recognised as a Mailchimp audience export; every row is unsubscribed/);
    assert.match(logs, /cleaned_email_audience_export\.csv: recognised as a Mailchimp audience export; every row is blocklisted/);
    const rosa = person('rosa.marquez@example.com');
    assert.equal(rosa.name, 'Rosa Marquez');
    assert.equal(rosa.subscription, 'confirmed');
    assert.deepEqual(rosa.attribs.tags, ['Readers', 'Porto meetup']);
    assert.equal(rosa.attribs.phone_number, '+351 555 0101');
    assert.equal(rosa.attribs.address, '12 Quay Street, Porto');
    assert.equal(rosa.attribs.cc, 'PT');
    for (const noise of ['leid', 'euid', 'member_rating', 'optin_ip', 'latitude']) assert.ok(!(noise in rosa.attribs), noise);
    assert.equal(person('tomas.weber@example.org').name, 'Tomás Weber');
    assert.equal(person('tomas.weber@example.org').attribs.notes, 'Met at a conference');
    const lena = person('lena.okafor@example.net');
    assert.deepEqual([lena.status, lena.subscription], ['enabled', 'unsubscribed']);
    assert.equal(lena.attribs.unsub_reason, 'I no longer want to receive these emails');
    const cleaned = person('old.address@example.com');
    assert.deepEqual([cleaned.status, cleaned.subscription], ['blocklisted', 'unsubscribed']);
  });

  it('Substack: email_disabled means unsubscribed; the plan and dates become attributes', async () => {
    const { status, logs } = await importFile('substack-subscribers.csv', example('substack-subscribers.csv'));
    assert.equal(status.new, 3);
    assert.match(logs, /recognised as a Substack subscribers export/);
    const june = person('june.park@example.com');
    assert.deepEqual([june.name, june.subscription], ['June Park', 'confirmed']);
    assert.deepEqual(june.attribs, {
      active_subscription: 'true', expiry: '2025-09-01T00:00:00.000Z', plan: 'yearly', created_at: '2022-09-01T10:20:30.000Z', first_payment_at: '2022-09-01T10:21:00.000Z',
    });
    assert.equal(person('arun.mehta@example.org').subscription, 'confirmed');
    assert.deepEqual([person('claire.dubois@example.net').status, person('claire.dubois@example.net').subscription], ['enabled', 'unsubscribed']);
  });

  it('Buttondown: subscriber_type gives the status, metadata is merged into the attributes, tags become a list', async () => {
    const { status, logs } = await importFile('buttondown-subscribers.csv', example('buttondown-subscribers.csv'));
    assert.equal(status.new, 4);
    assert.match(logs, /recognised as a Buttondown subscribers export/);
    const nadia = person('nadia.haddad@example.com');
    assert.equal(nadia.subscription, 'confirmed');
    assert.deepEqual(nadia.attribs, {
      city: 'Beirut', plan: 'supporter', creation_date: '2023-05-02T09:00:00Z', notes: 'Asked for the RSS link', tags: ['books', 'coffee'], source: 'form', utm_source: 'twitter', referrer_url: 'https://example.com/',
    });
    assert.equal(person('sam.taylor@example.org').subscription, 'unconfirmed');
    assert.equal(person('kofi.mensah@example.net').subscription, 'unsubscribed');
    assert.deepEqual([person('gone.away@example.com').status, person('gone.away@example.com').subscription], ['blocklisted', 'unsubscribed']);
  });

  it('beehiiv: active, inactive (unsubscribed) and pending (unconfirmed)', async () => {
    const { status, logs } = await importFile('beehiiv-subscribers.csv', example('beehiiv-subscribers.csv'));
    assert.equal(status.new, 3);
    assert.match(logs, /recognised as a beehiiv subscribers export/);
    const mei = person('mei.chen@example.com');
    assert.equal(mei.subscription, 'confirmed');
    assert.equal(mei.attribs.referral_code, 'MEI123');
    assert.equal(mei.attribs.subscription_tier, 'free');
    assert.ok(!('status' in mei.attribs));
    assert.equal(person('olu.adeyemi@example.org').subscription, 'unsubscribed');
    assert.equal(person('ivan.petrov@example.net').subscription, 'unconfirmed');
  });

  it('Ghost: subscribed_to_emails false means unsubscribed; labels become a list, the note an attribute', async () => {
    const { status, logs } = await importFile('ghost-members.csv', example('ghost-members.csv'));
    assert.equal(status.new, 2);
    assert.match(logs, /recognised as a Ghost members export/);
    const ines = person('ines.costa@example.com');
    assert.deepEqual([ines.name, ines.subscription], ['Inês Costa', 'confirmed']);
    assert.deepEqual(ines.attribs.labels, ['VIP', 'Podcast']);
    assert.equal(ines.attribs.note, 'Wrote in about the podcast');
    assert.ok(!('id' in ines.attribs) && !('subscribed_to_emails' in ines.attribs));
    assert.equal(person('mark.olsen@example.org').subscription, 'unsubscribed');
  });

  it('Kit (ConvertKit): email_address and state; cancelled is unsubscribed, bounced blocklisted; custom fields become attributes', async () => {
    const { status, logs } = await importFile('kit-subscribers.csv', example('kit-subscribers.csv'));
    assert.equal(status.new, 3);
    assert.match(logs, /recognised as a Kit \(ConvertKit\) subscribers export/);
    const ada = person('ada.nwosu@example.com');
    assert.deepEqual([ada.name, ada.subscription], ['Ada', 'confirmed']);
    assert.deepEqual(ada.attribs, { created_at: '2023-06-01T12:00:00Z', tags: ['Customers', 'Workshop'], company: 'Nwosu Design' });
    assert.equal(person('ben.klein@example.org').subscription, 'unsubscribed');
    assert.deepEqual([person('cleo.ramos@example.net').status, person('cleo.ramos@example.net').subscription], ['blocklisted', 'unsubscribed']);
  });
});

describe('params.columns', () => {
  it('maps the columns it names (a list column subscribes to the lists named there) and guesses the rest', async () => {
    const other = (await t.request('POST', '/api/lists', { name: 'Garden Club', type: 'private', optin: 'single' })).body.data.id as number;
    const csv = 'Mail;Who;Town;Groups;Junk;Shoe size\nmapped.one@example.com;Mapped One;Lyon;"garden club, Chess";x;42\nmapped.two@example.com;;;;y;\n';
    const columns = { mail: 'email', WHO: 'name', Town: { attribute: 'city' }, Groups: 'lists', Junk: 'ignore' };
    const { status, logs } = await importFile('mapped.csv', csv, { delim: ';', subscription_status: 'unconfirmed', columns });
    assert.equal(status.new, 2, logs);
    const one = person('mapped.one@example.com');
    assert.equal(one.name, 'Mapped One');
    assert.deepEqual(one.attribs, { city: 'Lyon', shoe_size: '42' });
    const groups = t.server.ctx.db.prepare("SELECT sl.list_id, sl.status FROM subscriber_lists sl JOIN subscribers s ON s.id = sl.subscriber_id WHERE s.email = 'mapped.one@example.com' ORDER BY sl.list_id").all();
    assert.deepEqual(groups, [{ list_id: list, status: 'unconfirmed' }, { list_id: other, status: 'unconfirmed' }]);
    assert.match(logs, /mapped\.csv: "Chess" is not the name of a list you may import into; ignored/);
    assert.match(logs, /mapped\.csv: ignoring columns "junk"/);
    assert.deepEqual(person('mapped.two@example.com').attribs, {});
  });

  it('refuses a mapping it cannot read, importing nothing', async () => {
    for (const columns of [{ a: 'phone' }, { a: { attribute: '' } }, { a: { status: { x: 'deleted' } } }, ['email']]) {
      const f = new FormData();
      f.set('params', JSON.stringify({ mode: 'subscribe', lists: [list], columns }));
      f.set('file', new Blob(['a\nrefused@example.com\n']), 'refused.csv');
      const res = await t.request('POST', '/api/import/subscribers', undefined, { raw: f });
      assert.equal(res.status, 400, JSON.stringify(columns));
      assert.match(res.body.message, /columns/);
    }
    assert.equal(t.server.ctx.db.prepare("SELECT COUNT(*) FROM subscribers WHERE email = 'refused@example.com'").pluck().get(), 0);
  });
});
