// Browser journeys through what a role may not reach (docs/security.md): the user roles page
// saying what settings:manage allows, the maintenance page without the backup for it, and a
// subscriber's Activity tab for a list-restricted role, campaigns of other lists shown as "A
// campaign you cannot see". Screenshots at 1280 and 390 px.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { userWithRole } from '../helpers/admin.ts';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('what a role may not reach, in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  before(() => {
    server().server.ctx.db.exec(`
      INSERT INTO lists (id, uuid, name) VALUES (901, 'list-desk', 'Desk'), (902, 'list-board', 'Board');
      INSERT INTO subscribers (id, uuid, email, name) VALUES (901, 'sub-901', 'reader@example.com', 'Reader');
      INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES (901, 901, 'confirmed'), (901, 902, 'confirmed');
      INSERT INTO campaigns (id, uuid, name, subject, from_email) VALUES
        (901, 'camp-desk', 'Desk weekly', 'This week at the desk', 'a@example.com'),
        (902, 'camp-board', 'Board minutes', 'Confidential minutes', 'a@example.com');
      INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES (901, 901, 'Desk'), (902, 902, 'Board');
      INSERT INTO links (id, uuid, url) VALUES (901, 'link-desk', 'https://desk.example/week'), (902, 'link-board', 'https://board.example/minutes');
      INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES (901, 901, '2025-01-01T00:00:00.000Z'), (902, 901, '2025-01-02T00:00:00.000Z');
      INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES (901, 901, 901, '2025-01-01T00:00:00.000Z'), (902, 902, 901, '2025-01-02T00:00:00.000Z');
    `);
  });

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
    const desk = await userWithRole(t, ['subscribers:get', 'campaigns:get'], [{ id: 901, permissions: ['list:get'] }]);
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { ...desk, width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/subscribers/901`);
      await page.getByRole('link', { name: 'Activity' }).click();
      await page.waitForURL(/tab=activity/);
      await page.getByRole('cell', { name: 'Desk weekly This week at the desk' }).waitFor();
      assert.equal(await page.getByText('A campaign you cannot see').count(), 2);
      const text = await page.locator('main').innerText();
      for (const hidden of ['Board minutes', 'Confidential minutes', 'board.example']) assert.ok(!text.includes(hidden), hidden);
      await screenshot(page, 'subscriber-activity-restricted');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
