// The real server in a process of its own (the built ./listmgr launcher), for the fault tests:
// a crash must show as the process ending, not as an error inside the test runner, and
// faults (a full disk, a file-size limit, a lock held by another process) must hit the server,
// not the tests.
import { spawn, type ChildProcess } from 'node:child_process';
import { fromRoot } from '../../src/paths.ts';
import { closeDatabase, openDatabase, type DB } from '../../src/db/connection.ts';
import { install } from '../../src/install.ts';
import { UserStore } from '../../src/users/store.ts';
import { sendRequest, type ApiResponse, type RequestOptions } from './server.ts';

export const LAUNCHER = fromRoot('listmgr');

/** Installs a database at `dbPath` with an API user; answers its "user:token". */
export async function installDatabase(dbPath: string, setup?: (db: DB) => void): Promise<string> {
  await install(dbPath, { adminUser: 'admin', adminPassword: 'admin-password-1' });
  const db = openDatabase(dbPath);
  try {
    const { token } = new UserStore(db).createApiUser('tester');
    setup?.(db);
    return `tester:${token}`;
  } finally {
    closeDatabase(db);
  }
}

export interface ChildServer {
  proc: ChildProcess;
  pid: number;
  url: string;
  /** Everything it printed so far. */
  output(): string;
  /** Whether it still runs. */
  running(): boolean;
  /** Resolves with the exit code (or the signal's name) when it ends. */
  exited: Promise<number | string | null>;
  request<T = any>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | string | null>;
  /** SIGKILL (a crash), then waits for the exit. */
  kill(): Promise<void>;
}

export interface ChildServerOptions {
  dbPath: string;
  uploads: string;
  /** "user:token" sent by request() unless it is given other credentials. */
  token: string;
  env?: Record<string, string>;
  cwd?: string;
}

const running = new Set<ChildProcess>();

/**
 * Kills the servers still running (a failed test skipped its stop); call it in an `after`
 * hook, else their pipes keep the test file's process alive.
 */
export function killChildServers(): void {
  for (const p of running) p.kill('SIGKILL');
}

/** Starts `listmgr serve` on an ephemeral port; resolves once it listens. */
export function startChildServer(o: ChildServerOptions): Promise<ChildServer> {
  const proc = spawn(LAUNCHER, ['serve', '--db', o.dbPath, '--uploads', o.uploads, '--address', '127.0.0.1:0'], {
    cwd: o.cwd,
    env: { ...process.env, LISTMGR_ROOT_URL: '', ...o.env },
  });
  running.add(proc);
  proc.once('exit', () => running.delete(proc));
  let out = '';
  let code: number | string | null | undefined;
  const exited = new Promise<number | string | null>((resolve) => proc.once('exit', (c, signal) => resolve((code = c ?? signal))));
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m && code === undefined) resolve(server(m[1]));
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    void exited.then((c) => reject(new Error(`listmgr serve exited (${c}) before listening: ${out}`)));
  });

  function server(url: string): ChildServer {
    // A server that hangs fails the test instead of holding it forever.
    const request = <T>(method: string, path: string, body?: unknown, r: RequestOptions = {}): Promise<ApiResponse<T>> =>
      sendRequest<T>(url, o.token, method, path, body, r, AbortSignal.timeout(30_000));
    return {
      proc,
      pid: proc.pid!,
      url,
      output: () => out,
      running: () => code === undefined,
      exited,
      request,
      async stop() {
        if (code === undefined) proc.kill('SIGTERM');
        return exited;
      },
      async kill() {
        if (code === undefined) proc.kill('SIGKILL');
        await exited;
      },
    };
  }
}

/**
 * The slowest `GET /health` that counts as answering at once while the server waits for
 * something. The stalls this guards against hold the event loop for the whole 5 s busy
 * timeout; the time is measured from the test process (busy itself: the SMTP sink parses every
 * message) on a 2-core machine that runs other suites at the same time, where 100 ms and even
 * 250 ms were exceeded now and then by scheduling alone (load average 7-12).
 */
export const RESPONSIVE_MS = 1000;

/** Milliseconds `GET /health` takes on a fresh connection (the event loop's responsiveness). */
export async function healthMs(url: string): Promise<number> {
  const t0 = performance.now();
  const res = await fetch(`${url}/health`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(30_000) });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`/health answered ${res.status}`);
  return performance.now() - t0;
}

/**
 * Measures `GET /health` every `everyMs` until `done` settles; answers the slowest time. A
 * server that stops answering fails it.
 */
export async function slowestHealthWhile(url: string, done: Promise<unknown>, everyMs = 50): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true)).catch(() => {});
  let slowest = 0;
  while (!finished) {
    slowest = Math.max(slowest, await healthMs(url));
    await new Promise((r) => setTimeout(r, everyMs));
  }
  return slowest;
}
