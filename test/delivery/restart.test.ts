// A restart in the middle of a campaign: stop the server while it is sending, start a new one
// on the same database; every recipient gets the campaign exactly once.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addMany, until } from '../campaigns/fixtures.ts';
import { loadConfig } from '../../src/config.ts';
import { startServer, type RunningServer } from '../../src/server.ts';

let t: TestServer;
let sink: SmtpSink;
let second: RunningServer | null = null;

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
});
after(async () => {
  await second?.stop();
  rmSync(t.dir, { recursive: true, force: true });
  await sink.close();
});

it('neither repeats nor skips anyone across a restart', async () => {
  const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ max_conns: 2 })], 'app.root_url': t.url, 'app.concurrency': 2, 'app.message_rate': 15, 'app.batch_size': 7 });
  assert.equal(r.status, 200);
  const list = addList(t.server.ctx.db, 'Restart', 'single');
  const emails = addMany(t.server.ctx.db, list, 'restart', 60);
  const c = (await t.request('POST', '/api/campaigns', { name: 'Restart', subject: 'R', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
  await t.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' });
  await until('some messages', () => sink.messages.length >= 10);
  await t.server.stop();
  const atStop = sink.messages.length;
  assert.ok(atStop < emails.length, `only ${atStop} of ${emails.length} sent before the stop`);

  second = await startServer(loadConfig({ db: t.dbPath, address: '127.0.0.1:0', uploads: join(t.dir, 'uploads') }, {}), { quiet: true });
  const db = second.ctx.db;
  await second.ctx.settings.update(second.ctx.users.loadAuthUser(1, 'token')!, { 'app.message_rate': 1000 });
  await until('campaign to finish', () => db.prepare('SELECT status FROM campaigns WHERE id = ?').pluck().get(c.id) === 'finished', 20_000);
  const to = sink.messages.map((m) => m.to[0]).sort();
  assert.deepEqual(to, emails);
  const row = db.prepare('SELECT sent, to_send, last_subscriber_id FROM campaigns WHERE id = ?').get(c.id) as { sent: number; to_send: number; last_subscriber_id: number };
  assert.equal(row.sent, emails.length);
  const sent = db.prepare(`SELECT COUNT(*) FROM campaign_sends WHERE campaign_id = ? AND status = 'sent'`).pluck().get(c.id);
  assert.equal(sent, emails.length);
});
