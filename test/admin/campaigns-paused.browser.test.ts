// The campaigns table with a paused campaign and none running stays put: a paused row shows a
// progress bar like a running one, and the page used to watch it as running, find it missing
// from the running stats on the first poll, and reload itself every second (the navigation a
// journey on that page then raced with). The page's clock is run forward instead of waiting.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkip, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('the campaigns table with a paused campaign', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('does not poll the running stats nor reload while no campaign runs', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: 'Paused readers', type: 'private', optin: 'single' });
    const c = await t.request('POST', '/api/campaigns', { name: 'Paused one', subject: 'S', lists: [list.body.data.id], body: '<p>Hi</p>', content_type: 'html' });
    assert.equal(c.status, 200, c.text);
    t.server.ctx.db.prepare(`UPDATE campaigns SET status = 'paused', status_reason = 'relay down' WHERE id = ?`).run(c.body.data.id);
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    const polls: string[] = [];
    page.on('request', (r) => { if (r.url().includes('/api/campaigns/running/stats')) polls.push(r.url()); });
    let loads = 0;
    page.on('load', () => { loads++; });
    await page.clock.install();
    await page.goto(`${t.url}/admin/campaigns`);
    await page.getByRole('progressbar', { name: /Paused one/ }).waitFor({ state: 'attached' });
    await page.clock.runFor(5000);
    // A round trip to the page: a request its timers started is reported before this answer.
    await page.locator('html').evaluate((el) => el.childElementCount);
    assert.deepEqual(polls, []);
    assert.equal(loads, 1);
    // The fake clock's script is refused by the preview dialog's sandboxed (empty) frame: that is all.
    assert.deepEqual(tab.problems.filter((p) => !p.includes('about:blank\' because the document\'s frame is sandboxed')), []);
    await tab.close();
  });
});
