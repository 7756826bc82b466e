// npm run bench:import — imports a generated ZIP of N subscribers with attributes (default
// 1,000,000, env BENCH_IMPORT_ROWS) through the real HTTP API of the built app (`npm run build`
// first, then dist/cli.js serve, parser thread from dist/import-parser.js) running in its own
// process, into a fresh database, twice: without a consumer of the change log (no event but
// import.finished is written), then with one, a webhook subscribed to subscriber.created (one
// event per row, written by the import's writer thread in bulk). It prints:
//   BENCH import_rows_per_s        rows imported per second (POST to status "finished")
//   BENCH import_rows_per_s_with_consumer   the same with the consumer
//   BENCH import_peak_rss_mb       the server process's peak resident memory
//   BENCH api_ms_while_importing   slowest answer of GET /api/dashboard/counts during the import
//   BENCH api_write_p95_ms_while_importing, BENCH api_write_max_ms_while_importing
//                                  POST /api/subscribers every 100 ms during the import: the
//                                  server's writes wait for the import's transaction under way
//   BENCH baseline_rows_per_s      the same rows inserted by a bare better-sqlite3 batched loop
//                                  into the same schema in this process: the ceiling
// BENCH_IMPORT_BASELINE=0 skips the baseline (it keeps the per-row triggers, so it is slow).
// BENCH_IMPORT_FTS=1 adds a trigram FTS5 index on subscribers kept by an AFTER INSERT trigger
// (what a search index costs an import), before both runs.
import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, openAsBlob, readFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import yazl from 'yazl';
import { Uuid7Generator } from '../../src/imports/uuid7.ts';

const ROWS = Number(process.env.BENCH_IMPORT_ROWS ?? 1_000_000);
const FILES = 2;
const WITH_FTS = process.env.BENCH_IMPORT_FTS === '1';
const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'listmgr-bench-import-'));

const FIRST = ['jane', 'john', 'alex', 'maria', 'li', 'omar', 'sara', 'ken', 'ana', 'yuki'];
const CITIES = ['Berlin', 'Lagos', 'Lima', 'Pune', 'Oslo', 'Osaka'];

/** Row i: addresses in no particular order (as real exports are), with an attributes object. */
function row(i: number): { email: string; name: string; attribs: string } {
  const h = (Math.imul(i + 1, 2654435761) >>> 0).toString(36);
  const first = FIRST[i % FIRST.length];
  return {
    email: `${first}.${h}${i}@example${i % 97}.com`,
    name: `${first[0].toUpperCase()}${first.slice(1)} ${h}`,
    attribs: JSON.stringify({ city: CITIES[i % CITIES.length], score: i % 100, plan: i % 3 ? 'free' : 'pro', tags: ['news', 'beta'] }),
  };
}

function* csvChunks(from: number, to: number): Generator<string> {
  let buf = 'email,name,attributes\n';
  for (let i = from; i < to; i++) {
    const r = row(i);
    buf += `${r.email},${r.name},"${r.attribs.replace(/"/g, '""')}"\n`;
    if (buf.length > 64 * 1024) {
      yield buf;
      buf = '';
    }
  }
  yield buf;
}

async function makeZip(path: string): Promise<void> {
  const zip = new yazl.ZipFile();
  const per = Math.ceil(ROWS / FILES);
  for (let f = 0; f < FILES; f++) zip.addReadStream(Readable.from(csvChunks(f * per, Math.min(ROWS, (f + 1) * per))), `subscribers-${f + 1}.csv`);
  zip.end();
  const out = createWriteStream(path);
  zip.outputStream.pipe(out);
  await once(out, 'finish');
}

const FTS_SQL = `
  CREATE VIRTUAL TABLE bench_fts USING fts5 (name, email, content = '', contentless_delete = 1, tokenize = 'trigram');
  CREATE TRIGGER bench_fts_insert AFTER INSERT ON subscribers BEGIN
    INSERT INTO bench_fts (rowid, name, email) VALUES (new.id, new.name, new.email);
  END;`;

const cli = (args: string[], env: Record<string, string> = {}) =>
  execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });

