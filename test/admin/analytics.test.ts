// Campaign analytics beyond the charts, through the real server: the rates from the send record
// (unsubscribes recorded by the public unsubscribe page), who opened and who clicked (paged, as
// CSV), what roles and list restrictions let a user see, the campaigns chosen in the URL, and
// hostile names shown as text on every campaign and template page.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, apiAs, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

describe('admin campaign analytics', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  const lists: Record<'a' | 'b', number> = { a: 0, b: 0 };
  const subs: { id: number; uuid: string; email: string }[] = [];
  let campaign: { id: number; uuid: string };
  let other: number;

  const db = () => t.server.ctx.db;
  const unsubscribe = (campUuid: string, subUuid: string, form: Record<string, string> = {}) =>
    fetch(`${t.url}/subscription/${campUuid}/${subUuid}`, { method: 'POST', body: new URLSearchParams(form), redirect: 'manual' });
  /** The rates row of a campaign: each data-rate cell's text. */
  const ratesOf = (html: string, id: number) => {
    const row = new RegExp(`<tr data-rates="${id}">(.*?)</tr>`, 's').exec(html)?.[1] ?? '';
    return Object.fromEntries([...row.matchAll(/data-rate="(\w+)">(.*?)<\/td>/gs)].map((m) => [m[1], m[2].replace(/<[^>]+>/g, '').replace(/\s+/g, ' ').trim()]));
  };

  before(async () => {
    t = server();
    admin = await adminSession(t);
    // Off by default (as listmonk): views and clicks would be recorded without their subscriber.
    assert.equal((await t.request('PUT', '/api/settings/privacy.individual_tracking', true)).status, 200);
    for (const key of ['a', 'b'] as const) lists[key] = (await t.request('POST', '/api/lists', { name: `List ${key}`, type: 'public', optin: 'single' })).body.data.id;
    // Four readers on list a, two on list b (the last of them on both).
    for (let i = 1; i <= 6; i++) {
      const res = await t.request('POST', '/api/subscribers', { email: `reader${i}@example.com`, name: i === 6 ? HOSTILE : `Reader ${i}`, lists: i <= 4 ? [lists.a] : i === 5 ? [lists.b] : [lists.a, lists.b], preconfirm_subscriptions: true });
      assert.equal(res.status, 200, res.text);
      subs.push({ id: res.body.data.id, uuid: res.body.data.uuid, email: res.body.data.email });
    }
    const c = await t.request('POST', '/api/campaigns', { name: 'Spring news', subject: 'Spring', lists: [lists.a, lists.b] });
    campaign = { id: c.body.data.id, uuid: c.body.data.uuid };
    other = (await t.request('POST', '/api/campaigns', { name: 'Autumn news', subject: 'Autumn', lists: [lists.b] })).body.data.id;
    // The send record as the engine leaves it: 8 sent; views, clicks and a bounce recorded.
    const f = fixtures(db());
    f.campaignState(campaign.id, { status: 'finished', sent: 8, to_send: 8 });
    const day = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();
    f.view(campaign.id, subs[0].id, day(3));
    f.view(campaign.id, subs[0].id, day(1.5));
    f.view(campaign.id, subs[1].id, day(2));
    f.view(campaign.id, subs[4].id, day(1));
    f.view(campaign.id, null, day(1)); // recorded while individual tracking was off: counted, nobody's
    const more = f.link('https://example.com/more').id;
    const shop = f.link('https://example.com/shop?a=1').id;
    f.click(campaign.id, more, subs[0].id, day(2));
    f.click(campaign.id, more, subs[0].id, day(1));
    f.click(campaign.id, shop, subs[0].id, day(1));
    f.click(campaign.id, more, subs[4].id, day(1));
    f.click(campaign.id, f.link("javascript:alert('x')").id, subs[4].id, day(3));
    f.bounce({ subscriber: subs[2].id, campaign: campaign.id, type: 'hard' });
    f.bounce({ subscriber: subs[2].id, campaign: campaign.id, type: 'soft' });
    f.bounce({ subscriber: subs[3].id, campaign: campaign.id, type: 'soft' });
  });

  it('records who unsubscribed through a campaign\'s link, once, and not through the preview UUID', async () => {
    assert.equal((await unsubscribe(campaign.uuid, subs[3].uuid)).status, 200);
    assert.equal((await unsubscribe(campaign.uuid, subs[3].uuid)).status, 200, 'a second click changes nothing');
    assert.equal((await unsubscribe('00000000-0000-0000-0000-000000000000', subs[2].uuid)).status, 200);
    const rows = db().prepare('SELECT campaign_id, subscriber_id FROM campaign_unsubscribes ORDER BY id').all();
    assert.deepEqual(rows, [{ campaign_id: campaign.id, subscriber_id: subs[3].id }]);
    // A subscriber blocklisting themselves from the page has left too.
    assert.equal((await t.request('PUT', '/api/settings/privacy.allow_blocklist', true)).status, 200);
    assert.equal((await unsubscribe(campaign.uuid, subs[1].uuid, { blocklist: 'true' })).status, 200);
    assert.equal(db().prepare('SELECT COUNT(*) FROM campaign_unsubscribes WHERE campaign_id = ?').pluck().get(campaign.id), 2);
  });

  it('shows each chosen campaign\'s rates beside its counts, a dash where one cannot be computed', async () => {
    const res = await getPage(t, admin, `/admin/campaigns/analytics?id=${campaign.id}&id=${other}&id=999999`);
    assert.equal(res.status, 200);
    // Unique viewers 3 of 8 sent; clickers 2; click-to-open 2/3; bounced subscribers 2 (3 bounces); unsubscribed 2.
    assert.deepEqual(ratesOf(res.body, campaign.id), { open: '3 · 37.5%', click: '2 · 25.0%', cto: '66.7%', bounce: '2 · 25.0%', unsubscribe: '2 · 25.0%' });
    // Nothing sent: no rate.
    assert.deepEqual(ratesOf(res.body, other), { open: '0 · —', click: '0 · —', cto: '—', bounce: '0 · —', unsubscribe: '0 · —' });
    assert.ok(res.body.includes(`href="/admin/campaigns/${campaign.id}/analytics"`));
    // The choice is kept from the URL (an unknown id left out), for the picker to show.
    const chosen = JSON.parse(/<script type="application\/json" id="analytics-chosen">(.*?)<\/script>/s.exec(res.body)![1]);
    assert.deepEqual(chosen, [{ id: campaign.id, name: 'Spring news' }, { id: other, name: 'Autumn news' }]);
    assert.ok(!res.body.includes('<select id="analytics-campaigns"'), 'no list of the most recent campaigns only');

    assert.equal((await t.request('PUT', '/api/settings/privacy.individual_tracking', false)).status, 200);
    const anonymous = await getPage(t, admin, `/admin/campaigns/analytics?id=${campaign.id}`);
    // Individual tracking off: the anonymous figures (5 views, 5 clicks of 8 sent) as approximate rates, said so.
    assert.deepEqual(ratesOf(anonymous.body, campaign.id), { open: '≈ 62.5% · 5 views', click: '≈ 62.5% · 5 clicks', cto: '—', bounce: '2 · 25.0%', unsubscribe: '2 · 25.0%' });
    assert.match(anonymous.body, /<abbr title="Approximate: counted without the subscriber">≈<\/abbr>/);
    assert.match(anonymous.body, /<p class="help" data-approx="true">≈ Approximate, because individual tracking is off/);
    assert.ok(!res.body.includes('data-approx'), 'exact rates are not called approximate');
    assert.equal((await t.request('PUT', '/api/settings/privacy.individual_tracking', true)).status, 200);
  });

  it('lists who opened and who clicked which link, paged, with links to the subscribers', async () => {
    const res = await getPage(t, admin, `/admin/campaigns/${campaign.id}/analytics`);
    assert.equal(res.status, 200);
    assertEscaped(res.body);
    assert.match(res.body, /Subscribers who opened it: 3/);
    const rows = [...res.body.matchAll(/<a href="\/admin\/subscribers\/(\d+)">([^<]+)<\/a>.*?<td class="num">(\d+)<\/td>/gs)].map((m) => [Number(m[1]), m[2], Number(m[3])]);
    // The most recent first; the anonymous view is nobody's.
    assert.deepEqual(rows, [[subs[4].id, subs[4].email, 1], [subs[0].id, subs[0].email, 2], [subs[1].id, subs[1].email, 1]]);
    const clicks = await getPage(t, admin, `/admin/campaigns/${campaign.id}/analytics?type=clicks&per_page=2`);
    assert.match(clicks.body, /\(a row each\): 4/);
    assert.match(clicks.body, /<a href="\/admin\/campaigns\/\d+\/analytics\?type=clicks&amp;per_page=2&amp;page=2"/, 'a second page');
    const second = await getPage(t, admin, `/admin/campaigns/${campaign.id}/analytics?type=clicks&per_page=2&page=2`);
    const all = await getPage(t, admin, `/admin/campaigns/${campaign.id}/analytics?type=clicks`);
    assert.ok(all.body.includes("<span>javascript:alert(&#39;x&#39;)</span>") && !all.body.includes('href="javascript:'), 'a javascript: URL is shown as text');
    assert.equal([...second.body.matchAll(/<a href="\/admin\/subscribers\/\d+">/g)].length, 2);
    assert.ok((clicks.body + second.body).includes('href="https://example.com/shop?a=1"'));
    assert.ok(res.body.includes(`href="/api/campaigns/${campaign.id}/analytics/views/export"`));
    // The route is not taken by /admin/campaigns/:id, nor the reverse.
    assert.match((await getPage(t, admin, `/admin/campaigns/${campaign.id}`)).body, /id="campaign-form"/);
    assert.equal((await getPage(t, admin, '/admin/campaigns/abc/analytics')).status, 400);
    assert.equal((await getPage(t, admin, '/admin/campaigns/999999/analytics')).status, 404);
  });

  it('says so when individual tracking is off, instead of an empty table', async () => {
    const quiet = (await t.request('POST', '/api/campaigns', { name: 'Quiet', subject: 'Q', lists: [lists.a] })).body.data.id;
    assert.match((await getPage(t, admin, `/admin/campaigns/${quiet}/analytics`)).body, /data-empty="none"/);
    assert.equal((await t.request('PUT', '/api/settings/privacy.individual_tracking', false)).status, 200);
    try {
      const res = await getPage(t, admin, `/admin/campaigns/${quiet}/analytics?type=clicks`);
      assert.match(res.body, /data-empty="anonymous">Individual tracking is off/);
      assert.ok(!res.body.includes('<table>'), 'no empty table');
    } finally {
      assert.equal((await t.request('PUT', '/api/settings/privacy.individual_tracking', true)).status, 200);
    }
  });

  it('exports who opened and who clicked as CSV', async () => {
    const views = await apiAs(t, admin, 'GET', `/api/campaigns/${campaign.id}/analytics/views/export`);
    assert.equal(views.status, 200);
    assert.match(views.headers.get('content-type') ?? '', /^text\/csv/);
    const lines = views.text.trim().split('\n');
    assert.equal(lines[0], 'subscriber_uuid,email,name,views,first_viewed_at,last_viewed_at');
    assert.deepEqual(lines.slice(1).map((l) => l.split(',').slice(0, 4).join(',')), [
      `${subs[0].uuid},${subs[0].email},Reader 1,2`, `${subs[1].uuid},${subs[1].email},Reader 2,1`, `${subs[4].uuid},${subs[4].email},Reader 5,1`,
    ]);
    const clicks = await apiAs(t, admin, 'GET', `/api/campaigns/${campaign.id}/analytics/clicks/export`);
    assert.deepEqual(clicks.text.trim().split('\n').map((l) => l.split(',').slice(1, 5).join(',')), [
      'email,name,url,clicks', `${subs[0].email},Reader 1,https://example.com/more,2`, `${subs[0].email},Reader 1,https://example.com/shop?a=1,1`, `${subs[4].email},Reader 5,https://example.com/more,1`, `${subs[4].email},Reader 5,javascript:alert('x'),1`,
    ]);
    const bad = await apiAs(t, admin, 'GET', `/api/campaigns/${campaign.id}/analytics/bounces/export`);
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /invalid type "bounces"/);
  });

  it('shows a user only the subscribers their lists allow, and nobody without subscriber access', async () => {
    // Campaign and analytics access, subscribers:get, and list b only: readers 5 and 6.
    const restricted = await userWithRole(t, ['campaigns:get', 'campaigns:get_analytics', 'subscribers:get'], [{ id: lists.b, permissions: ['list:get'] }]);
    const session = await adminSession(t, restricted.username, restricted.password);
    const page = await getPage(t, session, `/admin/campaigns/${campaign.id}/analytics`);
    assert.equal(page.status, 200);
    assert.ok(page.body.includes(subs[4].email) && !page.body.includes(subs[0].email) && !page.body.includes(subs[1].email));
    const csv = await apiAs(t, session, 'GET', `/api/campaigns/${campaign.id}/analytics/views/export`);
    assert.equal(csv.status, 200);
    assert.ok(csv.text.includes(subs[4].email) && !csv.text.includes(subs[0].email));

    const blind = await userWithRole(t, ['campaigns:get_all', 'campaigns:get_analytics']);
    const blindSession = await adminSession(t, blind.username, blind.password);
    const blindPage = await getPage(t, blindSession, `/admin/campaigns/${campaign.id}/analytics`);
    assert.equal(blindPage.status, 200);
    assert.match(blindPage.body, /does not allow seeing subscribers/);
    assert.ok(!blindPage.body.includes(subs[0].email) && !blindPage.body.includes('/export'));
    assert.equal((await apiAs(t, blindSession, 'GET', `/api/campaigns/${campaign.id}/analytics/views/export`)).status, 403);

    // Without analytics: refused, the page and the export.
    const reader = await userWithRole(t, ['campaigns:get_all', 'subscribers:get_all']);
    const readerSession = await adminSession(t, reader.username, reader.password);
    assert.equal((await getPage(t, readerSession, `/admin/campaigns/${campaign.id}/analytics`)).status, 403);
    assert.equal((await apiAs(t, readerSession, 'GET', `/api/campaigns/${campaign.id}/analytics/views/export`)).status, 403);
    assert.equal((await getPage(t, null, `/admin/campaigns/${campaign.id}/analytics`)).status, 307);
    // The campaigns table offers the analytics only to those who may see them.
    const analyticsLink = `href="/admin/campaigns/analytics?id=${campaign.id}"`;
    assert.ok((await getPage(t, admin, '/admin/campaigns')).body.includes(analyticsLink));
    assert.ok(!(await getPage(t, readerSession, '/admin/campaigns')).body.includes(analyticsLink));
    // A campaign the user's lists do not reach is not chosen for them, nor shown.
    const onlyA = await userWithRole(t, ['campaigns:get', 'campaigns:get_analytics'], [{ id: lists.a, permissions: ['list:get'] }]);
    const onlyASession = await adminSession(t, onlyA.username, onlyA.password);
    const chosen = await getPage(t, onlyASession, `/admin/campaigns/analytics?id=${campaign.id}&id=${other}`);
    assert.ok(chosen.body.includes('Spring news') && !chosen.body.includes('Autumn news'));
    assert.equal((await getPage(t, onlyASession, `/admin/campaigns/${other}/analytics`)).status, 403);
  });

  it('keeps the per-day counts equal to the views and clicks recorded, when tracked, deleted, or a campaign goes', async () => {
    const counted = () => db().prepare(`SELECT campaign_id, kind, day, n FROM campaign_daily WHERE n > 0 ORDER BY 1, 2, 3`).all();
    const raw = () => db().prepare(`SELECT campaign_id, 'views' AS kind, substr(created_at, 1, 10) AS day, COUNT(*) AS n FROM campaign_views WHERE campaign_id IS NOT NULL GROUP BY 1, 3
      UNION ALL SELECT campaign_id, 'clicks', substr(created_at, 1, 10), COUNT(*) FROM link_clicks WHERE campaign_id IS NOT NULL GROUP BY 1, 3 ORDER BY 1, 2, 3`).all();
    assert.ok(counted().length > 0);
    assert.deepEqual(counted(), raw());
    // A view through the real pixel (today), then the maintenance deleting the older ones.
    const px = await fetch(`${t.url}/campaign/${campaign.uuid}/${subs[2].uuid}/px.png`);
    assert.equal(px.status, 200);
    assert.deepEqual(counted(), raw());
    const cutoff = new Date(Date.now() - 1.5 * 86_400_000).toISOString();
    assert.equal((await t.request('DELETE', `/api/maintenance/analytics/views?before_date=${encodeURIComponent(cutoff)}`)).status, 200);
    assert.deepEqual(counted(), raw());
    const campaigns = await getPage(t, admin, '/admin/campaigns');
    const row = new RegExp(`<tr data-campaign="${campaign.id}">(.*?)</tr>`, 's').exec(campaigns.body)![1];
    assert.match(row, new RegExp(`Views: ${db().prepare('SELECT COUNT(*) FROM campaign_views WHERE campaign_id = ?').pluck().get(campaign.id)}<`));
    const gone = (await t.request('POST', '/api/campaigns', { name: 'Gone', subject: 'G', lists: [lists.a] })).body.data.id;
    fixtures(db()).view(gone, subs[0].id);
    assert.equal((await t.request('DELETE', `/api/campaigns/${gone}`)).status, 200);
    assert.equal(db().prepare('SELECT COUNT(*) FROM campaign_daily WHERE campaign_id = ?').pluck().get(gone), 0);
  });

  it('shows hostile campaign names, subjects, tags and template names as text on every page', async () => {
    const tpl = await t.request('POST', '/api/templates', { name: HOSTILE, type: 'campaign', body: '<div>{{ template "content" . }}</div>' });
    assert.equal(tpl.status, 200, tpl.text);
    const c = await t.request('POST', '/api/campaigns', { name: HOSTILE, subject: HOSTILE, tags: [HOSTILE], lists: [lists.a], template_id: tpl.body.data.id, body: HOSTILE });
    assert.equal(c.status, 200, c.text);
    for (const path of ['/admin/campaigns', `/admin/campaigns/${c.body.data.id}`, `/admin/campaigns/analytics?id=${c.body.data.id}&id=${campaign.id}`, `/admin/campaigns/${c.body.data.id}/analytics`, '/admin/campaigns/templates']) {
      const res = await getPage(t, admin, path);
      assert.equal(res.status, 200, path);
      assertEscaped(res.body);
      assert.ok(res.body.includes('&lt;img src=x') || res.body.includes('\\u003cimg src=x'), `${path} shows the hostile name as text`);
    }
  });
});
