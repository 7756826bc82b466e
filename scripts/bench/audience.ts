// Audience benchmark: 1,000,000 subscribers with realistic attribs over 20 lists (plus views and
// clicks for the dashboard), then the shipped server (dist/cli.js serve) in a child process, so
// that its memory is measured alone (VmHWM). Prints `BENCH <name> <value>` lines (medians).
// The database is built once into .bench/audience-<N>.db and reused while it holds N
// subscribers and no migration unknown to this tree (pending ones are applied);
// BENCH_REBUILD=1 builds it afresh. Run: flock /work/bench.lock npm run bench:audience
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { closeDatabase, openDatabase, type DB } from '../../src/db/connection.ts';
import { appliedVersions, listMigrations, migrate } from '../../src/db/migrate.ts';
import { install } from '../../src/install.ts';
import { UserStore } from '../../src/users/store.ts';
import { benchDashboard } from './dashboard.ts';

const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
const LISTS = 20;
const RUNS = 5;
const dir = join(process.cwd(), '.bench');
const dbPath = join(dir, `audience-${SUBSCRIBERS}.db`);

const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Eva', 'Filipe', 'Greta', 'Hugo', 'Ines', 'Joao', 'Karin', 'Luis', 'Marta', 'Nuno', 'Olga', 'Pedro', 'Rita', 'Sara', 'Tiago', 'Vera'];
const LAST = ['Silva', 'Santos', 'Ferreira', 'Pereira', 'Oliveira', 'Costa', 'Rodrigues', 'Martins', 'Jesus', 'Sousa', 'Fernandes', 'Goncalves', 'Gomes', 'Lopes', 'Marques', 'Alves', 'Almeida', 'Ribeiro', 'Pinto', 'Carvalho'];
const CITIES = ['Porto', 'Lisbon', 'Faro', 'Braga', 'Coimbra', 'Madrid', 'Paris', 'Berlin', 'Rome', 'Vienna', 'Prague', 'Oslo', 'Dublin', 'London', 'Warsaw'];
const PLANS = ['free', 'pro', 'team'];
const DOMAINS = ['example.com', 'mail.test', 'corp.example', 'inbox.test'];

function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

function insertSubscribers(db: DB, from: number, to: number, rand: () => number): void {
  const sub = db.prepare('INSERT INTO subscribers (uuid, email, name, attribs, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)');
  const sl = db.prepare(`INSERT INTO subscriber_lists (subscriber_id, list_id, status, source) VALUES (?, ?, ?, 'import')`);
  const pick = <T>(a: T[]) => a[Math.floor(rand() * a.length)];
  const t0 = Date.UTC(2020, 0, 1);
  db.transaction(() => {
    for (let i = from; i < to; i++) {
      const first = pick(FIRST);
      const last = pick(LAST);
      const ts = new Date(t0 + i * 60_000).toISOString();
      const attribs = { city: pick(CITIES), plan: pick(PLANS), age: 18 + Math.floor(rand() * 60), score: Math.round(rand() * 1000) / 10,
        company: { name: `${pick(LAST)} Lda`, size: Math.floor(rand() * 500) }, tags: [pick(PLANS), pick(CITIES)] };
      const hex = i.toString(16).padStart(12, '0');
      const r = sub.run(`00000000-0000-4000-8000-${hex}`, `${first}.${last}.${i}@${pick(DOMAINS)}`.toLowerCase(), `${first} ${last}`,
        JSON.stringify(attribs), rand() < 0.02 ? 'blocklisted' : 'enabled', ts, ts);
      const id = Number(r.lastInsertRowid);
      const n = 1 + Math.floor(rand() * 3);
      const first_list = 1 + Math.floor(rand() * LISTS);
      for (let k = 0; k < n; k++) sl.run(id, 1 + ((first_list + k * 7) % LISTS), rand() < 0.8 ? 'confirmed' : rand() < 0.5 ? 'unconfirmed' : 'unsubscribed');
    }
  })();
}

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

