// Fuzzing every route the app registers, as a signed-in admin (API token or browser session)
// and anonymously: malformed JSON, bodies over the route's limit, wrong-typed values for each
// body field the API reference declares, hostile strings (markup, SQL, NUL, very long, deeply
// nested), odd query strings, path parameters and headers. No answer may be a 5xx but a 503
// with Retry-After (a busy database); the server must not crash, and /health answers after
// every route. The generator is seeded, so a failure repeats (FUZZ_SEED=n explores other
// sequences); each route gets a bounded number of cases, so the run stays short.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildServer, healthMs, installDatabase, killChildServers, startChildServer } from '../helpers/child-server.ts';
import { appRoutes, type AppRoute } from '../helpers/routes.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

after(killChildServers);

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed16);
/** Cases per route and caller. */
const CASES = { anonymous: 2, admin: 4 };

let s: ChildServer;
let dir: string;
let sink: SmtpSink;
let basic: string;
let session = '';
const fixture: Record<string, string> = {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-fuzz-'));
  const dbPath = join(dir, 'listmgr.db');
  const token = await installDatabase(dbPath);
  basic = `Basic ${Buffer.from(token).toString('base64')}`;
  s = await startChildServer({ dbPath, uploads: join(dir, 'uploads'), token });
  // Mail goes somewhere, so that a send the fuzzer happens to get right is not a 502.
  sink = await startSmtpSink();
  await useSmtpSink(s, sink);
  // The bounce webhooks answer 404 while off (503 with bounce processing off): on, so that their
  // parsers are fuzzed too.
  assert.equal((await s.request('PUT', '/api/settings', { 'bounce.enabled': true, 'bounce.webhooks_enabled': true })).status, 200);
  const data = async (method: string, path: string, body: unknown) => {
    const r = await s.request(method, path, body);
    if (r.status !== 200) throw new Error(`${method} ${path}: ${r.status} ${r.text}`);
    return r.body.data;
  };
  const list = await data('POST', '/api/lists', { name: 'Fuzzed', type: 'public', optin: 'double' });
  const sub = await data('POST', '/api/subscribers', { email: 'fuzz@example.com', name: 'Fuzz', lists: [list.id] });
  const camp = await data('POST', '/api/campaigns', { name: 'Fuzz', subject: 'Fuzz', lists: [list.id], body: '<p>{{ TrackLink "https://example.com/" }}</p>', content_type: 'html' });
  const tpl = await data('POST', '/api/templates', { name: 'Fuzz', type: 'campaign', body: '{{ template "content" . }}' });
  const role = await data('POST', '/api/roles/users', { name: 'Fuzz', permissions: ['lists:get_all'] });
  const user = await data('POST', '/api/users', { username: 'fuzzed', email: 'fuzzed@example.com', type: 'user', user_role_id: role.id, password_login: true, password: 'fuzzed-password' });
  Object.assign(fixture, { list: String(list.id), subscriber: String(sub.id), subUUID: sub.uuid, campaign: String(camp.id), campUUID: camp.uuid, template: String(tpl.id), role: String(role.id), user: String(user.id) });
  await signIn();
});
after(async () => {
  await s?.stop();
  await sink?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A browser session of the admin (signed in again when a fuzzed request ended it). */
async function signIn(): Promise<void> {
  const res = await fetch(`${s.url}/admin/login`, {
    method: 'POST', redirect: 'manual', headers: { origin: s.url, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ username: 'admin', password: 'admin-password-1' }),
  });
  session = /session=[^;]+/.exec(res.headers.get('set-cookie') ?? '')?.[0] ?? '';
  if (!session) throw new Error(`the admin could not sign in: ${res.status}`);
}

// ---- the generator ----

/** mulberry32: small, fast, and the same sequence for the same seed everywhere. */
function generator(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)]!,
    chance: (p: number) => next() < p,
  };
}
type Gen = ReturnType<typeof generator>;

