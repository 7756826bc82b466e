// GET /metrics: absent (404) until the setting metrics.enabled is on; then it needs the
// metrics token as a Bearer token, or a user with settings:get (a session or an API user),
// and answers Prometheus text: requests by route pattern (never the raw URL) and status, their
// latency, messages sent by messenger, campaign progress, the import, the database and WAL
// sizes and the event loop lag.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { adminSession } from '../helpers/admin.ts';
import { addList, addSubscriber } from '../campaigns/fixtures.ts';

let t: TestServer;
let sink: SmtpSink;
const TOKEN = 'metrics-token-0123456789abcdef';
const bearer = (token: string) => ({ auth: null, headers: { authorization: `Bearer ${token}` } });

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await useSmtpSink(t, sink);
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('GET /metrics', () => {
  it('does not exist while metrics are off, whoever asks', async () => {
    assert.equal((await t.request('GET', '/metrics', undefined, { auth: null })).status, 404);
    assert.equal((await t.request('GET', '/metrics')).status, 404);
    assert.equal((await t.request('GET', '/metrics', undefined, bearer(TOKEN))).status, 404);
  });

  it('refuses a token too short to be one, changing nothing', async () => {
    const r = await t.request('PUT', '/api/settings', { 'metrics.enabled': true, 'metrics.token': 'short' });
    assert.equal(r.status, 400, r.text);
    assert.match(r.body.message, /invalid setting "metrics\.token": 16 to 500 visible ASCII characters/);
    assert.equal(t.server.ctx.settings.get('metrics.enabled'), false);
  });

  it('when on, needs the token or a user with settings:get, and never shows the token', async () => {
    const r = await t.request('PUT', '/api/settings', { 'metrics.enabled': true, 'metrics.token': TOKEN });
    assert.equal(r.status, 200, r.text);
    const settings = (await t.request('GET', '/api/settings')).body.data;
    assert.equal(settings['metrics.enabled'], true);
    assert.notEqual(settings['metrics.token'], TOKEN);
    assert.equal((await t.request('GET', '/metrics', undefined, { auth: null })).status, 401);
    assert.equal((await t.request('GET', '/metrics', undefined, bearer('wrong-token-0123456789abcdef'))).status, 401);
    const role = await t.request('POST', '/api/roles/users', { name: 'Lists only', permissions: ['lists:get_all'] });
    assert.equal(role.status, 200, role.text);
    const listsOnly = t.apiUser('listsonly', role.body.data.id);
    assert.equal((await t.request('GET', '/metrics', undefined, { auth: listsOnly })).status, 403);
    assert.equal((await t.request('GET', '/metrics')).status, 200);
    const session = await adminSession(t);
    const bySession = await t.request('GET', '/metrics', undefined, { auth: null, headers: { cookie: `session=${session}` } });
    assert.equal(bySession.status, 200, bySession.text);
  });

  it('answers Prometheus text with the metrics, requests counted by route pattern and status', async () => {
    const db = t.server.ctx.db;
    const tpl = fixtures(db).template({ name: 'Note', type: 'tx', subject: 'Note', body: '<p>Hi</p>' });
    addSubscriber(db, 'ann@example.com', 'Ann', [[addList(db, 'L', 'single'), 'confirmed']]);
    for (let i = 0; i < 3; i++) assert.equal((await t.request('GET', '/api/lists')).status, 200);
    assert.equal((await t.request('GET', '/api/subscribers/987654')).status, 404);
    const tx = await t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: tpl });
    assert.equal(tx.status, 200, tx.text);

    const r = await t.request('GET', '/metrics', undefined, bearer(TOKEN));
    assert.equal(r.status, 200, r.text);
    assert.match(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    const text = r.text;
    for (const name of [
      'listmgr_http_requests_total', 'listmgr_http_request_duration_seconds_bucket', 'listmgr_messages_sent_total', 'listmgr_messages_failed_total',
      'listmgr_campaign_sent', 'listmgr_campaign_to_send', 'listmgr_import_rows', 'listmgr_database_bytes', 'listmgr_database_wal_bytes',
      'nodejs_eventloop_lag_seconds', 'process_resident_memory_bytes',
    ]) assert.match(text, new RegExp(`^# TYPE ${name.replace(/_bucket$/, '')} `, 'm'), name);
    assert.match(text, /^listmgr_http_requests_total\{method="GET",route="\/api\/lists",status="200"\} 3$/m);
    assert.match(text, /^listmgr_http_requests_total\{method="GET",route="\/api\/subscribers\/:id[^"]*",status="404"\} 1$/m);
    assert.ok(!text.includes('987654'), 'the raw URL is not a label');
    assert.match(text, /^listmgr_messages_sent_total\{messenger="email"\} 1$/m);
    assert.match(text, /^listmgr_database_bytes [1-9]\d*$/m);
    assert.match(text, /^listmgr_import_rows\{state="total"\} 0$/m);
    assert.ok(!text.includes(TOKEN));
  });

  it('is gone again once switched off', async () => {
    const r = await t.request('PUT', '/api/settings', { 'metrics.enabled': false });
    assert.equal(r.status, 200, r.text);
    assert.equal((await t.request('GET', '/metrics', undefined, bearer(TOKEN))).status, 404);
  });
});
