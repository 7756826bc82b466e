// Audience benchmark: the 1M-subscriber database (audience-db.ts) served by the shipped server
// in a child process. Prints `BENCH <name> <value>` lines (medians).
// Run: flock /work/bench.lock npm run bench:audience
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { closeDatabase, openDatabase } from '../../src/db/connection.ts';
import { install } from '../../src/install.ts';
import { UserStore } from '../../src/users/store.ts';
import { build, dbPath, dir, insertSubscribers, LISTS, median, peakRssMb, rng, startChildServer, stopChildServer } from './audience-db.ts';
import { benchDashboard } from './dashboard.ts';

const RUNS = 5;

/** Cost of the search index on bulk inserts: the same rows with and without the FTS triggers. */
async function importCost(): Promise<{ rows: number; withIndex: number; without: number }> {
  const rows = Number(process.env.BENCH_IMPORT_ROWS ?? 20_000);
  const measure = async (keepIndex: boolean) => {
    const path = join(dir, `import-cost-${keepIndex}.db`);
    for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
    await install(path, { adminPassword: 'bench-password' });
    const db = openDatabase(path);
    for (let i = 1; i <= LISTS; i++) db.prepare('INSERT INTO lists (uuid, name) VALUES (?, ?)').run(`l${i}`, `L${i}`);
    if (!keepIndex) for (const t of ['insert', 'update', 'delete']) db.exec(`DROP TRIGGER subscribers_fts_${t}`);
    const start = performance.now();
    insertSubscribers(db, 0, rows, rng(7));
    const ms = performance.now() - start;
    closeDatabase(db);
    for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
    return ms;
  };
  return { rows, withIndex: await measure(true), without: await measure(false) };
}

async function main(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  if (!process.env.BENCH_SKIP_IMPORT_COST) {
    const cost = await importCost();
    console.log(`BENCH import_rows_with_search_index_ms ${cost.withIndex.toFixed(0)}  (${cost.rows} rows)`);
    console.log(`BENCH import_rows_without_search_index_ms ${cost.without.toFixed(0)}  (${cost.rows} rows)`);
  }
  await build();
  execFileSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const setup = openDatabase(dbPath);
  const name = `bench${Date.now()}`;
  const { token } = new UserStore(setup).createApiUser(name);
  closeDatabase(setup);

  const auth = `Basic ${Buffer.from(`${name}:${token}`).toString('base64')}`;
  let { url, child } = await startChildServer();
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${text.slice(0, 200)}`);
    return JSON.parse(text);
  };
  const timed = async (path: string) => {
    const ms: number[] = [];
    let last: any;
    for (let i = 0; i < RUNS; i++) {
      const s = performance.now();
      last = await call('GET', path);
      ms.push(performance.now() - s);
    }
    return { ms: median(ms), last };
  };

  try {
    const page = await timed('/api/subscribers?per_page=50');
    console.log(`BENCH page50_ms ${page.ms.toFixed(1)}  (total ${page.last.data.total})`);
    const seg = await timed(`/api/subscribers?per_page=50&query=${encodeURIComponent("subscribers.attribs->>'city' = 'Porto'")}`);
    console.log(`BENCH segment_page_ms ${seg.ms.toFixed(1)}  (total ${seg.last.data.total})`);
    const lists = await timed('/api/lists?per_page=all');
    console.log(`BENCH lists_counts_ms ${lists.ms.toFixed(1)}  (${lists.last.data.total} lists)`);
    const search = await timed('/api/subscribers?per_page=50&search=rita.pinto.99');
    console.log(`BENCH search_ms ${search.ms.toFixed(1)}  (total ${search.last.data.total})`);

    const target = (await call('POST', '/api/lists', { name: `bench target ${Date.now()}`, type: 'private', optin: 'single' })).data.id;
    const s = performance.now();
    await call('PUT', '/api/subscribers/query/lists', { query: 'subscribers.id > 0', action: 'add', target_list_ids: [target], status: 'confirmed' });
    console.log(`BENCH add_by_query_s ${((performance.now() - s) / 1000).toFixed(2)}  (list now ${(await call('GET', `/api/lists/${target}`)).data.subscriber_count})`);
    await call('DELETE', `/api/lists/${target}`);

    // A fresh server process for the stream, so its peak is the stream's (plus start-up).
    await stopChildServer(child);
    ({ url, child } = await startChildServer());
    const res = await fetch(`${url}/api/subscribers?per_page=all`, { headers: { authorization: auth } });
    let bytes = 0;
    for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.length;
    console.log(`BENCH all_stream_peak_rss_mb ${peakRssMb(child.pid!).toFixed(0)}  (server process VmHWM; ${(bytes / 1024 / 1024).toFixed(0)} MB streamed)`);
  } finally {
    await stopChildServer(child);
  }
  const dash = await benchDashboard(dbPath);
  console.log(`BENCH dashboard_counts_ms ${dash.countsMs.toFixed(2)}`);
  console.log(`BENCH dashboard_charts_ms ${dash.chartsMs.toFixed(2)}`);
}

await main();
