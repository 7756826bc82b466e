// The audience benchmarks' database and server: 1,000,000 subscribers with realistic attribs
// over 20 lists (plus views and clicks for the dashboard), built once into
// .bench/audience-<N>.db and reused while it holds N subscribers and no migration unknown to
// this tree (pending ones are applied); BENCH_REBUILD=1 builds it afresh. The shipped server
// (dist/cli.js serve) runs on it in a child process, so that its memory is measured alone.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { closeDatabase, openDatabase, type DB } from '../../src/db/connection.ts';
import { appliedVersions, listMigrations, migrate } from '../../src/db/migrate.ts';
import { install } from '../../src/install.ts';

export const SUBSCRIBERS = Number(process.env.BENCH_SUBSCRIBERS ?? 1_000_000);
export const LISTS = 20;
export const dir = join(process.cwd(), '.bench');
export const dbPath = join(dir, `audience-${SUBSCRIBERS}.db`);

const FIRST = ['Ana', 'Bruno', 'Carla', 'Diego', 'Eva', 'Filipe', 'Greta', 'Hugo', 'Ines', 'Joao', 'Karin', 'Luis', 'Marta', 'Nuno', 'Olga', 'Pedro', 'Rita', 'Sara', 'Tiago', 'Vera'];
const LAST = ['Silva', 'Santos', 'Ferreira', 'Pereira', 'Oliveira', 'Costa', 'Rodrigues', 'Martins', 'Jesus', 'Sousa', 'Fernandes', 'Goncalves', 'Gomes', 'Lopes', 'Marques', 'Alves', 'Almeida', 'Ribeiro', 'Pinto', 'Carvalho'];
const CITIES = ['Porto', 'Lisbon', 'Faro', 'Braga', 'Coimbra', 'Madrid', 'Paris', 'Berlin', 'Rome', 'Vienna', 'Prague', 'Oslo', 'Dublin', 'London', 'Warsaw'];
const PLANS = ['free', 'pro', 'team'];
const DOMAINS = ['example.com', 'mail.test', 'corp.example', 'inbox.test'];

export function rng(seed: number) {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32);
}

export function insertSubscribers(db: DB, from: number, to: number, rand: () => number): void {
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

/** Builds the 1M-subscriber database, or reuses the kept one. */
export async function build(): Promise<void> {
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

export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * The shipped server alone in a child process: dist/cli.js (bundled from this tree first)
 * running `serve` on the kept database; resolves with its URL once it listens.
 */
export async function startChildServer(): Promise<{ url: string; child: ChildProcess }> {
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

export async function stopChildServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Peak resident set of a process so far (VmHWM), in MB. */
export function peakRssMb(pid: number): number {
  const kb = Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]);
  return kb / 1024;
}

