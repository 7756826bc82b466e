// Test harness: the real server over a fresh database in a temp folder, on an ephemeral port,
// driven with real HTTP requests; and a real SMTP server that records what arrives.
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before } from 'node:test';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, openDatabase, type DB } from '../../src/db/connection.ts';
import { install } from '../../src/install.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import type { Permission } from '../../src/core/authz.ts';
import { UserStore } from '../../src/users/store.ts';
import { fixtures } from './fixtures.ts';

export const ADMIN_USER = 'admin';
export const ADMIN_PASSWORD = 'admin-password-1';

export interface ApiResponse<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export interface RequestOptions {
  /** Raw body (string, FormData, URLSearchParams); otherwise `body` is sent as JSON. */
  raw?: string | FormData | URLSearchParams | Blob;
  headers?: Record<string, string>;
  /** Credentials "user:token"; null sends none. Default: the test API user. */
  auth?: string | null;
}

export interface TestServer {
  url: string;
  dir: string;
  dbPath: string;
  /** "user:token" of an API user with the Super Admin role. */
  token: string;
  server: RunningServer;
  request<T = any>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<ApiResponse<T>>;
  /** Creates another API user with the given user role id; returns "user:token". */
  apiUser(name: string, roleId?: number): string;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  env?: Record<string, string>;
  /** Runs on the installed database before the server opens it (e.g. to leave work for start-up). */
  setup?: (db: DB) => void;
}

/**
 * The database every test server of this process starts from: installed once (the admin, the
 * default settings and templates) with the Super Admin API user "tester", then copied for each
 * server, as pocketbase's TempDirClone. Installing is the slow part; a copy takes a millisecond.
 */
let template: { dir: string; dbPath: string; token: string } | null = null;

async function templateDatabase(): Promise<{ dbPath: string; token: string }> {
  if (template) return template;
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-template-'));
  const dbPath = join(dir, 'listmgr.db');
  await install(dbPath, { adminUser: ADMIN_USER, adminPassword: ADMIN_PASSWORD });
  const db = openDatabase(dbPath);
  const { token } = new UserStore(db).createApiUser('tester');
  // A fresh install ships its SMTP server empty and disabled, and campaigns cannot start then; the
  // tests' servers have it enabled (pointing at no real server), as tests that send set their own sink.
  db.prepare(`UPDATE settings SET value = json_set(value, '$[0].enabled', json('true'), '$[0].host', 'smtp.yoursite.com') WHERE key = 'smtp'`).run();
  closeDatabase(db); // checkpoints the WAL into the file: the file alone is the database
  if (existsSync(`${dbPath}-wal`)) throw new Error('the template database was left with a WAL');
  template = { dir, dbPath, token };
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  return template;
}

/** Starts the real server on its own copy of the installed template database. */
/**
 * One HTTP request as the tests send it: `body` as JSON unless `o.raw` is given, Basic auth with
 * `defaultCreds` unless `o.auth` says otherwise; a JSON answer is parsed.
 */