const deepArray = (n: number) => '['.repeat(n) + ']'.repeat(n);
const deepObject = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);

const HOSTILE_STRINGS = [
  '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "'; DROP TABLE subscribers; --", "' OR 1=1 --", 'a\u0000b', '\u0000',
  'x'.repeat(100_000), '{{ .Subscriber.Attribs }}{{ template "x" }}', '{{ range $i := until 999999999 }}x{{ end }}', '../../../../etc/passwd',
  '%00%ZZ%', '\u202e\ud83d\ude00\ufeff', '\ud800', '   ', '', '-1', '1e309', 'NaN', 'true', '\r\nX-Injected: 1', '${jndi:ldap://x}', '*', '%_\\',
  '/'.repeat(5000), 'https://evil.example/', 'javascript:alert(1)', 'a@b', '@', 'subscribers.id = 1; DELETE FROM subscribers', '00000000-0000-0000-0000-000000000000',
];
/** Raw JSON texts of values of every type (deep ones as text: they are the point). */
const JSON_VALUES = [
  'null', 'true', 'false', '0', '-1', '1.5', '9007199254740993', '1e308', '-0', '""', '"x"', '[]', '[null]', '[{}]', '[[1]]', '{}', '{"a":1}',
  '{"__proto__":{"polluted":1}}', '{"constructor":{"prototype":{"polluted":1}}}', deepArray(5000), deepObject(3000), '["' + 'y'.repeat(50_000) + '"]',
];
const MALFORMED_JSON = ['{', '{"a":', '[1,2', '{"a":1,}', "{'a':1}", 'nul', '\u0000', '{"a":"\\ud800"}', '1'.repeat(10_000), '"' + 'x'.repeat(1000), '{"a":1}{"b":2}', '\ufeff{}', deepArray(100_000).slice(0, 150_000)];
/** Body fields of the pages (not in the API reference) and common API names. */
const COMMON_FIELDS = ['email', 'name', 'l', 'list_uuids', 'username', 'password', 'password2', 'token', 'next', 'totp_code', 'confirm', 'manage', 'nonce', 'status', 'lists', 'attribs', 'query', 'id', 'ids', 'type', 'data'];

const jsonValue = (g: Gen) => (g.chance(0.5) ? g.pick(JSON_VALUES) : JSON.stringify(g.pick(HOSTILE_STRINGS)));

interface Case {
  kind: string;
  path: string;
  headers: Record<string, string>;
  body?: string | FormData | URLSearchParams;
}

type Schemas = Record<string, any>;