function installDb(path: string): void {
  cli(['install', '--db', path], { LISTMGR_ADMIN_USER: 'admin', LISTMGR_ADMIN_PASSWORD: 'bench-password-1' });
  const db = new Database(path);
  db.prepare("INSERT INTO lists (uuid, name, type, optin) VALUES ('b0000000-0000-7000-8000-000000000001', 'Bench', 'private', 'single')").run();
  if (WITH_FTS) db.exec(FTS_SQL);
  db.close();
}

/**
 * Makes a webhook subscribed to subscriber.created, to a receiver that takes every delivery:
 * the change log then has a consumer of that type, and the import writes an event per row.
 */
function addConsumer(path: string, url: string): void {
  const db = new Database(path);
  db.prepare(`INSERT INTO webhooks (uuid, name, url, events, secret) VALUES (?, 'bench', ?, '["subscriber.created"]', ?)`)
    .run(randomUUID(), url, `whsec_${randomBytes(24).toString('base64')}`);
  db.close();
}

/**
 * The subscriber.created events the import wrote: ROWS with the consumer, none without. (The
 * write probe's subscribers, made one at a time through the API, always have theirs.)
 */
function createdEvents(path: string): number {
  const db = new Database(path, { readonly: true });
  try {
    return db.prepare("SELECT COUNT(*) FROM events WHERE type = 'subscriber.created' AND data ->> '$.subscriber.email' NOT LIKE '%@probe.example'").pluck().get() as number;
  } finally {
    db.close();
  }
}

/** The ceiling: the same rows and subscriptions, single-row prepared inserts in transactions of 10,000. */
function baseline(): number {
  const path = join(dir, 'baseline.db');
  installDb(path);
  const db = new Database(path);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('cache_size = -98304');
  const insertSub = db.prepare("INSERT INTO subscribers (uuid, email, name, attribs, status, created_at, updated_at) VALUES (?, ?, ?, ?, 'enabled', ?, ?)");
  const insertSl = db.prepare("INSERT INTO subscriber_lists (subscriber_id, list_id, status, source, created_at, updated_at) VALUES (?, 1, 'confirmed', 'import', ?, ?)");
  const uuids = new Uuid7Generator();
  const t0 = performance.now();
  for (let i = 0; i < ROWS; i += 10_000) {
    const now = new Date().toISOString();
    db.transaction(() => {
      for (let k = i; k < Math.min(ROWS, i + 10_000); k++) {
        const r = row(k);
        const id = insertSub.run(uuids.next(), r.email, r.name, r.attribs, now, now).lastInsertRowid;
        insertSl.run(id, now, now);
      }
    })();
  }
  const s = (performance.now() - t0) / 1000;
  db.close();
  return ROWS / s;
}

