// User input never causes a 500: every route, with malformed path parameters, query strings
// and bodies of every kind, answers below 500, and API errors carry {"message": ...}.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ROBUSTNESS_ROUTES } from '../helpers/robustness-routes.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  // Something to act on, so routes get past their "not found" checks.
  await t.request('POST', '/api/lists', { name: 'L', type: 'public', optin: 'double' });
  await t.request('POST', '/api/subscribers', { email: 'a@example.com', name: 'A', lists: [1] });
  await t.request('POST', '/api/campaigns', { name: 'C', subject: 'S', lists: [1], body: '<p>x</p>', content_type: 'html' });
});
after(() => t.stop());

const PARAM_VALUES: Record<string, string[]> = {
  ':id': ['1', '0', '-1', 'abc', '1.5', '99999999999999999999', '%00', '%27%20OR%201=1'],
  ':type': ['views', 'orphan', 'x', '..%2F..', '%00'],
  ':lang': ['en', 'xx', '..%2F..%2Fetc%2Fpasswd', '%00'],
  ':key': ['app.site_name', 'x', '%00'],
  ':service': ['ses', 'sendgrid', 'postmark', 'forwardemail', 'x'],
  ':file': ['admin-x.js', 'manifest.json', '..%2F..%2Fpackage.json', '%00'],
  ':uuid': ['00000000-0000-0000-0000-000000000000', 'x', '6ba7b810-9dad-11d1-80b4-00c04fd430c8', '%00'],
  ':topic': ['quickstart', 'x', '..%2F..%2FREADME', '%00'],
  ':folder': ['images', 'x', '..%2F..', '%00'],
};

const GARBAGE_QUERY = '?page=-1&per_page=abc&order_by=%3Bdrop&order=sideways&query=%27&id=abc&list_id=x&campaign_id=x'
  + '&from=x&to=y&status=x&no_body=maybe&minimal=maybe&before_date=x&template_id=x&all=maybe&subscription_status=x&source=x&type=x';

const WRONG_TYPES = JSON.stringify({
  name: 1, email: [], lists: 'x', ids: 'x', status: 5, query: 1, type: [], optin: {}, tags: 'x', attribs: 'x', body: 1,
  template_id: 'x', subscribers: 1, headers: 'x', action: 1, target_list_ids: 'x', before_date: 5, archive_meta: 1,
  list_uuids: 1, subscriber_id: 'x', subject: [], content_type: 2, send_at: 'never', messenger: 3, from_email: 4,
  username: 1, password: 2, user_role_id: 'x', permissions: 'x', archive: 'x', from: 1, to: 2, data: 'x', file: 1,
});

type Body = { type: string; body: string | FormData };
const BODIES: Body[] = [
  { type: 'application/json', body: '{' },
  { type: 'application/json', body: '[]' },
  { type: 'application/json', body: '"x"' },
  { type: 'application/json', body: 'null' },
  { type: 'application/json', body: '1e999' },
  { type: 'application/json', body: WRONG_TYPES },
  { type: 'application/x-www-form-urlencoded', body: 'a=%ZZ&name=1&email=&l=x&id=x&params=%7B' },
  { type: 'text/plain', body: "subscribers.id = 'x' OR" },
  { type: 'multipart/form-data', body: new FormData() },
];

function paths(route: string): string[] {
  const param = /:[a-z]+/.exec(route)?.[0];
  if (!param) return [route];
  return PARAM_VALUES[param].map((v) => route.replaceAll(param, v));
}

async function send(method: string, path: string, b?: Body): Promise<{ status: number; text: string; type: string }> {
  const headers: Record<string, string> = { authorization: `Basic ${Buffer.from(t.token).toString('base64')}`, origin: t.url };
  if (b && b.type !== 'multipart/form-data') headers['content-type'] = b.type;
  const res = await fetch(t.url + path, { method: method.toUpperCase(), headers, body: b?.body, redirect: 'manual' });
  const type = res.headers.get('content-type') ?? '';
  // An event stream (GET /api/events) never ends: its answer is the status and headers.
  if (type.includes('text/event-stream')) {
    await res.body?.cancel();
    return { status: res.status, text: '', type };
  }
  return { status: res.status, text: await res.text(), type };
}

test('no route answers 500 to malformed input, and API errors say what was wrong', async () => {
  const problems: string[] = [];
  const check = (what: string, r: { status: number; text: string; type: string }, api: boolean) => {
    if (r.status >= 500) problems.push(`${what} → ${r.status} ${r.text.slice(0, 200)}`);
    else if (api && r.status >= 400) {
      let message: unknown;
      try {
        message = JSON.parse(r.text).message;
      } catch {
        message = undefined;
      }
      if (typeof message !== 'string' || !message) problems.push(`${what} → ${r.status} without a JSON message: ${r.text.slice(0, 200)}`);
    }
  };
  for (const [method, route] of ROBUSTNESS_ROUTES) {
    const api = route.startsWith('/api/');
    for (const path of paths(route)) {
      check(`${method} ${path}`, await send(method, path + GARBAGE_QUERY), api);
    }
    if (method === 'get') continue;
    const path = paths(route)[0];
    for (const b of BODIES) {
      check(`${method} ${path} (${b.type} ${typeof b.body === 'string' ? b.body.slice(0, 20) : 'form'})`, await send(method, path, b), api);
    }
  }
  assert.deepEqual(problems, []);
  // Still healthy afterwards.
  assert.equal((await t.request('GET', '/api/health')).status, 200);
});
