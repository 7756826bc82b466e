// A walk through the admin's pages for people to look at (screenshots in test-screenshots/):
// every page as an admin and as a restricted role, light and dark, at 1280 and 390 px. No page
// raises an error, and on a phone none is wider than the screen (wide tables scroll in their box).
// WALK_WHO, WALK_PAGES and WALK_TABS narrow the walk when looking at one page.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { userWithRole } from '../helpers/admin.ts';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

const TABS = (process.env.WALK_TABS ?? 'general,performance,privacy,security,media,smtp,bounces,messengers,appearance').split(',');

/** On a phone the page is no wider than the screen. */
async function fits(page: Page, what: string): Promise<void> {
  const width = page.viewportSize()?.width ?? 0;
  if (width > 400) return;
  const wide = await page.evaluate('document.documentElement.scrollWidth') as number;
  assert.ok(wide <= width, `${what} is ${wide} px wide on a ${width} px screen`);
}

describe('a walk through the admin', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('shows every page without an error', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' });
    for (let i = 1; i <= 3; i++) await t.request('POST', '/api/subscribers', { email: `r${i}@example.com`, name: `Reader ${i}`, lists: [list.body.data.id] });
    const c = await t.request('POST', '/api/campaigns', { name: 'Spring issue with a rather long name for a campaign', subject: 'Spring', lists: [list.body.data.id], content_type: 'richtext', body: '<p>Hello</p>' });
    const id = c.body.data.id;
    const reader = await userWithRole(t, ['subscribers:get', 'settings:get']);
    const pages: [string, string][] = [
      ['dashboard', '/admin'], ['users', '/admin/users'], ['user-roles', '/admin/users/roles/users'], ['list-roles', '/admin/users/roles/lists'],
      ['profile', '/admin/profile'], ['logs', '/admin/settings/logs'], ['maintenance', '/admin/settings/maintenance'], ['about', '/admin/settings/about'],
      ['campaigns', '/admin/campaigns'], ['campaign', `/admin/campaigns/${id}`], ['analytics', '/admin/campaigns/analytics'],
      ['templates', '/admin/campaigns/templates'], ['media', '/admin/campaigns/media'], ['subscribers', '/admin/subscribers'], ['webhooks', '/admin/settings/webhooks'],
    ];
    const only = process.env.WALK_PAGES?.split(',');
    for (const who of (process.env.WALK_WHO ?? 'admin,reader').split(',')) {
      for (const dark of [false, true]) {
        for (const width of [1280, 390]) {
          const tab = await signedInTab(browser(), t, { width, dark, ...(who === 'reader' ? reader : {}) });
          const { page } = tab;
          const name = (p: string) => `walk-${who}-${p}${dark ? '-dark' : ''}`;
          for (const [key, path] of pages) {
            if (only && !only.includes(key)) continue;
            await page.goto(`${t.url}${path}`);
            await screenshot(page, name(key));
            await fits(page, `${who} ${key}`);
          }
          if (!only || only.includes('settings')) {
            await page.goto(`${t.url}/admin/settings`);
            for (const tabId of TABS) {
              await page.locator(`#tab-${tabId}`).click();
              await screenshot(page, name(`settings-${tabId}`));
              await fits(page, `${who} settings ${tabId}`);
            }
          }
          if (who === 'admin' && (!only || only.includes('settings'))) {
            // The bounce actions' table fits a phone without scrolling: every action readable.
            await page.locator('#tab-bounces').click();
            const box = page.locator('.table-wrap').filter({ has: page.locator('table.bounce-actions') });
            const [scroll, client] = await box.evaluate((el) => [el.scrollWidth, el.clientWidth]);
            assert.ok(scroll <= client, `the bounce actions scroll at ${width} px: ${scroll} > ${client}`);
          }
          if (!only || only.includes('dashboard')) {
            // The charts' legends are not dressed as the admin's table headings.
            await page.goto(`${t.url}/admin`);
            await page.locator('.u-legend th').first().waitFor();
            // A string, as the tests are not compiled with the DOM types.
            const style = await page.evaluate(`(() => { const s = getComputedStyle(document.querySelector('.u-legend th')); return [s.textTransform, s.borderBottomStyle]; })()`);
            assert.deepEqual(style, ['none', 'none']);
          }
          assert.deepEqual(tab.problems, [], `${who} ${dark ? 'dark' : 'light'} ${width}`);
          await tab.close();
        }
      }
    }
  });
});
