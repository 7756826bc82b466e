// An import's events: import.finished always; the per-subscriber events (written in bulk on the
// import's writer thread) only for the types a consumer of the change log wants.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { addConsumer, eventsAfter, lastEventId, testerActor, type RecordedEvent } from './recorded.ts';

let t: TestServer;
let wanted: Set<string>;
let listA: number;
let listB: number;

function form(params: unknown, csv: string): FormData {
  const f = new FormData();
  f.set('params', JSON.stringify(params));
  f.set('file', new Blob([csv]), 'people.csv');
  return f;
}

/** Imports `csv` and waits for the end; answers the import's status as GET /api/import/subscribers gives it. */
async function runImport(params: Record<string, unknown>, csv: string): Promise<Record<string, unknown>> {
  const res = await t.request('POST', '/api/import/subscribers', undefined, { raw: form({ mode: 'subscribe', delim: ',', subscription_status: 'confirmed', ...params }, csv) });
  assert.equal(res.status, 200, res.text);
  for (;;) {
    const s = (await t.request('GET', '/api/import/subscribers')).body.data;
    if (s.status !== 'importing' && s.status !== 'stopping') return s;
    await new Promise((r) => setTimeout(r, 20));
  }
}

const idOf = (email: string) => t.server.ctx.db.prepare('SELECT id FROM subscribers WHERE email = ?').pluck().get(email) as number;
/**
 * The subscriber as GET /api/subscribers/:id gives it, less their lists' updated_at: the
 * import's end touches its lists, after the events of its rows.
 */
const listsUntimed = (s: { lists: Record<string, unknown>[] }) => ({ ...s, lists: s.lists.map(({ updated_at: _, ...l }) => l) });
const subscriber = async (email: string) => listsUntimed((await t.request('GET', `/api/subscribers/${idOf(email)}`)).body.data);
const typesOf = (events: RecordedEvent[]) => events.map((e) => e.type);

before(async () => {
  t = await startTestServer();
  wanted = addConsumer(t);
  const f = fixtures(t.server.ctx.db);
  listA = f.list({ name: 'Imported A' }).id;
  listB = f.list({ name: 'Imported B' }).id;
});
after(() => t.stop());

describe('import events', () => {
  it('without a consumer: import.finished only, by the importer, with the status and counts', async () => {
    wanted.clear();
    const mark = lastEventId(t);
    const status = await runImport({ lists: [listA] }, 'email,name\nann@example.org,Ann\nbo@example.org,Bo\ncy@example.org,Cy\n');
    const events = eventsAfter(t, mark);
    assert.deepEqual(typesOf(events), ['import.finished']);
    const [finished] = events;
    assert.deepEqual(finished.actor, testerActor(t));
    assert.deepEqual(finished.data, {
      import: { ...status, mode: 'subscribe', lists: [listA], stopped: false },
      counts: { total: 3, imported: 3, new: 3, updated: 0, unchanged: 0, skipped: 0, duplicates: 0 },
    });
  });

  it('with a consumer: subscriber.created and subscription.added per new subscriber, then import.finished', async () => {
    wanted.clear();
    wanted.add('subscriber.created').add('subscription.added');
    const mark = lastEventId(t);
    await runImport({ lists: [listA, listB] }, 'email,name\ndee@example.org,Dee\neve@example.org,Eve\n');
    const events = eventsAfter(t, mark);
    assert.deepEqual(typesOf(events), ['subscriber.created', 'subscriber.created', 'subscription.added', 'subscription.added', 'subscription.added', 'subscription.added', 'import.finished']);
    for (const e of events) assert.deepEqual(e.actor, testerActor(t));
    assert.deepEqual(listsUntimed(events[0].data.subscriber), await subscriber('dee@example.org'));
    assert.deepEqual(listsUntimed(events[1].data.subscriber), await subscriber('eve@example.org'));
    const added = events.filter((e) => e.type === 'subscription.added').map((e) => [e.data.subscriber.email, e.data.list.id, e.data.status]);
    assert.deepEqual(added, [['dee@example.org', listA, 'confirmed'], ['dee@example.org', listB, 'confirmed'], ['eve@example.org', listA, 'confirmed'], ['eve@example.org', listB, 'confirmed']]);
  });

  it('rows that name lists of their own: their subscriber.created has their own lists, the others the import\'s', async () => {
    const listC = fixtures(t.server.ctx.db).list({ name: 'Imported C' }).id;
    wanted.clear();
    wanted.add('subscriber.created');
    const mark = lastEventId(t);
    await runImport({ lists: [listA], columns: { lists: 'lists' } }, 'email,name,lists\nfay@example.org,Fay,Imported C\ngus@example.org,Gus,\nhal@example.org,Hal,\n');
    const created = eventsAfter(t, mark, 'subscriber.created').sort((a, b) => a.data.subscriber.id - b.data.subscriber.id);
    assert.deepEqual(created.map((e) => [e.data.subscriber.email, e.data.subscriber.lists.map((l: { id: number }) => l.id)]), [
      ['fay@example.org', [listA, listC]], ['gus@example.org', [listA]], ['hal@example.org', [listA]],
    ]);
    for (const e of created) assert.deepEqual(listsUntimed(e.data.subscriber), await subscriber(e.data.subscriber.email));
  });

  it('subscribers already there: subscriber.updated (without changes) when overwritten, subscription.added for new lists only', async () => {
    wanted.clear();
    wanted.add('subscriber.created').add('subscriber.updated').add('subscription.added');
    const mark = lastEventId(t);
    // ann is on A already (the first import) and joins B; bo keeps his name: not updated, and joins B.
    await runImport({ lists: [listA, listB], overwrite: true, subscription_status: 'unconfirmed' }, 'email,name\nann@example.org,Ann Renamed\nbo@example.org,Bo\n');
    const events = eventsAfter(t, mark);
    assert.deepEqual(typesOf(events), ['subscriber.updated', 'subscription.added', 'subscription.added', 'import.finished']);
    assert.deepEqual(Object.keys(events[0].data), ['subscriber']);
    assert.deepEqual(listsUntimed(events[0].data.subscriber), await subscriber('ann@example.org'));
    assert.equal(events[0].data.subscriber.name, 'Ann Renamed');
    const added = events.filter((e) => e.type === 'subscription.added').map((e) => [e.data.subscriber.email, e.data.list.id]);
    assert.deepEqual(added.sort(), [['ann@example.org', listB], ['bo@example.org', listB]]);
    assert.deepEqual(events[3].data.counts, { total: 2, imported: 2, new: 0, updated: 2, unchanged: 0, skipped: 0, duplicates: 0 });
  });

  it('blocklist mode: subscriber.blocklisted for those already there, subscriber.created for new ones', async () => {
    wanted.clear();
    wanted.add('subscriber.created').add('subscriber.blocklisted');
    const mark = lastEventId(t);
    await runImport({ mode: 'blocklist', subscription_status: undefined }, 'email\ncy@example.org\nnew-blocked@example.org\n');
    const events = eventsAfter(t, mark);
    assert.deepEqual(events.map((e) => [e.type, e.data.subscriber?.email]), [
      ['subscriber.created', 'new-blocked@example.org'],
      ['subscriber.blocklisted', 'cy@example.org'],
      ['import.finished', undefined],
    ]);
    assert.equal(events[1].data.subscriber.status, 'blocklisted');
  });
});
