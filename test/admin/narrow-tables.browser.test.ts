// The campaigns and users tables on a phone (390 px): every column shown fits the screen, so
// no row and none of its actions needs scrolling sideways; the same pages at 1280 px keep
// their full tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

/** How far the table sticks out of its box, in pixels (0: nothing to scroll sideways). */
async function overflow(page: Page): Promise<number> {
  const [wrap] = await page.locator('.table-wrap').evaluateAll((els) => els.map((el) => el.scrollWidth - el.clientWidth));
  return wrap;
}

/** Whether every row action lies inside the window. */
async function actionsInView(page: Page, width: number): Promise<string[]> {
  const boxes = await page.locator('.row-actions > *').evaluateAll((els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    return { text: (el.textContent ?? '').trim(), right: r.right, left: r.left };
  }));
  assert.ok(boxes.length > 0);
  return boxes.filter((b) => b.left < 0 || b.right > width).map((b) => b.text);
}

async function fill(t: TestServer): Promise<void> {
  const list = (await t.request('POST', '/api/lists', { name: 'Readers of the weekly newsletter', type: 'public', optin: 'single' })).body.data.id;
  const names = ['The spring newsletter with a rather long name', 'Autumn offers', 'Welcome series, part one'];
  for (const [i, name] of names.entries()) {
    const c = await t.request('POST', '/api/campaigns', { name, subject: `Subject of ${name}`, lists: [list], tags: ['news', 'monthly'], body: '<p>Hi</p>', content_type: 'html' });
    assert.equal(c.status, 200, c.text);
    if (i === 1) t.server.ctx.db.prepare(`UPDATE campaigns SET status = 'finished' WHERE id = ?`).run(c.body.data.id);
    if (i === 2) t.server.ctx.db.prepare(`UPDATE campaigns SET status = 'paused' WHERE id = ?`).run(c.body.data.id);
  }
  const role = await t.request('POST', '/api/roles/users', { name: 'Campaign writers', permissions: ['campaigns:get', 'campaigns:manage'] });
  for (const [username, type, status] of [['margaret.hamilton', 'user', 'enabled'], ['crm-synchronisation', 'api', 'enabled'], ['old.account', 'user', 'disabled']] as const) {
    const u = await t.request('POST', '/api/users', {
      username, name: username, email: type === 'user' ? `${username}@example.com` : undefined, type, status, password_login: type === 'user', password: type === 'user' ? 'a-long-password-1' : undefined, user_role_id: role.body.data.id,
    });
    assert.equal(u.status, 200, u.text);
  }
}

describe('the campaigns and users tables on a phone', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('fits the campaigns and users tables and their row actions in 390 px; 1280 px keeps every column', async () => {
    const t = server();
    await fill(t);
    for (const width of [390, 1280]) {
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      for (const [path, name] of [['/admin/campaigns', 'campaigns-table'], ['/admin/users', 'users-table']] as const) {
        await page.goto(`${t.url}${path}`);
        await page.getByRole('table').waitFor();
        await screenshot(page, name);
        assert.equal(await overflow(page), 0, `${path} at ${width} px scrolls sideways`);
        assert.deepEqual(await actionsInView(page, width), [], `${path} at ${width} px: actions outside the window`);
      }
      if (width === 1280) {
        await page.goto(`${t.url}/admin/campaigns`);
        for (const column of ['Lists', 'Timestamps', 'Statistics']) assert.ok(await page.getByRole('columnheader', { name: column }).isVisible(), column);
        await page.goto(`${t.url}/admin/users`);
        for (const column of ['User role', 'List role', 'E-mail', 'Last login']) assert.ok(await page.getByRole('columnheader', { name: column }).isVisible(), column);
      }
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
