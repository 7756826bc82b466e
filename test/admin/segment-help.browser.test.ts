// Browser journey through the segment box's help: an example fills the box and finds its
// subscribers; a mistake a newcomer makes (`city = Berlin`) is answered with the right form.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkip, screenshot, signedInTab, useBrowser, waitForValue } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('the segment box\'s help in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('fills the box from an example and suggests the right form after a mistake', async () => {
    const t = server();
    const list = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'private', optin: 'single' })).body.data.id;
    for (const [email, city] of [['berlin@example.com', 'Berlin'], ['paris@example.com', 'Paris']]) {
      assert.equal((await t.request('POST', '/api/subscribers', { email, lists: [list], attribs: { city } })).status, 200);
    }
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { width, dark: width < 400 });
      const { page } = tab;
      await page.goto(`${t.url}/admin/subscribers`);
      await page.getByText('Advanced', { exact: true }).click();
      const box = page.getByLabel('Segment query');
      await page.getByRole('button', { name: "subscribers.attribs->>'city' = 'Berlin'" }).click();
      await waitForValue(box, (v) => v === "subscribers.attribs->>'city' = 'Berlin'");
      await screenshot(page, 'subscribers-segment-examples');
      await Promise.all([page.waitForURL(/query=/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
      await page.getByRole('link', { name: 'berlin@example.com', exact: true }).waitFor();
      assert.equal(await page.getByRole('link', { name: 'paris@example.com', exact: true }).count(), 0);

      await box.fill('city = Berlin');
      await Promise.all([page.waitForURL(/query=city/), page.getByRole('button', { name: 'Search', exact: true }).click()]);
      await page.locator('#query-error').getByText(`unknown column "city" at position 1 — did you mean subscribers.attribs->>'city'?`).waitFor();
      assert.equal(await page.locator('#query-help').getByRole('link', { name: /^Help: Segment expressions/ }).getAttribute('href'), '/admin/help/segments');
      await screenshot(page, 'subscribers-segment-hint');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });
});
