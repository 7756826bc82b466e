// What the server log records of what happened: failed sign-ins (the name hashed),
// unsubscribes and blocklists with their source, test sends, settings changes (keys, never
// secret values), imports started and finished, campaign state changes and who made them.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addSubscriber, until } from '../campaigns/fixtures.ts';
import { form, recorder, signIn } from '../users/helpers.ts';

let t: TestServer;
let sink: SmtpSink;
let list: number;

/** The log lines written while `fn` ran. */
async function logged(fn: () => Promise<unknown>): Promise<string[]> {
  const before = t.server.ctx.log.recent().length;
  await fn();
  return t.server.ctx.log.recent().slice(before);
}
const one = (lines: string[], re: RegExp) => assert.equal(lines.filter((l) => re.test(l)).length, 1, `one line matching ${re} in:\n${lines.join('\n')}`);
const uuidOf = (id: number) => t.server.ctx.db.prepare('SELECT uuid FROM subscribers WHERE id = ?').pluck().get(id) as string;

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({})], 'app.root_url': t.url });
  assert.equal(r.status, 200, r.text);
  list = addList(t.server.ctx.db, 'News', 'single');
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('the server log', () => {
  it('records a failed sign-in with the name hashed and the address', async () => {
    const lines = await logged(() => signIn(recorder(t), t, 'Secret-Typed-As-Name', 'wrong password'));
    one(lines, /WARN  sign-in failed for user name #[0-9a-f]{12} from 127\.0\.0\.1$/);
    assert.ok(!lines.join('\n').toLowerCase().includes('secret-typed-as-name'));
  });

  it('records unsubscribes and blocklists with the subscriber id and the source', async () => {
    const a = addSubscriber(t.server.ctx.db, 'a@example.com', 'A', [[list, 'confirmed']]);
    const b = addSubscriber(t.server.ctx.db, 'b@example.com', 'B', [[list, 'confirmed']]);
    const c = addSubscriber(t.server.ctx.db, 'c@example.com', 'C', [[list, 'confirmed']]);
    const zero = '00000000-0000-0000-0000-000000000000';
    let lines = await logged(() => fetch(`${t.url}/subscription/${zero}/${uuidOf(a)}`, { method: 'POST', body: form({}) }));
    one(lines, new RegExp(`INFO  subscriber ${a} unsubscribed from every list \\(source: unsubscribe link, campaign ${zero}\\)`));
    lines = await logged(() => fetch(`${t.url}/subscription/${zero}/${uuidOf(b)}`, { method: 'POST', body: form({ blocklist: 'on' }) }));
    one(lines, new RegExp(`INFO  subscriber ${b} blocklisted \\(source: unsubscribe page`));
    lines = await logged(() => t.request('PUT', `/api/subscribers/${c}/blocklist`));
    one(lines, new RegExp(`INFO  subscriber ${c} blocklisted \\(source: api, by tester\\)`));
    lines = await logged(() => t.request('PUT', '/api/subscribers/lists', { ids: [a, c], action: 'unsubscribe', target_list_ids: [list] }));
    one(lines, new RegExp(`INFO  2 subscribers \\(${a}, ${c}\\) unsubscribed from list ${list} \\(source: api, by tester\\)`));
  });

  it('records test sends, and campaign state changes with who made them', async () => {
    const d = addSubscriber(t.server.ctx.db, 'd@example.com', 'D', [[list, 'confirmed']]);
    const c = await t.request('POST', '/api/campaigns', { name: 'Logged', subject: 'Logged', lists: [list], content_type: 'html', body: '<p>x</p>' });
    const id = c.body.data.id;
    let lines = await logged(async () => assert.equal((await t.request('POST', `/api/campaigns/${id}/test`, { subscribers: ['d@example.com'] })).status, 200));
    one(lines, new RegExp(`INFO  campaign ${id} "Logged": test sent to subscriber ${d} by tester$`));
    lines = await logged(() => t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' }));
    one(lines, new RegExp(`INFO  campaign ${id} "Logged": draft → running by tester$`));
    await until('the campaign to finish', async () => (await t.request('GET', `/api/campaigns/${id}`)).body.data.status === 'finished');
  });

  it('records which settings changed, never their values', async () => {
    const lines = await logged(() => t.request('PUT', '/api/settings', { 'app.site_name': 'Renamed list', 'bounce.sendgrid_key': 'sg-very-secret-key', 'app.lang': 'en' }));
    one(lines, /INFO  settings changed by tester: app\.site_name, bounce\.sendgrid_key$/);
    assert.ok(!t.server.ctx.log.recent().some((l) => l.includes('sg-very-secret-key') || l.includes('Renamed list')));
    one(await logged(() => t.request('PUT', '/api/settings', { 'app.lang': 'en' })), /INFO  settings saved by tester, none changed$/);
  });

  it('records imports started and finished', async () => {
    const f = new FormData();
    f.set('params', JSON.stringify({ mode: 'subscribe', delim: ',', lists: [list] }));
    f.set('file', new Blob(['email,name\nnew1@example.com,One\nnew2@example.com,Two\n']), 'people.csv');
    const lines = await logged(async () => {
      assert.equal((await t.request('POST', '/api/import/subscribers', undefined, { raw: f })).status, 200);
      await until('the import to end', async () => !['importing', 'stopping'].includes((await t.request('GET', '/api/import/subscribers')).body.data.status));
    });
    one(lines, /INFO  import of "people\.csv" started by tester \(subscribe mode\)$/);
    one(lines, /INFO  import of "people\.csv" finished: 2 rows imported$/);
  });
});
