// A lock on the database held by another process (an admin's sqlite3 session, another tool)
// does not freeze the server: a write waits for it without blocking the event loop, reads
// answer meanwhile, and one that still finds it taken after the busy timeout answers 503 with
// Retry-After, pages as the API. `listmgr vacuum`, which would hold the lock for as long as it
// runs, refuses while a server runs on the file.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type ChildServer, installDatabase, killChildServers, LAUNCHER, RESPONSIVE_MS, slowestHealthWhile, startChildServer } from '../helpers/child-server.ts';

after(killChildServers);
import { startTestServer, type TestServer } from '../helpers/server.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Holds SQLite's write lock on `dbPath` from this process until the returned function is called. */
function holdWriteLock(dbPath: string): () => void {
  const locker = new Database(dbPath);
  locker.exec('BEGIN IMMEDIATE');
  return () => {
    locker.exec('ROLLBACK');
    locker.close();
  };
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields);

describe('a lock held by another process', () => {
  let dir: string;
  let dbPath: string;
  let s: ChildServer;
  let publicList: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listmgr-locks-'));
    dbPath = join(dir, 'listmgr.db');
    s = await startChildServer({ dbPath, uploads: join(dir, 'uploads'), token: await installDatabase(dbPath) });
    assert.equal((await s.request('PUT', '/api/settings', { 'security.public_rate_limit': 0 })).status, 200);
    publicList = (await s.request('POST', '/api/lists', { name: 'Public', type: 'public', optin: 'single' })).body.data.uuid;
  });
  after(async () => {
    await s?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is waited for by a write without blocking the server: reads answer at once meanwhile', async () => {
    const release = holdWriteLock(dbPath);
    let write;
    try {
      write = s.request('POST', '/api/lists', { name: 'After the lock', type: 'private', optin: 'single' });
      await sleep(100); // the write has met the lock
      const slowest = await slowestHealthWhile(s.url, sleep(1500), 20);
      assert.ok(slowest < RESPONSIVE_MS, `GET /health took ${slowest.toFixed(0)} ms while a write waited for the lock`);
    } finally {
      release();
    }
    const res = await write;
    assert.equal(res.status, 200, res.text);
    assert.ok(s.running());
  });

  it('answers 503 with Retry-After past the busy timeout, for the API and the public pages alike; nothing is written', async () => {
    const release = holdWriteLock(dbPath);
    try {
      const api = s.request('POST', '/api/lists', { name: 'Locked out', type: 'private', optin: 'single' });
      const page = fetch(`${s.url}/subscription/form`, { method: 'POST', body: form({ email: 'locked@example.com', name: 'Locked', l: publicList }), redirect: 'manual', signal: AbortSignal.timeout(30_000) });
      await sleep(100);
      const slowest = await slowestHealthWhile(s.url, sleep(1000), 20);
      const [a, p] = await Promise.all([api, page]);
      assert.equal(a.status, 503, a.text);
      assert.equal(a.headers.get('retry-after'), '1');
      assert.match(a.body.message, /database is busy/);
      assert.equal(p.status, 503, await p.text());
      assert.equal(p.headers.get('retry-after'), '1');
      assert.ok(slowest < RESPONSIVE_MS, `GET /health took ${slowest.toFixed(0)} ms while writes waited for the lock`);
    } finally {
      release();
    }
    const db = new Database(dbPath, { readonly: true });
    try {
      assert.equal(db.prepare("SELECT COUNT(*) FROM lists WHERE name = 'Locked out'").pluck().get(), 0);
      assert.equal(db.prepare("SELECT COUNT(*) FROM subscribers WHERE email = 'locked@example.com'").pluck().get(), 0);
    } finally {
      db.close();
    }
    const again = await fetch(`${s.url}/subscription/form`, { method: 'POST', body: form({ email: 'locked@example.com', name: 'Locked', l: publicList }), redirect: 'manual' });
    assert.equal(again.status, 200);
  });

  it('is never taken by `listmgr vacuum` while a server runs on the file', () => {
    const r = spawnSync(LAUNCHER, ['vacuum', '--db', dbPath], { encoding: 'utf8' });
    assert.equal(r.status, 1, r.stdout);
    assert.match(r.stderr, new RegExp(`a listmgr server \\(pid ${s.pid}\\) is serving .*; vacuuming holds the database locked .* Stop it first\\.`));
  });

  it('lets `listmgr vacuum` run once the server has stopped', async () => {
    assert.equal(await s.stop(), 0);
    const r = spawnSync(LAUNCHER, ['vacuum', '--db', dbPath], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /^Vacuumed /);
  });
});

describe('a page whose write meets a lock taken after the request started', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer();
    await t.request('PUT', '/api/settings', { 'security.public_rate_limit': 0 });
  });
  after(() => t.stop());

  it('answers 503 with Retry-After, as the API, not an error page', async () => {
    const list = (await t.request('POST', '/api/lists', { name: 'Form', type: 'public', optin: 'single' })).body.data.uuid;
    const body = form({ email: 'late@example.com', name: 'Late', l: list }).toString();
    const db = t.server.ctx.db;
    db.pragma('busy_timeout = 100');
    let release: (() => void) | null = null;
    try {
      // The request is under way (its first bytes are in) before the lock is taken, so only
      // its own write meets it.
      const res = await new Promise<{ status: number; retryAfter: string | undefined }>((resolve, reject) => {
        const req = httpRequest(`${t.url}/subscription/form`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'content-length': Buffer.byteLength(body) } }, (r) => {
          r.resume();
          r.on('end', () => resolve({ status: r.statusCode!, retryAfter: r.headers['retry-after'] as string | undefined }));
        });
        req.on('error', reject);
        req.write(body.slice(0, 5));
        setTimeout(() => {
          release = holdWriteLock(t.dbPath);
          req.end(body.slice(5));
        }, 200);
      });
      assert.deepEqual(res, { status: 503, retryAfter: '1' });
    } finally {
      (release as (() => void) | null)?.();
      db.pragma('busy_timeout = 5000');
    }
  });
});
