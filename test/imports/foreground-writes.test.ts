// The server's writes go before its background threads' (src/db/foreground-writes.ts): requests
// that may write are counted while they run, and the import's threads wait between
// transactions while any is; such a request waits, without blocking the server, for the
// background transaction under way; a lock held past the busy timeout answers 503, not 500.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import Database from 'better-sqlite3';
import type { Context } from 'hono';
import { openDatabase, WalCheckpointer } from '../../src/db/connection.ts';
import { backgroundTransaction, ForegroundWrites } from '../../src/db/foreground-writes.ts';
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

/**
 * Runs backgroundTransaction(buffer, maxMs, ...) on a thread, with a transaction that takes
 * `holdMs`; resolves `inside` when the transaction starts and `returned` when it has ended.
 */
function transactionOnThread(buffer: SharedArrayBuffer, maxMs: number, holdMs = 0): { inside: Promise<void>; returned: Promise<void> } {
  const tsx = import.meta.resolve('tsx/esm/api');
  const module = new URL('../../src/db/foreground-writes.ts', import.meta.url).href;
  const worker = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(module)}); }).then((m) => {
      m.backgroundTransaction(workerData.buffer, workerData.maxMs, () => {
        parentPort.postMessage('inside');
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, workerData.holdMs);
      });
      parentPort.postMessage('returned');
    });`, { eval: true, workerData: { buffer, maxMs, holdMs } });
  const message = (m: string) => new Promise<void>((resolve, reject) => {
    worker.on('message', (got) => got === m && resolve());
    worker.on('error', reject);
  });
  const returned = message('returned');
  void returned.then(() => worker.terminate());
  return { inside: message('inside'), returned };
}

const tick = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('background transactions and the server\'s writes', () => {
  it('do not wait when no write is in progress, and are counted while they run', () => {
    const fw = new ForegroundWrites();
    let during = -1;
    const answer = backgroundTransaction(fw.buffer, 60_000, () => { // would hang the test otherwise
      during = fw.backgroundTransactions();
      return 42;
    });
    assert.deepEqual([answer, during, fw.backgroundTransactions()], [42, 1, 0]);
  });

  it('wait while a write is in progress, and go on when it ends', async () => {
    const fw = new ForegroundWrites();
    const release = holdWrite(fw);
    assert.equal(fw.inProgress(), 1);
    const thread = transactionOnThread(fw.buffer, 60_000);
    let inside = false;
    void thread.inside.then(() => (inside = true));
    await tick(100);
    assert.equal(inside, false, 'the thread went on while a write was in progress');
    assert.equal(fw.backgroundTransactions(), 0, 'a transaction that steps back is not counted');
    await release();
    assert.equal(fw.inProgress(), 0);
    await thread.returned;
  });

  it('wait no longer than their limit for a write that does not end', async () => {
    const fw = new ForegroundWrites();
    const release = holdWrite(fw);
    await transactionOnThread(fw.buffer, 50).returned;
    assert.equal(fw.inProgress(), 1);
    await release();
  });

  it('are waited for by a request that may write, while the server goes on answering', async () => {
    const fw = new ForegroundWrites();
    const thread = transactionOnThread(fw.buffer, 60_000, 300);
    await thread.inside;
    let handled = false;
    const request = fw.track({} as Context, async () => {
      handled = true;
      assert.equal(fw.backgroundTransactions(), 0, 'the request ran while the transaction was under way');
    });
    // The event loop is free meanwhile: timers fire, other requests are answered.
    let ticks = 0;
    while (!handled) {
      await tick(10);
      ticks++;
    }
    await request;
    assert.ok(ticks >= 5, `only ${ticks} timer ticks while the request waited`);
    assert.equal(fw.inProgress(), 0);
    await thread.returned;
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

describe('a background thread\'s WAL checkpoints', () => {
  it('are taken between its transactions once so many frames wait, not in its commits', () => {
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-wal-'));
    const db = openDatabase(join(dir, 'wal.db'));
    try {
      db.exec('CREATE TABLE t (v TEXT)');
      const checkpointer = new WalCheckpointer(db, 40);
      assert.equal(db.pragma('wal_autocheckpoint', { simple: true }), 0, 'commits do not checkpoint');
      const insert = db.prepare('INSERT INTO t (v) VALUES (?)');
      // Frames still to copy into the database file.
      const toCopy = () => {
        const [r] = db.pragma('wal_checkpoint(NOOP)') as { log: number; checkpointed: number }[];
        return r.log - r.checkpointed;
      };
      const write = () => {
        db.transaction(() => insert.run('x'.repeat(40_000)))();
        checkpointer.afterTransaction();
      };
      write();
      const perTransaction = toCopy();
      assert.ok(perTransaction >= 10, `${perTransaction} frames per transaction`);
      let most = 0;
      let checkpoints = 0;
      for (let i = 0; i < 100; i++) {
        const before = toCopy();
        write();
        if (toCopy() < before) checkpoints++;
        most = Math.max(most, toCopy());
      }
      assert.ok(most <= 40 + perTransaction, `up to ${most} frames waited for a checkpoint (${perTransaction} per transaction)`);
      assert.ok(checkpoints >= Math.floor((100 * perTransaction) / (40 + perTransaction)), `${checkpoints} checkpoints in 100 transactions`);
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
