// Browser journeys through the shell, the dashboard and the list pages, as a person does them:
// elements are found by their roles and labels.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { HOSTILE } from '../helpers/admin.ts';
import { browserSkip, launchBrowser, screenshot, signedInTab } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('admin lists in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('creates a list, sees it, edits it, archives it, and the dashboard counts it', async () => {
    const t = server();
    const tab = await signedInTab(browser, t);
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'All lists' }).click();
    await page.getByRole('link', { name: '+ New list' }).click();

    // A refused save shows the API's message beside the field and keeps what was typed.
    await page.getByLabel('Description').fill('Kept while the name is wrong');
    await page.getByLabel('Name').fill('   ');
    await page.getByRole('button', { name: 'New list' }).click();
    await page.getByRole('alert').filter({ hasText: /name/i }).first().waitFor();
    assert.equal(await page.getByLabel('Description').inputValue(), 'Kept while the name is wrong');

    await page.getByLabel('Name').fill('Monthly digest');
    await page.getByLabel('Type').selectOption({ label: 'Public' });
    await page.getByLabel('Tags').fill('digest, monthly');
    await page.getByRole('button', { name: 'New list' }).click();
    await page.getByRole('heading', { name: 'Monthly digest' }).waitFor();
    await page.getByText('List created').waitFor();
    await screenshot(page, 'list-page');

    await page.getByLabel('Name').fill('Monthly digest (new)');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('heading', { name: 'Monthly digest (new)' }).waitFor();

    await page.getByRole('link', { name: 'All lists' }).first().click();
    const row = page.getByRole('row').filter({ hasText: 'Monthly digest (new)' });
    await row.getByRole('link', { name: 'Monthly digest (new)' }).click();
    await page.getByLabel('Archived').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    await page.goto(`${t.url}/admin/lists`);
    assert.equal(await page.getByRole('row').filter({ hasText: 'Monthly digest' }).count(), 0, 'archived lists leave the default view');
    await page.getByLabel('Status').selectOption({ label: 'Archived' });
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.getByRole('row').filter({ hasText: 'Monthly digest (new)' }).waitFor();
    await screenshot(page, 'lists-archived');

    await page.getByRole('link', { name: 'Dashboard' }).click();
    const lists = page.getByRole('region', { name: 'Lists' });
    assert.match(await lists.innerText(), /LISTS\s+1\b/i);
    assert.match(await lists.getByRole('definition').first().innerText(), /^1$/);
    await screenshot(page, 'dashboard');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('deletes the lists selected, after saying how many, and keeps hostile names inert', async () => {
    const t = server();
    for (const name of ['Delete me 1', 'Delete me 2', HOSTILE]) assert.equal((await t.request('POST', '/api/lists', { name, type: name === HOSTILE ? 'public' : 'private', optin: 'single' })).status, 200);
    const tab = await signedInTab(browser, t, { width: 390, dark: true });
    const { page } = tab;
    await page.goto(`${t.url}/admin/lists?query=delete`);
    await page.getByRole('checkbox', { name: 'Select every row on this page' }).check();
    await page.getByText('2 selected').waitFor();
    await page.getByRole('button', { name: 'Delete', exact: true }).first().click();
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.innerText(), /Delete 2 lists\?/);
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText('2 lists deleted').waitFor();
    const left = await t.request('GET', '/api/lists?per_page=all');
    assert.deepEqual(left.body.data.results.map((l: { name: string }) => l.name).filter((n: string) => n !== 'Monthly digest (new)'), [HOSTILE]);

    await page.goto(`${t.url}/admin/lists`);
    await page.getByRole('link', { name: HOSTILE }).waitFor();
    await page.getByRole('button', { name: 'Menu' }).click();
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Forms' }).click();
    await page.getByRole('textbox', { name: 'Form HTML' }).waitFor();
    assert.match(await page.getByRole('textbox', { name: 'Form HTML' }).inputValue(), /&#60;img src=x/);
    await screenshot(page, 'forms');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('shows a server error as a toast while the page is open, and folds the menu on a phone', async () => {
    const t = server();
    const tab = await signedInTab(browser, t, { width: 390 });
    const { page } = tab;
    const nav = page.getByRole('navigation', { name: 'Main menu' });
    assert.equal(await nav.isVisible(), false, 'the sidebar is folded at 390 px');
    await page.getByRole('button', { name: 'Menu' }).click();
    assert.equal(await nav.isVisible(), true);
    // The toast stream connects when the page loads; give it a moment before logging.
    await page.waitForTimeout(300);
    t.server.ctx.log.error('the mail relay refused the connection');
    const toast = page.getByRole('alert').filter({ hasText: 'the mail relay refused the connection' });
    await toast.waitFor();
    await toast.getByRole('button', { name: 'Close' }).click();
    await toast.waitFor({ state: 'detached' });
    await screenshot(page, 'shell-menu');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });
});
