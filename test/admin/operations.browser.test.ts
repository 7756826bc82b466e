// Browser journeys through the first run and the operations pages: a fresh install's checklist
// followed until its steps tick, a maintenance clean-up that asks with its count, a backup
// downloaded and opened as a SQLite database, and the log filtered as typed.
import assert from 'node:assert/strict';
import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

/** How many different left edges the values of the About page's cards have (1: one column). */
async function valueColumns(page: Page): Promise<number> {
  const lefts = await page.locator('main .facts dd').evaluateAll((dds) => dds.map((d) => Math.round(d.getBoundingClientRect().left)));
  assert.ok(lefts.length >= 10, `the values of both cards: ${lefts.length}`);
  return new Set(lefts).size;
}

describe('admin operations in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  // Closed after the server, whose mail pool keeps its connection to the sink open.
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(() => sink.close());

  it('follows the first-run checklist in the browser until it is gone: settings, SMTP on the sink, a list, a subscription through the public form, a campaign', async () => {
    const t = server();
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    const checklist = page.getByRole('region', { name: 'Getting started' });
    /** Opens the dashboard from the menu and waits until it is the page shown (ticks() reads at once, without waiting). */
    const dashboard = async () => {
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Dashboard' }).click();
      await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    };
    const ticks = () => checklist.getByRole('listitem').evaluateAll((items) => items.map((li) => li.classList.contains('done')));
    const step = (name: string) => checklist.getByRole('link', { name });
    /** The checklist as it stands, on a phone: a tab of its own, without problems. */
    const phoneShot = async (name: string) => {
      const phone = await signedInTab(browser(), t, { width: 390 });
      await phone.page.getByRole('region', { name: 'Getting started' }).waitFor();
      await screenshot(phone.page, name);
      assert.deepEqual(phone.problems, []);
      await phone.close();
    };
    await checklist.waitFor();
    assert.match(await checklist.innerText(), /0 of 5 done/);
    assert.match(await checklist.innerText(), /\.\/listmgr user reset-password admin/);
    await screenshot(page, 'first-run-fresh');
    await phoneShot('first-run-fresh');

    // 1. Settings → General: the root URL and the from address.
    await step('Set the public root URL and the from address').click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    assert.equal(await page.getByRole('tab', { name: 'General' }).getAttribute('aria-selected'), 'true');
    await page.getByLabel('Root URL').fill(t.url);
    await page.getByLabel('Default `from` email').fill('Harbour News <news@example.com>');
    await page.locator('#settings-save').click();
    await page.getByText('Settings saved and applied. No restart needed.').waitFor();
    await dashboard();
    assert.match(await checklist.innerText(), /1 of 5 done/);
    assert.deepEqual(await ticks(), [true, false, false, false, false]);

    // 2. Settings → SMTP: the first server pointed at the sink, enabled, saved, then tested.
    await step('Add an SMTP server and send a test message').click();
    assert.equal(await page.getByRole('tab', { name: 'SMTP' }).getAttribute('aria-selected'), 'true');
    const block = page.locator('[data-block="smtp"]').first();
    await block.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await block.getByLabel('Port', { exact: true }).fill(String(sink.port));
    await block.getByLabel('Auth protocol').selectOption('none');
    await block.getByLabel('TLS', { exact: true }).selectOption('none');
    await block.getByLabel('Enabled').check();
    await page.locator('#settings-save').click();
    await page.getByText('Settings saved and applied. No restart needed.').waitFor();
    await block.getByLabel('To e-mail').fill('me@example.com');
    await block.getByRole('button', { name: 'SMTP connection test' }).click();
    await block.getByText(`Sent: 127.0.0.1:${sink.port} accepted the test message for me@example.com.`).waitFor();
    const [mail] = await sink.waitFor(1);
    assert.deepEqual(mail.to, ['me@example.com']);
    await dashboard();
    assert.match(await checklist.innerText(), /2 of 5 done/);
    assert.deepEqual(await ticks(), [true, true, false, false, false]);
    await screenshot(page, 'first-run-midway');
    await phoneShot('first-run-midway');

    // 3. Lists: a first list, public, single opt-in.
    await step('Create a first list').click();
    await page.getByLabel('Name').fill('Readers');
    await page.getByLabel('Type').selectOption({ label: 'Public' });
    await page.getByLabel('Opt-in').selectOption({ label: 'Single opt-in' });
    await page.getByRole('button', { name: 'New list' }).click();
    await page.getByRole('heading', { name: 'Readers' }).waitFor();
    await dashboard();
    assert.deepEqual(await ticks(), [true, true, true, false, false]);

    // 4. Forms: the hosted public form, where someone subscribes.
    await step('Put the subscription form on your site').click();
    await page.getByRole('heading', { name: 'Forms', level: 1 }).waitFor();
    await screenshot(page, 'first-run-forms');
    await page.getByRole('link', { name: `${t.url}/subscription/form` }).click();
    await page.getByLabel('E-mail').fill('reader@example.com');
    await page.getByLabel('Name').fill('Reader');
    await page.getByLabel('Readers').check();
    await page.getByRole('button', { name: 'Subscribe' }).click();
    await page.getByText(/subscribed/i).first().waitFor();
    await screenshot(page, 'first-run-subscribed');
    await page.goto(`${t.url}/admin`);
    assert.deepEqual(await ticks(), [true, true, true, true, false]);

    // 5. Campaigns: a new campaign to the list, started from its page, received by the sink.
    await step('Send a first campaign').click();
    await page.getByLabel('Name').fill('First issue');
    await page.getByLabel('Subject').fill('Hello');
    await page.getByRole('group', { name: 'Lists to send to' }).getByLabel('Readers').check();
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByRole('heading', { name: 'First issue' }).waitFor();
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('dialog').getByText('Send "First issue" to 1 subscriber of 1 list?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByText('"First issue" is now running').waitFor();
    const received = await sink.waitFor(2, 20_000);
    // The page follows the campaign: once sent, it says so without being reloaded by hand.
    await page.locator('.page-head').getByText('Finished', { exact: true }).waitFor({ timeout: 20_000 });
    assert.match(await page.locator('.ids').innerText(), /Sent: 1 \/ 1/);
    await screenshot(page, 'first-run-campaign-sent');
    assert.deepEqual(received[1].to, ['reader@example.com']);
    await dashboard();
    assert.equal(await checklist.count(), 0, 'every step done: the checklist is gone');
    await screenshot(page, 'first-run-done');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('purges after saying how many, downloads a backup that opens as the database, and shows it as the last backup', async () => {
    const t = server();
    for (const email of ['x1@example.com', 'x2@example.com']) {
      assert.equal((await t.request('POST', '/api/subscribers', { email, name: email, status: 'blocklisted', lists: [] })).status, 200);
    }
    assert.equal((await t.request('POST', '/api/subscribers', { email: 'kept@example.com', name: 'Kept', lists: [] })).status, 200);
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Maintenance' }).click();
    await page.getByRole('heading', { name: 'Maintenance', level: 1 }).waitFor();

    // No date: said beside the date field, nothing asked.
    const unconfirmed = page.getByRole('form', { name: 'Unconfirmed opt-in subscriptions' });
    await unconfirmed.getByRole('button', { name: 'Purge' }).click();
    await unconfirmed.getByRole('alert').filter({ hasText: 'Choose a date.' }).waitFor();

    const subscribers = page.getByRole('form', { name: 'Subscribers' });
    await subscribers.getByLabel('Which').selectOption({ label: 'Blocklisted' });
    await subscribers.getByRole('button', { name: 'Purge' }).click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.innerText(), /Delete 2 blocklisted subscribers\?/);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await subscribers.getByRole('status').filter({ hasText: 'Deleted 2 blocklisted subscribers.' }).waitFor();
    const left = await t.request('GET', '/api/subscribers');
    // The server is shared with the first-run journey, whose reader is on a list: only this test's subscribers count.
    const emails = left.body.data.results.map((s: { email: string }) => s.email).filter((e: string) => e !== 'reader@example.com');
    assert.deepEqual(emails, ['kept@example.com']);

    // The export asks with what it holds, then downloads the CSV.
    const db = t.server.ctx.db;
    const f = fixtures(db);
    const viewed = f.campaign({ name: 'C', subject: 'S', from_email: 'f@x.io' }).id;
    for (const at of ['2025-02-01T00:00:00.000Z', '2025-03-01T00:00:00.000Z', '2024-01-01T00:00:00.000Z']) f.view(viewed, null, at);
    const exporting = page.getByRole('form', { name: 'Export analytics' });
    await exporting.getByLabel('Since').fill('2025-01-01');
    await exporting.getByRole('button', { name: 'Export CSV' }).click();
    assert.match(await dialog.innerText(), /Export 2 views recorded since 2025-01-01 as CSV\?/);
    const [csv] = await Promise.all([page.waitForEvent('download'), dialog.getByRole('button', { name: 'Export' }).click()]);
    assert.equal(csv.suggestedFilename(), 'campaign_views.csv');

    // Compacting asks, then reloads with the new sizes and says what it did.
    await page.getByRole('button', { name: 'Compact now' }).click();
    assert.match(await dialog.innerText(), /Compact the database \([\d.]+ KB, of which [\d.]+ K?B is free space to return\)\?/);
    await dialog.getByRole('button', { name: 'Compact' }).click();
    await page.getByText(/^Compacted the database: [\d.]+ KB → [\d.]+ KB\.$/).waitFor();

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download backup' }).click()]);
    assert.match(download.suggestedFilename(), /^listmgr-backup-.*\.db$/);
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-test-'));
    try {
      const file = join(dir, download.suggestedFilename());
      await download.saveAs(file);
      const copy = new Database(file, { readonly: true, fileMustExist: true });
      try {
        assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
        assert.equal(copy.prepare('SELECT COUNT(*) FROM subscribers').pluck().get(), t.server.ctx.db.prepare('SELECT COUNT(*) FROM subscribers').pluck().get());
      } finally {
        copy.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    await page.goto(`${t.url}/admin/settings/maintenance`);
    await page.getByText('(downloaded by admin)').waitFor();
    await screenshot(page, 'maintenance');
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'About' }).click();
    await page.getByText(process.version).waitFor();
    await screenshot(page, 'about');
    assert.equal(await valueColumns(page), 1, 'the two cards\' values start at the same x');
    assert.deepEqual(tab.problems, []);
    await tab.close();

    const phone = await signedInTab(browser(), t, { width: 390 });
    await phone.page.goto(`${t.url}/admin/settings/maintenance`);
    await phone.page.getByRole('link', { name: 'Download backup' }).waitFor();
    await screenshot(phone.page, 'maintenance');
    await phone.page.goto(`${t.url}/admin/settings/about`);
    await phone.page.getByText('(downloaded by admin)').waitFor();
    await screenshot(phone.page, 'about');
    assert.equal(await valueColumns(phone.page), 1, 'aligned on a phone too');
    assert.deepEqual(phone.problems, []);
    await phone.close();
  });

  it('shows the log coloured by level, filtered as typed, and new lines as they are written', async () => {
    const t = server();
    t.server.ctx.log.warn('journey: the relay is slow');
    t.server.ctx.log.error('journey: the relay refused');
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/settings/logs`);
      const log = page.getByRole('log', { name: 'Logs' });
      const line = (text: string) => log.locator('.log-line').filter({ hasText: text });
      assert.equal(await line('journey: the relay refused').getAttribute('class'), 'log-line error');
      assert.equal(await line('journey: the relay is slow').getAttribute('class'), 'log-line warn');
      await page.getByLabel('Filter').fill('journey');
      // The second pass also has the line written during the first.
      const matching = width === 1280 ? 2 : 3;
      await page.getByText(`${matching} of`).waitFor();
      assert.equal(await log.locator('.log-line').count(), matching);
      await screenshot(page, 'logs');
      if (width === 1280) {
        // Auto-refresh brings a line written after the page loaded.
        t.server.ctx.log.info('journey: written later');
        await line('journey: written later').waitFor({ timeout: 15_000 });
        assert.equal(await log.locator('.log-line').count(), 3);
      } else {
        // Switched off, it reads nothing more: a line written then is not shown, even after a refresh's wait.
        await page.getByLabel('Refresh every 5 seconds').uncheck();
        t.server.ctx.log.info('journey: not while paused');
        await page.waitForTimeout(6000);
        assert.equal(await line('journey: not while paused').count(), 0);
        await page.getByRole('button', { name: 'Refresh' }).click();
        await line('journey: not while paused').waitFor();
      }
      // The toast stream reports the error line too; nothing else went wrong.
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});

describe('the first-run checklist dismissed in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('dismisses the first-run checklist after asking; it stays hidden after a reload', async () => {
    const t = server();
    for (const width of [390, 1280]) {
      const username = `dismisser-${width}`;
      const role = await t.request('POST', '/api/roles/users', { name: `Settings ${width}`, permissions: ['settings:get', 'settings:manage'] });
      assert.equal((await t.request('POST', '/api/users', {
        username, name: username, email: `${username}@example.com`, type: 'user', status: 'enabled', password_login: true, password: 'dismiss-password-1', user_role_id: role.body.data.id,
      })).status, 200);
      const tab = await signedInTab(browser(), t, { width, username, password: 'dismiss-password-1' });
      const { page } = tab;
      const checklist = page.getByRole('region', { name: 'Getting started' });
      await checklist.waitFor();
      await screenshot(page, 'first-run-dismiss');
      await checklist.getByRole('button', { name: 'Dismiss' }).click();
      const dialog = page.getByRole('dialog');
      assert.match(await dialog.innerText(), /It does not come back/);
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await page.reload();
      await checklist.waitFor();
      await checklist.getByRole('button', { name: 'Dismiss' }).click();
      await dialog.getByRole('button', { name: 'Dismiss' }).click();
      await page.getByText('Checklist hidden.').waitFor();
      assert.equal(await checklist.count(), 0);
      await page.reload();
      await page.getByRole('heading', { name: 'Dashboard' }).waitFor();
      assert.equal(await checklist.count(), 0, 'still hidden after a reload');
      await screenshot(page, 'first-run-dismissed');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
