import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { RateLimiter } from '../../src/http/rate-limit.ts';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.stop());

describe('public rate limit', () => {
  it('answers 429 past the per-minute limit, and X-Forwarded-For from untrusted peers is ignored', () => withSettings(t, { 'security.public_rate_limit': 3 }, async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      // A spoofed header must not give a fresh budget: 127.0.0.1 is not a trusted proxy.
      const res = await t.request('GET', '/api/public/lists', undefined, { auth: null, headers: { 'x-forwarded-for': `10.0.0.${i}` } });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    const limited = await t.request('POST', '/api/public/subscription', { email: 'x@example.com', list_uuids: [] }, { auth: null });
    assert.equal(limited.status, 429);
    assert.ok(limited.headers.get('retry-after'));
    assert.equal(typeof limited.body.message, 'string');
    const pageRes = await fetch(`${t.url}/subscription/form`);
    assert.equal(pageRes.status, 429);
    assert.match(await pageRes.text(), /Too many requests/);
  }));

  it('trusted proxies pass the client address through X-Forwarded-For', () => withSettings(t, { 'security.trusted_proxies': ['127.0.0.1'] }, async () => {
    const a = await t.request('GET', '/api/public/lists', undefined, { auth: null, headers: { 'x-forwarded-for': '203.0.113.7' } });
    assert.equal(a.status, 200);
    await withSettings(t, { 'security.public_rate_limit': 0 }, async () => {
      for (let i = 0; i < 5; i++) assert.equal((await t.request('GET', '/api/public/lists', undefined, { auth: null })).status, 200, '0 turns the limit off');
    });
  }));

  it('one-click unsubscribes are limited per subscriber, not per client address', async () => {
    const list = (await t.request('POST', '/api/lists', { name: 'Limits', type: 'public', optin: 'single' })).body.data.id;
    const uuids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const id = (await t.request('POST', '/api/subscribers', { email: `oneclick${i}@example.com`, name: 'O', lists: [list] })).body.data.id;
      uuids.push((await t.request('GET', `/api/subscribers/${id}`)).body.data.uuid);
    }
    // A fresh client address, through 127.0.0.1 as a trusted proxy.
    const headers = { 'x-forwarded-for': '198.51.100.9' };
    await withSettings(t, { 'security.public_rate_limit': 2, 'security.trusted_proxies': ['127.0.0.1'] }, async () => {
      const zero = '00000000-0000-0000-0000-000000000000';
      const oneClick = (uuid: string) => fetch(`${t.url}/subscription/${zero}/${uuid}`, { method: 'POST', headers, body: new URLSearchParams({ 'List-Unsubscribe': 'One-Click' }) });
      // More one-clicks from this one address than its budget, each for another subscriber: all pass.
      for (const uuid of uuids) assert.equal((await oneClick(uuid)).status, 200);
      // One subscriber's link hammered is still limited.
      assert.equal((await oneClick(uuids[0])).status, 200);
      assert.equal((await oneClick(uuids[0])).status, 429);
      // Other pages from this address keep the per-address budget.
      assert.equal((await fetch(`${t.url}/subscription/form`, { headers })).status, 200);
      assert.equal((await fetch(`${t.url}/subscription/form`, { headers })).status, 200);
      assert.equal((await fetch(`${t.url}/subscription/form`, { headers })).status, 429);
    });
  });

  it('limiter windows are per key and reset after a minute', () => {
    const l = new RateLimiter();
    assert.equal(l.hit('a', 1, 0), true);
    assert.equal(l.hit('a', 1, 1000), false);
    assert.equal(l.hit('b', 1, 1000), true);
    assert.equal(l.hit('a', 1, 61_000), true);
  });
});
