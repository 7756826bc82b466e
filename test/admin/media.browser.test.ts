// Browser journeys through the media page: several images uploaded at once with a progress bar
// each, their thumbnails in the grid, a refused file's message beside it, and delete.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import sharp from 'sharp';
import { browserSkip, launchBrowser, screenshot, signedInTab } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('admin media in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const width of [1280, 390]) {
    it(`uploads two images at once, shows both, refuses a file with the API's message, deletes one (${width} px)`, async () => {
      const t = server();
      const image = (background: string) => sharp({ create: { width: 320, height: 200, channels: 3, background } }).png().toBuffer();
      const tab = await signedInTab(browser, t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin`);
      if (width < 800) await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Media' }).click();
      await page.getByRole('heading', { name: /^Media/ }).waitFor();

      await page.getByLabel('Choose files').setInputFiles([
        { name: `sunrise-${width}.png`, mimeType: 'image/png', buffer: await image('#e8a33d') },
        { name: `harbour-${width}.png`, mimeType: 'image/png', buffer: await image('#2f6db5') },
      ]);
      await page.getByText('2 files uploaded').waitFor();
      await page.getByRole('img', { name: `sunrise-${width}.png` }).waitFor();
      await page.getByRole('img', { name: `harbour-${width}.png` }).waitFor();
      assert.ok(await page.getByRole('img', { name: `harbour-${width}.png` }).evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth > 0), 'the thumbnail loads');

      // A file the API refuses (named .png, but no image): its own message, the other still uploads.
      await page.getByLabel('Choose files').setInputFiles([
        { name: `broken-${width}.png`, mimeType: 'image/png', buffer: Buffer.from('not an image') },
        { name: `meadow-${width}.png`, mimeType: 'image/png', buffer: await image('#4a9d5b') },
      ]);
      await page.getByRole('listitem').filter({ hasText: `broken-${width}.png` }).getByText('the image could not be read').waitFor();
      await page.getByRole('listitem').filter({ hasText: `meadow-${width}.png` }).getByText('Uploaded').waitFor();
      await screenshot(page, 'media-upload');
      await page.getByRole('button', { name: 'Show the uploaded files' }).click();
      await page.getByRole('img', { name: `meadow-${width}.png` }).waitFor();

      await page.getByLabel('Search files').fill('harbour');
      await page.getByRole('button', { name: 'Filter' }).click();
      await page.getByRole('img', { name: `harbour-${width}.png` }).waitFor();
      assert.equal(await page.getByRole('img', { name: `sunrise-${width}.png` }).count(), 0);
      await page.goto(`${t.url}/admin/campaigns/media`);
      await screenshot(page, 'media');

      await page.getByRole('button', { name: `Delete sunrise-${width}.png` }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
      await page.getByText(`"sunrise-${width}.png" deleted`).waitFor();
      assert.equal(await page.getByRole('img', { name: `sunrise-${width}.png` }).count(), 0);
      await page.getByRole('img', { name: `harbour-${width}.png` }).waitFor();
      assert.deepEqual(tab.problems, []);
      await tab.close();
    });
  }
});
