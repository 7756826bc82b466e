// The change log's campaign events, from the real server sending to a real SMTP sink: each
// once, by the action that causes it (a person through the API, or the sending engine), with
// the campaign as GET /api/campaigns/:id gives it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addMany, until } from '../campaigns/fixtures.ts';
import { eventsAfter, lastEventId, testerActor, type RecordedEvent } from './recorded.ts';

let t: TestServer;
let sink: SmtpSink;

const CAMPAIGN_EVENTS = ['campaign.created', 'campaign.started', 'campaign.paused', 'campaign.finished', 'campaign.cancelled'];
const SYSTEM = { type: 'system' };

async function settings(over: Record<string, unknown>) {
  const r = await t.request('PUT', '/api/settings', over);
  assert.equal(r.status, 200, r.text);
}

const campaign = async (id: number) => (await t.request('GET', `/api/campaigns/${id}`)).body.data;
const setStatus = async (id: number, status: string) => assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status })).status, 200);
const campaignEvents = (mark: number, id: number) => eventsAfter(t, mark, ...CAMPAIGN_EVENTS).filter((e) => e.data.campaign.id === id);
const typesOf = (events: RecordedEvent[]) => events.map((e) => e.type);

/** A campaign of `n` subscribers on a new list, made through the API. */
async function newCampaign(name: string, n: number, over: Record<string, unknown> = {}): Promise<{ id: number; uuid: string }> {
  const list = addList(t.server.ctx.db, `${name} list`, 'single');
  addMany(t.server.ctx.db, list, name.toLowerCase().replace(/\W/g, ''), n);
  const r = await t.request('POST', '/api/campaigns', { name, subject: name, lists: [list], body: '<p>x</p>', content_type: 'html', ...over });
  assert.equal(r.status, 200, r.text);
  return r.body.data;
}

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await settings({ smtp: [sink.settingsBlock({ max_conns: 2 })], 'app.root_url': t.url, 'app.concurrency': 4, 'app.message_rate': 1000 });
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('campaign events', () => {
  it('campaign.created: once, by the caller, with the campaign as the API gives it', async () => {
    const mark = lastEventId(t);
    const c = await newCampaign('Created', 1);
    const events = campaignEvents(mark, c.id);
    assert.deepEqual(typesOf(events), ['campaign.created']);
    assert.deepEqual(events[0].actor, testerActor(t));
    assert.deepEqual(events[0].data, { campaign: await campaign(c.id) });
  });

  it('a campaign that runs to the end: started by the caller, then finished by the engine with its counts', async () => {
    const c = await newCampaign('To the end', 5);
    const mark = lastEventId(t);
    await setStatus(c.id, 'running');
    await until('campaign to finish', async () => (await campaign(c.id)).status === 'finished');
    const events = campaignEvents(mark, c.id);
    assert.deepEqual(typesOf(events), ['campaign.started', 'campaign.finished']);
    const [started, finished] = events;
    assert.deepEqual(started.actor, testerActor(t));
    assert.equal(started.data.campaign.status, 'running');
    assert.deepEqual(finished.actor, SYSTEM);
    assert.equal(finished.data.sent, 5);
    assert.equal(finished.data.failed, 0);
    assert.deepEqual(finished.data.campaign, await campaign(c.id));
  });

  it('a scheduled campaign is started by the scheduler when its time comes', async () => {
    const c = await newCampaign('Scheduled', 2, { send_at: new Date(Date.now() + 3600_000).toISOString() });
    const mark = lastEventId(t);
    await setStatus(c.id, 'scheduled');
    assert.deepEqual(campaignEvents(mark, c.id), [], 'scheduling is not an event');
    t.server.ctx.db.prepare('UPDATE campaigns SET send_at = ? WHERE id = ?').run(new Date(Date.now() - 1000).toISOString(), c.id);
    await until('campaign to finish', async () => (await campaign(c.id)).status === 'finished');
    const events = campaignEvents(mark, c.id);
    assert.deepEqual(typesOf(events), ['campaign.started', 'campaign.finished']);
    assert.deepEqual(events.map((e) => e.actor), [SYSTEM, SYSTEM]);
  });

  it('paused by a person (saying who), resumed, and cancelled: each once', async () => {
    await settings({ 'app.concurrency': 1, 'app.message_rate': 20 });
    try {
      const c = await newCampaign('Paused by hand', 40);
      const mark = lastEventId(t);
      await setStatus(c.id, 'running');
      await until('a few messages', () => sink.messages.filter((m) => m.parsed.headers.get('x-listmonk-campaign') === c.uuid).length >= 3);
      await setStatus(c.id, 'paused');
      await until('the run to stop', () => !t.server.ctx.delivery.isSending(c.id));
      await setStatus(c.id, 'running');
      await setStatus(c.id, 'cancelled');
      const events = campaignEvents(mark, c.id);
      assert.deepEqual(typesOf(events), ['campaign.started', 'campaign.paused', 'campaign.started', 'campaign.cancelled']);
      for (const e of events) assert.deepEqual(e.actor, testerActor(t));
      const paused = events[1];
      assert.equal(paused.data.reason, 'paused by tester');
      assert.equal(paused.data.campaign.status, 'paused');
      assert.equal(events[3].data.campaign.status, 'cancelled');
    } finally {
      await settings({ 'app.concurrency': 4, 'app.message_rate': 1000 });
    }
  });

  it('finished with failed recipients, then sent again to them: started and finished again, with the counts', async () => {
    const c = await newCampaign('Some refused', 4);
    const refused = t.server.ctx.db.prepare('SELECT s.email FROM subscribers s JOIN subscriber_lists sl ON sl.subscriber_id = s.id WHERE sl.list_id = ? ORDER BY s.id LIMIT 1')
      .pluck().get((await campaign(c.id)).lists[0].id) as string;
    const refusing = await startSmtpSink({ refuse: new Map([[refused, { code: 550, message: 'No such user here' }]]) });
    try {
      await settings({ smtp: [refusing.settingsBlock()] });
      const mark = lastEventId(t);
      await setStatus(c.id, 'running');
      await until('campaign to finish', async () => (await campaign(c.id)).status === 'finished');
      await settings({ smtp: [sink.settingsBlock({ max_conns: 2 })] });
      await setStatus(c.id, 'running');
      await until('campaign to finish again', async () => {
        const now = await campaign(c.id);
        return now.status === 'finished' && now.failed === 0;
      });
      const events = campaignEvents(mark, c.id);
      assert.deepEqual(typesOf(events), ['campaign.started', 'campaign.finished', 'campaign.started', 'campaign.finished']);
      assert.deepEqual([events[1].data.sent, events[1].data.failed], [3, 1]);
      assert.deepEqual(events[2].actor, testerActor(t));
      assert.deepEqual([events[3].data.sent, events[3].data.failed], [4, 0]);
    } finally {
      await settings({ smtp: [sink.settingsBlock({ max_conns: 2 })] });
      await refusing.close();
    }
  });

  it('paused by the sending engine at the error threshold, with the reason it stores', async () => {
    const failing = await startSmtpSink({ rejectWith: { code: 550, message: 'No such user' } });
    try {
      await settings({ smtp: [failing.settingsBlock()], 'app.max_send_errors': 3 });
      const c = await newCampaign('Failing', 10);
      const mark = lastEventId(t);
      await setStatus(c.id, 'running');
      await until('campaign to pause', async () => (await campaign(c.id)).status === 'paused');
      const events = campaignEvents(mark, c.id);
      assert.deepEqual(typesOf(events), ['campaign.started', 'campaign.paused']);
      const paused = events[1];
      assert.deepEqual(paused.actor, SYSTEM);
      const stored = (await campaign(c.id)).status_reason;
      assert.match(stored, /Too many errors/);
      assert.equal(paused.data.reason, stored);
      assert.equal(paused.data.campaign.status_reason, stored);
    } finally {
      await settings({ smtp: [sink.settingsBlock({ max_conns: 2 })], 'app.max_send_errors': 1000 });
      await failing.close();
    }
  });
});
