// campaign.viewed and link.clicked: written only while a consumer of the change log wants
// them (their volume), in the transaction that records the view or click.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures, type Seeded } from '../helpers/fixtures.ts';
import { addConsumer, eventsAfter, lastEventId } from './recorded.ts';

let t: TestServer;
let wanted: Set<string>;
let camp: Seeded;
let reader: Seeded;
let link: Seeded;

const URL = 'https://example.org/read';
const count = (table: string) => t.server.ctx.db.prepare(`SELECT COUNT(*) FROM ${table}`).pluck().get() as number;
const view = () => t.request('GET', `/campaign/${camp.uuid}/${reader.uuid}/px.png`, undefined, { auth: null });
const click = () => t.request('GET', `/link/${link.uuid}/${camp.uuid}/${reader.uuid}`, undefined, { auth: null });

before(async () => {
  t = await startTestServer();
  assert.equal((await t.request('PUT', '/api/settings', { 'privacy.individual_tracking': true })).status, 200);
  wanted = addConsumer(t);
  const f = fixtures(t.server.ctx.db);
  camp = f.campaign({ name: 'Tracked', status: 'finished' });
  reader = f.subscriber({ email: 'reader@example.com' });
  link = f.link(URL);
});
after(() => t.stop());

describe('views and clicks in the change log', () => {
  it('are not written while no consumer wants them; the view and click are', async () => {
    wanted.clear();
    const mark = lastEventId(t);
    const [views, clicks] = [count('campaign_views'), count('link_clicks')];
    assert.equal((await view()).status, 200);
    assert.equal((await click()).status, 307);
    assert.deepEqual(eventsAfter(t, mark), []);
    assert.deepEqual([count('campaign_views'), count('link_clicks')], [views + 1, clicks + 1]);
  });

  it('are written once each while a consumer wants them, naming the campaign, subscriber and link', async () => {
    wanted.add('campaign.viewed').add('link.clicked');
    const mark = lastEventId(t);
    assert.equal((await view()).status, 200);
    assert.equal((await click()).status, 307);
    const events = eventsAfter(t, mark);
    assert.deepEqual(events.map((e) => e.type), ['campaign.viewed', 'link.clicked']);
    const campaign = { id: camp.id, uuid: camp.uuid, name: 'Tracked' };
    const subscriber = { id: reader.id, uuid: reader.uuid, email: 'reader@example.com' };
    assert.deepEqual(events[0].data, { campaign, subscriber });
    assert.deepEqual(events[1].data, { campaign, subscriber, link: { id: link.id, url: URL } });
  });

  it('name no subscriber when views are anonymous', async () => {
    wanted.add('campaign.viewed');
    assert.equal((await t.request('PUT', '/api/settings', { 'privacy.individual_tracking': false })).status, 200);
    try {
      const mark = lastEventId(t);
      assert.equal((await view()).status, 200);
      const [viewed] = eventsAfter(t, mark, 'campaign.viewed');
      assert.equal(viewed.data.subscriber, null);
      assert.equal(viewed.data.campaign.id, camp.id);
    } finally {
      assert.equal((await t.request('PUT', '/api/settings', { 'privacy.individual_tracking': true })).status, 200);
    }
  });
});
