// Browser journey through the code editor island on a campaign's page: the body is edited in
// CodeMirror, saved from it (Ctrl+S), and a plain-text body goes back to the textarea.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { browserSkip, launchBrowser, screenshot, signedInTab } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('the code editor in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  let browser: Browser;
  before(async () => {
    browser = await launchBrowser();
  });
  after(async () => {
    await browser?.close();
  });

  for (const dark of [false, true]) {
    it(`edits a campaign's markdown body in the editor and saves it; plain text uses the textarea (${dark ? 'dark' : 'light'})`, async () => {
      const t = server();
      const list = await t.request('POST', '/api/lists', { name: `Editor list ${dark}`, type: 'private', optin: 'single' });
      const created = await t.request('POST', '/api/campaigns', { name: `Editor ${dark}`, subject: 'S', lists: [list.body.data.id], content_type: 'markdown', body: '# Hello\n\nFirst draft' });
      assert.equal(created.status, 200, created.text);
      const id = created.body.data.id;
      const tab = await signedInTab(browser, t, { dark });
      const { page } = tab;
      await page.goto(`${t.url}/admin/campaigns/${id}`);
      const editor = page.getByRole('textbox', { name: 'Body' });
      assert.match(await editor.innerText(), /# Hello\s+First draft/);
      await editor.click();
      await page.keyboard.press('Control+End');
      await page.keyboard.insertText('\n\nA **second** paragraph');
      await screenshot(page, `campaign-editor-${dark ? 'dark' : 'light'}`);
      await page.keyboard.press('Control+S');
      await page.getByText('Saved', { exact: true }).waitFor();
      const saved = await t.request('GET', `/api/campaigns/${id}`);
      assert.equal(saved.body.data.body, '# Hello\n\nFirst draft\n\nA **second** paragraph');

      await page.getByLabel('Format').selectOption('plain');
      assert.equal(await page.getByRole('textbox', { name: 'Body' }).evaluate((el) => el.tagName), 'TEXTAREA', 'plain text is edited in the textarea');
      assert.equal(await page.getByLabel('Body').inputValue(), saved.body.data.body);
      assert.deepEqual(tab.problems, []);
      await tab.close();
    });
  }
});
