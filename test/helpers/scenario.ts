// API tests as scenario tables (after pocketbase's tests.ApiScenario): each row is a request,
// the status it must get, what the answer must and must not hold, and its side effects. A row
// that expects a 4xx also proves, by default, that the refusal changed nothing in the database.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { it } from 'node:test';
import Database from 'better-sqlite3';
import type { ApiResponse, RequestOptions, TestServer } from './server.ts';

/** A value, or a function giving it when the scenario runs (ids and users made in hooks). */
export type Lazy<T> = T | (() => T);

/**
 * Something the answer must (contains) or must not (notContains) hold: a string or a regexp
 * over the response text (and over the decoded `message` of a JSON error, so quotes need no
 * JSON escaping), or a predicate over the parsed body.
 */
export type Expectation = string | RegExp | ((body: any, res: ApiResponse) => boolean);

type RawBody = NonNullable<RequestOptions['raw']>;

export interface Scenario {
  name: string;
  method: string;
  path: Lazy<string>;
  /** Credentials "user:token"; null (or '') for none. Default: the test Super Admin API user. */
  auth?: Lazy<string | null>;
  /** Sent as JSON. */
  body?: Lazy<unknown>;
  /** Sent as is instead of `body` (a string, FormData, URLSearchParams or Blob). */
  raw?: Lazy<RawBody>;
  /** Sent as an application/x-www-form-urlencoded body instead of `body`. */
  form?: Lazy<Record<string, string>>;
  headers?: Record<string, string>;
  status: number;
  contains?: Expectation[];
  notContains?: Expectation[];
  /** Set-up for this scenario alone, run before the database is read for the comparison. */
  before?: (t: TestServer) => unknown;
  /** Side effects to assert once the answer is checked (the response, then the server). */
  after?: (res: ApiResponse, t: TestServer) => unknown;
  /**
   * A 4xx scenario checks that the database did not change. Give the reason here when the
   * refusal does change it (e.g. it records a failed sign-in attempt), to skip that check.
   */
  changes?: string;
  /** Check that the database did not change for a scenario that is not a 4xx too. */
  unchanged?: boolean;
  /**
   * A 4xx answer must be JSON with a string `message` (listmonk's error envelope); false for
   * routes that answer errors otherwise (HTML pages).
   */
  jsonError?: boolean;
}

export interface RunOptions {
  /** Sends the requests (default `t.request`): e.g. a recorder that keeps every answer. */
  request?: TestServer['request'];
}

const value = <T>(v: Lazy<T>): T => (typeof v === 'function' ? (v as () => T)() : v);

/** One node:test it() per scenario, named after it, against the server (or its getter). */
export function runScenarios(server: Lazy<TestServer>, scenarios: Scenario[], opts: RunOptions = {}): void {
  for (const s of scenarios) {
    it(s.name, async () => {
      await runScenario(value(server), s, opts);
    });
  }
}

/** Runs one scenario and asserts everything it expects. */
export async function runScenario(t: TestServer, s: Scenario, opts: RunOptions = {}): Promise<ApiResponse> {
  await s.before?.(t);
  const path = value(s.path);
  const checkUnchanged = s.unchanged ?? (s.status >= 400 && s.status < 500 && s.changes === undefined);
  const before = checkUnchanged ? snapshotDatabase(t.dbPath) : null;

  const request = opts.request ?? t.request;
  const form = s.form === undefined ? undefined : new URLSearchParams(value(s.form));
  const raw = s.raw === undefined ? form : value(s.raw);
  const reqOpts: RequestOptions = { raw, headers: s.headers };
  if (s.auth !== undefined) reqOpts.auth = value(s.auth);
  const res = await request(s.method, path, raw === undefined && s.body !== undefined ? value(s.body) : undefined, reqOpts);

  const where = `${s.method} ${path}`;
  assert.equal(res.status, s.status, `${where} answered ${res.status}: ${res.text.slice(0, 500)}`);
  if (s.status >= 400 && s.jsonError !== false) {
    assert.match(res.headers.get('content-type') ?? '', /json/, `${where}: an error answers JSON`);
    assert.equal(typeof res.body?.message, 'string', `${where}: an error has a message: ${res.text.slice(0, 300)}`);
  }
  for (const e of s.contains ?? []) assert.ok(holds(res, e), `${where}: the answer lacks ${show(e)}: ${res.text.slice(0, 500)}`);
  for (const e of s.notContains ?? []) assert.ok(!holds(res, e), `${where}: the answer holds ${show(e)}: ${res.text.slice(0, 500)}`);
  if (before) {
    const changed = diffSnapshots(before, snapshotDatabase(t.dbPath));
    assert.deepEqual(changed, [], `${where} (${res.status}) changed the database: ${changed.join('; ')}`);
  }
  await s.after?.(res, t);
  return res;
}

function holds(res: ApiResponse, e: Expectation): boolean {
  if (typeof e === 'function') return e(res.body, res);
  const texts = [res.text];
  if (typeof res.body?.message === 'string') texts.push(res.body.message);
  return texts.some((x) => (typeof e === 'string' ? x.includes(e) : e.test(x)));
}

function show(e: Expectation): string {
  if (typeof e === 'function') return `what ${e.toString().slice(0, 120)} looks for`;
  return typeof e === 'string' ? JSON.stringify(e) : String(e);
}

/** Per table: its row count and a hash of every row. */
export type DbSnapshot = Record<string, { rows: number; hash: string }>;

/**
 * Reads every table of the database file through a separate read-only connection (the
 * server's writes are committed before it answers; WAL lets this read alongside). Virtual
 * tables are skipped (their shadow tables hold their data) and so are SQLite's statistics and
 * event_cursors (how far the background readers of the change log have read, not data).
 * A few milliseconds on a test database: cheap enough to run around every refusal.
 */
export function snapshotDatabase(dbPath: string): DbSnapshot {
  const db = new Database(dbPath, { readonly: true, fileMustExist: true });
  try {
    // One read transaction, so every table is read at the same point.
    return db.transaction(() => {
      const tables = db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%' AND name NOT LIKE 'sqlite_stat%' AND name != 'event_cursors' ORDER BY name`).pluck().all() as string[];
      const out: DbSnapshot = {};
      for (const name of tables) {
        const hash = createHash('sha1');
        let rows = 0;
        for (const row of db.prepare(`SELECT * FROM "${name.replaceAll('"', '""')}"`).raw().iterate()) {
          rows++;
          hash.update(JSON.stringify(row));
          hash.update('\n');
        }
        out[name] = { rows, hash: hash.digest('hex') };
      }
      return out;
    })();
  } finally {
    db.close();
  }
}

/** What differs, table by table ("subscribers: 5 → 6 rows", "settings: rows changed"). */
export function diffSnapshots(a: DbSnapshot, b: DbSnapshot): string[] {
  const out: string[] = [];
  for (const name of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const x = a[name];
    const y = b[name];
    if (!x || !y) out.push(`${name}: table ${x ? 'dropped' : 'created'}`);
    else if (x.rows !== y.rows) out.push(`${name}: ${x.rows} → ${y.rows} rows`);
    else if (x.hash !== y.hash) out.push(`${name}: rows changed`);
  }
  return out;
}
