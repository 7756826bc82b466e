// npm run bench:footprint — what the server costs on a small VPS: installs a database, then
// starts the real server as a user would (the ./listmgr launcher over the dist/ bundle) several
// times. Prints BENCH startup_ms (spawn to the first 200 on /health, the median of the runs),
// BENCH idle_rss_mb (VmRSS from /proc/PID/status after 3 s of idling, the median) and
// BENCH idle_rss_settled_mb (the same after 12 s: V8 makes its first memory-reducing collection
// of an idle process at about 8 s, which start-up's garbage and grown young generation wait for);
// then the same of the release executable (npm run release), as release_startup_ms,
// release_idle_rss_mb and release_idle_rss_settled_mb; then floor_idle_rss_mb and
// floor_idle_rss_settled_mb, the same of footprint-floor.mjs: the web and database stack listmgr
// is built on, with nothing of listmgr in it.
// BENCH_RUNS sets the number of runs (default 5); BENCH_ENV='K=V K2=V2' adds to the server's
// environment (to try a V8 flag: BENCH_ENV='NODE_OPTIONS=--max-semi-space-size=1').
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { install } from '../../src/install.ts';
import { freePort } from '../../test/helpers/ports.ts';

const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string };

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const IDLE_MS = 3000;
const SETTLED_MS = 12_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function healthStatus(port: number): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: '/health', timeout: 1000 }, (res) => {
      res.resume();
      res.once('end', () => resolve(res.statusCode ?? 0));
    });
    req.once('error', () => resolve(0));
    req.once('timeout', () => req.destroy());
    req.end();
  });
}

function rssMb(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) / 1024;
}

const extraEnv = Object.fromEntries((process.env.BENCH_ENV ?? '').split(/\s+/).filter(Boolean).map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]));

interface Run { startupMs: number; rssMb: number; settledMb: number }

/** Starts a server (the command with its arguments, given the port), waits for /health, measures and stops it. */
async function run(command: string, args: (port: number) => string[]): Promise<Run> {
  const port = await freePort();
  const started = performance.now();
  const child = spawn(command, args(port), {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, LISTMGR_ROOT_URL: '', ...extraEnv },
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited (code ${child.exitCode})`);
      if ((await healthStatus(port)) === 200) break;
      await sleep(5);
    }
    const startupMs = performance.now() - started;
    await sleep(IDLE_MS);
    const idle = rssMb(child.pid!);
    await sleep(SETTLED_MS - IDLE_MS);
    return { startupMs, rssMb: idle, settledMb: rssMb(child.pid!) };
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
const dir = mkdtempSync(join(tmpdir(), 'listmgr-footprint-'));
try {
  const dbPath = join(dir, 'listmgr.db');
  await install(dbPath, { adminUser: 'admin', adminPassword: 'admin-password-1' });
  const listmgr = (port: number) => ['serve', '--db', dbPath, '--uploads', join(dir, 'uploads'), '--address', `127.0.0.1:${port}`];
  /** Runs the command RUNS times after one that warms the page cache (and the executable's cache folder); prints the medians. */
  const measure = async (command: string, prefix: string) => {
    await run(command, listmgr);
    const results: Run[] = [];
    for (let i = 0; i < RUNS; i++) {
      const r = await run(command, listmgr);
      console.log(`${prefix || 'repository '}run ${i + 1}: ${r.startupMs.toFixed(0)} ms to /health, ${r.rssMb.toFixed(1)} MB RSS idle, ${r.settledMb.toFixed(1)} MB settled`);
      results.push(r);
    }
    console.log(`BENCH ${prefix}startup_ms ${median(results.map((r) => r.startupMs)).toFixed(0)}`);
    console.log(`BENCH ${prefix}idle_rss_mb ${median(results.map((r) => r.rssMb)).toFixed(1)}`);
    console.log(`BENCH ${prefix}idle_rss_settled_mb ${median(results.map((r) => r.settledMb)).toFixed(1)}`);
  };
  await measure('./listmgr', '');
  // The release executable (npm run release), as a VPS runs it.
  const release = spawnSync(process.execPath, ['scripts/release.mjs'], { stdio: ['ignore', 'ignore', 'inherit'] });
  if (release.status !== 0) throw new Error('npm run release failed');
  extraEnv.LISTMGR_CACHE_DIR = join(dir, 'cache');
  const exe = `release/listmgr-${pkg.version}-linux-x64`;
  // Just written, the whole file is in the page cache, and the kernel maps cached pages around
  // every page a process touches (fault-around): the first starts of a freshly copied executable
  // count about 17 MB more of it as resident than once it has been read back from disk (after a
  // reboot, or once the system dropped it). Measured as read back: the file's cached pages dropped.
  const dropped = spawnSync('dd', [`if=${exe}`, 'iflag=nocache', 'count=0'], { stdio: 'ignore' });
  if (dropped.status !== 0) throw new Error(`dd could not drop ${exe} from the page cache`);
  await measure(exe, 'release_');
  const floor: Run[] = [];
  for (let i = 0; i < 3; i++) floor.push(await run(process.execPath, (port) => ['scripts/bench/footprint-floor.mjs', dbPath, String(port)]));
  console.log(`BENCH floor_idle_rss_mb ${median(floor.map((r) => r.rssMb)).toFixed(1)}`);
  console.log(`BENCH floor_idle_rss_settled_mb ${median(floor.map((r) => r.settledMb)).toFixed(1)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
