// The sending engine when the database will not take its writes for a while: locked by another
// process past the busy timeout, or on a disk that filled up. The server never ends and keeps
// answering; outcomes are kept until they are written; a write that keeps failing pauses the
// campaign with the reason; resumed once the disk has room, the campaign reaches everyone,
// exactly once.
import { after, afterEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { addList, addMany, until } from '../campaigns/fixtures.ts';
import { type ChildServer, healthMs, installDatabase, killChildServers, RESPONSIVE_MS, slowestHealthWhile, startChildServer } from '../helpers/child-server.ts';

after(killChildServers);
import { makeDisks, type Disks } from '../helpers/full-disk.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let s: ChildServer | null = null;
let sink: SmtpSink | null = null;
let cleanup: (() => void) | null = null;

afterEach(async () => {
  await s?.stop();
  await sink?.close();
  cleanup?.();
  s = sink = cleanup = null;
});

/** Starts the server on `dbPath` with `n` subscribers on one list, sending `perSecond` messages a second. */
async function setUp(dbPath: string, n: number, perSecond: number, env: Record<string, string> = {}): Promise<{ server: ChildServer; emails: string[]; campaign: number }> {
  let emails: string[] = [];
  let list = 0;
  const token = await installDatabase(dbPath, (db) => {
    list = addList(db, 'Readers', 'single');
    emails = addMany(db, list, 'reader', n);
  });
  sink = await startSmtpSink();
  const server = await startChildServer({ dbPath, uploads: join(dbPath, '..', 'uploads'), token, env });
  s = server;
  const settings = { smtp: [sink.settingsBlock({ max_conns: 2 })], 'app.concurrency': 2, 'app.message_rate': Math.ceil(perSecond / 2), 'app.batch_size': 10 };
  assert.equal((await server.request('PUT', '/api/settings', settings)).status, 200);
  const c = (await server.request('POST', '/api/campaigns', { name: 'Faults', subject: 'F', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data;
  assert.equal((await server.request('PUT', `/api/campaigns/${c.id}/status`, { status: 'running' })).status, 200);
  return { server, emails, campaign: c.id };
}

const status = async (server: ChildServer, id: number) => (await server.request('GET', `/api/campaigns/${id}`)).body.data?.status;

/** Everyone got the campaign, once. */
function assertEachOnce(emails: string[]): void {
  const got = sink!.messages.map((m) => m.to[0]).sort();
  assert.deepEqual(got, [...emails].sort(), `${got.length} messages for ${emails.length} recipients`);
}

function campaignRow(dbPath: string, id: number): { status: string; status_reason: string; sent: number } {
  const db = new Database(dbPath, { readonly: true });
  try {
    return db.prepare('SELECT status, status_reason, sent FROM campaigns WHERE id = ?').get(id) as { status: string; status_reason: string; sent: number };
  } finally {
    db.close();
  }
}

describe('the sending engine, when the database does not take its writes', () => {
  it('waits out a lock another process holds past the busy timeout: no crash, the server answers meanwhile, everyone gets the campaign once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-send-lock-'));
    cleanup = () => rmSync(dir, { recursive: true, force: true });
    const dbPath = join(dir, 'listmgr.db');
    const { server, emails, campaign } = await setUp(dbPath, 80, 10);
    await until('the first messages', () => sink!.messages.length >= 5, 20_000);

    const locker = new Database(dbPath);
    locker.exec('BEGIN IMMEDIATE');
    let slowest: number;
    try {
      slowest = await slowestHealthWhile(server.url, sleep(7000), 25); // longer than the 5 s busy timeout
    } finally {
      locker.exec('ROLLBACK');
      locker.close();
    }
    assert.ok(server.running(), server.output());
    assert.ok(slowest < RESPONSIVE_MS, `GET /health took ${slowest.toFixed(0)} ms while the engine waited for the lock`);
    assert.match(server.output(), /delivery: .* failed \(database is locked\); trying again/);

    await until('the campaign to finish', async () => (await status(server, campaign)) === 'finished', 60_000);
    assertEachOnce(emails);
    assert.equal(await server.stop(), 0);
    assert.equal(campaignRow(dbPath, campaign).sent, emails.length);
  });

  describe('on a disk that fills up', () => {
    let disks: Disks;
    after(() => disks?.close());

    it('pauses the campaign with the reason, never crashes; resumed once space is freed, it skips nobody', async () => {
      disks = makeDisks();
      const dbPath = join(disks.data, 'listmgr.db');
      const { server, emails, campaign } = await setUp(dbPath, 150, 10, { TMPDIR: disks.temp });
      await until('the first messages', () => sink!.messages.length >= 10, 20_000);

      disks.fill('data', server.pid);
      let stalled: number;
      try {
        // The engine meets the full disk, retries, gives up and stops handing out messages.
        await until('the engine to meet the full disk', () => /delivery: .* failed \(.*\); trying again/.test(server.output()), 20_000);
        await until('the engine to give up', () => new RegExp(`campaign ${campaign}: stopped sending: `).test(server.output()), 30_000);
        await until('the sending to stop', async () => {
          const before = sink!.messages.length;
          await sleep(2500);
          return sink!.messages.length === before;
        }, 40_000);
        stalled = sink!.messages.length;
        assert.ok(stalled < emails.length, 'the campaign stopped before its end');
        assert.ok(server.running(), server.output());
        assert.ok((await healthMs(server.url)) < RESPONSIVE_MS);
      } finally {
        disks.free('data', server.pid);
      }

      // Written as soon as the disk has room: the outcomes kept in memory, then the pause.
      await until('the campaign to be paused', async () => (await status(server, campaign)) === 'paused', 20_000).catch((e) => {
        throw new Error(`${e.message}: ${server.output()}`);
      });
      const paused = campaignRow(dbPath, campaign);
      assert.match(paused.status_reason, /could not be (recorded|queued).*(full|I\/O|disk)/i);
      assert.match(server.output(), new RegExp(`campaign ${campaign}: .*; paused`));
      assert.equal(paused.sent, stalled, 'every message sent before the pause is recorded as sent');

      assert.equal((await server.request('PUT', `/api/campaigns/${campaign}/status`, { status: 'running' })).status, 200);
      await until('the campaign to finish', async () => (await status(server, campaign)) === 'finished', 60_000);
      assertEachOnce(emails);
      assert.equal(await server.stop(), 0);
      const db = new Database(dbPath, { readonly: true });
      try {
        assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        assert.equal(db.prepare('SELECT sent FROM campaigns WHERE id = ?').pluck().get(campaign), emails.length);
      } finally {
        db.close();
      }
    });
  });
});