function bodyFields(doc: any, route: AppRoute): string[] {
  const op = doc.paths[route.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[route.method.toLowerCase()];
  const schemas: Schemas = doc.components?.schemas ?? {};
  const resolve = (x: any): any => (x?.$ref ? resolve(schemas[x.$ref.split('/').pop()]) : x);
  const fields = Object.values<any>(op?.requestBody?.content ?? {}).flatMap((c) => Object.keys(resolve(c.schema)?.properties ?? {}));
  return [...new Set(fields.length ? fields : COMMON_FIELDS)];
}

function queryNames(doc: any, route: AppRoute): string[] {
  const op = doc.paths[route.path.replace(/:([A-Za-z]+)/g, '{$1}')]?.[route.method.toLowerCase()];
  return (op?.parameters ?? []).filter((p: any) => p.in === 'query').map((p: any) => p.name);
}

/** Values for a path parameter: one that names something, and ones that cannot. */
function paramValues(name: string, path: string): string[] {
  const bad = ['0', '-1', 'abc', '99999999999999999999', '%00', '1%27%20OR%201=1', '..%2F..%2Fetc%2Fpasswd', '%ZZ', 'x'.repeat(3000)];
  const uuidBad = ['00000000-0000-0000-0000-000000000000', 'x', '%00', 'ZZZZZZZZ-0000-0000-0000-000000000000', '..%2F..', 'y'.repeat(3000)];
  switch (name) {
    case 'subUUID': case 'sub': return [fixture.subUUID!, fixture.subUUID!.toUpperCase(), ...uuidBad];
    case 'campUUID': case 'camp': return [fixture.campUUID!, ...uuidBad];
    case 'link': case 'uuid': return uuidBad;
    case 'type': return ['views', 'clicks', 'links', 'orphan', 'x', '%00'];
    case 'lang': return ['en', 'de', 'xx', '..%2F..%2Fpackage', '%00'];
    case 'key': return ['app.site_name', 'smtp', 'x', '%00', '__proto__'];
    case 'service': return ['ses', 'sendgrid', 'postmark', 'forwardemail', 'azure', 'lettermint', 'x', '%00'];
    case 'id': {
      const own = path.startsWith('/api/lists') ? fixture.list
        : path.startsWith('/api/subscribers') ? fixture.subscriber
        : path.startsWith('/api/campaigns') ? fixture.campaign
        : path.startsWith('/api/templates') ? fixture.template
        : path.startsWith('/api/users') ? fixture.user
        : path.startsWith('/api/roles') ? fixture.role
        : path.startsWith('/archive') ? fixture.campUUID
        : '1';
      return [own!, ...bad];
    }
    default: return ['1', ...bad];
  }
}

function fillPath(g: Gen, route: AppRoute): string {
  return route.path.replace(/:([A-Za-z]+)/g, (_m, name: string) => g.pick(paramValues(name, route.path)));
}

/** Percent-encoded; a lone surrogate becomes the bytes it would be in UTF-8 (invalid UTF-8). */
function encode(v: string): string {
  try {
    return encodeURIComponent(v);
  } catch {
    return '%ED%A0%80';
  }
}

function oddQuery(g: Gen, names: string[]): string {
  const keys = [...names, 'page', 'per_page', 'order_by', 'order', 'query', 'id', 'list_id', 'next', 'token', 'manage', '__proto__', 'constructor[prototype]', 'a[]'];
  const value = () => g.pick([...HOSTILE_STRINGS.filter((v) => v.length < 6000).map(encode), 'all', '-5', '0', '99999999999999999999', '1e9', '%ZZ', '%', '%00', 'asc%3B', '1,2,,3', '']);
  const parts: string[] = [];
  for (let i = 0, n = 1 + g.int(6); i < n; i++) parts.push(`${g.pick(keys)}=${value()}`);
  if (g.chance(0.2)) for (let i = 0; i < 300; i++) parts.push(`id=${i}`);
  return '?' + parts.join('&');
}

const ODD_HEADERS: Record<string, string>[] = [
  { 'accept-language': 'zz-ZZ;q=x, *;q=-1' }, { 'x-forwarded-for': 'not-an-address, ::ffff:999.1.1.1' }, { origin: 'null' },
  { referer: 'javascript:alert(1)' }, { cookie: 'session=' + 'z'.repeat(4000) }, { authorization: 'Basic !!!' }, { authorization: 'Bearer x' },
  { authorization: 'token a:b' }, { authorization: `Basic ${Buffer.from('admin:\u0000').toString('base64')}` }, { 'content-encoding': 'gzip' },
  { 'if-none-match': '*' }, { 'if-modified-since': 'yesterday' }, { range: 'bytes=9-1' }, { accept: '*/*;q=nope' }, { 'sec-fetch-site': 'cross-site' },
];

const CONTENT_TYPES = ['application/json', 'application/json; charset=utf-16', 'text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=', 'multipart/form-data; boundary=zz', ''];

function jsonObject(g: Gen, fields: string[], value: () => string): string {
  const chosen = fields.filter(() => g.chance(0.6));
  return '{' + (chosen.length ? chosen : [g.pick(fields)]).map((f) => `${JSON.stringify(f)}:${value()}`).join(',') + '}';
}

function makeCase(g: Gen, route: AppRoute, doc: any): Case {
  const fields = bodyFields(doc, route);
  const path = fillPath(g, route) + (g.chance(0.4) ? oddQuery(g, queryNames(doc, route)) : '');
  const headers: Record<string, string> = g.chance(0.3) ? { ...g.pick(ODD_HEADERS) } : {};
  if (route.method === 'GET') return { kind: 'query', path, headers };
  const kind = g.pick(['malformed', 'wrong-types', 'hostile', 'deep', 'oversized', 'form', 'multipart', 'content-type']);
  const json = (body: string): Case => ({ kind, path, headers: { 'content-type': 'application/json', ...headers }, body });
  switch (kind) {
    case 'malformed': return json(g.pick(MALFORMED_JSON));
    case 'wrong-types': return json(jsonObject(g, fields, () => jsonValue(g)));
    case 'hostile': return json(jsonObject(g, fields, () => JSON.stringify(g.pick(HOSTILE_STRINGS))));
    case 'deep': return json(`{${JSON.stringify(g.pick(fields))}:${g.pick([deepArray(20_000), deepObject(20_000)])}}`);
    case 'oversized': {
      // Over the pages' form limit, under the API's: a large value, or a great many fields.
      if (g.chance(0.5)) return json(`{${JSON.stringify(g.pick(fields))}:${JSON.stringify('o'.repeat(300_000))}}`);
      const form = new URLSearchParams();
      for (let i = 0; i < 5000; i++) form.append(g.pick(fields), String(i));
      return { kind, path, headers, body: form };
    }
    case 'form': {
      const form = new URLSearchParams();
      for (const f of fields) if (g.chance(0.6)) for (let i = 0, n = 1 + g.int(3); i < n; i++) form.append(f, g.pick(HOSTILE_STRINGS));
      const raw = form.toString() + g.pick(['', '&%ZZ=1', '&a%00=b', '&=&&=x', '&l[]=1&l[x]=2']);
      return { kind, path, headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers }, body: raw };
    }
    case 'multipart': {
      const form = new FormData();
      for (const f of fields) if (g.chance(0.6)) form.append(f, g.pick(HOSTILE_STRINGS));
      if (g.chance(0.5)) form.append(g.pick(['file', ...fields]), new Blob([g.pick(['a,b\n1,2\n', '\u0000PK\u0003\u0004', 'x'.repeat(200_000)])]), g.pick(['../../x.csv', '.htaccess', 'a\u0000.png', 'x'.repeat(300) + '.png', '']));
      return { kind, path, headers, body: form };
    }
    default:
      return { kind, path, headers: { ...headers, 'content-type': g.pick(CONTENT_TYPES) }, body: g.pick([jsonObject(g, fields, () => jsonValue(g)), '--zz\r\nContent-Disposition: form-data; name="a"\r\n\r\nb\r\n--zz--', 'a=b', ''])};
  }
}