export async function sendRequest<T>(baseUrl: string, defaultCreds: string | null, method: string, path: string, body?: unknown, o: RequestOptions = {}, signal?: AbortSignal): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...o.headers };
  const auth = o.auth === undefined ? defaultCreds : o.auth;
  if (auth) headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
  let payload: string | FormData | URLSearchParams | Blob | undefined = o.raw;
  if (payload === undefined && body !== undefined) {
    payload = JSON.stringify(body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch(baseUrl + path, { method, headers, body: payload, redirect: 'manual', signal });
  // An event stream never ends: its answer is the status and headers.
  const streaming = (res.headers.get('content-type') ?? '').includes('text/event-stream');
  if (streaming) await res.body?.cancel();
  const text = streaming ? '' : await res.text();
  let parsed: unknown = text;
  if ((res.headers.get('content-type') ?? '').includes('json') && text) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const { dbPath: templatePath, token } = await templateDatabase();
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-test-'));
  const dbPath = join(dir, 'listmgr.db');
  copyFileSync(templatePath, dbPath);
  if (opts.setup) {
    const setup = openDatabase(dbPath);
    try {
      opts.setup(setup);
    } finally {
      closeDatabase(setup);
    }
  }

  const config = loadConfig({ db: dbPath, address: '127.0.0.1:0', uploads: join(dir, 'uploads') }, { ...opts.env });
  const server = await startServer(config, { quiet: true });
  const creds = `tester:${token}`;

  const request = <T>(method: string, path: string, body?: unknown, o: RequestOptions = {}) => sendRequest<T>(server.url, creds, method, path, body, o);

  return {
    url: server.url,
    dir,
    dbPath,
    token: creds,
    server,
    request,
    apiUser(name, roleId) {
      const { token: t } = server.ctx.users.createApiUser(name, roleId);
      return `${name}:${t}`;
    },
    async stop() {
      await server.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * Gives the enclosing describe() its own server on a fresh copy of the template database,
 * started before its tests and stopped after them, so whatever the group changes (settings
 * above all) never reaches another group. Returns the server, available once started.
 */
export function useFreshServer(opts: TestServerOptions = {}): () => TestServer {
  let t: TestServer | undefined;
  before(async () => {
    t = await startTestServer(opts);
  });
  after(async () => {
    await t?.stop();
  });
  return () => {
    if (!t) throw new Error('the group\'s server is not started yet (use it inside it() or a hook)');
    return t;
  };
}

/** The stored values of the given settings, in clear (secrets too). */
function savedSettings(t: TestServer, keys: string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((k) => [k, structuredClone(t.server.ctx.settings.get(k))]));
}

/**
 * Puts saved settings back through PUT /api/settings. An empty secret in a PUT means "keep the
 * stored one", so a secret that was empty cannot come back that way: those values are written
 * back as they were stored and reloaded (POST /api/admin/reload), then all are checked.
 */
async function putBack(t: TestServer, saved: Record<string, unknown>): Promise<void> {
  const res = await t.request('PUT', '/api/settings', saved);
  assert.equal(res.status, 200, `could not restore the settings ${Object.keys(saved).join(', ')}: ${res.text}`);
  const differ = () => Object.keys(saved).filter((k) => JSON.stringify(t.server.ctx.settings.get(k)) !== JSON.stringify(saved[k]));
  if (!differ().length) return;
  const write = t.server.ctx.db.prepare(`UPDATE settings SET value = ?, updated_at = strftime('%Y-%m-%dT%H:%M:%fZ', 'now') WHERE key = ?`);
  for (const k of differ()) write.run(JSON.stringify(saved[k]), k);
  const reload = await t.request('POST', '/api/admin/reload');
  assert.equal(reload.status, 200, reload.text);
  assert.deepEqual(differ(), [], 'settings not restored');
}

/**
 * Sets the given settings through PUT /api/settings for the length of `fn`, then puts back
 * the values they had (in clear, so secrets come back too), whether `fn` passed or failed.
 * For tests that change settings on a server other tests share.
 */
export async function withSettings<T>(t: TestServer, values: Record<string, unknown>, fn: () => Promise<T> | T): Promise<T> {
  const saved = savedSettings(t, Object.keys(values));
  const set = await t.request('PUT', '/api/settings', values);
  assert.equal(set.status, 200, `could not set ${Object.keys(values).join(', ')}: ${set.text}`);
  let failed = false;
  try {
    return await fn();
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    const restored = putBack(t, saved);
    // A failure of the test itself is the one to report.
    if (failed) await restored.catch(() => {});
    else await restored;
  }
}

/**
 * For a describe() whose tests (or hooks) change settings on a shared server: remembers the
 * given settings when the group starts and puts them back after each of its tests
 * (`each`), or once after the group. Call it before the group's own hooks.
 */
export function keepSettings(server: () => TestServer, keys: string[], opts: { each?: boolean } = {}): void {
  let saved: Record<string, unknown> = {};
  before(() => {
    saved = savedSettings(server(), keys);
  });
  (opts.each ? afterEach : after)(() => putBack(server(), saved));
}

let roleCallers = 0;

/**
 * An API user whose user role holds exactly `permissions` and, with `lists`, a list role with
 * `list:get` on those lists; returns its "user:token".
 */
export function roleCaller(t: TestServer, permissions: string[], lists?: number[]): string {
  return fixtures(t.server.ctx.db).apiUser(`role-caller-${++roleCallers}`, { permissions: permissions as Permission[], lists, listPermissions: ['list:get'] });
}
