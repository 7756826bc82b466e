// Every table page of the admin on a phone (390 px): lists, subscribers, campaigns, templates,
// media, bounces, users, both kinds of roles and webhooks. Nothing scrolls sideways (neither the page nor a
// table's box), no cell's text is cut off, and every row action lies inside the window; the same
// pages at 1280 px keep their full tables.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

/** The admin's pages that show a table (or, for media, a grid), with the name of their screenshot. */
const TABLE_PAGES = [
  ['/admin/lists', 'lists-table'],
  ['/admin/subscribers', 'subscribers-table'],
  ['/admin/campaigns', 'campaigns-table'],
  ['/admin/campaigns/templates', 'templates-table'],
  ['/admin/campaigns/media', 'media-grid'],
  ['/admin/subscribers/bounces', 'bounces-table'],
  ['/admin/users', 'users-table'],
  ['/admin/users/roles/users', 'user-roles-table'],
  ['/admin/users/roles/lists', 'list-roles-table'],
  ['/admin/settings/webhooks', 'webhooks-table'],
] as const;

/** What does not fit a page `width` pixels wide: sideways scrolling, cut-off cells, actions outside the window. */
async function misfits(page: Page, width: number): Promise<string[]> {
  const found: string[] = [];
  const pageWidth = await page.locator('html').evaluate((el) => el.scrollWidth - el.clientWidth);
  if (pageWidth > 0) found.push(`the page scrolls sideways by ${pageWidth} px`);
  const wraps = await page.locator('.table-wrap').evaluateAll((els) => els.map((el) => el.scrollWidth - el.clientWidth));
  wraps.forEach((w, i) => { if (w > 0) found.push(`table ${i + 1} scrolls sideways by ${w} px`); });
  const cells = await page.locator('main td, main th').evaluateAll((els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    const shown = r.width > 0 && r.height > 0;
    return { text: (el.textContent ?? '').trim().slice(0, 40), shown, cut: el.scrollWidth > el.clientWidth + 1, right: r.right };
  }));
  for (const c of cells) {
    if (!c.shown) continue;
    if (c.cut) found.push(`cell "${c.text}" is cut off`);
    else if (c.right > width + 0.5) found.push(`cell "${c.text}" ends outside the window (${Math.round(c.right)} px)`);
  }
  const actions = await page.locator('.row-actions > *').evaluateAll((els) => els.map((el) => {
    const r = el.getBoundingClientRect();
    return { text: (el.textContent ?? '').trim(), left: r.left, right: r.right };
  }));
  for (const a of actions) if (a.left < 0 || a.right > width + 0.5) found.push(`action "${a.text}" is outside the window`);
  return found;
}

