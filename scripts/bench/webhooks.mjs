// npm run bench:webhooks — webhook deliveries made by subscriber creations through the API.
// Builds dist/, then runs the built server (dist/cli.js serve) on fresh databases with
// security.webhooks_allow_private on, creating N subscribers (default 100,000, env
// BENCH_WEBHOOKS_N) with POST /api/subscribers from C clients at once (default 12, env
// BENCH_WEBHOOKS_CONCURRENCY): first with no webhook, then with one webhook subscribed to
// subscriber.created whose receiver (webhook-receiver.mjs, a node:http server in its own
// process answering 200) checks every signature; that run waits until every delivery arrived.
// Prints:
//   BENCH webhooks_api_p95_ms_without   p95 of POST /api/subscribers with no webhook
//   BENCH webhooks_api_p95_ms           the same with the webhook (target: within 10% of the above)
//   BENCH webhooks_api_creates_per_s_without / _with   creations per second: the API's pace
//   BENCH webhooks_deliveries_per_s     N / (the first creation to the last delivery): with a
//                                       worker that keeps pace, the API's pace (target >= 2,000)
//   BENCH webhooks_lag_ms               from the last API answer to the last delivery
//   BENCH webhooks_backlog_per_s        the worker's own ceiling: the server stopped, the N
//                                       subscriber.created events copied in SQL (new uuids), the
//                                       server started again; deliveries per second from the
//                                       first of those N deliveries to the last
// It fails when a delivery is missing or a signature does not verify.
import Database from 'better-sqlite3';
import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { Agent, request } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const N = Number(process.env.BENCH_WEBHOOKS_N ?? 100_000);
const CONCURRENCY = Number(process.env.BENCH_WEBHOOKS_CONCURRENCY ?? 12);
/** A run fails when no delivery arrives for this long while some are missing. */
const STALL_MS = 60_000;
const root = new URL('../../', import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), 'listmgr-bench-webhooks-'));
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const p95 = (sorted) => sorted[Math.min(sorted.length - 1, Math.floor(0.95 * sorted.length))];

const cli = (args, env = {}) =>
  execFileSync(process.execPath, [join(root, 'dist/cli.js'), ...args], { cwd: root, env: { ...process.env, ...env }, encoding: 'utf8' });

/** A fresh database with an API user (Super Admin) and webhooks to private addresses allowed; answers `name:token`. */
function installDb(path) {
  cli(['install', '--db', path], { LISTMGR_ADMIN_USER: 'admin', LISTMGR_ADMIN_PASSWORD: 'bench-password-1' });
  const db = new Database(path);
  db.prepare(`INSERT INTO settings (key, value) VALUES ('security.webhooks_allow_private', 'true')
    ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run();
  db.close();
  return cli(['api-user', 'create', 'bench', '--db', path]).trim().split('\n').pop();
}

/** The built server on the database, in its own process; resolves with its address once it listens. */
async function startServer(dbPath) {
  const child = spawn(process.execPath, [join(root, 'dist/cli.js'), 'serve', '--db', dbPath, '--address', '127.0.0.1:0', '--uploads', join(dir, 'uploads')], {
    cwd: root, stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Keep the end of its log for an error message; reading it also keeps its pipes from filling.
  let log = '';
  for (const out of [child.stdout, child.stderr]) out.on('data', (d) => (log = (log + d.toString()).slice(-4000)));
  const address = await new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const m = /listening on http:\/\/([^:]+):(\d+)/.exec(line);
      if (m) resolve({ host: m[1], port: Number(m[2]) });
    });
    child.once('exit', (code) => reject(new Error(`the server exited (${code}): ${log}`)));
  });
  return { ...address, child, log: () => log };
}

async function stopServer(server) {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGTERM');
  await exited;
}

/** The receiver process: its port, and its counters on demand. */
async function startReceiver() {
  const child = spawn(process.execPath, [join(root, 'scripts/bench/webhook-receiver.mjs')], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value);
  const { port } = await next();
  return {
    port,
    setSecret: (secret) => child.stdin.write(`secret ${secret}\n`),
    stats: () => (child.stdin.write('stats\n'), next()),
    reset: () => child.stdin.write('reset\n'),
    stop: () => child.stdin.write('exit\n'),
  };
}

/** A JSON API call over the keep-alive agent: resolves with the status and the parsed body. */
function api(server, agent, token, method, path, body) {
  const payload = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request({
      host: server.host, port: server.port, method, path: `/api${path}`, agent,
      headers: { authorization: `Basic ${Buffer.from(token).toString('base64')}`, ...(payload ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString() || 'null') }));
    });
    req.once('error', reject);
    req.end(payload);
  });
}

/**
 * Creates N subscribers (on one list, as a sign-up form would) from CONCURRENCY clients;
 * answers each request's milliseconds, sorted, and the wall-clock start and end.
 */
async function createSubscribers(server, agent, token, listId) {
  let next = 0;
  const ms = [];
  const started = Date.now();
  const client = async () => {
    for (let i = next++; i < N; i = next++) {
      const t0 = performance.now();
      const res = await api(server, agent, token, 'POST', '/subscribers', {
        email: `bench.${i}@example${i % 50}.com`, name: `Bench ${i}`, status: 'enabled', lists: [listId], attribs: { city: 'Porto', n: i },
      });
      ms.push(performance.now() - t0);
      if (res.status !== 200) throw new Error(`POST /api/subscribers answered ${res.status}: ${JSON.stringify(res.body)}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, client));
  return { ms: ms.sort((a, b) => a - b), started, ended: Date.now() };
}