// ---- the run ----

type Caller = 'anonymous' | 'token' | 'session';

async function send(c: Case, method: string, caller: Caller): Promise<{ status: number; text: string; retryAfter: string | null }> {
  const headers: Record<string, string> = {};
  if (caller === 'token') headers.authorization = basic;
  if (caller === 'session') Object.assign(headers, { cookie: session, origin: s.url });
  Object.assign(headers, c.headers);
  const res = await fetch(s.url + c.path, { method, headers, body: c.body, redirect: 'manual', signal: AbortSignal.timeout(15_000) });
  // An event stream (GET /api/events) never ends: its answer is the status and headers.
  if ((res.headers.get('content-type') ?? '').includes('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, text: '', retryAfter: res.headers.get('retry-after') };
  }
  return { status: res.status, text: (await res.text()).slice(0, 300), retryAfter: res.headers.get('retry-after') };
}

test('no fuzzed request gets a 5xx, the server never crashes, and /health answers throughout', async () => {
  const doc = (await s.request('GET', '/api/openapi.json')).body;
  const routes = (await appRoutes()).filter((r) => r.path !== '/health');
  assert.ok(routes.length > 100, `${routes.length} routes`);
  const g = generator(SEED);
  const problems: string[] = [];
  let requests = 0;
  let resets = 0;
  let slowestHealth = 0;
  for (const route of routes) {
    for (const [who, n] of Object.entries(CASES) as [keyof typeof CASES, number][]) {
      for (let i = 0; i < n; i++) {
        const c = makeCase(g, route, doc);
        const caller: Caller = who === 'anonymous' ? 'anonymous' : g.chance(0.33) ? 'session' : 'token';
        const what = `${route.method} ${c.path.slice(0, 160)} as ${caller} (${c.kind}, ${JSON.stringify(c.headers).slice(0, 120)})`;
        let r;
        try {
          r = await send(c, route.method, caller);
        } catch (e) {
          // A route may refuse before reading the body (a bad password, a declared length over
          // the limit) and close the connection while a slow client still sends it: a reset,
          // not a failure, as long as the server lives. A request left unanswered is a failure.
          if (!s.running() || (e as Error).name === 'TimeoutError') {
            problems.push(`${what} → no answer: ${(e as Error).message}`);
            if (!s.running()) break;
            continue;
          }
          await healthMs(s.url); // throws if the server stopped answering
          resets++;
          continue;
        }
        requests++;
        if (r.status >= 500 && !(r.status === 503 && r.retryAfter)) problems.push(`${what} → ${r.status} ${r.text}`);
        // A fuzzed sign-out or password change ends the session; the next cases get a new one.
        if (caller === 'session' && !c.headers.cookie && r.status === 403 && /invalid session/.test(r.text)) await signIn();
      }
    }
    assert.ok(s.running(), `the server ended after ${route.method} ${route.path}:\n${s.output().slice(-3000)}`);
    slowestHealth = Math.max(slowestHealth, await healthMs(s.url));
  }
  assert.deepEqual(problems, [], `server log:\n${s.output().split('\n').filter((l) => /failed|error/i.test(l)).slice(0, 30).join('\n')}`);
  assert.ok(requests > 700, `${requests} requests`);
  assert.ok(resets < requests / 100, `${resets} connections reset`);
  assert.ok(s.running());
  assert.ok(slowestHealth < 5000, `/health took ${Math.round(slowestHealth)} ms`);
});

test('what the fuzzer found stays fixed', async () => {
  const cases: { what: string; path: string; method: string; headers: Record<string, string>; body?: string }[] = [
    // A query key or form field named __proto__ wrote into the object's prototype.
    { what: 'query key __proto__', method: 'GET', path: '/api/subscribers?__proto__=1&page=1', headers: { authorization: basic } },
    { what: 'query key __proto__ on a page', method: 'GET', path: '/admin/login/twofa?__proto__=x', headers: {} },
    { what: 'form field __proto__', method: 'POST', path: '/api/templates/preview', headers: { authorization: basic, 'content-type': 'application/x-www-form-urlencoded' }, body: '__proto__=a&__proto__=b&body=x' },
    // A Referer with an opaque origin (javascript:, data:) was parsed again as a URL.
    { what: 'Referer javascript: on a cookie write', method: 'POST', path: '/admin/logout', headers: { cookie: session, referer: 'javascript:alert(1)' } },
    { what: 'Referer data: on a sign-in', method: 'POST', path: '/admin/login', headers: { referer: 'data:text/html,x', 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=admin&password=x' },
  ];
  for (const c of cases) {
    const res = await fetch(s.url + c.path, { method: c.method, headers: c.headers, body: c.body, redirect: 'manual' });
    assert.ok(res.status < 500, `${c.what}: ${res.status} ${(await res.text()).slice(0, 200)}`);
  }
  const refused = await fetch(`${s.url}/api/lists`, { method: 'POST', headers: { cookie: session, referer: 'javascript:alert(1)', 'content-type': 'application/json' }, body: '{"name":"x","type":"private","optin":"single"}' });
  assert.equal(refused.status, 403, 'a write without a same-site origin is still refused');
});
