// The admin's operations pages (logs, maintenance, about), the backup download and the first-run
// checklist, rendered by the real server: what each role sees and may do, the counts the
// maintenance page asks with, and the checklist ticking from the installation's real state.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { adminSession, apiAs, assertEscaped, getPage, HOSTILE, userWithRole } from '../helpers/admin.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { sendRequest, useFreshServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { until } from '../campaigns/fixtures.ts';

/** The backups this process's tests left in the temp folder (there must be none). */
const leftovers = () => readdirSync(tmpdir()).filter((n) => n.startsWith('listmgr-backup-'));

describe('admin operations pages', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  let reader: string; // settings:get only
  let maintainer: string; // settings:maintain only

  before(async () => {
    t = server();
    admin = await adminSession(t);
    const r = await userWithRole(t, ['settings:get']);
    reader = await adminSession(t, r.username, r.password);
    const m = await userWithRole(t, ['settings:maintain']);
    maintainer = await adminSession(t, m.username, m.password);
  });

  it('shows the server log, newest last, each line with its level, hostile text escaped', async () => {
    t.server.ctx.log.warn('operations-test: a warning');
    t.server.ctx.log.error(`operations-test: an error ${HOSTILE}`);
    const res = await getPage(t, admin, '/admin/settings/logs');
    assert.equal(res.status, 200);
    assert.match(res.body, /<div class="log-line warn">[^<]* WARN  operations-test: a warning<\/div>/);
    assert.match(res.body, /<div class="log-line error">[^<]* ERROR operations-test: an error &lt;img/);
    assert.ok(res.body.indexOf('a warning') < res.body.indexOf('an error'), 'oldest first, newest last');
    assertEscaped(res.body);
    assert.match(res.body, /<input type="search" id="log-filter"/);
    assert.match(res.body, /x-data="logsPage"/);
    assert.equal((await getPage(t, reader, '/admin/settings/logs')).status, 200, 'settings:get reads the log');
    assert.equal((await getPage(t, maintainer, '/admin/settings/logs')).status, 403);
    assert.equal((await apiAs(t, maintainer, 'GET', '/api/logs')).status, 403);
  });

  it('puts Maintenance, Logs and About in the Settings menu only for roles that may open them', async () => {
    const nav = (html: string) => /<nav class="sidebar"[^]*?<\/nav>/.exec(html)![0];
    const all = nav((await getPage(t, admin, '/admin')).body);
    for (const href of ['/admin/settings/maintenance', '/admin/settings/logs', '/admin/settings/about']) assert.ok(all.includes(`href="${href}"`), href);
    const r = nav((await getPage(t, reader, '/admin')).body);
    assert.ok(r.includes('href="/admin/settings/logs"') && r.includes('href="/admin/settings/about"'));
    assert.ok(!r.includes('href="/admin/settings/maintenance"'));
    const m = nav((await getPage(t, maintainer, '/admin')).body);
    assert.ok(m.includes('href="/admin/settings/maintenance"'));
    assert.ok(!m.includes('href="/admin/settings/logs"') && !m.includes('href="/admin/settings/about"'));
  });

  it('shows About: versions, the database, uptime, memory and the last backup', async () => {
    const res = await getPage(t, reader, '/admin/settings/about');
    assert.equal(res.status, 200);
    assert.ok(res.body.includes(`<dd>${process.version}</dd>`));
    const sqlite = t.server.ctx.db.prepare('SELECT sqlite_version()').pluck().get() as string;
    assert.ok(res.body.includes(`<dd>${sqlite}</dd>`));
    assert.ok(res.body.includes(`<code>${t.dbPath}</code>`));
    assert.match(res.body, /Memory \(resident\)<\/dt><dd>[\d.]+ MB<\/dd>/);
    assert.match(res.body, /Last backup<\/dt><dd>None recorded<\/dd>/);
    assert.equal((await getPage(t, maintainer, '/admin/settings/about')).status, 403);
  });

  it('shows the maintenance actions and the backup button by permission', async () => {
    const full = await getPage(t, admin, '/admin/settings/maintenance');
    assert.equal(full.status, 200);
    for (const op of ['subscribers', 'unconfirmed', 'analytics', 'export', 'vacuum']) assert.ok(full.body.includes(`data-op="${op}"`), op);
    assert.ok(full.body.includes('href="/api/maintenance/backup"'));
    assert.match(full.body, /Database file<\/dt><dd data-db-size="true">[\d.]+ [KM]B<\/dd>/);
    assert.match(full.body, /Write-ahead log \(WAL\)<\/dt><dd data-wal-size="true">/);
    const m = await getPage(t, maintainer, '/admin/settings/maintenance');
    assert.equal(m.status, 200);
    assert.ok(m.body.includes('data-op="vacuum"'));
    assert.ok(!m.body.includes('/api/maintenance/backup'), 'no download but for a Super Admin');
    assert.equal((await getPage(t, reader, '/admin/settings/maintenance')).status, 403);
    // settings:manage alone: the database facts, neither the clean-ups (settings:maintain) nor
    // the backup (a Super Admin's only), and the page says why.
    const u = await userWithRole(t, ['settings:manage']);
    const manager = await adminSession(t, u.username, u.password);
    const b = await getPage(t, manager, '/admin/settings/maintenance');
    assert.equal(b.status, 200);
    assert.ok(!b.body.includes('/api/maintenance/backup'));
    assert.match(b.body, /Only a Super Admin may download a backup/);
    assert.ok(!b.body.includes('data-op='), 'no clean-up without settings:maintain');
    assert.equal((await apiAs(t, manager, 'DELETE', '/api/maintenance/subscribers/orphan')).status, 403);
  });

  it('refuses the backup to everyone but a Super Admin (settings:manage too: the copy holds every password hash and TOTP secret) and records nothing', async () => {
    const u = await userWithRole(t, ['settings:manage', 'settings:maintain', 'users:manage']);
    const manager = await adminSession(t, u.username, u.password);
    for (const session of [maintainer, reader, manager]) {
      const res = await apiAs(t, session, 'GET', '/api/maintenance/backup');
      assert.equal(res.status, 403);
      assert.match(res.body.message, /only a Super Admin/);
    }
    assert.equal((await sendRequest(t.url, null, 'GET', '/api/maintenance/backup', undefined, { auth: null })).status, 403);
    assert.match((await getPage(t, admin, '/admin/settings/maintenance')).body, /None recorded/);
  });

  it('downloads a backup that opens as the same database, and records it as the last backup', async () => {
    await t.request('POST', '/api/lists', { name: 'Backed up', type: 'private', optin: 'single' });
    for (const email of ['b1@example.com', 'b2@example.com', 'b3@example.com']) {
      assert.equal((await t.request('POST', '/api/subscribers', { email, name: email, lists: [] })).status, 200);
    }
    const before = leftovers();
    const res = await fetch(`${t.url}/api/maintenance/backup`, { headers: { cookie: `session=${admin}` } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/vnd.sqlite3');
    assert.match(res.headers.get('content-disposition') ?? '', /^attachment; filename="listmgr-backup-\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ\.db"$/);
    const bytes = Buffer.from(await res.arrayBuffer());
    assert.equal(String(bytes.length), res.headers.get('content-length'));
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-test-'));
    try {
      const file = join(dir, 'copy.db');
      writeFileSync(file, bytes);
      const copy = new Database(file, { readonly: true, fileMustExist: true });
      try {
        assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
        const count = (db: { prepare(sql: string): { pluck(): { get(): unknown } } }) => db.prepare('SELECT COUNT(*) FROM subscribers').pluck().get();
        assert.equal(count(copy), count(t.server.ctx.db));
        assert.equal(count(copy), 3);
      } finally {
        copy.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    assert.deepEqual(leftovers().filter((n) => !before.includes(n)), [], 'the temporary copy is removed');
    const page = await until('the backup to be recorded', async () => {
      const html = (await getPage(t, admin, '/admin/settings/maintenance')).body;
      return html.includes('None recorded') ? null : html;
    });
    assert.match(page, /data-last-backup="true"><time [^>]+>[^<]+<\/time> <span class="muted small">\([\d.]+ KB, listmgr-backup-[^ ]+\.db \(downloaded by admin\)\)/);
    assert.match((await getPage(t, admin, '/admin/settings/about')).body, /downloaded by admin/);
    assert.ok(t.server.ctx.log.recent().some((l) => /backup listmgr-backup-\S+ \(\d+ bytes\) downloaded by admin/.test(l)));
  });
});

describe('maintenance counts', () => {
  const server = useFreshServer();

  it('count exactly what each deletion then deletes, and what the export holds', async () => {
    const t = server();
    const db = t.server.ctx.db;
    const f = fixtures(db);
    const single = f.list({ name: 'Single', optin: 'single' }).id;
    const double = f.list({ name: 'Double', optin: 'double' }).id;
    const a = f.subscriber({ email: 'a@x.io', name: 'A', lists: [[double, 'unconfirmed', '2024-06-01T00:00:00.000Z']] }).id;
    f.subscriber({ email: 'b@x.io', name: 'B', status: 'blocklisted', lists: [[double, 'unconfirmed', '2025-06-01T00:00:00.000Z']] });
    const c = f.subscriber({ email: 'c@x.io', name: 'C', lists: [[single, 'unconfirmed', '2024-06-01T00:00:00.000Z']] }).id;
    f.subscriber({ email: 'd@x.io', name: 'D', status: 'blocklisted' });
    f.subscriber({ email: 'e@x.io', name: 'E', lists: [[double, 'unconfirmed', '2024-07-01T00:00:00.000Z']] });
    f.subscriber({ email: 'f@x.io', name: 'F' });
    const campaign = f.campaign({ name: 'C', subject: 'S', from_email: 'f@x.io' }).id;
    const link = f.link('https://x.io').id;
    f.view(campaign, a, '2024-12-31T23:59:59.000Z');
    f.view(campaign, a, '2025-01-01T00:00:00.000Z');
    f.view(campaign, c, '2025-02-01T00:00:00.000Z');
    f.click(campaign, link, a, '2024-12-01T00:00:00.000Z');
    f.click(campaign, link, c, '2025-03-01T00:00:00.000Z');
    f.click(campaign, link, c, '2024-03-01T00:00:00.000Z');
    const get = async (path: string) => {
      const res = await t.request('GET', path);
      assert.equal(res.status, 200, res.text);
      return res.body.data;
    };
    const day = '2025-01-01T00:00:00Z';
    assert.deepEqual(await get(`/api/maintenance/analytics/all/count?since=${day}`), { count: 3, views: 2, clicks: 1 });
    const csv = (await t.request('GET', `/api/maintenance/analytics/views/export?since=${day}`)).text.trim().split('\n');
    assert.equal(csv.length - 1, (await get(`/api/maintenance/analytics/views/count?since=${day}`)).count, 'the export holds the rows counted');
    assert.deepEqual(await get(`/api/maintenance/analytics/views/count?before_date=${day}`), { count: 1, views: 1, clicks: 0 });
    assert.deepEqual(await get(`/api/maintenance/analytics/all/count?before_date=${day}`), { count: 3, views: 1, clicks: 2 });
    await t.request('DELETE', `/api/maintenance/analytics/all?before_date=${day}`);
    assert.equal(db.prepare('SELECT (SELECT COUNT(*) FROM campaign_views) + (SELECT COUNT(*) FROM link_clicks)').pluck().get(), 3, '6 rows less the 3 counted');
    assert.deepEqual(await get(`/api/maintenance/analytics/all/count?before_date=${day}`), { count: 0, views: 0, clicks: 0 });

    const unconfirmed = await get(`/api/maintenance/subscriptions/unconfirmed/count?before_date=${day}`);
    assert.equal(unconfirmed.count, 2, 'double opt-in only, before the date');
    assert.deepEqual((await t.request('DELETE', `/api/maintenance/subscriptions/unconfirmed?before_date=${day}`)).body.data, unconfirmed);

    for (const type of ['orphan', 'blocklisted']) {
      const counted = await get(`/api/maintenance/subscribers/${type}/count`);
      assert.ok(counted.count > 0, type);
      assert.deepEqual((await t.request('DELETE', `/api/maintenance/subscribers/${type}`)).body.data, counted, type);
      assert.deepEqual(await get(`/api/maintenance/subscribers/${type}/count`), { count: 0 });
    }
  });

  it('refuses a bad type or date with a 400 naming it', async () => {
    const t = server();
    const bad = async (path: string, re: RegExp) => {
      const res = await t.request('GET', path);
      assert.equal(res.status, 400, path);
      assert.match(res.body.message, re);
    };
    await bad('/api/maintenance/subscribers/everyone/count', /orphan, blocklisted/);
    await bad('/api/maintenance/analytics/links/count?since=2025-01-01T00:00:00Z', /views, clicks, all/);
    await bad('/api/maintenance/analytics/views/count', /either "before_date" or "since"/);
    await bad('/api/maintenance/analytics/views/count?since=2025-01-01T00:00:00Z&before_date=2025-01-01T00:00:00Z', /either/);
    await bad('/api/maintenance/analytics/views/count?since=yesterday', /invalid "since"/);
    await bad('/api/maintenance/subscriptions/unconfirmed/count', /"before_date" is required/);
  });

  it('compacts the database on demand and answers its sizes', async () => {
    const t = server();
    const res = await t.request('POST', '/api/maintenance/vacuum');
    assert.equal(res.status, 200, res.text);
    assert.ok(res.body.data.size_before > 0 && res.body.data.size_after > 0);
    const info = (await t.request('GET', '/api/maintenance/database')).body.data;
    assert.equal(info.free, 0, 'no free pages right after VACUUM');
    assert.equal(info.wal_size, 0, 'the WAL is truncated after VACUUM');
    assert.equal(info.last_backup, null);
  });
});

/** The checklist's steps as the dashboard shows them: href → ticked. */
function checklist(html: string): Record<string, boolean> | null {
  const section = /<section class="card first-run"[^]*?<\/section>/.exec(html);
  if (!section) return null;
  return Object.fromEntries([...section[0].matchAll(/<li( class="done")?><span class="tick"[^>]*>[^<]*<\/span><span><a href="([^"]+)"/g)].map((m) => [m[2], !!m[1]]));
}

describe('the first-run checklist', () => {
  const server = useFreshServer();
  // Closed after the server (hooks run in order), whose mail pools hold connections open.
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(() => sink.close());

  it('ticks each step from the real state, and goes once all are done', async () => {
    const t = server();
    const admin = await adminSession(t);
    const dashboard = async () => checklist((await getPage(t, admin, '/admin')).body);
    const first = await getPage(t, admin, '/admin');
    assert.match(first.body, /Getting started/);
    assert.match(first.body, /<code>\.\/listmgr user reset-password admin<\/code>/, 'says how to reset the password');
    assert.deepEqual(checklist(first.body), {
      '/admin/settings#general': false, '/admin/settings#smtp': false, '/admin/lists/new': false, '/admin/lists/forms': false, '/admin/campaigns/new': false,
    });
    const restricted = await userWithRole(t, ['settings:get', 'lists:get_all', 'campaigns:get_all']);
    assert.equal(checklist((await getPage(t, await adminSession(t, restricted.username, restricted.password), '/admin')).body), null, 'only for those who may change settings');

    // The root URL alone is not the step: the from address too.
    assert.equal((await t.request('PUT', '/api/settings', { 'app.root_url': t.url })).status, 200);
    assert.equal((await dashboard())!['/admin/settings#general'], false);
    assert.equal((await t.request('PUT', '/api/settings', { 'app.from_email': 'News <news@example.com>' })).status, 200);
    assert.equal((await dashboard())!['/admin/settings#general'], true);

    assert.equal((await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock()] })).status, 200);
    assert.equal((await dashboard())!['/admin/settings#smtp'], false, 'a server alone is not the step: a test must have gone out');
    // A connection test without a recipient sends nothing: not the step either.
    assert.equal((await t.request('POST', '/api/settings/smtp/test', {})).status, 200);
    assert.equal((await dashboard())!['/admin/settings#smtp'], false);
    const test = await t.request('POST', '/api/settings/smtp/test', { email: 'me@example.com' });
    assert.equal(test.status, 200, test.text);
    await sink.waitFor(1);
    assert.equal((await dashboard())!['/admin/settings#smtp'], true);

    const list = await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' });
    assert.equal((await dashboard())!['/admin/lists/new'], true);
    // Subscribers added by the API are not the form's.
    assert.equal((await t.request('POST', '/api/subscribers', { email: 'api@example.com', name: 'Api', lists: [list.body.data.id] })).status, 200);
    assert.equal((await dashboard())!['/admin/lists/forms'], false);
    const sub = await sendRequest(t.url, null, 'POST', '/api/public/subscription', { email: 'reader@example.com', name: 'Reader', list_uuids: [list.body.data.uuid] }, { auth: null });
    assert.equal(sub.status, 200, sub.text);
    assert.equal((await dashboard())!['/admin/lists/forms'], true);
    assert.equal((await dashboard())!['/admin/campaigns/new'], false);

    const campaign = await t.request('POST', '/api/campaigns', { name: 'First', subject: 'Hello', lists: [list.body.data.id], body: '<p>Hi</p>', content_type: 'html' });
    assert.equal(campaign.status, 200, campaign.text);
    assert.equal((await t.request('PUT', `/api/campaigns/${campaign.body.data.id}/status`, { status: 'running' })).status, 200);
    await until('the campaign to finish', async () => (await t.request('GET', `/api/campaigns/${campaign.body.data.id}`)).body.data.status === 'finished', 20_000);
    assert.equal(await dashboard(), null, 'every step done: the checklist is gone');
  });

  it('says on the login page where the admin password came from and how to reset it', async () => {
    const t = server();
    const res = await getPage(t, null, '/admin/login');
    assert.match(res.body, /printed once, by <code>\.\/listmgr install<\/code> or by the first <code>\.\/listmgr serve<\/code>, whichever ran first/);
    assert.match(res.body, /<code>\.\/listmgr user reset-password admin<\/code>/);
  });
});

describe('dismissing the first-run checklist', () => {
  const server = useFreshServer();

  it('offers the choice of counting opens and clicks per subscriber, saying the privacy trade-off, with the current one pressed', async () => {
    const t = server();
    const admin = await adminSession(t);
    const choice = async () => /<div class="tracking-choice"[^]*?<\/div>\s*<\/div>/.exec((await getPage(t, admin, '/admin')).body)?.[0] ?? '';
    const pressed = (html: string) => [...html.matchAll(/aria-pressed="true" data-individual="(\w+)"/g)].map((m) => m[1]);
    const fresh = await choice();
    assert.match(fresh, /<h3 id="tracking-choice-title">Count opens and clicks per subscriber\?<\/h3>/);
    assert.match(fresh, /Per subscriber, you see exactly who opened and clicked, but you keep a record of each reader&#39;s reading; anonymous \(the private default\), no reader is tracked/);
    assert.deepEqual(pressed(fresh), ['false'], 'anonymous by default');
    assert.match(fresh, /data-individual="true"[^>]*x-on:click="setTracking">Yes, per subscriber<\/button>/);
    assert.equal((await apiAs(t, admin, 'PUT', '/api/settings', { 'privacy.individual_tracking': true })).status, 200);
    assert.deepEqual(pressed(await choice()), ['true']);
  });

  it('hides the checklist for the user who dismisses it, on every later visit; others still see theirs', async () => {
    const t = server();
    const admin = await adminSession(t);
    const other = await userWithRole(t, ['settings:get', 'settings:manage']);
    const otherSession = await adminSession(t, other.username, other.password);
    const page = await getPage(t, admin, '/admin');
    assert.match(page.body, /<section class="card first-run" aria-labelledby="first-run-title" x-data="firstRun">/);
    assert.match(page.body, /<button type="button" class="secondary small" x-on:click="dismiss"[^>]*>\s*Dismiss\s*<\/button>/);
    const dismissed = await apiAs(t, admin, 'POST', '/api/profile/first-run/dismiss');
    assert.equal(dismissed.status, 200, dismissed.text);
    assert.deepEqual(dismissed.body, { data: true });
    assert.equal(checklist((await getPage(t, admin, '/admin')).body), null, 'gone for the one who dismissed it');
    assert.equal(checklist((await getPage(t, await adminSession(t), '/admin')).body), null, 'also in a new session');
    assert.equal((await apiAs(t, admin, 'POST', '/api/profile/first-run/dismiss')).status, 200, 'dismissing again is harmless');
    assert.notEqual(checklist((await getPage(t, otherSession, '/admin')).body), null, 'another admin still sees theirs');
  });
});
