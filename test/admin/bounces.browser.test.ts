// The bounces journey in a real browser: bounces recorded through the bounce webhook, filtered
// by clicking a type, the selected ones deleted and then all, each confirmed in a dialog; and
// blocklisting the subscribers of selected bounces, with hostile values on the page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { HOSTILE } from '../helpers/admin.ts';
import { browserSkip, launchBrowser, screenshot, signedInTab } from '../helpers/browser.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

const COUNT_ALL = { soft: { count: 100, action: 'none' }, hard: { count: 100, action: 'none' }, complaint: { count: 100, action: 'none' } };

async function record(t: TestServer, bounces: { email: string; type: string; source: string; meta?: object }[]): Promise<void> {
  for (const b of bounces) {
    const res = await t.request('POST', '/webhooks/bounce', b);
    assert.equal(res.status, 200, res.text);
  }
}

async function addSubscribers(t: TestServer, emails: string[]): Promise<void> {
  for (const email of emails) {
    const res = await t.request('POST', '/api/subscribers', { email, name: email.split('@')[0], status: 'enabled', lists: [] });
    assert.equal(res.status, 200, res.text);
  }
}

/** The e-mails in the table, in order. */
const emails = (page: Page) => page.locator('tbody tr td:nth-child(2) a').allTextContents();

/** Answers the confirmation dialog with its button `name`. */
async function confirm(page: Page, name: string): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  await Promise.all([page.waitForEvent('load'), dialog.getByRole('button', { name }).click()]);
}

describe('admin bounces journey', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { 'bounce.enabled': true, 'bounce.webhooks_enabled': true, 'bounce.actions': COUNT_ALL })).status, 200);
  });
  after(async () => {
    await browser.close();
  });

  it('filters by a clicked type, deletes the selected bounces, then all', async () => {
    const t = server();
    await addSubscribers(t, ['ann@example.com', 'bob@example.com', 'cy@example.com']);
    await record(t, [
      { email: 'ann@example.com', type: 'hard', source: 'ses', meta: { status: '5.1.1', diagnostic: 'mailbox unknown' } },
      { email: 'bob@example.com', type: 'soft', source: 'api' },
      { email: 'cy@example.com', type: 'hard', source: 'api' },
      { email: 'cy@example.com', type: 'complaint', source: 'sendgrid' },
    ]);
    const tab = await signedInTab(browser, t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/subscribers/bounces`);
    assert.equal((await emails(page)).length, 4);
    await page.locator('summary', { hasText: 'Meta' }).click();
    await screenshot(page, 'bounces');

    await page.getByRole('link', { name: 'hard', exact: true }).first().click();
    await page.waitForURL(/type=hard/);
    assert.deepEqual((await emails(page)).sort(), ['ann@example.com', 'cy@example.com']);
    assert.equal(await page.getByRole('button', { name: 'Delete all' }).count(), 0, 'no "delete all" while filtered');

    await page.getByRole('checkbox', { name: 'Select the bounce of cy@example.com' }).check();
    const bulk = page.getByRole('region', { name: 'Selected bounces' });
    assert.equal(await bulk.getByText('1 selected').isVisible(), true);
    await bulk.getByRole('button', { name: 'Delete' }).click();
    assert.match(await page.getByRole('dialog').textContent() ?? '', /Delete 1 bounce\?/);
    await confirm(page, 'Delete');
    assert.deepEqual(await emails(page), ['ann@example.com']);
    assert.match(page.url(), /type=hard/, 'the filter stays');

    await page.goto(`${t.url}/admin/subscribers/bounces`);
    assert.equal((await emails(page)).length, 3);
    await page.getByRole('checkbox', { name: 'Select or deselect all' }).check();
    assert.equal(await page.getByRole('region', { name: 'Selected bounces' }).getByText('3 selected').isVisible(), true);
    await page.getByRole('button', { name: 'Delete all' }).click();
    assert.match(await page.getByRole('dialog').textContent() ?? '', /Delete all 3 bounces\?/);
    await confirm(page, 'Delete all');
    await page.getByText('No bounces recorded.').waitFor();
    assert.equal((await t.request('GET', '/api/bounces')).body.data.total, 0);
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('blocklists the subscribers of the selected bounces, at 390 px in dark mode', async () => {
    const t = server();
    await addSubscribers(t, ['dee@example.com', 'eve@example.com']);
    // Hostile meta and source: shown as text, no script runs (tab.problems would hold its dialog).
    await record(t, [{ email: 'dee@example.com', type: 'hard', source: 'ses' }, { email: 'eve@example.com', type: 'soft', source: HOSTILE.slice(0, 60), meta: { [HOSTILE]: HOSTILE } }]);
    const tab = await signedInTab(browser, t, { width: 390, dark: true });
    const { page } = tab;
    await page.goto(`${t.url}/admin/subscribers/bounces`);
    await page.locator('summary', { hasText: 'Meta' }).click();
    assert.equal(JSON.parse(await page.locator('details.meta pre').textContent() ?? '')[HOSTILE], HOSTILE, 'the meta is shown as its JSON text');
    await page.getByRole('checkbox', { name: 'Select the bounce of dee@example.com' }).check();
    await screenshot(page, 'bounces-selected');
    await page.getByRole('button', { name: 'Blocklist their subscribers' }).click();
    await confirm(page, 'Blocklist');
    const status = async (email: string) => (await t.request('GET', `/api/subscribers?query=${encodeURIComponent(`subscribers.email = '${email}'`)}`)).body.data.results[0].status;
    assert.equal(await status('dee@example.com'), 'blocklisted');
    assert.equal(await status('eve@example.com'), 'enabled');
    assert.equal(await page.getByText('Blocklisted', { exact: true }).count(), 1, 'the row shows the subscriber blocklisted');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });
});
