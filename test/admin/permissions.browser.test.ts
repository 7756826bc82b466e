// Browser journeys through what a role may not reach (docs/security.md): the user roles page
// saying what settings:manage allows, the maintenance page without the backup for it, and a
// subscriber's Activity tab for a list-restricted role, campaigns of other lists shown as "A
// campaign you cannot see". Screenshots at 1280 and 390 px.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { seedTwoListActivity, THEIR_CAMPAIGN } from '../helpers/activity.ts';
import { userWithRole } from '../helpers/admin.ts';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('what a role may not reach, in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  before(() => seedTwoListActivity(server().server.ctx.db));

  it('the user roles page and the role form say what settings:manage reaches', async () => {
    const t = server();
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/users/roles/users`);
      const reach = page.getByRole('region', { name: 'What some permissions reach' });
      await reach.locator('[data-reach="settings:manage"]').getByText(/Custom JavaScript and the backup download are a Super Admin's only/).waitFor();
      await screenshot(page, 'roles-reach');
      await page.getByRole('link', { name: /New user role/ }).click();
      await page.waitForURL(/\/admin\/users\/roles\/users\/new$/);
      const manage = page.locator('[data-note-for="settings:manage"]');
      assert.match(await manage.innerText(), /^Changes every setting/);
      await screenshot(page, 'role-form-settings-notes');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('the maintenance page offers a settings:manage role no backup, and says why', async () => {
    const t = server();
    const manager = await userWithRole(t, ['settings:get', 'settings:manage']);
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { ...manager, width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/settings/maintenance`);
      await page.getByText('Only a Super Admin may download a backup').waitFor();
      assert.equal(await page.getByRole('link', { name: 'Download backup' }).count(), 0);
      await screenshot(page, 'maintenance-manager');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('a list-restricted role sees the other lists\' campaigns in the Activity tab only as "A campaign you cannot see"', async () => {
    const t = server();
    const ours = await userWithRole(t, ['subscribers:get', 'campaigns:get'], [{ id: 801, permissions: ['list:get'] }]);
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { ...ours, width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/subscribers/801`);
      await page.getByRole('link', { name: 'Activity' }).click();
      await page.waitForURL(/tab=activity/);
      await page.getByRole('cell', { name: 'Our news Hello from us' }).waitFor();
      assert.equal(await page.getByText('A campaign you cannot see').count(), 2);
      const text = await page.locator('main').innerText();
      for (const hidden of THEIR_CAMPAIGN) assert.ok(!text.includes(hidden), hidden);
      await screenshot(page, 'subscriber-activity-restricted');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