/** Adds a subscriber every 100 ms until `until` settles; answers each request's milliseconds, sorted. */
async function writeProbe(base: string, headers: Record<string, string>, until: Promise<unknown>): Promise<number[]> {
  let running = true;
  void until.finally(() => (running = false));
  const ms: number[] = [];
  for (let i = 0; running; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}/subscribers`, {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify({ email: `probe${i}@probe.example`, name: `Probe ${i}` }),
    });
    if (res.status !== 200) throw new Error(`probe write refused: ${res.status} ${await res.text()}`);
    ms.push(performance.now() - t0);
    await new Promise((r) => setTimeout(r, 100));
  }
  return ms.sort((a, b) => a - b);
}

interface ApiRun {
  rowsPerS: number;
  peakRssMb: number;
  apiMs: number;
  writeP95Ms: number;
  writeMaxMs: number;
}

async function viaApi(zipPath: string, consumer: string | null): Promise<ApiRun> {
  const dbPath = join(dir, consumer ? 'api-consumer.db' : 'api.db');
  installDb(dbPath);
  if (consumer) addConsumer(dbPath, consumer);
  const token = cli(['api-user', 'create', 'bench', '--db', dbPath]).trim().split('\n').pop()!;
  const port = 20000 + Math.floor(Math.random() * 20000);
  const server = spawn(process.execPath, [join(root, 'dist/cli.js'), 'serve', '--db', dbPath, '--address', `127.0.0.1:${port}`], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let serverLog = '';
  for (const out of [server.stdout!, server.stderr!]) out.on('data', (d: Buffer) => (serverLog += d.toString()));
  await new Promise<void>((resolve, reject) => {
    server.stdout!.on('data', (d: Buffer) => d.toString().includes('listening') && resolve());
    server.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  const base = `http://127.0.0.1:${port}/api`;
  const headers = { authorization: `Basic ${Buffer.from(token).toString('base64')}` };
  try {
    const form = new FormData();
    form.set('params', JSON.stringify({ mode: 'subscribe', delim: ',', lists: [1], subscription_status: 'confirmed' }));
    form.set('file', await openAsBlob(zipPath), 'subscribers.zip');
    const t0 = performance.now();
    const res = await fetch(`${base}/import/subscribers`, { method: 'POST', headers, body: form });
    if (res.status !== 200) throw new Error(`import refused: ${res.status} ${await res.text()}`);
    const watched = (async () => {
      let apiMs = 0;
      for (;;) {
        const q0 = performance.now();
        await (await fetch(`${base}/dashboard/counts`, { headers })).text();
        apiMs = Math.max(apiMs, performance.now() - q0);
        const status = ((await (await fetch(`${base}/import/subscribers`, { headers })).json()) as { data: { status: string; imported: number } }).data;
        if (status.status !== 'importing' && status.status !== 'stopping') return { apiMs, status, s: (performance.now() - t0) / 1000 };
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const [{ apiMs, status, s }, writes] = await Promise.all([watched, writeProbe(base, headers, watched)]);
    if (status.status !== 'finished' || status.imported !== ROWS) throw new Error(`import ended ${JSON.stringify(status)}`);
    if (/parser thread script not found/.test(serverLog)) throw new Error('the server parsed on its main thread (dist/import-parser.js missing)');
    const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${server.pid}/status`, 'utf8'));
    const writeP95Ms = writes[Math.min(writes.length - 1, Math.floor(0.95 * writes.length))];
    return { rowsPerS: ROWS / s, peakRssMb: hwm ? Number(hwm[1]) / 1024 : NaN, apiMs, writeP95Ms, writeMaxMs: writes[writes.length - 1] };
  } finally {
    server.kill('SIGTERM');
    await once(server, 'exit');
    // A figure "with a consumer" is one only if the events were written (and none without).
    const created = createdEvents(dbPath);
    if (consumer && created !== ROWS) throw new Error(`the import with a consumer wrote ${created} subscriber.created events, not ${ROWS}: the webhook did not make a consumer of the change log`);
    if (!consumer && created) throw new Error(`the import without a consumer wrote ${created} subscriber.created events`);
  }
}

/** A webhook receiver that takes every delivery; answers its URL. */
async function startReceiver(): Promise<{ url: string; close(): void }> {
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(204).end());
  });
  receiver.listen(0, '127.0.0.1');
  await once(receiver, 'listening');
  return { url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/`, close: () => receiver.close() };
}

try {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  const zipPath = join(dir, 'subscribers.zip');
  await makeZip(zipPath);
  const api = await viaApi(zipPath, null);
  const receiver = await startReceiver();
  const consumed = await viaApi(zipPath, receiver.url).finally(() => receiver.close());
  const base = process.env.BENCH_IMPORT_BASELINE === '0' ? NaN : baseline();
  console.log(`rows: ${ROWS} in ${FILES} CSV files${WITH_FTS ? ', with a trigram FTS5 index on name and email' : ''}`);
  console.log(`BENCH import_rows_per_s ${Math.round(api.rowsPerS)}`);
  console.log(`BENCH import_rows_per_s_with_consumer ${Math.round(consumed.rowsPerS)}`);
  console.log(`BENCH import_peak_rss_mb ${api.peakRssMb.toFixed(0)}`);
  console.log(`BENCH api_ms_while_importing ${api.apiMs.toFixed(1)}`);
  console.log(`BENCH api_write_p95_ms_while_importing ${api.writeP95Ms.toFixed(1)}`);
  console.log(`BENCH api_write_max_ms_while_importing ${api.writeMaxMs.toFixed(1)}`);
  console.log(`BENCH baseline_rows_per_s ${Math.round(base)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
