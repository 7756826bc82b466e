// A subscriber's activity (GET /api/subscribers/{id}/activity and the admin's Activity tab)
// names only the campaigns the caller may see; the others are counted as "a campaign you cannot
// see", without name, subject, UUID or links.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { seedTwoListActivity, THEIR_CAMPAIGN } from '../helpers/activity.ts';
import { adminSession, getPage, userWithRole } from '../helpers/admin.ts';
import { roleCaller, useFreshServer, type TestServer } from '../helpers/server.ts';

describe('subscriber activity, by the campaigns the caller may see', () => {
  const server = useFreshServer();
  let t: TestServer;

  before(() => {
    t = server();
    seedTwoListActivity(t.server.ctx.db);
  });

  it('shows a list-restricted role the campaigns of its lists, and the others without name, subject, UUID or link', async () => {
    const restricted = roleCaller(t, ['subscribers:get', 'campaigns:get'], [801]);
    const res = await t.request('GET', '/api/subscribers/801/activity', undefined, { auth: restricted });
    assert.equal(res.status, 200, res.text);
    for (const secret of THEIR_CAMPAIGN) assert.ok(!res.text.includes(secret), secret);
    assert.deepEqual(res.body.data, {
      campaign_views: [
        { id: null, uuid: null, name: '', subject: '', view_count: 2, last_viewed_at: '2025-01-03T00:00:00.000Z', restricted: true },
        { id: 801, uuid: 'camp-ours', name: 'Our news', subject: 'Hello from us', view_count: 1, last_viewed_at: '2025-01-01T00:00:00.000Z' },
      ],
      link_clicks: [
        { link_id: null, url: '', campaign_id: null, campaign_uuid: null, campaign_name: null, campaign_subject: null, click_count: 1, last_clicked_at: '2025-01-03T00:00:00.000Z', restricted: true },
        { link_id: 801, url: 'https://ours.example/post', campaign_id: 801, campaign_uuid: 'camp-ours', campaign_name: 'Our news', campaign_subject: 'Hello from us', click_count: 1, last_clicked_at: '2025-01-01T00:00:00.000Z' },
      ],
    });
  });

  it('names no campaign to a role without campaign read access, and every one to campaigns:get_all', async () => {
    const noCampaigns = roleCaller(t, ['subscribers:get_all']);
    const none = await t.request('GET', '/api/subscribers/801/activity', undefined, { auth: noCampaigns });
    assert.equal(none.status, 200);
    assert.ok(none.body.data.campaign_views.every((v: { restricted?: boolean }) => v.restricted));
    assert.ok(!none.text.includes('Our news') && !none.text.includes('Secret launch'));
    const all = await t.request('GET', '/api/subscribers/801/activity', undefined, { auth: roleCaller(t, ['subscribers:get_all', 'campaigns:get_all']) });
    assert.deepEqual(all.body.data.campaign_views.map((v: { name: string }) => v.name), ['Secret launch', 'Our news']);
    assert.deepEqual(all.body.data.link_clicks.map((k: { url: string }) => k.url), ['https://theirs.example/embargoed', 'https://ours.example/post']);
  });

  it('shows the Activity tab the same way: "A campaign you cannot see", the counts kept', async () => {
    const u = await userWithRole(t, ['subscribers:get', 'campaigns:get'], [{ id: 801, permissions: ['list:get'] }]);
    const page = await getPage(t, await adminSession(t, u.username, u.password), '/admin/subscribers/801?tab=activity');
    assert.equal(page.status, 200);
    for (const secret of THEIR_CAMPAIGN) assert.ok(!page.body.includes(secret), secret);
    assert.equal([...page.body.matchAll(/A campaign you cannot see/g)].length, 2);
    assert.match(page.body, /Our news <span class="muted small">Hello from us<\/span>/);
    assert.match(page.body, /https:\/\/ours\.example\/post/);
    assert.match(page.body, /aria-label="Views"><div class="label">Views<\/div><div class="big">3<\/div>/);
  });
});
