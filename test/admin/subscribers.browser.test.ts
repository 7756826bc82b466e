// Journeys through the subscribers pages in a real browser, finding things by role and label:
// add a subscriber with attributes (and see a bad JSON refused with the text kept), find them
// by search and by segment, bulk-add the result to a list; hostile values run no script.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { HOSTILE } from '../helpers/admin.ts';
import { browserSkip, launchBrowser, screenshot, signedInTab } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('admin subscribers in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  it('adds a subscriber with attributes, finds them by search and segment, and bulk-adds them to a list', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: 'Garden club', type: 'private', optin: 'single', tags: [] });
    assert.equal(list.status, 200, list.text);
    const tab = await signedInTab(browser, t, { width: 1280 });
    const { page } = tab;

    await page.goto(`${t.url}/admin/subscribers`);
    await page.getByRole('link', { name: 'New subscriber' }).click();
    await page.getByLabel('E-mail').fill('rosa@example.com');
    await page.getByLabel('Name', { exact: true }).fill('Rosa Gardener');
    const attribs = page.getByLabel('Attributes');
    await attribs.fill('{"city": "Lyon", "plots": 3,');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#attribs-error').filter({ hasText: /Not valid JSON/ }).waitFor();
    assert.equal(await attribs.inputValue(), '{"city": "Lyon", "plots": 3,', 'the typed text stays');
    assert.equal(await attribs.getAttribute('aria-invalid'), 'true');
    await screenshot(page, 'subscriber-bad-json');
    assert.equal((await t.request('GET', '/api/subscribers?search=rosa')).body.data.total, 0, 'nothing was saved');

    await attribs.fill('{"city": "Lyon", "plots": 3, "beds": {"roses": 12}}');
    await Promise.all([page.waitForURL(/\/admin\/subscribers\/\d+$/), page.getByRole('button', { name: 'Save' }).click()]);
    assert.match(await page.getByLabel('Attributes').inputValue(), /"beds": \{\n {4}"roses": 12\n {2}\}/);
    await screenshot(page, 'subscriber');

    await page.goto(`${t.url}/admin/subscribers/new`);
    await page.getByLabel('E-mail').fill('rosa@example.com');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('#email-error').filter({ hasText: /already exists/ }).waitFor();
    assert.equal(await page.getByLabel('E-mail').inputValue(), 'rosa@example.com');

    await page.goto(`${t.url}/admin/subscribers`);
    await page.getByRole('searchbox', { name: /Search/ }).fill('Gardener');
    await Promise.all([page.waitForURL(/search=Gardener/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
    await page.getByRole('link', { name: 'rosa@example.com', exact: true }).waitFor();
    assert.equal(await page.locator('tbody tr').count(), 1);

    await page.goto(`${t.url}/admin/subscribers`);
    await page.getByText('Advanced', { exact: true }).click();
    await page.getByLabel('Segment query').fill("subscribers.attribs->>'city' = 'Lyon' AND (subscribers.attribs->>'plots')::INT > 2");
    await Promise.all([page.waitForURL(/query=/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
    assert.equal(await page.locator('tbody tr').count(), 1);
    await page.getByRole('link', { name: 'rosa@example.com', exact: true }).waitFor();

    await page.getByRole('checkbox', { name: 'Select or deselect all' }).check();
    await page.getByRole('button', { name: 'Manage lists' }).click();
    const dialog = page.getByRole('dialog', { name: 'Manage lists' });
    await dialog.getByLabel('Garden club').check();
    await dialog.getByLabel('Subscription status').selectOption('confirmed');
    await screenshot(page, 'subscribers-lists-dialog');
    await dialog.getByRole('button', { name: 'Save' }).click();
    const confirm = page.getByRole('dialog', { name: /Add 1 subscriber to 1 list\?/ });
    await Promise.all([page.waitForLoadState('load'), confirm.getByRole('button', { name: 'Add' }).click()]);
    await page.getByText('Garden club · Confirmed').waitFor();
    await screenshot(page, 'subscribers');
    const rosa = (await t.request('GET', '/api/subscribers?search=rosa')).body.data.results[0];
    assert.deepEqual(rosa.lists.map((l: { name: string; subscription_status: string }) => [l.name, l.subscription_status]), [['Garden club', 'confirmed']]);

    await page.goto(`${t.url}/admin/subscribers?query=${encodeURIComponent("subscribers.attribs->>'city' = ")}`);
    await page.getByRole('alert').filter({ hasText: /position/ }).waitFor();
    assert.equal(await page.getByLabel('Segment query').inputValue(), "subscribers.attribs->>'city' = ", 'the typed text stays');
    await screenshot(page, 'subscribers-bad-query');
    // The refused duplicate e-mail's 409 is the browser's note of a 4xx, which signedInTab expects.
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('blocklists all subscribers matching a segment across pages, and deletes one row', async () => {
    const t = server();
    for (let i = 0; i < 25; i++) {
      const res = await t.request('POST', '/api/subscribers', { email: `bulk${i}@example.com`, name: `Bulk ${i}`, attribs: { batch: 'b7' } });
      assert.equal(res.status, 200, res.text);
    }
    await t.request('POST', '/api/subscribers', { email: 'keep@example.com', name: 'Keep', attribs: { batch: 'other' } });
    const tab = await signedInTab(browser, t, { width: 1280 });
    const { page } = tab;
    await page.goto(`${t.url}/admin/subscribers?query=${encodeURIComponent("subscribers.attribs->>'batch' = 'b7'")}`);
    assert.equal(await page.locator('tbody tr').count(), 20);
    await page.getByRole('checkbox', { name: 'Select or deselect all' }).check();
    await page.getByRole('button', { name: 'Select all 25 matching this query' }).click();
    await page.locator('.bulk').getByText('All 25 matching rows selected').waitFor();
    await page.getByRole('button', { name: 'Blocklist' }).click();
    const confirm = page.getByRole('dialog', { name: /Blocklist 25 subscribers matching this query\?/ });
    await screenshot(page, 'subscribers-confirm');
    await Promise.all([page.waitForLoadState('load'), confirm.getByRole('button', { name: 'Blocklist' }).click()]);
    await page.getByText('25 subscribers blocklisted').waitFor();
    const blocked = await t.request('GET', `/api/subscribers?per_page=100&query=${encodeURIComponent("subscribers.status = 'blocklisted'")}`);
    assert.equal(blocked.body.data.total, 25);
    assert.ok(!blocked.body.data.results.some((r: { email: string }) => r.email === 'keep@example.com'));

    await page.goto(`${t.url}/admin/subscribers?search=keep`);
    await page.getByRole('button', { name: 'Delete: keep@example.com' }).click();
    await Promise.all([page.waitForLoadState('load'), page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click()]);
    await page.getByText('Subscriber deleted').waitFor();
    assert.equal((await t.request('GET', '/api/subscribers?search=keep')).body.data.total, 0);
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('shows hostile values as text, with no dialog or script error, at 390 px and in dark mode', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: HOSTILE, type: 'private', optin: 'double', tags: [] });
    const sub = await t.request('POST', '/api/subscribers', { email: 'hostile@example.com', name: HOSTILE, lists: [list.body.data.id], attribs: { [HOSTILE]: { nested: HOSTILE } } });
    assert.equal(sub.status, 200, sub.text);
    for (const o of [{ width: 390 }, { width: 1280, dark: true }]) {
      const tab = await signedInTab(browser, t, o);
      const { page } = tab;
      await page.goto(`${t.url}/admin/subscribers`);
      await page.getByRole('link', { name: 'hostile@example.com', exact: true }).waitFor();
      await screenshot(page, `subscribers-hostile${o.dark ? '-dark' : ''}`);
      assert.ok((await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true, 'the page does not scroll sideways (the table does)');
      await page.getByRole('link', { name: 'hostile@example.com', exact: true }).click();
      await page.getByLabel('Name', { exact: true }).waitFor();
      assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), HOSTILE);
      await page.goto(`${t.url}/admin/subscribers/${sub.body.data.id}?tab=activity`);
      await screenshot(page, `subscriber-hostile${o.dark ? '-dark' : ''}`);
      assert.ok((await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth')) === true, 'the subscriber page does not scroll sideways');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
