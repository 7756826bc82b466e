// Webhook deliveries survive kill -9: the server is killed with 100 deliveries pending and some
// in flight; after the restart every one arrives, and only those in flight at the kill arrive
// twice (with the same webhook-id), once their lease has run out. And the worker's writes wait
// for a write lock held by another connection without freezing the server.
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { until } from '../campaigns/fixtures.ts';
import { installDatabase, killChildServers, RESPONSIVE_MS, slowestHealthWhile, startChildServer } from '../helpers/child-server.ts';
import { addWebhook, startReceiver } from '../webhooks/receivers.ts';

const allowPrivate = `INSERT INTO settings (key, value) VALUES ('security.webhooks_allow_private', 'true')
  ON CONFLICT (key) DO UPDATE SET value = excluded.value`;

after(killChildServers);

describe('webhook deliveries and kill -9', () => {
  it('delivers all 100 after a restart, repeating only the ones in flight at the kill', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-webhooks-kill-'));
    const dbPath = join(dir, 'listmgr.db');
    // The receiver takes the first requests and never answers them: they are in flight at the kill.
    const receiver = await startReceiver(() => 'hang');
    try {
      const token = await installDatabase(dbPath, (db) => {
        db.prepare(allowPrivate).run();
        addWebhook(db, { url: receiver.url, after_event_id: 0 });
        const insert = db.prepare(`INSERT INTO events (type, data) VALUES ('list.updated', json_object('n', ?))`);
        db.transaction(() => {
          for (let n = 0; n < 100; n++) insert.run(n);
        })();
      });
      const uuids = (() => {
        const db = new Database(dbPath, { readonly: true });
        try {
          return db.prepare('SELECT uuid FROM events ORDER BY id').pluck().all() as string[];
        } finally {
          db.close();
        }
      })();
      const start = () => startChildServer({ dbPath, uploads: join(dir, 'uploads'), token, env: { LISTMGR_WEBHOOK_LEASE: '1s' } });

      const first = await start();
      await until('requests in flight', () => receiver.received.length === 8);
      await first.kill();
      const inFlight = new Set(receiver.ids());

      const db = new Database(dbPath, { readonly: true });
      try {
        const rows = db.prepare(`SELECT status, lease_until IS NOT NULL AS leased, count(*) AS n FROM webhook_deliveries GROUP BY 1, 2 ORDER BY 1, 2`).all();
        assert.deepEqual(rows, [{ status: 'pending', leased: 0, n: 92 }, { status: 'pending', leased: 1, n: 8 }], 'all 100 were queued before the kill, 8 leased');
      } finally {
        db.close();
      }

      receiver.answer(() => 200);
      const second = await start();
      try {
        await until('all 100 delivered', () => new Set(receiver.ids()).size === 100 && receiver.received.length >= 108, 20_000);
        const check = new Database(dbPath, { readonly: true });
        try {
          await until('recorded', () => check.prepare(`SELECT count(*) FROM webhook_deliveries WHERE status = 'delivered'`).pluck().get() === 100);
        } finally {
          check.close();
        }
      } finally {
        assert.equal(await second.stop(), 0);
      }
      assert.deepEqual(new Set(receiver.ids()), new Set(uuids));
      const repeated = receiver.ids().filter((id, i, all) => all.indexOf(id) !== i);
      assert.equal(repeated.length, 8, 'each in-flight delivery repeated once');
      for (const id of repeated) assert.ok(inFlight.has(id), `${id} arrived twice but was not in flight at the kill`);
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('waits for a write lock held by another connection without freezing the server, then delivers', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-webhooks-lock-'));
    const dbPath = join(dir, 'listmgr.db');
    const receiver = await startReceiver();
    try {
      const token = await installDatabase(dbPath, (db) => {
        db.prepare(allowPrivate).run();
        addWebhook(db, { url: receiver.url });
      });
      const s = await startChildServer({ dbPath, uploads: join(dir, 'uploads'), token });
      const locker = new Database(dbPath);
      try {
        const insert = locker.prepare(`INSERT INTO events (type, data) VALUES ('list.updated', json_object('n', ?))`);
        locker.transaction(() => {
          for (let n = 0; n < 50; n++) insert.run(n);
        })();
        // The events are there for the dispatcher, and the lock it needs to fan them out is taken.
        locker.exec('BEGIN IMMEDIATE');
        const slowest = await slowestHealthWhile(s.url, new Promise((r) => setTimeout(r, 2000)), 20);
        assert.ok(slowest < RESPONSIVE_MS, `GET /health took ${slowest.toFixed(0)} ms while the worker waited for the lock`);
        assert.equal(receiver.received.length, 0);
        locker.exec('ROLLBACK');
        await until('all 50 delivered', () => receiver.received.length === 50);
      } finally {
        if (locker.inTransaction) locker.exec('ROLLBACK');
        locker.close();
        assert.equal(await s.stop(), 0);
      }
    } finally {
      await receiver.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
