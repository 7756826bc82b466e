// Admin UI benchmark: the server time of whole admin pages over the 1M-subscriber database of
// bench:audience (audience-db.ts), and the gzipped JavaScript a list page loads. Prints
// `BENCH <name> <value>` lines (medians of RUNS requests after one warm-up).
// Run: flock /work/bench.lock npm run bench:admin
import { execFileSync } from 'node:child_process';
import { performance } from 'node:perf_hooks';
import { gzipSync } from 'node:zlib';
import { build, dbPath, median, startChildServer, stopChildServer } from './audience-db.ts';

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

/** The JavaScript a page loads: its module scripts and everything they import statically. */
async function pageJavaScriptGzipKb(url: string, html: string): Promise<number> {
  const seen = new Set<string>();
  const queue = [...html.matchAll(/<script type="module" src="([^"]+)"/g)].map((m) => m[1]);
  let bytes = 0;
  while (queue.length) {
    const path = queue.shift()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const text = await (await fetch(url + path)).text();
    bytes += gzipSync(text, { level: 9 }).length;
    for (const m of text.matchAll(/(?:import|from)\s*"\.\/([\w-]+\.js)"/g)) queue.push(`/admin/assets/${m[1]}`);
  }
  return bytes / 1024;
}

async function main(): Promise<void> {
  await build();
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
    await timed('admin_maintenance_ms', '/admin/settings/maintenance');
    await timed('admin_logs_ms', '/admin/settings/logs');
    await timed('admin_about_ms', '/admin/settings/about');
    console.log(`BENCH admin_js_kb ${(await pageJavaScriptGzipKb(url, await page('/admin/lists'))).toFixed(1)}  (gzipped JavaScript of /admin/lists)`);
  } finally {
    await stopChildServer(child);
  }
}

await main();
