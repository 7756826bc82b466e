// The change log's list events through the API (#31): list.created, list.updated (with what
// changed) and list.deleted (the list as it was), each once, with the list as GET /api/lists/{id}
// gives it and the caller as the actor; a PUT that changes nothing writes nothing; a deletion
// that fails half-way leaves no event.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { useFreshServer, type TestServer } from '../helpers/server.ts';
import { eventsOf } from '../helpers/events.ts';

describe('list events of the API', () => {
  const server = useFreshServer();
  let t: TestServer;
  let actor: { type: string; id: number; name: string };

  before(() => {
    t = server();
    actor = { type: 'api', id: t.server.ctx.db.prepare(`SELECT id FROM users WHERE username = 'tester'`).pluck().get() as number, name: 'tester' };
  });

  async function call(method: string, path: string, body?: unknown) {
    const res = await t.request(method, path, body);
    assert.equal(res.status, 200, `${method} ${path}: ${res.text}`);
    return res;
  }

  const listNow = async (id: number) => (await call('GET', `/api/lists/${id}`)).body.data;
  const create = async (name: string) => (await call('POST', '/api/lists', { name, type: 'public', optin: 'single', tags: ['news'] })).body.data.id as number;

  it('POST /api/lists: list.created with the list as GET gives it', async () => {
    let id = 0;
    const events = await eventsOf(t, async () => {
      id = await create('Created list');
    });
    assert.deepEqual(events.map((e) => [e.type, e.actor, e.data]), [['list.created', actor, { list: await listNow(id) }]]);
  });

  it('PUT /api/lists/:id: list.updated with the fields that changed; the same PUT again writes nothing', async () => {
    const id = await create('Before');
    const body = { name: 'After', optin: 'double', tags: ['news', 'weekly'] };
    const events = await eventsOf(t, () => call('PUT', `/api/lists/${id}`, body));
    assert.deepEqual(events.map((e) => [e.type, e.actor, e.data]), [['list.updated', actor, {
      list: await listNow(id),
      changes: { name: { from: 'Before', to: 'After' }, optin: { from: 'single', to: 'double' }, tags: { from: ['news'], to: ['news', 'weekly'] } },
    }]]);
    assert.deepEqual(await eventsOf(t, () => call('PUT', `/api/lists/${id}`, body)), []);
  });

  it('DELETE /api/lists/:id: list.deleted with the list as it was', async () => {
    const id = await create('Deleted');
    await call('POST', '/api/subscribers', { email: 'on-deleted@example.com', lists: [id] });
    const was = await listNow(id);
    const events = await eventsOf(t, () => call('DELETE', `/api/lists/${id}`));
    assert.deepEqual(events.map((e) => [e.type, e.actor, e.data]), [['list.deleted', actor, { list: was }]]);
  });

  it('DELETE /api/lists by ids: one list.deleted per list; when the second deletion fails, none', async () => {
    const ids = [await create('Many 1'), await create('Many 2')];
    const db = t.server.ctx.db;
    db.exec(`CREATE TEMP TRIGGER fail_write BEFORE DELETE ON main.lists WHEN OLD.id = ${ids[1]} BEGIN SELECT RAISE(ABORT, 'injected failure'); END`);
    try {
      const failed = await eventsOf(t, async () => {
        assert.equal((await t.request('DELETE', `/api/lists?id=${ids[0]}&id=${ids[1]}`)).status, 500);
      });
      assert.deepEqual(failed, []);
    } finally {
      db.exec('DROP TRIGGER temp.fail_write');
    }
    const was = await Promise.all(ids.map(listNow));
    const events = await eventsOf(t, () => call('DELETE', `/api/lists?id=${ids[0]}&id=${ids[1]}`));
    assert.deepEqual(events.map((e) => [e.type, e.data]), was.map((list) => ['list.deleted', { list }]));
  });
});
