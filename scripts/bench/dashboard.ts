// Dashboard timings on a database of 1,000,000 subscribers (BENCH_DASHBOARD_ROWS), through the
// real HTTP API:  BENCH dashboard_counts_ms / BENCH dashboard_charts_ms (median of 20 calls).
// BENCH_DASHBOARD_DB=path reuses (or creates, then keeps) that database; otherwise a
// temporary one is built and removed. `benchDashboard(dbPath)` is exported for bench:audience.
import Database from 'better-sqlite3';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { install } from '../../src/install.ts';
import { startServer } from '../../src/server.ts';
import { UserStore } from '../../src/users/store.ts';

const ROWS = Number(process.env.BENCH_DASHBOARD_ROWS ?? 1_000_000);

/** Installs a database with `rows` subscribers (9 in 10 subscribed, 1 in 50 blocklisted), lists, campaigns, views and clicks. */
export async function buildDashboardDb(path: string, rows = ROWS): Promise<void> {
  await install(path, { adminUser: 'admin', adminPassword: 'bench-password-1' });
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -98304');
  db.transaction(() => {
    db.exec(`
      INSERT INTO lists (uuid, name, type, optin) VALUES ('bl1', 'One', 'public', 'single'), ('bl2', 'Two', 'private', 'double'), ('bl3', 'Three', 'public', 'double');
      INSERT INTO campaigns (uuid, name, subject, from_email, status, sent) VALUES ('bc1', 'C1', 'S', 'f@x.io', 'finished', 900000), ('bc2', 'C2', 'S', 'f@x.io', 'draft', 0);
      INSERT INTO links (uuid, url) VALUES ('bk1', 'https://example.com');`);
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO subscribers (uuid, email, name, status)
      SELECT printf('%08x-0000-7000-8000-%012x', i, i), 'user' || i || '@example' || (i % 97) || '.com', 'User ' || i,
        CASE WHEN i % 50 = 0 THEN 'blocklisted' ELSE 'enabled' END FROM n`).run(rows);
    db.exec(`INSERT INTO subscriber_lists (subscriber_id, list_id, status)
      SELECT id, 1 + id % 3, 'confirmed' FROM subscribers WHERE id % 10 <> 0`);
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO campaign_views (campaign_id, subscriber_id, created_at)
      SELECT 1, i, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || (i % 90) || ' days') FROM n`).run(Math.floor(rows / 2));
    db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
      INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at)
      SELECT 1, 1, i, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || (i % 90) || ' days') FROM n`).run(Math.floor(rows / 10));
  })();
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
}

/** Median milliseconds of GET /api/dashboard/counts and /charts against the server on dbPath. */
export async function benchDashboard(dbPath: string, calls = 20): Promise<{ countsMs: number; chartsMs: number }> {
  const setup = new Database(dbPath);
  const { token } = new UserStore(setup).createApiUser(`dash${Date.now()}`);
  setup.close();
  const server = await startServer(loadConfig({ db: dbPath, address: '127.0.0.1:0' }), { quiet: true });
  const user = server.ctx.db.prepare("SELECT username FROM users WHERE type = 'api' ORDER BY id DESC LIMIT 1").pluck().get() as string;
  const headers = { authorization: `Basic ${Buffer.from(`${user}:${token}`).toString('base64')}` };
  const median = async (path: string) => {
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      const res = await fetch(server.url + path, { headers });
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      await res.text();
      times.push(performance.now() - t0);
    }
    return times.sort((a, b) => a - b)[Math.floor(times.length / 2)];
  };
  try {
    return { countsMs: await median('/api/dashboard/counts'), chartsMs: await median('/api/dashboard/charts') };
  } finally {
    await server.stop();
  }
}

if (process.argv[1] && /dashboard\.ts$/.test(process.argv[1])) {
  const keep = process.env.BENCH_DASHBOARD_DB;
  const dir = keep ? null : mkdtempSync(join(tmpdir(), 'listmgr-bench-dash-'));
  const dbPath = keep ?? join(dir!, 'dash.db');
  try {
    if (!existsSync(dbPath)) {
      const t0 = performance.now();
      await buildDashboardDb(dbPath);
      console.log(`built ${dbPath} with ${ROWS} subscribers in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const r = await benchDashboard(dbPath);
    console.log(`BENCH dashboard_counts_ms ${r.countsMs.toFixed(2)}`);
    console.log(`BENCH dashboard_charts_ms ${r.chartsMs.toFixed(2)}`);
  } finally {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
