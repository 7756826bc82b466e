// Test harness: the real server over a fresh database in a temp folder, on an ephemeral port,
// driven with real HTTP requests; and a real SMTP server that records what arrives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { closeDatabase, openDatabase, type DB } from '../../src/db/connection.ts';
import { install } from '../../src/install.ts';
import { startServer, type RunningServer } from '../../src/server.ts';
import { UserStore } from '../../src/users/store.ts';

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

export async function startTestServer(opts: TestServerOptions = {}): Promise<TestServer> {
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-test-'));
  const dbPath = join(dir, 'listmgr.db');
  install(dbPath, { adminUser: ADMIN_USER, adminPassword: ADMIN_PASSWORD });
  const setup = openDatabase(dbPath);
  const users = new UserStore(setup);
  const { token } = users.createApiUser('tester');
  opts.setup?.(setup);
  closeDatabase(setup);

  const config = loadConfig({ db: dbPath, address: '127.0.0.1:0', uploads: join(dir, 'uploads') }, { ...opts.env });
  const server = await startServer(config, { quiet: true });
  const creds = `tester:${token}`;

  async function request<T>(method: string, path: string, body?: unknown, o: RequestOptions = {}): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...o.headers };
    const auth = o.auth === undefined ? creds : o.auth;
    if (auth) headers.authorization = `Basic ${Buffer.from(auth).toString('base64')}`;
    let payload: string | FormData | URLSearchParams | Blob | undefined = o.raw;
    if (payload === undefined && body !== undefined) {
      payload = JSON.stringify(body);
      headers['content-type'] ??= 'application/json';
    }
    const res = await fetch(server.url + path, { method, headers, body: payload, redirect: 'manual' });
    const text = await res.text();
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