/** Waits until the receiver has `total` distinct deliveries; fails when none arrives for STALL_MS. */
async function delivered(receiver, total) {
  let stats = await receiver.stats();
  let progressAt = Date.now();
  while (stats.unique < total) {
    await sleep(100);
    const now = await receiver.stats();
    if (now.received !== stats.received) progressAt = Date.now();
    else if (Date.now() - progressAt > STALL_MS) throw new Error(`deliveries stopped at ${now.unique} of ${total}`);
    stats = now;
  }
  return stats;
}

/** Runs `fn` with the built server on the database and a keep-alive agent to it; stops the server after. */
async function withServer(dbPath, fn) {
  const server = await startServer(dbPath);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    return await fn(server, agent);
  } catch (e) {
    throw new Error(`${e.message}\nthe server's log ends with:\n${server.log()}`);
  } finally {
    agent.destroy();
    await stopServer(server);
  }
}

/** Creates the subscribers on a fresh database; with `receiver`, a webhook on subscriber.created posts to it. */
function run(dbPath, receiver) {
  const token = installDb(dbPath);
  return withServer(dbPath, async (server, agent) => {
    const list = await api(server, agent, token, 'POST', '/lists', { name: 'Bench', type: 'public', optin: 'single' });
    if (list.status !== 200) throw new Error(`POST /api/lists answered ${list.status}: ${JSON.stringify(list.body)}`);
    if (receiver) {
      const hook = await api(server, agent, token, 'POST', '/webhooks', { name: 'Bench receiver', url: `http://127.0.0.1:${receiver.port}/hook`, events: ['subscriber.created'] });
      if (hook.status !== 200) throw new Error(`POST /api/webhooks answered ${hook.status}: ${JSON.stringify(hook.body)}`);
      receiver.setSecret(hook.body.data.secret);
    }
    const created = await createSubscribers(server, agent, token, list.body.data.id);
    return receiver ? { created, stats: await delivered(receiver, N) } : { created };
  });
}

/**
 * The worker's ceiling: with the server stopped, the N subscriber.created events are copied
 * (new ids and uuids, the same payloads), then the server is started again and delivers them
 * with nothing else to do; answers deliveries per second from the first to the last.
 */
async function backlog(dbPath, receiver) {
  const db = new Database(dbPath);
  db.prepare(`INSERT INTO events (type, actor, data) SELECT type, actor, data FROM events WHERE type = 'subscriber.created' ORDER BY id`).run();
  db.close();
  receiver.reset();
  const stats = assertSigned(await withServer(dbPath, () => delivered(receiver, 2 * N)));
  return Math.round(N / Math.max(0.001, (stats.last - stats.first) / 1000));
}

function assertSigned(stats) {
  if (stats.bad) throw new Error(`${stats.bad} deliveries had no valid signature`);
  return stats;
}

try {
  execFileSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
  console.log(`${N} subscribers, ${CONCURRENCY} clients at once; load average ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
  const perS = (c) => Math.round(N / ((c.ended - c.started) / 1000));
  const without = (await run(join(dir, 'without.db'), null)).created;
  console.log(`BENCH webhooks_api_p95_ms_without ${p95(without.ms).toFixed(1)}`);
  console.log(`BENCH webhooks_api_creates_per_s_without ${perS(without)}`);
  const receiver = await startReceiver();
  try {
    const { created, stats } = await run(join(dir, 'with.db'), receiver);
    assertSigned(stats);
    console.log(`deliveries: ${stats.received} for ${stats.unique} events (${stats.received - stats.unique} repeated), every signature valid`);
    console.log(`BENCH webhooks_api_p95_ms ${p95(created.ms).toFixed(1)}`);
    console.log(`BENCH webhooks_api_creates_per_s_with ${perS(created)}`);
    console.log(`BENCH webhooks_deliveries_per_s ${Math.round(N / ((stats.last - created.started) / 1000))}`);
    console.log(`BENCH webhooks_lag_ms ${Math.max(0, stats.last - created.ended)}`);
    console.log(`BENCH webhooks_backlog_per_s ${await backlog(join(dir, 'with.db'), receiver)}`);
  } finally {
    receiver.stop();
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
