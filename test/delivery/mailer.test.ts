// Saving settings while a campaign is sending rebuilds the messengers; the old SMTP pool must
// finish the messages it already holds before it is closed, so none of them fails.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startScriptedSmtp } from '../helpers/smtp.ts';
import { addList, addMany, until } from '../campaigns/fixtures.ts';

/** An SMTP server that accepts messages only when the gate is open; the rest wait in DATA. */
async function gatedSmtp() {
  const received: string[] = [];
  const held: (() => void)[] = [];
  let open = false;
  const server = await startScriptedSmtp((rcptTo, reply) => {
    const accept = () => {
      received.push(...rcptTo);
      reply();
    };
    if (open) accept();
    else held.push(accept);
  });
  return {
    port: server.port,
    received,
    held: () => held.length,
    open() {
      open = true;
      for (const a of held.splice(0)) a();
    },
    close: () => server.close(),
  };
}

let t: TestServer;
let smtp: Awaited<ReturnType<typeof gatedSmtp>>;

before(async () => {
  t = await startTestServer();
  smtp = await gatedSmtp();
});
after(async () => {
  await t.stop();
  await smtp.close();
});

it('a settings save during a send fails no message: the old pool closes after its messages settle', async () => {
  const block = {
    enabled: true, host: '127.0.0.1', port: smtp.port, hello_hostname: '', auth_protocol: 'none', username: '', password: '',
    email_headers: [], max_conns: 2, max_msg_retries: 0, msg_retry_delay: '10ms', idle_timeout: '15s', wait_timeout: '5s',
    tls_type: 'none', tls_skip_verify: false, from_addresses: [], name: '', uuid: '',
  };
  const s = await t.request('PUT', '/api/settings', { smtp: [block], 'app.root_url': t.url, 'app.concurrency': 4, 'app.message_rate': 1000 });
  assert.equal(s.status, 200, s.text);
  const db = t.server.ctx.db;
  const list = addList(db, 'Rebuild', 'single');
  const emails = addMany(db, list, 'rebuild', 12);
  const c = (await t.request('POST', '/api/campaigns', { name: 'Rebuild', subject: 'R', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
  await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
  // Two connections each hold a message in DATA; two more wait for a connection.
  await until('messages held by the server', () => smtp.held() >= 2);

  const save = await t.request('PUT', '/api/settings', { 'app.site_name': 'Renamed while sending' });
  assert.equal(save.status, 200, save.text);
  smtp.open();

  await until('campaign to finish', () => db.prepare('SELECT status FROM campaigns WHERE id = ?').pluck().get(c.id) === 'finished');
  const failed = db.prepare(`SELECT COUNT(*) FROM campaign_sends WHERE campaign_id = ? AND status != 'sent'`).pluck().get(c.id);
  assert.equal(failed, 0);
  assert.deepEqual([...smtp.received].sort(), emails);
  assert.equal(db.prepare('SELECT sent FROM campaigns WHERE id = ?').pluck().get(c.id), emails.length);
});
