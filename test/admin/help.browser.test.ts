// The help in a browser: from the segment box's "?" to the segments guide, back to the index,
// on to another guide through its link; the pages load everything they show under the admin's
// CSP (a blocked image or script is a console error), and nothing on them scrolls the page
// sideways on a phone. Screenshots at 1280 and 390 px, light and dark.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

/** How far the page is wider than the window, in pixels (0: no sideways scrolling). */
function pageOverflow(page: Page): Promise<number> {
  return page.locator('html').evaluate((el) => el.scrollWidth - el.clientWidth);
}

describe('admin help in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('leads from the segment box to its guide, and between guides; readable on a phone', async () => {
    const t = server();
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/subscribers`);
    await page.getByText('Advanced').click();
    await Promise.all([page.waitForURL(`${t.url}/admin/help/segments`), page.getByRole('link', { name: /^Help: Segment expressions/ }).click()]);
    await page.getByRole('heading', { level: 1, name: /Segment expressions/ }).waitFor();
    await Promise.all([page.waitForURL(`${t.url}/admin/help`), page.getByRole('link', { name: '← Help' }).click()]);
    await Promise.all([page.waitForURL(`${t.url}/admin/help/api`), page.getByRole('link', { name: 'The API', exact: true }).click()]);
    await Promise.all([page.waitForURL(`${t.url}/admin/help/segments`), page.locator('article.doc').getByRole('link', { name: 'docs/segments.md' }).first().click()]);
    assert.deepEqual(tab.problems, []);
    await tab.close();

    for (const dark of [false, true]) {
      for (const width of [1280, 390]) {
        const shot = await signedInTab(browser(), t, { width, dark });
        for (const [path, name] of [['/admin/help', 'help-index'], ['/admin/help/admin', 'help-admin'], ['/admin/help/api', 'help-api']]) {
          await shot.page.goto(`${t.url}${path}`);
          await shot.page.locator('main h1').waitFor();
          if (path === '/admin/help/admin') {
            // Every screenshot the guide shows has loaded (a blocked or missing image has no width).
            const widths = await shot.page.locator('article.doc img').evaluateAll((imgs) => imgs.map((i) => (i as unknown as { naturalWidth: number }).naturalWidth));
            assert.ok(widths.length >= 5 && widths.every((w) => w > 0), `image widths ${widths.join(', ')}`);
          }
          assert.equal(await pageOverflow(shot.page), 0, `${path} at ${width} px scrolls sideways`);
          await screenshot(shot.page, `${name}${dark ? '-dark' : ''}`);
        }
        assert.deepEqual(shot.problems, []);
        await shot.close();
      }
    }
  });
});
