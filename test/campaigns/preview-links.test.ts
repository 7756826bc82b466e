// Previews render TrackLink as a link of the zero link UUID, which redirects nowhere, and
// register nothing: a read-only user cannot mint redirects on our domain or fill the links
// table (issue 16 point 11).
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

const ZERO = '00000000-0000-0000-0000-000000000000';
const tracked = (n: string) => `<a href="{{ TrackLink "https://evil.example/${n}" }}">go</a> <a href="https://evil.example/${n}-short@TrackLink">short</a>`;

describe('previews and tracking links', () => {
  let t: TestServer;
  let reader = '';
  let campaign = 0;
  const links = () => t.server.ctx.db.prepare('SELECT COUNT(*) FROM links').pluck().get() as number;

  before(async () => {
    t = await startTestServer();
    const f = fixtures(t.server.ctx.db);
    const list = f.list({ name: 'L' }).id;
    reader = f.apiUser('reader', { permissions: ['campaigns:get_all', 'campaigns:get', 'templates:get'] });
    const res = await t.request('POST', '/api/campaigns', { name: 'C', subject: 'S', lists: [list], body: tracked('stored'), content_type: 'html', archive: true });
    assert.equal(res.status, 200, res.text);
    campaign = res.body.data.id;
  });
  after(() => t.stop());

  it('creating a campaign with tracked links registers none', () => {
    assert.equal(links(), 0);
  });

  const previews: [string, string, () => string, unknown?][] = [
    ['the stored campaign', 'GET', () => `/api/campaigns/${campaign}/preview`],
    ['a body in the query', 'GET', () => `/api/campaigns/${campaign}/preview?body=${encodeURIComponent(tracked('query'))}`],
    ['a posted body', 'POST', () => `/api/campaigns/${campaign}/preview`, { body: tracked('posted') }],
    ['a posted plain-text body', 'POST', () => `/api/campaigns/${campaign}/text`, { body: tracked('text'), content_type: 'plain' }],
    ['the archive page', 'POST', () => `/api/campaigns/${campaign}/preview/archive`, {}],
    ['an unsaved campaign template', 'POST', () => '/api/templates/preview', { template_type: 'campaign', body: `{{ template "content" . }} ${tracked('template')}` }],
  ];
  for (const [name, method, path, body] of previews) {
    it(`a read-only user's preview of ${name} tracks its links with the zero link UUID and registers nothing`, async () => {
      const res = await t.request(method, path(), body, { auth: reader });
      assert.equal(res.status, 200, res.text);
      const tracked = [...res.text.matchAll(/\/link\/([^/"\s]+)\//g)].map((m) => m[1]);
      assert.ok(tracked.length >= 2, res.text);
      assert.deepEqual(new Set(tracked), new Set([ZERO]));
      assert.doesNotMatch(res.text, /evil\.example/);
      assert.equal(links(), 0);
      const follow = await fetch(`${t.url}/link/${ZERO}/${ZERO}/${ZERO}`, { redirect: 'manual' });
      assert.equal(follow.status, 400);
    });
  }

  it('/link/ redirects to no URL that was not registered', async () => {
    const res = await fetch(`${t.url}/link/${randomUUID()}/${ZERO}/${ZERO}`, { redirect: 'manual' });
    assert.equal(res.status, 400);
    assert.equal(res.headers.get('location'), null);
  });
});
