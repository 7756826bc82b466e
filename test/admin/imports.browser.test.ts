// The import journey in a real browser: a refused upload shown beside the file field with the
// form kept, then a 10,000-row CSV imported through the page, its progress followed to the
// end and its summary, which a reload still shows; "New import" brings the form back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

const ROWS = 10_000;

/** Screenshots at 1280 and 390 px, light and dark; the page is left at 1280 px, light. */
async function shots(page: Page, name: string): Promise<void> {
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const suffix = scheme === 'dark' ? '-dark' : '';
    await screenshot(page, `${name}${suffix}`);
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, `${name}${suffix}`);
    await page.setViewportSize({ width: 1280, height: 900 });
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

describe('admin import journey', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('imports a 10,000-row CSV through the page and shows the progress to the end', async () => {
    const t = server();
    assert.equal((await t.request('POST', '/api/lists', { name: 'Other list', type: 'private', optin: 'single' })).status, 200);
    const list = await t.request('POST', '/api/lists', { name: 'Newsletter', type: 'public', optin: 'single' });
    assert.equal(list.status, 200, list.text);
    const listId: number = list.body.data.id;
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/subscribers/import?list_id=${listId}`);
    assert.equal(await page.getByRole('checkbox', { name: 'Newsletter' }).isChecked(), true, '?list_id ticks the list');
    assert.equal(await page.getByRole('checkbox', { name: 'Other list' }).isChecked(), false);
    await page.getByLabel('Subscription status').selectOption('confirmed');
    await screenshot(page, 'import-form');

    // No list, then an empty file: each refusal of the API beside its field, the choices kept.
    await page.getByLabel('CSV or ZIP file').setInputFiles({ name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.alloc(0) });
    await page.getByRole('checkbox', { name: 'Newsletter' }).uncheck();
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.locator('#import-lists-error', { hasText: '"lists" is required in subscribe mode' }).waitFor();
    await page.getByRole('checkbox', { name: 'Newsletter' }).check();
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.locator('#import-file-error', { hasText: 'the uploaded file is empty' }).waitFor();
    assert.equal(await page.locator('#import-lists-error').textContent(), '', 'the earlier message is gone');
    assert.equal(await page.getByRole('checkbox', { name: 'Newsletter' }).isChecked(), true);
    assert.equal(await page.getByLabel('Subscription status').inputValue(), 'confirmed');
    // The refused requests' 4xx notes are expected (signedInTab leaves them out); nothing else.
    assert.deepEqual(tab.problems, []);

    const csv = `email,name\n${Array.from({ length: ROWS }, (_, i) => `reader${i}@example.com,Reader ${i}`).join('\n')}\n`;
    await page.getByLabel('CSV or ZIP file').setInputFiles({ name: 'readers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByRole('heading', { name: 'File: readers.csv' }).waitFor();
    const summary = page.getByRole('region', { name: 'Summary' });
    await summary.waitFor({ timeout: 60_000 });
    assert.equal(await summary.locator('dd').first().textContent(), '10,000');
    assert.equal(await page.getByRole('progressbar').getAttribute('value'), String(ROWS));
    assert.equal(await page.getByRole('progressbar').getAttribute('max'), String(ROWS));
    assert.match(await page.locator('pre.log').textContent() ?? '', /finished: 10000 rows imported/);
    assert.equal(await page.getByRole('link', { name: 'View the imported subscribers' }).getAttribute('href'), `/admin/subscribers?list_id=${listId}`);
    await screenshot(page, 'import-done');
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, 'import-done');
    await page.setViewportSize({ width: 1280, height: 900 });
    const count = await t.request('GET', `/api/subscribers?list_id=${listId}&per_page=1`);
    assert.equal(count.body.data.total, ROWS);

    // A reload shows the ended import, from the server.
    await page.reload();
    await summary.waitFor();
    assert.equal(await summary.locator('dd').first().textContent(), '10,000');
    assert.equal(await page.getByText('Finished', { exact: true }).isVisible(), true);

    await page.getByRole('button', { name: 'New import' }).click();
    await page.getByRole('button', { name: 'Start import' }).waitFor();
    assert.equal((await t.request('GET', '/api/import/subscribers')).body.data.status, 'none');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('into a double opt-in list: says what the status means, maps the columns, and offers the opt-in mail after', async () => {
    const t = server();
    const weekly = await t.request('POST', '/api/lists', { name: 'Weekly', type: 'public', optin: 'double' });
    const single = await t.request('POST', '/api/lists', { name: 'Plain', type: 'private', optin: 'single' });
    const [weeklyId, singleId]: number[] = [weekly.body.data.id, single.body.data.id];
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    // The opt-in endpoints (GET counts, POST sends) as their contract says; the page is tested against it.
    const optinPosts: string[] = [];
    await page.route(`**/api/lists/${weeklyId}/optin`, async (route) => {
      if (route.request().method() === 'POST') {
        optinPosts.push(new URL(route.request().url()).pathname);
        await route.fulfill({ json: { data: { queued: 3 } } });
      } else await route.fulfill({ json: { data: { unconfirmed: 3, sendable: 3 } } });
    });

    await page.goto(`${t.url}/admin/subscribers/import?list_id=${singleId}`);
    const help = page.getByText('Unconfirmed subscribers of a double opt-in list get no campaigns until they confirm; choose Confirmed only if they already opted in elsewhere.');
    assert.equal(await help.isVisible(), false, 'no double opt-in list chosen');
    await page.getByRole('checkbox', { name: 'Weekly' }).check();
    await help.waitFor();
    await page.getByRole('checkbox', { name: 'Plain' }).uncheck();

    // The file's columns, with their first rows and the guess made; one choice changed.
    const csv = 'Email Address,First Name,Last Name,City,Shoe size\nrosa@example.com,Rosa,Marquez,Porto,38\nlena@example.com,Lena,Okafor,Lagos,41\ntomas@example.com,Tomás,Weber,,44\n';
    await page.getByLabel('CSV or ZIP file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    const columns = page.getByRole('region', { name: 'Columns' });
    await columns.getByRole('row', { name: /Shoe size/ }).waitFor();
    assert.equal(await columns.getByLabel('What "Email Address" becomes').inputValue(), 'email');
    assert.equal(await columns.getByLabel('What "First Name" becomes').inputValue(), 'first_name');
    assert.equal(await columns.getByLabel('What "City" becomes').inputValue(), 'attribute');
    assert.equal(await columns.getByLabel('Attribute key for "City"').inputValue(), 'city');
    assert.match(await columns.getByRole('row', { name: /City/ }).textContent() ?? '', /Porto · Lagos/);
    await columns.getByLabel('What "Shoe size" becomes').selectOption('ignore');
    await columns.getByLabel('Attribute key for "City"').fill('town');
    assert.equal(await page.getByLabel('Subscription status').inputValue(), 'unconfirmed');
    await shots(page, 'import-columns');

    await page.getByRole('button', { name: 'Start import' }).click();
    const summary = page.getByRole('region', { name: 'Summary' });
    await summary.waitFor({ timeout: 60_000 });
    assert.equal(await summary.locator('p.lead').textContent(), '3 new, 0 already on file (0 updated, 0 unchanged)');
    const rosa = (await t.request('GET', `/api/subscribers?list_id=${weeklyId}&query=${encodeURIComponent("subscribers.email = 'rosa@example.com'")}`)).body.data.results[0];
    assert.equal(rosa.name, 'Rosa Marquez');
    assert.deepEqual(rosa.attribs, { town: 'Porto' });

    // The way forward for the 3 unconfirmed: the opt-in mail, one click, to the list's endpoint.
    const offer = page.getByRole('region', { name: 'Unconfirmed subscribers of double opt-in lists' });
    await offer.getByText('Weekly: 3 unconfirmed subscribers.').waitFor();
    await shots(page, 'import-optin-offer');
    await offer.getByRole('button', { name: 'Send the opt-in mail to 3' }).click();
    await offer.getByText('The opt-in mail is on its way to 3 subscribers of Weekly').waitFor();
    assert.deepEqual(optinPosts, [`/api/lists/${weeklyId}/optin`]);

    // The same file again: nothing new, all already on file; this time they are kept unconfirmed.
    await page.getByRole('button', { name: 'New import' }).click();
    await page.getByRole('button', { name: 'Start import' }).waitFor();
    await page.getByLabel('CSV or ZIP file').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await columns.getByLabel('Attribute key for "City"').fill('town');
    await page.getByRole('button', { name: 'Start import' }).click();
    await summary.locator('p.lead', { hasText: '0 new, 3 already on file (0 updated, 3 unchanged)' }).waitFor({ timeout: 60_000 });
    await offer.getByRole('button', { name: 'Keep them unconfirmed' }).click();
    await offer.getByText('They stay unconfirmed and get no campaigns until they confirm.').waitFor();
    assert.equal(await offer.getByRole('button', { name: /Send the opt-in mail/ }).count(), 0);
    assert.deepEqual(optinPosts.length, 1);
    await page.getByRole('button', { name: 'New import' }).click();
    await page.getByRole('button', { name: 'Start import' }).waitFor();
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('stops a running import with Stop, after asking', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: 'Big list', type: 'private', optin: 'single' });
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/subscribers/import?list_id=${list.body.data.id}`);
    const csv = `email,name\n${Array.from({ length: 150_000 }, (_, i) => `big${i}@example.com,Big ${i}`).join('\n')}\n`;
    await page.getByLabel('CSV or ZIP file').setInputFiles({ name: 'big.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) });
    await page.getByRole('button', { name: 'Start import' }).click();
    await page.getByRole('button', { name: 'Stop import' }).click();
    await screenshot(page, 'import-running');
    const dialog = page.getByRole('dialog');
    assert.match(await dialog.textContent() ?? '', /Stop the import\?/);
    await dialog.getByRole('button', { name: 'Stop import' }).click();
    await page.getByRole('region', { name: 'Summary' }).waitFor({ timeout: 60_000 });
    assert.equal(await page.getByText('Stopped', { exact: true }).isVisible(), true);
    const status = (await t.request('GET', '/api/import/subscribers')).body.data;
    assert.ok(status.imported < 150_000, `stopped at ${status.imported}`);
    assert.equal(await page.getByRole('region', { name: 'Summary' }).locator('dd').first().textContent(), status.imported.toLocaleString('en-US'));
    await page.getByRole('button', { name: 'New import' }).click();
    await page.getByRole('button', { name: 'Start import' }).waitFor();
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('takes a dropped file, and shows the form at 390 px, in dark mode too', async () => {
    const t = server();
    for (const dark of [false, true]) {
      const tab = await signedInTab(browser(), t, { width: 390, dark });
      await tab.page.goto(`${t.url}/admin/subscribers/import`);
      await tab.page.getByRole('button', { name: 'Start import' }).waitFor();
      // A drop as the browser makes it (a string, as the tests are not compiled with the DOM types).
      const dropped = await tab.page.evaluate(`(() => {
        const data = new DataTransfer();
        data.items.add(new File(['email\\ndropped@example.com\\n'], 'dropped.csv', { type: 'text/csv' }));
        document.querySelector('.dropzone').dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
        return document.getElementById('import-file').files[0]?.name;
      })()`);
      assert.equal(dropped, 'dropped.csv');
      await screenshot(tab.page, `import-form${dark ? '-dark' : ''}`);
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
