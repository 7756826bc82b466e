// The server's writes go before its background threads' (src/db/foreground-writes.ts): requests
// that may write are counted while they run, and the import's threads wait between
// transactions while any is; a lock held past the busy timeout answers 503, not 500.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Context } from 'hono';
import { ForegroundWrites, waitForForegroundWrites } from '../../src/db/foreground-writes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/** Counts one write in progress through the real middleware, until the returned function is called. */
function holdWrite(fw: ForegroundWrites): () => Promise<void> {
  let release!: () => void;
  const held = fw.track({} as Context, () => new Promise<void>((r) => (release = r)));
  return async () => {
    release();
    await held;
  };
}

/** Runs waitForForegroundWrites(buffer, maxMs) on a thread; resolves when it returns. */
function waitOnThread(buffer: SharedArrayBuffer, maxMs: number): { started: Promise<void>; returned: Promise<void> } {
  const tsx = import.meta.resolve('tsx/esm/api');
  const module = new URL('../../src/db/foreground-writes.ts', import.meta.url).href;
  const worker = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(module)}); }).then((m) => {
      parentPort.postMessage('started');
      m.waitForForegroundWrites(workerData.buffer, workerData.maxMs);
      parentPort.postMessage('returned');
    });`, { eval: true, workerData: { buffer, maxMs } });
  const message = (m: string) => new Promise<void>((resolve, reject) => {
    worker.on('message', (got) => got === m && resolve());
    worker.on('error', reject);
  });
  const returned = message('returned');
  void returned.then(() => worker.terminate());
  return { started: message('started'), returned };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('background threads and the server\'s writes', () => {
  it('do not wait when no write is in progress', () => {
    const fw = new ForegroundWrites();
    assert.equal(fw.inProgress(), 0);
    waitForForegroundWrites(fw.buffer, 60_000); // would hang the test otherwise
  });

  it('wait while a write is in progress, and go on when it ends', async () => {
    const fw = new ForegroundWrites();
    const release = holdWrite(fw);
    assert.equal(fw.inProgress(), 1);
    const thread = waitOnThread(fw.buffer, 60_000);
    await thread.started;
    let returned = false;
    void thread.returned.then(() => (returned = true));
    await tick(100);
    assert.equal(returned, false, 'the thread went on while a write was in progress');
    await release();
    assert.equal(fw.inProgress(), 0);
    await thread.returned;
  });

  it('wait no longer than their limit for a write that does not end', async () => {
    const fw = new ForegroundWrites();
    const release = holdWrite(fw);
    await waitOnThread(fw.buffer, 50).returned;
    assert.equal(fw.inProgress(), 1);
    await release();
  });
});

describe('requests that may write', () => {
  let t: TestServer;
  let listId: number;
  before(async () => {
    t = await startTestServer();
    listId = (await t.request('POST', '/api/lists', { name: 'Imported', type: 'private', optin: 'single' })).body.data.id;
  });
  after(() => t.stop());

  /** POSTs `body` to /api/lists in two parts; `between` runs once the server has the first. */
  function postInTwoParts(body: string, between: () => Promise<void>): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${t.url}/api/lists`, {
        method: 'POST',
        headers: { authorization: `Basic ${Buffer.from(t.token).toString('base64')}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.write(body.slice(0, 5));
      void between().then(() => req.end(body.slice(5)), reject);
    });
  }

  const waitInProgress = async (n: number) => {
    for (let i = 0; i < 500 && t.server.ctx.foregroundWrites.inProgress() !== n; i++) await tick(10);
    return t.server.ctx.foregroundWrites.inProgress();
  };

  it('are counted from their start to their answer, also when refused', async () => {
    for (const [body, status] of [['{"name": "Counted", "type": "private", "optin": "single"}', 200], ['{"name": "", "type": "private", "optin": "single"}', 400]] as const) {
      const answered = await postInTwoParts(body, async () => assert.equal(await waitInProgress(1), 1));
      assert.equal(answered, status);
      assert.equal(t.server.ctx.foregroundWrites.inProgress(), 0);
    }
  });

  it('go before the import: its writer waits while one is in progress', async () => {
    const release = holdWrite(t.server.ctx.foregroundWrites);
    const f = new FormData();
    f.set('params', JSON.stringify({ mode: 'subscribe', delim: ',', lists: [listId] }));
    f.set('file', new Blob(['email,name\n', ...Array.from({ length: 10 }, (_, i) => `waiting${i}@example.net,Waiting ${i}\n`)]), 'waiting.csv');
    assert.equal((await t.request('POST', '/api/import/subscribers', undefined, { raw: f })).status, 200);
    let s = (await t.request('GET', '/api/import/subscribers')).body.data;
    while (s.total === 0 && s.status === 'importing') s = (await t.request('GET', '/api/import/subscribers')).body.data;
    // The rows are parsed; the writer holds its transaction back (for up to 500 ms).
    await tick(100);
    s = (await t.request('GET', '/api/import/subscribers')).body.data;
    assert.deepEqual([s.status, s.total, s.imported], ['importing', 10, 0]);
    await release();
    while (s.status === 'importing') s = (await t.request('GET', '/api/import/subscribers')).body.data;
    assert.deepEqual([s.status, s.imported], ['finished', 10]);
  });

  it('get 503 with Retry-After when the database stays locked past the busy timeout', async () => {
    const db = t.server.ctx.db;
    const locker = new Database(t.dbPath);
    db.pragma('busy_timeout = 100');
    try {
      locker.exec('BEGIN IMMEDIATE');
      const res = await t.request('POST', '/api/lists', { name: 'Locked out', type: 'private', optin: 'single' });
      assert.equal(res.status, 503);
      assert.match(res.body.message, /database is busy/);
      assert.equal(res.headers.get('retry-after'), '1');
      locker.exec('ROLLBACK');
      assert.equal((await t.request('POST', '/api/lists', { name: 'Let in', type: 'private', optin: 'single' })).status, 200);
      assert.equal(db.prepare("SELECT COUNT(*) FROM lists WHERE name = 'Locked out'").pluck().get(), 0);
    } finally {
      if (locker.inTransaction) locker.exec('ROLLBACK');
      locker.close();
      db.pragma('busy_timeout = 5000');
    }
  });
});
