import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { clientBucket, RateLimiter } from '../../src/http/rate-limit.ts';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.stop());

/** Finished campaigns in the public archive; their UUIDs. */
function archiveCampaigns(n: number): string[] {
  const f = fixtures(t.server.ctx.db);
  return Array.from({ length: n }, (_, i) => f.campaign({ name: `Issue ${i}`, body: '<p>Hello</p>', archive: true, status: 'finished' }).uuid);
}

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
    // The ignored header is logged once, naming the setting (every client shares one bucket).
    const warnings = t.server.ctx.log.recent().filter((l) => /carries X-Forwarded-For, but that peer is not in security\.trusted_proxies/.test(l));
    assert.equal(warnings.length, 1, warnings.join('\n'));
    assert.match(warnings[0], /WARN/);
  }));

  it('IPv6 clients are counted by /64: addresses in one /64 share a budget, the next /64 has its own', () => withSettings(t, { 'security.public_rate_limit': 3, 'security.trusted_proxies': ['127.0.0.1'] }, async () => {
    const from = async (ip: string) => (await t.request('GET', '/api/public/lists', undefined, { auth: null, headers: { 'x-forwarded-for': ip } })).status;
    const statuses = [];
    for (const ip of ['2001:db8:77:1::1', '2001:db8:77:1:ffff:ffff:ffff:ffff', '2001:0DB8:0077:0001::abcd', '2001:db8:77:1:1:2:3:4']) statuses.push(await from(ip));
    assert.deepEqual(statuses, [200, 200, 200, 429]);
    assert.equal(await from('2001:db8:77:2::1'), 200);
    // IPv4 addresses stay one bucket each.
    assert.equal(await from('203.0.113.50'), 200);
    assert.equal(await from('203.0.113.51'), 200);
  }));

  it('clientBucket: an IPv6 address is its /64, written one way; anything else is itself', () => {
    for (const [address, bucket] of [
      ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
      ['2001:DB8:0001:0002::9', '2001:db8:1:2::/64'],
      ['2001:db8::1', '2001:db8:0:0::/64'],
      ['::1', '0:0:0:0::/64'],
      ['64:ff9b::192.0.2.1', '64:ff9b:0:0::/64'],
      ['fe80::1:2:3:4', 'fe80:0:0:0::/64'],
      ['203.0.113.5', '203.0.113.5'],
      ['unknown', 'unknown'],
    ]) assert.equal(clientBucket(address), bucket, address);
  });

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

  it('archive pages, the RSS feed and the archive API count against the public limit', async () => {
    const uuid = archiveCampaigns(1)[0];
    await withSettings(t, { 'security.public_rate_limit': 2, 'security.trusted_proxies': ['127.0.0.1'] }, async () => {
      for (const [i, path] of ['/archive', '/archive.xml', `/archive/${uuid}`, '/archive/latest', '/api/public/archive', `/campaign/${uuid}/${uuid}`].entries()) {
        const headers = { 'x-forwarded-for': `198.51.100.${20 + i}` };
        const statuses = [];
        for (let n = 0; n < 3; n++) statuses.push((await fetch(`${t.url}${path}`, { headers })).status);
        assert.notEqual(statuses[0], 429, path);
        assert.notEqual(statuses[1], 429, path);
        const limited = await fetch(`${t.url}${path}`, { headers });
        assert.equal(limited.status, 429, path);
        assert.ok(Number(limited.headers.get('retry-after')) >= 1, path);
      }
    });
  });

  it('the tracking pixel and link redirects have their own, larger budget per address', async () => {
    const zero = '00000000-0000-0000-0000-000000000000';
    await withSettings(t, { 'security.public_rate_limit': 2, 'security.trusted_proxies': ['127.0.0.1'] }, async () => {
      for (const [i, path] of [`/campaign/${zero}/${zero}/px.png`, `/link/${zero}/${zero}/${zero}`].entries()) {
        const headers = { 'x-forwarded-for': `198.51.100.${40 + i}` };
        // 20 × the public limit: a mail client opening many messages is not refused.
        for (let n = 0; n < 40; n++) assert.notEqual((await fetch(`${t.url}${path}`, { headers, redirect: 'manual' })).status, 429, `${path} #${n}`);
        const limited = await fetch(`${t.url}${path}`, { headers, redirect: 'manual' });
        assert.equal(limited.status, 429, path);
        assert.ok(Number(limited.headers.get('retry-after')) >= 1, path);
        // The tracking budget is separate: the same address still reads pages.
        assert.equal((await fetch(`${t.url}/archive`, { headers })).status, 200, path);
      }
    });
  });

  it('the archive renders at most 50 campaigns per request, per_page=all included', async () => {
    archiveCampaigns(55);
    await withSettings(t, { 'security.public_rate_limit': 0 }, async () => {
      const rss = await (await fetch(`${t.url}/archive.xml?per_page=all`)).text();
      assert.equal(rss.match(/<item>/g)?.length, 50);
      assert.equal((await fetch(`${t.url}/archive.xml?per_page=1000`).then((r) => r.text())).match(/<item>/g)?.length, 50);
      const api = await t.request('GET', '/api/public/archive?per_page=all', undefined, { auth: null });
      assert.equal(api.body.data.results.length, 50);
      const html = await (await fetch(`${t.url}/archive?per_page=all`)).text();
      assert.equal(html.match(/\/archive\/[0-9a-f-]{36}"/g)?.length, 50);
      // The rest is on the next page.
      assert.ok((await fetch(`${t.url}/archive.xml?per_page=50&page=2`).then((r) => r.text())).includes('<item>'));
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
