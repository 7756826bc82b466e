// The archive, the brand and the form builder in a real browser: the RSS feed parses as XML,
// the archive's pages and an issue look right at 1280 and 390 px in light and dark (screenshots
// in test-screenshots/), the brand is set on Settings → General, a list's page links to its
// public subscription page, and the Forms page's minimal style shows in its preview.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Locator } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer } from '../helpers/server.ts';

/** What runs in the page (the tests are typed without the DOM library). */
interface PageGlobals {
  getComputedStyle(e: unknown): { backgroundColor: string };
  DOMParser: new () => { parseFromString(text: string, type: string): XmlDoc };
  fetch(url: string): Promise<{ text(): Promise<string> }>;
}
interface XmlDoc {
  documentElement: { nodeName: string };
  getElementsByTagName(name: string): { length: number };
  querySelectorAll(sel: string): Iterable<{ textContent: string | null }>;
}
const background = (el: Locator) => el.evaluate((b) => (globalThis as unknown as PageGlobals).getComputedStyle(b).backgroundColor);

describe('the archive and the brand in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  let listId = 0;
  let listUuid = '';
  let slug = '';

  it('sets the brand on Settings → General', async () => {
    const t = server();
    assert.equal((await t.request('PUT', '/api/settings', { 'app.root_url': t.url })).status, 200);
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/settings#general`);
    await page.getByLabel('Site name').fill('The Garden Letter');
    await page.getByLabel('Accent colour').fill('#2e7d32');
    await page.getByLabel('Postal address').fill('Garden Letter Ltd\n12 High Street\nSpringfield, OR 97477');
    const saved = page.waitForResponse((r) => r.url().endsWith('/api/settings') && r.request().method() === 'PUT');
    await page.locator('#settings-save').click();
    assert.equal((await saved).status(), 200);
    await page.getByText('Settings saved and applied. No restart needed.').waitFor();
    const now = (await t.request('GET', '/api/settings')).body.data;
    assert.deepEqual([now['app.site_name'], now['app.accent_color'], now['app.postal_address']], ['The Garden Letter', '#2e7d32', 'Garden Letter Ltd\n12 High Street\nSpringfield, OR 97477']);
    await page.getByRole('heading', { name: 'Brand' }).scrollIntoViewIfNeeded();
    await screenshot(page, 'settings-brand');
    assert.deepEqual(tab.problems, []);
    await tab.close();
    const phone = await signedInTab(browser(), t, { width: 390, dark: true });
    await phone.page.goto(`${t.url}/admin/settings#general`);
    await phone.page.getByRole('heading', { name: 'Brand' }).scrollIntoViewIfNeeded();
    assert.equal(await phone.page.getByLabel('Accent colour').inputValue(), '#2e7d32');
    await screenshot(phone.page, 'settings-brand-dark');
    assert.deepEqual(phone.problems, []);
    await phone.close();
  });

  it('links a public list\'s page to its subscription page', async () => {
    const t = server();
    const list = (await t.request('POST', '/api/lists', { name: 'Garden news', type: 'public', optin: 'single' })).body.data;
    listId = list.id;
    listUuid = list.uuid;
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/lists/${listId}`);
      const link = page.getByRole('link', { name: `${t.url}/subscription/form?l=${listUuid}` });
      await link.waitFor();
      await screenshot(page, 'list-public-page');
      if (width === 390) {
        await Promise.all([page.waitForURL(/\/subscription\/form\?l=/), link.click()]);
        assert.equal(await page.getByRole('checkbox', { name: 'Garden news' }).isChecked(), true);
      }
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('adds a minimal style to the form snippet, and the preview uses it under the admin\'s CSP', async () => {
    const t = server();
    for (const dark of [false, true]) {
      const tab = await signedInTab(browser(), t, { width: dark ? 390 : 1280, dark });
      const { page } = tab;
      await page.goto(`${t.url}/admin/lists/forms`);
      const snippet = page.getByRole('textbox', { name: 'Form HTML' });
      await snippet.waitFor();
      assert.doesNotMatch(await snippet.inputValue(), /<style>/);
      const button = page.frameLocator('#form-preview').getByRole('button', { name: 'Subscribe' });
      assert.notEqual(await background(button), 'rgb(46, 125, 50)');
      await page.getByLabel('Add a minimal style').check();
      assert.match(await snippet.inputValue(), /^<style>\n {2}\.listmgr-form \{[^]*background: #2e7d32;[^]*<\/style>\n<form /);
      // The frame is written again on the change: wait for the new document's button.
      for (let i = 0; i < 100 && await background(button) !== 'rgb(46, 125, 50)'; i++) await page.waitForTimeout(50);
      assert.equal(await background(button), 'rgb(46, 125, 50)', 'the preview\'s button has the accent colour: the style block ran');
      await screenshot(page, `forms-styled${dark ? '-dark' : ''}`);
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('serves a well-formed RSS feed and archive pages that read well on a desktop and a phone', async () => {
    const t = server();
    const subjects = ['Pruning roses in winter', 'Sowing peas <early> & often', 'Compost, worms and leaf mould'];
    for (const [i, subject] of subjects.entries()) {
      const body = `<p>Hello {{ .Subscriber.FirstName }},</p><p>${i === 1 ? 'Peas want cool soil.' : 'Notes from the garden.'}</p><p><a class="button" href="https://example.com/">Read more</a></p>`;
      const c = (await t.request('POST', '/api/campaigns', { name: subject, subject, lists: [listId], content_type: 'html', body })).body.data;
      fixtures(t.server.ctx.db).campaignState(c.id, { status: 'finished', started_at: `2026-0${i + 3}-01T09:00:00.000Z` });
      if (i === 1) slug = c.archive_slug;
    }
    const context = await browser().newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.goto(`${t.url}/archive.xml`);
    const feed = await page.evaluate(async () => {
      const g = globalThis as unknown as PageGlobals;
      const text = await (await g.fetch('/archive.xml')).text();
      const doc = new g.DOMParser().parseFromString(text, 'application/xml');
      return { error: doc.getElementsByTagName('parsererror').length, root: doc.documentElement.nodeName, titles: [...doc.querySelectorAll('item > title')].map((e) => e.textContent) };
    });
    assert.deepEqual(feed, { error: 0, root: 'rss', titles: [...subjects].reverse() });
    await context.close();

    for (const [width, dark] of [[1280, false], [1280, true], [390, false], [390, true]] as const) {
      const ctx = await browser().newContext({ viewport: { width, height: 900 }, colorScheme: dark ? 'dark' : 'light' });
      const p = await ctx.newPage();
      const suffix = dark ? '-dark' : '';
      await p.goto(`${t.url}/archive`);
      await p.getByRole('link', { name: subjects[2] }).waitFor();
      await screenshot(p, `archive-index${suffix}`);
      await p.getByRole('searchbox').or(p.getByRole('textbox', { name: 'Search the archive' })).fill('peas');
      await Promise.all([p.waitForURL(/\/archive\?q=peas/), p.getByRole('button', { name: 'Search' }).click()]);
      await p.getByText('1 issue with “peas”').waitFor();
      await screenshot(p, `archive-search${suffix}`);
      await Promise.all([p.waitForURL(new RegExp(`/archive/${slug}$`)), p.getByRole('link', { name: subjects[1] }).click()]);
      await p.getByRole('heading', { name: subjects[1] }).waitFor();
      assert.equal(await p.getByText(/Hello/).count(), 0, 'no greeting on the public page');
      await screenshot(p, `archive-issue${suffix}`);
      await ctx.close();
    }
  });
});