/** True when the kept database can be reused: N subscribers, no migration this tree lacks. */
function reusable(): boolean {
  if (process.env.BENCH_REBUILD || !existsSync(dbPath)) return false;
  const db = openDatabase(dbPath);
  try {
    const known = new Set(listMigrations().map((m) => m.version));
    if ([...appliedVersions(db)].some((v) => !known.has(v))) return false;
    if (db.prepare('SELECT COUNT(*) FROM subscribers').pluck().get() !== SUBSCRIBERS) return false;
    for (const m of migrate(db)) console.error(`applied migration ${m.version}_${m.name} to the kept database`);
    return true;
  } finally {
    closeDatabase(db);
  }
}

async function build(): Promise<void> {
  mkdirSync(dir, { recursive: true });
  if (reusable()) return;
  for (const s of ['', '-wal', '-shm']) rmSync(dbPath + s, { force: true });
  await install(dbPath, { adminPassword: 'bench-password' });
  const db = openDatabase(dbPath);
  const lists = db.prepare(`INSERT INTO lists (uuid, name, type, optin) VALUES (?, ?, ?, ?)`);
  for (let i = 1; i <= LISTS; i++) lists.run(`10000000-0000-4000-8000-${String(i).padStart(12, '0')}`, `List ${i}`, i % 2 ? 'public' : 'private', i % 3 ? 'single' : 'double');
  const rand = rng(42);
  const start = performance.now();
  // Set-up only: fill the search index in one statement at the end instead of row by row.
  const ftsTrigger = db.prepare(`SELECT sql FROM sqlite_master WHERE name = 'subscribers_fts_insert'`).pluck().get() as string;
  db.exec('DROP TRIGGER subscribers_fts_insert');
  for (let i = 0; i < SUBSCRIBERS; i += 50_000) {
    insertSubscribers(db, i, Math.min(SUBSCRIBERS, i + 50_000), rand);
    process.stderr.write(`\rbuilding: ${Math.min(SUBSCRIBERS, i + 50_000)} subscribers`);
  }
  process.stderr.write('\n');
  db.exec(`INSERT INTO subscribers_fts (rowid, name, email, attribs) SELECT id, name, email,
    (SELECT group_concat(value, ' ') FROM json_tree(subscribers.attribs) WHERE type = 'text') FROM subscribers`);
  db.exec(ftsTrigger);
  // Dashboard data: a finished campaign, 500,000 views and 100,000 clicks over 90 days.
  db.exec(`INSERT INTO campaigns (uuid, name, subject, from_email, status, sent) VALUES ('bench-c1', 'C1', 'S', 'f@x.io', 'finished', 900000);
    INSERT INTO links (uuid, url) VALUES ('bench-k1', 'https://example.com')`);
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${Math.floor(SUBSCRIBERS / 2)})
    INSERT INTO campaign_views (campaign_id, subscriber_id, created_at)
    SELECT 1, i, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || (i % 90) || ' days') FROM n`);
  db.exec(`WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${Math.floor(SUBSCRIBERS / 10)})
    INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at)
    SELECT 1, 1, i, strftime('%Y-%m-%dT%H:%M:%fZ', '2025-01-01', '+' || (i % 90) || ' days') FROM n`);
  console.log(`BENCH build_1m_s ${((performance.now() - start) / 1000).toFixed(1)}`);
  db.exec('ANALYZE');
  closeDatabase(db);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The shipped server alone in a child process: dist/cli.js (bundled from this tree first)
 * running `serve` on the kept database; resolves with its URL once it listens.
 */
async function startChildServer(): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['dist/cli.js', 'serve', '--db', dbPath, '--address', '127.0.0.1:0', '--uploads', join(dir, 'uploads')], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const m = /listening on (\S+)/.exec(line);
      if (m) resolve(m[1]);
    });
    child.once('exit', (code) => reject(new Error(`server child exited with ${code}`)));
  });
  return { url, child };
}

async function stopChildServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Peak resident set of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
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
