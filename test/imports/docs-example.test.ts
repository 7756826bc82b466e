// docs/import.md's example file and header aliases, imported through the real API.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
let list: number;

async function importCsv(name: string, content: string | Buffer, params: Record<string, unknown> = {}) {
  const f = new FormData();
  f.set('params', JSON.stringify({ mode: 'subscribe', delim: ',', lists: [list], ...params }));
  f.set('file', new Blob([typeof content === 'string' ? content : new Uint8Array(content)]), name);
  const res = await t.request('POST', '/api/import/subscribers', undefined, { raw: f });
  assert.equal(res.status, 200, res.text);
  for (;;) {
    const s = (await t.request('GET', '/api/import/subscribers')).body.data;
    if (s.status !== 'importing' && s.status !== 'stopping') {
      const logs = (await t.request('GET', '/api/import/subscribers/logs')).body.data as string;
      return { status: s, logs };
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

async function subscriber(email: string): Promise<{ name: string; attribs: Record<string, unknown>; lists: { id: number; subscription_status: string }[] } | undefined> {
  const res = await t.request('GET', `/api/subscribers?query=${encodeURIComponent(`subscribers.email = '${email}'`)}`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.results[0];
}

before(async () => {
  t = await startTestServer();
  const res = await t.request('POST', '/api/lists', { name: 'Import docs', type: 'private', optin: 'single' });
  assert.equal(res.status, 200, res.text);
  list = res.body.data.id;
});
after(() => t.stop());

describe('docs/examples/subscribers.csv', () => {
  it('imports as docs/import.md says', async () => {
    const csv = readFileSync(new URL('../../docs/examples/subscribers.csv', import.meta.url));
    const { status, logs } = await importCsv('subscribers.csv', csv, { subscription_status: 'confirmed' });
    assert.deepEqual(status, { name: 'subscribers.csv', total: 4, imported: 4, status: 'finished', new: 4, updated: 0, unchanged: 0, skipped: 0, duplicates: 0 }, logs);
    assert.doesNotMatch(logs, /skipped|not a JSON object|ignoring/);

    const ada = await subscriber('ada@example.com');
    assert.equal(ada?.name, 'Ada Lovelace');
    assert.deepEqual(ada?.attribs, { city: 'London', plan: 'pro' });
    assert.deepEqual(ada?.lists.map((l) => [l.id, l.subscription_status]), [[list, 'confirmed']]);
    // No name: made from the address.
    const grace = await subscriber('grace.hopper@example.com');
    assert.equal(grace?.name, 'Grace Hopper');
    assert.deepEqual(grace?.attribs, { city: 'Arlington', languages: ['COBOL', 'FLOW-MATIC'] });
    // Empty attributes: none.
    assert.deepEqual((await subscriber('linus@example.com'))?.attribs, {});
    assert.deepEqual((await subscriber('margaret@example.com'))?.attribs, { apollo: true, missions: 11 });
  });
});

describe('header aliases', () => {
  for (const header of ['Email Address', 'E-mail', 'Email', ' EMAIL ', 'e-mail address', 'EMAIL ADDRESS']) {
    it(`"${header}" is the e-mail column`, async () => {
      const email = `alias.${header.trim().toLowerCase().replace(/[^a-z]/g, '')}@example.com`;
      const { status, logs } = await importCsv('alias.csv', `${header},Name\n${email},Someone\n`);
      assert.equal(status.imported, 1, logs);
      assert.doesNotMatch(logs, /ignoring/);
      assert.equal((await subscriber(email))?.name, 'Someone');
    });
  }

  it('"First Name" and "Last Name" are joined into the name', async () => {
    const csv = 'Email Address,First Name,Last Name,Phone\nfl.both@example.com,Jane,Doe,123\nfl.first@example.com, Jane ,,1\nfl.last@example.com,,Doe,1\nfl.none@example.com,,,1\n';
    const { status, logs } = await importCsv('mailchimp.csv', csv);
    assert.equal(status.imported, 4, logs);
    assert.match(logs, /mailchimp\.csv: columns "email address" → email, "first name" → first name, "last name" → last name, "phone" → attribute "phone"$/m);
    assert.doesNotMatch(logs, /ignoring/);
    assert.deepEqual((await subscriber('fl.both@example.com'))?.attribs, { phone: '123' });
    assert.equal((await subscriber('fl.both@example.com'))?.name, 'Jane Doe');
    assert.equal((await subscriber('fl.first@example.com'))?.name, 'Jane');
    assert.equal((await subscriber('fl.last@example.com'))?.name, 'Doe');
    assert.equal((await subscriber('fl.none@example.com'))?.name, 'Fl None');
  });

  it('a "name" column wins over "First Name" and "Last Name", which are then ignored', async () => {
    const { status, logs } = await importCsv('both.csv', 'email,first name,last name,name\nnamewins@example.com,A,B,The Name\n');
    assert.equal(status.imported, 1, logs);
    assert.match(logs, /both\.csv: ignoring columns "first name", "last name"/);
    assert.equal((await subscriber('namewins@example.com'))?.name, 'The Name');
  });

  it('"email" wins over an alias column', async () => {
    const { status, logs } = await importCsv('two.csv', 'E-mail,email\nalias.loses@example.com,email.wins@example.com\n');
    assert.equal(status.imported, 1, logs);
    assert.match(logs, /two\.csv: ignoring columns "e-mail"/);
    assert.ok(await subscriber('email.wins@example.com'));
    assert.equal(await subscriber('alias.loses@example.com'), undefined);
  });

  it("listmonk's own headers work as before", async () => {
    const { status, logs } = await importCsv('listmonk.csv', 'email,name,attributes\nLM@Example.com,LM,"{""a"":1}"\n');
    assert.equal(status.imported, 1, logs);
    assert.doesNotMatch(logs, /ignoring/);
    const s = await subscriber('lm@example.com');
    assert.equal(s?.name, 'LM');
    assert.deepEqual(s?.attribs, { a: 1 });
  });

  it('a header without any e-mail column fails the import, naming the accepted headers', async () => {
    const { status, logs } = await importCsv('none.csv', 'mail,name\nx@example.com,X\n');
    assert.equal(status.status, 'failed');
    assert.match(logs, /none\.csv: the header has no "email" column \(nor "Email Address" or "E-mail"\)/);
  });
});