async function fill(t: TestServer): Promise<void> {
  const ok = (res: { status: number; text: string }) => assert.equal(res.status, 200, res.text);
  const list = (await t.request('POST', '/api/lists', { name: 'Readers of the weekly newsletter about harbours', type: 'public', optin: 'double', tags: ['weekly', 'harbours'], description: 'Everyone who reads it' })).body.data.id;
  ok(await t.request('POST', '/api/lists', { name: 'Internal announcements', type: 'private', optin: 'single' }));
  for (const [email, name] of [
    ['margaret.hamilton.and.a.long.local.part@subdomain.example.com', 'Margaret Heafield Hamilton-Fairweather'],
    ['ada@example.com', 'Ada Lovelace'],
    ['grace.hopper@example.org', 'Grace Brewster Murray Hopper'],
  ]) {
    ok(await t.request('POST', '/api/subscribers', { email, name, status: 'enabled', lists: [list], attribs: { city: 'Rotterdam' } }));
  }
  const names = ['The spring newsletter with a rather long name', 'Autumn offers', 'Welcome series, part one'];
  for (const [i, name] of names.entries()) {
    const c = await t.request('POST', '/api/campaigns', { name, subject: `Subject of ${name}`, lists: [list], tags: ['news', 'monthly'], body: '<p>Hi</p>', content_type: 'html' });
    ok(c);
    if (i === 1) fixtures(t.server.ctx.db).campaignState(c.body.data.id, { status: 'finished' });
    if (i === 2) fixtures(t.server.ctx.db).campaignState(c.body.data.id, { status: 'paused' });
  }
  ok(await t.request('POST', '/api/templates', { name: 'Receipt for orders placed in the online shop', type: 'tx', subject: 'Your order', body: '<p>Thanks</p>' }));
  const role = await t.request('POST', '/api/roles/users', { name: 'Campaign writers and editors', permissions: ['campaigns:get', 'campaigns:manage'] });
  ok(role);
  ok(await t.request('POST', '/api/roles/lists', { name: 'Harbour newsletter editors', lists: [{ id: list, permissions: ['list:get', 'list:manage'] }] }));
  for (const [username, type, status] of [['margaret.hamilton', 'user', 'enabled'], ['crm-synchronisation', 'api', 'enabled'], ['old.account', 'user', 'disabled']] as const) {
    ok(await t.request('POST', '/api/users', {
      username, name: username, email: type === 'user' ? `${username}@example.com` : undefined, type, status, password_login: type === 'user', password: type === 'user' ? 'a-long-password-1' : undefined, user_role_id: role.body.data.id,
    }));
  }
  const png = await sharp({ create: { width: 320, height: 200, channels: 3, background: '#2f6db5' } }).png().toBuffer();
  const form = new FormData();
  form.append('file', new Blob([png], { type: 'image/png' }), 'harbour-at-dawn-from-the-lighthouse.png');
  ok(await t.request('POST', '/api/media', undefined, { raw: form }));
  ok(await t.request('PUT', '/api/settings', { 'bounce.enabled': true, 'bounce.webhooks_enabled': true }));
  ok(await t.request('POST', '/api/webhooks', { name: 'Synchronisation with the customer relationship manager', url: 'https://crm.subdomain.example.com/integrations/listmgr/webhooks/receive?token=abcdef0123456789', events: ['subscriber.created', 'subscription.unsubscribed'], description: 'Feeds the sales team' }));
  ok(await t.request('POST', '/api/webhooks', { name: 'Archive', url: 'https://archive.example.com/listmgr', events: ['*'], enabled: false }));
  for (const email of ['margaret.hamilton.and.a.long.local.part@subdomain.example.com', 'ada@example.com']) {
    ok(await t.request('POST', '/webhooks/bounce', { email, type: 'soft', source: 'api', meta: { reason: 'mailbox full' } }));
  }
}

describe('the admin\'s tables on a phone', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('fits every table page and its row actions in 390 px; 1280 px keeps every column', async () => {
    const t = server();
    await fill(t);
    for (const width of [390, 1280]) {
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      for (const [path, name] of TABLE_PAGES) {
        await page.goto(`${t.url}${path}`);
        assert.equal(new URL(page.url()).pathname, path);
        await page.locator(path.endsWith('/media') ? '.media-grid' : 'main table').first().waitFor();
        await screenshot(page, name);
        assert.deepEqual(await misfits(page, width), [], `${path} at ${width} px`);
      }
      if (width === 1280) {
        const columns: [string, string[]][] = [
          ['/admin/campaigns', ['Lists', 'Timestamps', 'Statistics']],
          ['/admin/users', ['User role', 'List role', 'E-mail', 'Last login']],
          ['/admin/lists', ['Subscriptions', 'Created', 'Updated']],
          ['/admin/subscribers', ['Lists', 'Created', 'Updated']],
        ];
        for (const [path, names] of columns) {
          await page.goto(`${t.url}${path}`);
          for (const column of names) assert.ok(await page.getByRole('columnheader', { name: column }).isVisible(), `${path}: ${column}`);
        }
      }
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
