// Admin UI benchmark: the server time of whole admin pages over the 1M-subscriber database of
// bench:audience (audience-db.ts), with 1,000 campaigns, one of them with 100,000 views over
// 30 days (added once to the kept database); and the gzipped JavaScript a list page and the
// campaign page (with its editors) load. Prints `BENCH <name> <value>` lines (medians of RUNS
// requests after one warm-up).
// Run: flock /work/bench.lock npm run bench:admin
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { closeDatabase, openDatabase } from '../../src/db/connection.ts';
import { build, dbPath, LISTS, median, startChildServer, stopChildServer } from './audience-db.ts';
import { pageScripts } from '../../test/helpers/page-scripts.ts';

const RUNS = 7;
const ADMIN_PASSWORD = 'bench-password';

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/admin/login`, {
    method: 'POST', redirect: 'manual', headers: { origin: url },
    body: new URLSearchParams({ username: 'admin', password: ADMIN_PASSWORD }),
  });
  const session = /session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1];
  if (!session) throw new Error(`sign-in failed: ${res.status}`);
  return session;
}

/** Kilobytes of gzipped JavaScript a page loads (test/helpers/page-scripts.ts: with `dynamic`, the chunks it imports on demand too). */
async function pageJavaScriptGzipKb(url: string, html: string, dynamic = false): Promise<number> {
  const files = await pageScripts(url, html, { dynamic });
  return files.reduce((sum, f) => sum + gzipSync(f.text, { level: 9 }).length, 0) / 1024;
}

const CAMPAIGNS = 1_000;
const ANALYTICS_VIEWS = 100_000;
/** The 30 days the analytics campaign's views, clicks and bounces fall in. */
const RANGE = { from: '2025-03-01', to: '2025-03-30' };

/**
 * 1,000 campaigns (999 finished ones with a 2 KB body on two lists each, and "bench-analytics")
 * whose views are spread over RANGE: 100,000 by 60,000 subscribers, 20,000 clicks on 5 links,
 * 500 bounces; individual tracking on, so the analytics count subscribers (the slower way).
 * Added once to the kept database; returns the analytics campaign's id.
 */
function seedCampaigns(): number {
  const db = openDatabase(dbPath);
  try {
    const seeded = db.prepare(`SELECT id FROM campaigns WHERE uuid = 'bench-analytics'`).pluck().get() as number | undefined;
    if (seeded) return seeded;
    const body = `<p>${'Lorem ipsum dolor sit amet, consectetur adipiscing elit. '.repeat(36)}</p>`;
    db.transaction(() => {
      db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO campaigns (uuid, name, subject, from_email, body, content_type, status, sent, to_send, tags, created_at, updated_at, started_at)
        SELECT 'bench-camp-' || i, 'Campaign ' || i, 'Subject of campaign ' || i, 'News <news@example.com>', ?, 'richtext', 'finished', 50000 + i, 50000 + i,
          '["weekly","bench"]', t, t, t FROM (SELECT i, strftime('%Y-%m-%dT%H:%M:%fZ', '2024-01-01', '+' || (i * 9) || ' hours') AS t FROM n)`).run(CAMPAIGNS - 2, body);
      db.prepare(`INSERT INTO campaigns (uuid, name, subject, from_email, body, content_type, status, sent, to_send, tags, created_at, updated_at, started_at)
        VALUES ('bench-analytics', 'Spring offer', 'Our spring offer', 'News <news@example.com>', ?, 'richtext', 'finished', 200000, 200000, '["offer"]',
          '2025-02-28T09:00:00.000Z', '2025-02-28T12:00:00.000Z', '2025-02-28T09:00:00.000Z')`).run(body);
      db.prepare(`INSERT INTO campaign_lists (campaign_id, list_id, list_name)
        SELECT c.id, l.id, l.name FROM campaigns c JOIN lists l ON l.id IN (1 + c.id % ?, 1 + (c.id + 7) % ?) WHERE c.uuid LIKE 'bench-%'`).run(LISTS, LISTS);
      const id = db.prepare(`SELECT id FROM campaigns WHERE uuid = 'bench-analytics'`).pluck().get() as number;
      db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO campaign_views (campaign_id, subscriber_id, created_at)
        SELECT ?, 1 + (i % 60000) * 13, strftime('%Y-%m-%dT%H:%M:%fZ', ?, '+' || (i % 30) || ' days', '+' || (i % 86400) || ' seconds') FROM n`).run(ANALYTICS_VIEWS, id, RANGE.from);
      for (let k = 1; k <= 5; k++) db.prepare(`INSERT OR IGNORE INTO links (uuid, url) VALUES (?, ?)`).run(`bench-link-${k}`, `https://example.com/spring/${k}`);
      db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
        INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at)
        SELECT ?, (SELECT id FROM links WHERE uuid = 'bench-link-' || (1 + i % 5)), 1 + (i % 15000) * 13,
          strftime('%Y-%m-%dT%H:%M:%fZ', ?, '+' || (i % 30) || ' days', '+' || (i % 86400) || ' seconds') FROM n`).run(ANALYTICS_VIEWS / 5, id, RANGE.from);
      db.prepare(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
        INSERT INTO bounces (subscriber_id, campaign_id, type, source, created_at)
        SELECT 7 + i * 11, ?, 'hard', 'bench', strftime('%Y-%m-%dT%H:%M:%fZ', ?, '+' || (i % 30) || ' days') FROM n`).run(id, RANGE.from);
      db.prepare(`UPDATE settings SET value = 'true' WHERE key = 'privacy.individual_tracking'`).run();
    })();
    db.exec('ANALYZE');
    return db.prepare(`SELECT id FROM campaigns WHERE uuid = 'bench-analytics'`).pluck().get() as number;
  } finally {
    closeDatabase(db);
  }
}

