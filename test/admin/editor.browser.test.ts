// Browser journeys through the editor island on a campaign's page: a markdown body edited in
// the code editor and saved from it (Ctrl+S), plain text back in the textarea, and rich text
// in TipTap with its toolbar and the switch to the HTML source and back.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import sharp from 'sharp';
import { browserSkip, screenshot, signedInTab, useBrowser, waitForValue } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('the code editor in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('writes rich text with the toolbar (bold, a link, an image from the media library), edits its HTML source and comes back', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: 'Rich list', type: 'private', optin: 'single' });
    // A campaign that does not track its links: a link is tracked by its own @TrackLink.
    const created = await t.request('POST', '/api/campaigns', { name: 'Rich', subject: 'S', lists: [list.body.data.id], content_type: 'richtext', body: '<p>Dear reader,</p>', track_links: false });
    const id = created.body.data.id;
    // The image goes into the body by its public URL, which the editor then loads: this server's.
    assert.equal((await t.request('PUT', '/api/settings', { 'app.root_url': t.url })).status, 200);
    const upload = new FormData();
    upload.append('file', new Blob([await sharp({ create: { width: 120, height: 80, channels: 3, background: '#2f6db5' } }).png().toBuffer()], { type: 'image/png' }), 'harbour.png');
    const media = await t.request('POST', '/api/media', undefined, { raw: upload });
    assert.equal(media.status, 200, media.text);
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns/${id}`);
    const editor = page.getByRole('textbox', { name: 'Body' });
    await editor.getByText('Dear reader,').waitFor();
    await editor.click();
    await page.keyboard.press('Control+End');
    // The editor takes the caret from the browser's selection events, which Chromium delivers
    // after the key: typing on at machine speed went in where the caret had been before.
    for (let tries = 0; !(await page.evaluate<boolean>(CARET_AT_END)); tries++) assert.ok(tries < 100, 'the editor never took the caret to the end');
    await page.keyboard.press('Enter');
    const toolbar = page.getByRole('toolbar', { name: 'Body formatting' });
    await toolbar.getByRole('button', { name: 'Bold' }).click();
    await page.keyboard.type('Big news');
    assert.equal(await toolbar.getByRole('button', { name: 'Bold' }).getAttribute('aria-pressed'), 'true');
    await page.keyboard.press('Shift+Home');
    await toolbar.getByRole('button', { name: 'Link' }).click();
    // The link dialog's switch adds listmonk's @TrackLink to the address.
    await page.getByRole('dialog').getByLabel('Link address').fill('https://example.com/news');
    await page.getByRole('dialog').getByLabel('Track clicks on this link (@TrackLink)').check();
    await screenshot(page, 'link-dialog');
    await page.getByRole('dialog').getByRole('button', { name: 'Set link' }).click();
    await editor.getByRole('link', { name: 'Big news' }).waitFor();
    await page.keyboard.press('ArrowRight');
    await toolbar.getByRole('button', { name: 'Image' }).click();
    const picker = page.getByRole('dialog', { name: 'Insert an image' });
    await picker.getByRole('button', { name: 'Insert harbour.png' }).waitFor();
    await screenshot(page, 'image-picker');
    await picker.getByRole('button', { name: 'Insert harbour.png' }).click();
    await editor.getByRole('img', { name: 'harbour.png' }).waitFor();
    // A button: a link styled by the template's .button, tracked too.
    await page.keyboard.press('Control+End');
    await toolbar.getByRole('button', { name: 'Button' }).click();
    await page.getByRole('dialog').getByLabel('Text').fill('Read the issue');
    await page.getByRole('dialog').getByLabel('Link address').fill('https://example.com/issue');
    await page.getByRole('dialog').getByLabel('Track clicks on this link (@TrackLink)').check();
    await page.getByRole('dialog').getByRole('button', { name: 'Insert button' }).click();
    await editor.getByRole('link', { name: 'Read the issue' }).waitFor();
    await screenshot(page, 'campaign-richtext');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    const saved = await t.request('GET', `/api/campaigns/${id}`);
    const body: string = saved.body.data.body;
    assert.ok(body.startsWith('<p>Dear reader,</p><p>'), body);
    assert.match(body, /<strong>[^<]*(<a [^>]*>)?Big news/, body);
    assert.match(body, /<a [^>]*href="https:\/\/example\.com\/news@TrackLink"[^>]*>(<strong>)?Big news/, body);
    assert.ok(body.includes(`<img src="${media.body.data.url}" alt="harbour.png">`), body);
    const button = /<a [^>]*>Read the issue<\/a>/.exec(body)?.[0] ?? '';
    assert.match(button, /class="button"/, body);
    assert.match(button, /href="https:\/\/example\.com\/issue@TrackLink"/, body);
    // Read back into the editor and saved again, the button is still one (the link mark keeps its class).
    await page.reload();
    await page.getByRole('textbox', { name: 'Body' }).getByRole('link', { name: 'Read the issue' }).waitFor();
    await toolbar.getByRole('button', { name: 'Bold' }).waitFor();
    await page.getByRole('textbox', { name: 'Body' }).getByText('Dear reader,').click();
    await page.keyboard.press('End');
    await page.keyboard.type('!');
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).waitFor();
    const again: string = (await t.request('GET', `/api/campaigns/${id}`)).body.data.body;
    assert.ok(again.startsWith('<p>Dear reader,!</p>'), again);
    assert.equal(/<a [^>]*>Read the issue<\/a>/.exec(again)?.[0], button, 'the button survives the editor\'s schema');

    await page.getByRole('button', { name: 'HTML source' }).click();
    const source = page.getByRole('textbox', { name: 'Body' });
    assert.match(await source.innerText(), /<strong>/);
    await source.click();
    await page.keyboard.press('Control+End');
    await page.keyboard.insertText('<h2>Added in the source</h2>');
    await page.getByRole('button', { name: 'Back to rich text' }).click();
    await page.getByRole('textbox', { name: 'Body' }).getByRole('heading', { name: 'Added in the source' }).waitFor();
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('shows "Track clicks" ticked in the link dialog when the campaign tracks its links, and unticking it marks the link @NoTrack', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: 'Tracked list', type: 'private', optin: 'single' });
    const created = await t.request('POST', '/api/campaigns', {
      name: 'Tracked', subject: 'S', lists: [list.body.data.id], content_type: 'richtext', track_links: true,
      body: '<p><a href="https://example.com/tracked">Tracked</a> and <a href="https://example.com/private@NoTrack">Private</a></p>',
    });
    const id = created.body.data.id;
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns/${id}`);
    const editor = page.getByRole('textbox', { name: 'Body' });
    const toolbar = page.getByRole('toolbar', { name: 'Body formatting' });
    const dialog = page.getByRole('dialog');
    const trackBox = dialog.getByRole('checkbox', { name: /^Track clicks on this link/ });
    const openLink = async (name: string) => {
      await editor.getByRole('link', { name }).click();
      await toolbar.getByRole('button', { name: 'Link' }).click();
      await dialog.getByLabel('Link address').waitFor();
    };
    // The campaign tracks its links: an unmarked link is tracked, the switch says so.
    await openLink('Tracked');
    assert.equal(await dialog.getByLabel('Link address').inputValue(), 'https://example.com/tracked');
    assert.equal(await trackBox.isChecked(), true);
    assert.match(await dialog.locator('label.check-label').innerText(), /the campaign tracks its links/);
    await screenshot(page, 'link-dialog-campaign-tracks');
    await trackBox.uncheck();
    await dialog.getByRole('button', { name: 'Set link' }).click();
    await dialog.waitFor({ state: 'detached' });
    // A link marked @NoTrack shows unticked, its address without the marker.
    await openLink('Private');
    assert.equal(await dialog.getByLabel('Link address').inputValue(), 'https://example.com/private');
    assert.equal(await trackBox.isChecked(), false);
    await trackBox.check();
    await dialog.getByRole('button', { name: 'Set link' }).click();
    await dialog.waitFor({ state: 'detached' });
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).waitFor();
    const body: string = (await t.request('GET', `/api/campaigns/${id}`)).body.data.body;
    assert.match(body, /href="https:\/\/example\.com\/tracked@NoTrack"/, body);
    assert.match(body, /href="https:\/\/example\.com\/private"/, body);

    // With the campaign's "Track links" unticked, the switch is about @TrackLink and starts off.
    await page.getByLabel('Track links').uncheck();
    await openLink('Private');
    assert.equal(await trackBox.isChecked(), false);
    assert.match(await dialog.locator('label.check-label').innerText(), /\(@TrackLink\)/);
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  for (const dark of [false, true]) {
    it(`edits a campaign's markdown body in the editor and saves it; plain text uses the textarea (${dark ? 'dark' : 'light'})`, async () => {
      const t = server();
      const list = await t.request('POST', '/api/lists', { name: `Editor list ${dark}`, type: 'private', optin: 'single' });
      const created = await t.request('POST', '/api/campaigns', { name: `Editor ${dark}`, subject: 'S', lists: [list.body.data.id], content_type: 'markdown', body: '# Hello\n\nFirst draft' });
      assert.equal(created.status, 200, created.text);
      const id = created.body.data.id;
      const tab = await signedInTab(browser(), t, { dark });
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

      await page.getByLabel('Format', { exact: true }).selectOption('plain');
      // Switching the format converts the body, after asking.
      await page.getByRole('dialog').getByRole('button', { name: 'Convert' }).click();
      await page.getByRole('dialog').waitFor({ state: 'detached' });
      assert.equal(await page.getByRole('textbox', { name: 'Body' }).evaluate((el) => el.tagName), 'TEXTAREA', 'plain text is edited in the textarea');
      const plain = await waitForValue(page.getByRole('textbox', { name: 'Body' }), (v) => !v.includes('**'));
      assert.match(plain, /Hello/);
      assert.match(plain, /A second paragraph/);
      assert.notEqual(plain, saved.body.data.body);
      assert.deepEqual(tab.problems, []);
      await tab.close();
    });
  }
});

/** In the page: whether the rich text editor's own selection stands at the end of its text. */
const CARET_AT_END = `(() => {
  const editor = document.querySelector('.richtext-content')?.editor;
  return editor !== undefined && editor.state.selection.from === editor.state.doc.content.size - 1;
})()`;
