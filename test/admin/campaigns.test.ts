// The admin's campaign pages, rendered by the real server: the table with its state-dependent
// actions, a campaign's page (editable or read-only), roles, and hostile values as text.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { adminSession, apiAs, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

describe('admin campaign pages', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  let listId: number;
  const ids: Record<string, number> = {};

  before(async () => {
    t = server();
    admin = await adminSession(t);
    listId = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data.id;
    for (const [key, body] of Object.entries({
      draft: { name: 'October issue', subject: 'News of October', lists: [listId], content_type: 'html', body: '<p>Hi</p>', tags: ['monthly'] },
      scheduled: { name: 'Later issue', subject: 'Later', lists: [listId], send_at: new Date(Date.now() + 86_400_000).toISOString() },
      hostile: { name: HOSTILE, subject: HOSTILE, lists: [listId], tags: [HOSTILE], body: HOSTILE },
    })) {
      const res = await t.request('POST', '/api/campaigns', body);
      assert.equal(res.status, 200, res.text);
      ids[key] = res.body.data.id;
    }
    assert.equal((await t.request('PUT', `/api/campaigns/${ids.scheduled}/status`, { status: 'scheduled' })).status, 200);
  });

  it('lists campaigns with the actions their state allows', async () => {
    const res = await getPage(t, admin, '/admin/campaigns');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h1>Campaigns<span class="count"> \(3\)<\/span><\/h1>/);
    const row = (id: number) => new RegExp(`<tr data-campaign="${id}">(.*?)</tr>`, 's').exec(res.body)![1];
    assert.match(row(ids.draft), /data-status="running"/);
    assert.match(row(ids.scheduled), /data-status="draft"/);
    assert.doesNotMatch(row(ids.scheduled), /data-status="running"/);
    assert.ok(row(ids.draft).includes(`href="/admin/lists/${listId}"`));
    assert.ok(res.body.includes('href="/admin/campaigns/new"'));
    const filtered = await getPage(t, admin, '/admin/campaigns?status=scheduled');
    assert.match(filtered.body, /\(1\)<\/span>/);
    const found = await getPage(t, admin, '/admin/campaigns?query=october');
    assert.ok(found.body.includes('October issue') && !found.body.includes('Later issue'));
    assert.equal((await getPage(t, admin, '/admin/campaigns?status=nope&order_by=evil&page=x')).status, 200);
  });

  it('offers to send a finished campaign again to its failed recipients, and shows why one paused', async () => {
    const failed = (await t.request('POST', '/api/campaigns', { name: 'Partly failed', subject: 'S', lists: [listId] })).body.data.id;
    const paused = (await t.request('POST', '/api/campaigns', { name: 'Stopped', subject: 'S', lists: [listId] })).body.data.id;
    const f = fixtures(t.server.ctx.db);
    f.campaignState(failed, { status: 'finished', failed: 2 });
    f.campaignState(paused, { status: 'paused', status_reason: 'the mail server refused the connection (ECONNREFUSED)' });
    const res = await getPage(t, admin, '/admin/campaigns');
    const row = (id: number) => new RegExp(`<tr data-campaign="${id}">(.*?)</tr>`, 's').exec(res.body)![1];
    assert.match(row(failed), /Failed: 2/);
    assert.match(row(failed), /data-status="running" data-label="Send again to the failed"/);
    assert.match(row(paused), /the mail server refused the connection \(ECONNREFUSED\)/);
    assert.match(row(paused), /data-status="running" data-label="Resume"/);
    for (const id of [failed, paused]) assert.equal((await t.request('DELETE', `/api/campaigns/${id}`)).status, 200);
  });

  it('says on a paused campaign\'s page why it stopped and what to do, with its progress bar, and puts paused campaigns on the dashboard', async () => {
    const paused = (await t.request('POST', '/api/campaigns', { name: 'Relay down', subject: 'S', lists: [listId] })).body.data.id;
    const byHand = (await t.request('POST', '/api/campaigns', { name: 'Held', subject: 'S', lists: [listId] })).body.data.id;
    const f = fixtures(t.server.ctx.db);
    f.campaignState(paused, { status: 'paused', to_send: 200, sent: 50, status_reason: 'the mail server refused the connection (ECONNREFUSED)' });
    f.campaignState(byHand, { status: 'paused', status_reason: '' });
    const page = await getPage(t, admin, `/admin/campaigns/${paused}`);
    const banner = /<section class="banner warn paused-banner"[^>]*>(.*?)<\/section>/s.exec(page.body)?.[1] ?? '';
    assert.match(banner, /This campaign is paused/);
    assert.match(banner, /The sending stopped: the mail server refused the connection \(ECONNREFUSED\)/);
    assert.match(banner, /<a href="\/admin\/settings#smtp">Settings → SMTP<\/a>/);
    assert.match(banner, /data-status="running" data-label="Resume" x-on:click="changeStatus">Resume<\/button>/);
    assert.match(page.body, /<div class="campaign-progress"><progress max="100" value="25" aria-label="Progress of Relay down">25%<\/progress>/);
    assert.match((await getPage(t, admin, `/admin/campaigns/${byHand}`)).body, /The sending was paused by hand\./);
    // A role that may read campaigns but not send them or read settings: the reason, no Resume, no settings link.
    const reader = await userWithRole(t, ['campaigns:get_all', 'lists:get_all']);
    const readerPage = (await getPage(t, await adminSession(t, reader.username, reader.password), `/admin/campaigns/${paused}`)).body;
    assert.match(readerPage, /ECONNREFUSED/);
    assert.match(readerPage, /Someone who may send campaigns can resume it/);
    assert.ok(!readerPage.includes('href="/admin/settings#smtp"') && !readerPage.includes('data-status='));

    const dash = await getPage(t, admin, '/admin');
    const dashBanner = /<section class="banner warn paused-campaigns"[^>]*>(.*?)<\/section>/s.exec(dash.body)?.[1] ?? '';
    assert.match(dashBanner, /2 campaigns are paused/);
    assert.match(dashBanner, new RegExp(`<a href="/admin/campaigns/${paused}">Relay down</a>: the mail server refused the connection \\(ECONNREFUSED\\)`));
    assert.match(dashBanner, new RegExp(`<a href="/admin/campaigns/${byHand}">Held</a>: The sending was paused by hand.`));
    const none = await userWithRole(t, ['subscribers:get_all']);
    assert.ok(!(await getPage(t, await adminSession(t, none.username, none.password), '/admin')).body.includes('paused-campaigns'), 'no campaigns shown to a role that cannot read them');
    for (const id of [paused, byHand]) assert.equal((await t.request('DELETE', `/api/campaigns/${id}`)).status, 200);
    assert.ok(!(await getPage(t, admin, '/admin')).body.includes('paused-campaigns'));
  });

  it('shows a draft as an editable form, and a new-campaign form with the list chosen', async () => {
    const res = await getPage(t, admin, `/admin/campaigns/${ids.draft}`);
    assert.equal(res.status, 200);
    assert.match(res.body, /data-method="PUT" data-action="\/api\/campaigns\/\d+"/);
    assert.match(res.body, /<textarea id="c-body" name="body"[^>]*>&lt;p&gt;Hi&lt;\/p&gt;<\/textarea>/);
    assert.match(res.body, /Save changes/);
    const fresh = await getPage(t, admin, `/admin/campaigns/new?list_id=${listId}`);
    assert.match(fresh.body, new RegExp(`<input type="checkbox" id="c-list-${listId}" name="lists" value="${listId}"[^>]*checked=""`));
    assert.match(fresh.body, /<input type="checkbox" name="track_links" value="true" data-kind="bool" checked=""/, 'links are tracked by default');
    const lists = await getPage(t, admin, '/admin/lists');
    assert.ok(lists.body.includes(`href="/admin/campaigns/new?list_id=${listId}"`), 'a list offers a new campaign to it');
    assert.equal((await getPage(t, admin, '/admin/campaigns/99999')).status, 404);
  });

  it('offers the active lists to search and tick, with the chosen ones as chips; an archived list shows only where a campaign already goes to it', async () => {
    const archived = (await t.request('POST', '/api/lists', { name: 'Old letters', type: 'private', optin: 'single', status: 'archived' })).body.data.id;
    const c = (await t.request('POST', '/api/campaigns', { name: 'To old letters', subject: 'S', lists: [listId, archived] })).body.data.id;
    const fresh = await getPage(t, admin, '/admin/campaigns/new');
    assert.ok(fresh.body.includes(`id="c-list-${listId}"`) && !fresh.body.includes('Old letters'), 'archived lists are not offered');
    assert.match(fresh.body, /<input type="search" id="c-lists-search"[^>]*aria-label="Search lists"/);
    assert.match(fresh.body, /data-audience/, 'the live count of the audience has its place');
    const page = await getPage(t, admin, `/admin/campaigns/${c}`);
    const chips = /<ul class="chips" data-chips[^>]*aria-label="Chosen lists"[^>]*>(.*?)<\/ul>/s.exec(page.body)![1];
    assert.match(chips, /<span>Readers<\/span><button type="button" class="chip-remove" data-remove="\d+" aria-label="Remove Readers">/);
    assert.match(chips, /Old letters/);
    assert.match(page.body, new RegExp(`id="c-list-${archived}" name="lists" value="${archived}"[^>]*checked=""`), 'a list the campaign goes to stays chosen, archived or not');
    assert.equal((await t.request('DELETE', `/api/campaigns/${c}`)).status, 200);
  });

  /** A subscriber of these lists (the audience tests). */
  const add = async (email: string, lists: number[], extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', '/api/subscribers', { email, name: email, lists, ...extra });
    assert.equal(res.status, 200, res.text);
    return res.body.data.id as number;
  };

  it('counts the subscribers a campaign to the chosen lists would reach, as the send counts them', async () => {
    const single = (await t.request('POST', '/api/lists', { name: 'Audience single', type: 'private', optin: 'single' })).body.data.id;
    const double = (await t.request('POST', '/api/lists', { name: 'Audience double', type: 'private', optin: 'double' })).body.data.id;
    await add('both@example.com', [single, double], { preconfirm_subscriptions: true });
    await add('single@example.com', [single]);
    await add('unconfirmed@example.com', [double]);
    await add('blocked@example.com', [single], { status: 'blocklisted' });
    const gone = await add('gone@example.com', [single]);
    assert.equal((await t.request('PUT', '/api/subscribers/lists', { ids: [gone], action: 'unsubscribe', target_list_ids: [single] })).status, 200);
    const count = async (query: string) => {
      const res = await t.request('GET', `/api/campaigns/audience?${query}`);
      assert.equal(res.status, 200, res.text);
      return { count: res.body.data.count, lists: res.body.data.lists };
    };
    // single opt-in: subscribed and not unsubscribed; double: confirmed; never the blocklisted; each subscriber once.
    assert.deepEqual(await count(`list_id=${single}`), { count: 2, lists: 1 });
    assert.deepEqual(await count(`list_id=${double}`), { count: 1, lists: 1 });
    assert.deepEqual(await count(`list_id=${single}&list_id=${double}`), { count: 2, lists: 2 });
    assert.deepEqual(await count(`list_id=${double}&type=optin`), { count: 1, lists: 1 }, 'an opt-in campaign goes to the unconfirmed');
    assert.deepEqual(await count(''), { count: 0, lists: 0 });
    assert.deepEqual(await count('list_id=999999'), { count: 0, lists: 0 });
    const bad = await t.request('GET', '/api/campaigns/audience?list_id=abc');
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /list_id/);
    // What the send counts: a campaign to the same lists, started, has the same to_send.
    const camp = (await t.request('POST', '/api/campaigns', { name: 'Counted', subject: 'S', lists: [single, double] })).body.data.id;
    t.server.ctx.delivery.stop();
    const { DeliveryStore } = await import('../../src/delivery/store.ts');
    new DeliveryStore(t.server.ctx.db, t.server.ctx.campaignStore).pickUp({ id: camp, last_subscriber_id: 0, retrying_failed: 0, to_send: 0, max_subscriber_id: 0 }, false);
    assert.equal((await t.request('GET', `/api/campaigns/${camp}`)).body.data.to_send, 2);
    // A role sees only the lists it may: the others are left out of the count.
    const limited = await userWithRole(t, ['campaigns:get'], [{ id: double, permissions: ['list:get'] }]);
    const res = await apiAs(t, await adminSession(t, limited.username, limited.password), 'GET', `/api/campaigns/audience?list_id=${single}&list_id=${double}`);
    const limitedCount = (res.body as { data: { count: number; lists: number } }).data;
    assert.deepEqual({ count: limitedCount.count, lists: limitedCount.lists }, { count: 1, lists: 1 });
  });

  it('says who of the lists\' members a campaign leaves out and why, and which lists\' opt-in action reaches the unconfirmed', async () => {
    const single = (await t.request('POST', '/api/lists', { name: 'Reasons single', type: 'private', optin: 'single' })).body.data.id;
    const double = (await t.request('POST', '/api/lists', { name: 'Reasons double', type: 'private', optin: 'double' })).body.data.id;
    await add('r-confirmed@example.com', [double], { preconfirm_subscriptions: true });
    for (const n of [1, 2, 3]) await add(`r-unconfirmed-${n}@example.com`, [double]);
    // Unconfirmed on the double list but subscribed to the single one: reached, so not left out.
    await add('r-both@example.com', [single, double]);
    const gone = await add('r-gone@example.com', [single]);
    assert.equal((await t.request('PUT', '/api/subscribers/lists', { ids: [gone], action: 'unsubscribe', target_list_ids: [single] })).status, 200);
    const blocked = await add('r-blocked@example.com', [double], { preconfirm_subscriptions: true });
    assert.equal((await t.request('PUT', `/api/subscribers/${blocked}/blocklist`)).status, 200);
    const audience = async (query: string) => {
      const res = await t.request('GET', `/api/campaigns/audience?${query}`);
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    };
    assert.deepEqual(await audience(`list_id=${single}&list_id=${double}`), {
      count: 2, lists: 2, members: 7,
      excluded: { unconfirmed: 3, unsubscribed: 1, blocklisted: 1, nothing_to_confirm: 0 },
      optin_lists: [{ id: double, name: 'Reasons double', unconfirmed: 4, manage: true }],
    });
    // An opt-in campaign reaches the unconfirmed: the confirmed have nothing to confirm.
    assert.deepEqual(await audience(`list_id=${double}&type=optin`), {
      count: 4, lists: 1, members: 6,
      excluded: { unconfirmed: 0, unsubscribed: 0, blocklisted: 1, nothing_to_confirm: 1 },
      optin_lists: [],
    });
    // The figures add up to the lists' members, and the count is what the list's opt-in action would mail.
    assert.deepEqual((await t.request('GET', `/api/lists/${double}/optin`)).body.data, { unconfirmed: 4, sendable: 4 });
    // A role that may see the double list but not manage it gets no opt-in action offered.
    const viewer = await userWithRole(t, ['campaigns:get'], [{ id: double, permissions: ['list:get'] }]);
    const res = await apiAs(t, await adminSession(t, viewer.username, viewer.password), 'GET', `/api/campaigns/audience?list_id=${double}`);
    assert.deepEqual(res.body.data.optin_lists, [{ id: double, name: 'Reasons double', unconfirmed: 4, manage: false }]);
  });

  it('groups the messengers: email and each enabled named SMTP server, then the enabled postback messengers', async () => {
    const smtp = (name: string, enabled: boolean) => ({
      enabled, host: '127.0.0.1', port: 2525, hello_hostname: '', auth_protocol: 'none', username: '', password: '', email_headers: [], max_conns: 1,
      max_msg_retries: 0, msg_retry_delay: '10ms', idle_timeout: '15s', wait_timeout: '5s', tls_type: 'none', tls_skip_verify: false, from_addresses: [], name, uuid: '',
    });
    const hook = (name: string, enabled: boolean) => ({ enabled, name, root_url: 'http://127.0.0.1:9/', username: '', password: '', max_conns: 1, timeout: '2s', max_msg_retries: 0 });
    const before = (await t.request('GET', '/api/settings')).body.data;
    const put = await t.request('PUT', '/api/settings', { smtp: [smtp('primary', true), smtp('bulk', true), smtp('spare', false)], messengers: [hook('hook', true), hook('off', false)] });
    assert.equal(put.status, 200, put.text);
    try {
      const page = await getPage(t, admin, `/admin/campaigns/${ids.draft}`);
      const select = /<select id="c-messenger" name="messenger">(.*?)<\/select>/s.exec(page.body)![1];
      assert.equal(select, '<optgroup label="E-mail (SMTP)"><option value="email" selected="">email</option><option value="email-primary">email-primary</option>'
        + '<option value="email-bulk">email-bulk</option></optgroup><optgroup label="Other messengers"><option value="hook">hook</option></optgroup>');
    } finally {
      const back = await t.request('PUT', '/api/settings', { smtp: before.smtp, messengers: before.messengers });
      assert.equal(back.status, 200, back.text);
    }
  });

  it('shows a campaign\'s attachments as chips, removable while it can be changed, and offers the media library', async () => {
    const upload = new FormData();
    upload.append('file', new Blob(['%PDF-1.4 test'], { type: 'application/pdf' }), 'price-list.pdf');
    const media = await t.request('POST', '/api/media', undefined, { raw: upload });
    assert.equal(media.status, 200, media.text);
    const c = (await t.request('POST', '/api/campaigns', { name: 'With a file', subject: 'S', lists: [listId], media: [media.body.data.id] })).body.data.id;
    const chips = async (path: string) => /<fieldset class="field attachments"(.*?)<\/fieldset>/s.exec((await getPage(t, admin, path)).body)![1];
    const editable = await chips(`/admin/campaigns/${c}`);
    assert.match(editable, new RegExp(`<li class="chip" data-id="${media.body.data.id}"><span>price-list.pdf</span><input type="hidden" name="media" data-kind="ints" value="${media.body.data.id}"/?><button type="button" class="chip-remove"[^>]*aria-label="Remove price-list.pdf"`));
    assert.match(editable, /x-on:click="add">Add attachments</);
    fixtures(t.server.ctx.db).campaignState(c, { status: 'finished' });
    const readOnly = await getPage(t, admin, `/admin/campaigns/${c}`);
    const fixed = /<fieldset class="field attachments"(.*?)<\/fieldset>/s.exec(readOnly.body)![1];
    assert.match(fixed, /<span>price-list.pdf<\/span>/);
    assert.ok(!fixed.includes('chip-remove') && !fixed.includes('Add attachments'), 'a finished campaign\'s attachments cannot be changed');
    assert.ok(!readOnly.body.includes('id="c-lists-search"') && !/data-remove="\d+" aria-label="Remove Readers"/.test(readOnly.body), 'nor its lists');
    assert.match(readOnly.body, /<select id="c-messenger" name="messenger" disabled="">/);
    const fresh = await chips('/admin/campaigns/new');
    assert.match(fresh, /No attachments\./);
  });

  it('puts the lists and the time on start and schedule buttons for the summary, and offers to fill the archive subscriber', async () => {
    const list = await getPage(t, admin, '/admin/campaigns');
    assert.match(list.body, new RegExp(`data-status="running" data-label="Start" data-summary="running" data-lists="${listId}" data-type="regular" data-send-at=""`));
    const sendAt = (await t.request('GET', `/api/campaigns/${ids.scheduled}`)).body.data.send_at;
    assert.equal((await t.request('PUT', `/api/campaigns/${ids.scheduled}/status`, { status: 'draft' })).status, 200);
    try {
      const page = await getPage(t, admin, `/admin/campaigns/${ids.scheduled}`);
      assert.match(page.body, new RegExp(`data-status="scheduled" data-label="Schedule" data-summary="scheduled" data-lists="${listId}" data-type="regular" data-send-at="${sendAt}"`));
      assert.match(page.body, /x-on:click="fillArchiveMeta">Fill with a sample subscriber</);
      assert.match(page.body, /<script type="application\/json" id="archive-sample">\{"email":"email@domain.com","name":"Subscriber","attribs":\{\}\}<\/script>/);
    } finally {
      assert.equal((await t.request('PUT', `/api/campaigns/${ids.scheduled}/status`, { status: 'scheduled' })).status, 200);
    }
  });

  it('shows no start, pause or schedule to a role that may change campaigns but not send them, and the API refuses it', async () => {
    const writer = await userWithRole(t, ['campaigns:get_all', 'campaigns:manage_all', 'lists:get_all']);
    const session = await adminSession(t, writer.username, writer.password);
    const list = await getPage(t, session, '/admin/campaigns');
    assert.ok(list.body.includes('x-on:click="cloneOne"'), 'the role may change campaigns');
    assert.ok(!list.body.includes('data-status='), 'but starts nothing');
    const page = await getPage(t, session, `/admin/campaigns/${ids.draft}`);
    assert.ok(page.body.includes('Save changes') && !page.body.includes('data-status='));
    const res = await apiAs(t, session, 'PUT', `/api/campaigns/${ids.draft}/status`, { status: 'running' });
    assert.equal(res.status, 403);
    assert.equal((await t.request('GET', `/api/campaigns/${ids.draft}`)).body.data.status, 'draft');
  });

  it('escapes hostile names, subjects, tags and bodies on every campaign page', async () => {
    for (const path of ['/admin/campaigns', `/admin/campaigns/${ids.hostile}`]) {
      const res = await getPage(t, admin, path);
      assert.equal(res.status, 200, path);
      assertEscaped(res.body);
    }
  });

  it('charts views, clicks and bounces of the chosen campaigns, with totals and the top links', async () => {
    const sub = (await t.request('POST', '/api/subscribers', { email: 'viewer@example.com', name: 'Viewer', lists: [listId] })).body.data.id;
    const day = new Date(Date.now() - 2 * 86_400_000).toISOString();
    const f = fixtures(t.server.ctx.db);
    for (let i = 0; i < 3; i++) f.view(ids.draft, sub, day);
    f.view(ids.hostile, sub, day);
    f.click(ids.draft, f.link('https://example.com/read-more').id, sub, day);
    const none = await getPage(t, admin, '/admin/campaigns/analytics');
    assert.equal(none.status, 200);
    assert.match(none.body, /Choose one or more campaigns/);
    const res = await getPage(t, admin, `/admin/campaigns/analytics?id=${ids.draft}&id=${ids.hostile}`);
    assert.equal(res.status, 200);
    assertEscaped(res.body);
    const views = JSON.parse(/<script type="application\/json" id="chart-views">(.*?)<\/script>/s.exec(res.body)![1]);
    const total = (name: string) => views.series.find((x: { label: string }) => x.label === name).values.reduce((a: number, b: number) => a + b, 0);
    assert.equal(total('October issue'), t.server.ctx.settings.bool('privacy.individual_tracking') ? 1 : 3);
    assert.equal(total(HOSTILE), 1);
    assert.ok(res.body.includes('href="https://example.com/read-more"'));
    const reader = await userWithRole(t, ['campaigns:get_all']);
    assert.equal((await getPage(t, await adminSession(t, reader.username, reader.password), '/admin/campaigns/analytics')).status, 403);
  });

  it('hides every change from a read-only role, and refuses roles without campaign access', async () => {
    const reader = await userWithRole(t, ['campaigns:get_all']);
    const session = await adminSession(t, reader.username, reader.password);
    const list = await getPage(t, session, '/admin/campaigns');
    assert.equal(list.status, 200);
    for (const control of ['data-status=', 'x-on:click="cloneOne"', 'x-on:click="deleteOne"', 'href="/admin/campaigns/new"', 'deleteSelected']) {
      assert.ok(!list.body.includes(control), control);
    }
    const page = await getPage(t, session, `/admin/campaigns/${ids.draft}`);
    assert.ok(!page.body.includes('Save changes') && page.body.includes('disabled=""'));
    assert.equal((await getPage(t, session, '/admin/campaigns/new')).status, 403);
    const nobody = await userWithRole(t, ['bounces:get']);
    assert.equal((await getPage(t, await adminSession(t, nobody.username, nobody.password), '/admin/campaigns')).status, 403);
    assert.equal((await getPage(t, null, '/admin/campaigns')).status, 307);
  });
});