async function main(): Promise<void> {
  await build();
  const analyticsId = seedCampaigns();
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const { url, child } = await startChildServer();
  try {
    const session = await signIn(url);
    const page = async (path: string) => {
      const res = await fetch(url + path, { headers: { cookie: `session=${session}` }, redirect: 'manual' });
      const html = await res.text();
      if (res.status !== 200) throw new Error(`${path}: ${res.status} ${html.slice(0, 200)}`);
      return html;
    };
    const timed = async (name: string, path: string) => {
      await page(path);
      const ms: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        await page(path);
        ms.push(performance.now() - s);
      }
      console.log(`BENCH ${name} ${median(ms).toFixed(1)}  (GET ${path}, whole HTML)`);
    };
    await timed('admin_dashboard_ms', '/admin');
    await timed('admin_lists_ms', '/admin/lists');
    await timed('admin_subscribers_ms', '/admin/subscribers');
    await timed('admin_subscribers_query_ms', `/admin/subscribers?query=${encodeURIComponent("subscribers.attribs->>'city' = 'Porto'")}`);
    await timed('admin_subscriber_ms', '/admin/subscribers/500000');
    await timed('admin_settings_ms', '/admin/settings');
    await timed('admin_campaigns_ms', '/admin/campaigns');
    await timed('admin_campaign_ms', `/admin/campaigns/${analyticsId}`);
    await timed('admin_analytics_ms', `/admin/campaigns/analytics?id=${analyticsId}&from=${RANGE.from}&to=${RANGE.to}`);
    await timed('admin_maintenance_ms', '/admin/settings/maintenance');
    await timed('admin_logs_ms', '/admin/settings/logs');
    await timed('admin_about_ms', '/admin/settings/about');
    console.log(`BENCH admin_js_kb ${(await pageJavaScriptGzipKb(url, await page('/admin/lists'))).toFixed(1)}  (gzipped JavaScript of /admin/lists)`);
    // A rich-text campaign: the editor island, CodeMirror and the TipTap chunk it loads for rich text.
    console.log(`BENCH admin_editor_js_kb ${(await pageJavaScriptGzipKb(url, await page(`/admin/campaigns/${analyticsId}`), true)).toFixed(1)}  (gzipped JavaScript of a campaign page with its editors, every chunk it loads)`);
  } finally {
    await stopChildServer(child);
  }
}

await main();
