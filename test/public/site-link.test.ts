// The reader pages' "back to the site" link: app.site_url when set, else the root URL.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { addList, addSubscriber } from '../campaigns/fixtures.ts';

const ZERO = '00000000-0000-0000-0000-000000000000';
let t: TestServer;
let list: number;

const firstLink = async (email: string) => {
  const id = addSubscriber(t.server.ctx.db, email, 'Reader', [[list, 'confirmed']]);
  const uuid = t.server.ctx.db.prepare('SELECT uuid FROM subscribers WHERE id = ?').pluck().get(id) as string;
  const res = await fetch(`${t.url}/subscription/${ZERO}/${uuid}`, { method: 'POST', body: new URLSearchParams({}) });
  assert.equal(res.status, 200);
  return /<a href="([^"]*)"/.exec(await res.text())?.[1];
};

before(async () => {
  t = await startTestServer();
  const r = await t.request('PUT', '/api/settings', { 'app.root_url': 'https://lists.example.com' });
  assert.equal(r.status, 200, r.text);
  list = addList(t.server.ctx.db, 'News', 'single');
});
after(() => t.stop());

describe('app.site_url', () => {
  it('is empty by default: the pages lead back to the root URL', async () => {
    assert.equal((await t.request('GET', '/api/settings')).body.data['app.site_url'], '');
    assert.equal(await firstLink('a@example.com'), 'https://lists.example.com/');
  });

  it('when set, is where the pages lead back to', async () => {
    await withSettings(t, { 'app.site_url': ' https://www.example.org/home?from=news&x="1" ' }, async () => {
      assert.equal(t.server.ctx.settings.str('app.site_url'), 'https://www.example.org/home?from=news&x="1"', 'trimmed');
      assert.equal(await firstLink('b@example.com'), 'https://www.example.org/home?from=news&amp;x=&quot;1&quot;', 'escaped in the page');
    });
  });

  it('must be an http(s) URL or empty', async () => {
    for (const bad of ['javascript:alert(1)', 'www.example.org', 'https://exa mple.org']) {
      const r = await t.request('PUT', '/api/settings', { 'app.site_url': bad });
      assert.equal(r.status, 400, bad);
      assert.match(r.body.message, /app\.site_url/);
    }
    assert.equal(t.server.ctx.settings.str('app.site_url'), '');
  });
});
