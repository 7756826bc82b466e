// Browser journey through the campaign pages: write a campaign, preview it, test-send it,
// start it from the table and watch its progress reach the end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser, waitForValue } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

/** Replaces the body in the code editor (CodeMirror), as a person selecting all and typing. */
async function typeBody(page: Page, text: string): Promise<void> {
  await page.getByRole('textbox', { name: 'Body' }).click();
  await page.keyboard.press('Control+A');
  await page.keyboard.insertText(text);
}

describe('admin campaigns in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  let sink: SmtpSink;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await sink?.close();
  });

  it('writes a campaign, previews it, sends a test, starts it and sees it finish', async () => {
    const t = server();
    await useSmtpSink(t, sink);
    // The default template loads its logo from the root URL: this server, not localhost:9000.
    assert.equal((await t.request('PUT', '/api/settings/app.root_url', t.url)).status, 200);
    const list = await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' });
    for (let i = 1; i <= 3; i++) {
      assert.equal((await t.request('POST', '/api/subscribers', { email: `reader${i}@example.com`, name: `Reader ${i}`, lists: [list.body.data.id], preconfirm_subscriptions: true })).status, 200);
    }
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Create new' }).click();
    await page.getByLabel('Name').fill('First issue');
    await page.getByLabel('Subject').fill('Hello {{ .Subscriber.FirstName }}');
    await page.getByLabel('Lists to send to').selectOption({ label: 'Readers' });
    await page.getByLabel('Format', { exact: true }).selectOption({ label: 'Raw HTML' });
    await typeBody(page, '<h1>Issue one</h1><p>Thanks for reading.</p>');
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByRole('heading', { name: 'First issue' }).waitFor();

    // F9 previews what is in the editor, saved or not, in a sandboxed frame.
    await typeBody(page, '<h1>Issue one, edited</h1>');
    await page.keyboard.press('F9');
    const frame = page.frameLocator('#preview-frame');
    await frame.getByRole('heading', { name: 'Issue one, edited' }).waitFor();
    assert.equal(await page.locator('#preview-frame').getAttribute('sandbox'), '');
    await screenshot(page, 'campaign-preview');
    await page.getByRole('dialog').getByRole('button', { name: 'Close' }).click();
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).waitFor();

    await page.getByLabel('E-mail addresses').fill('reader1@example.com');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Test sent to reader1@example.com').waitFor();
    const [test] = await sink.waitFor(1);
    assert.match(test.parsed.subject ?? '', /Hello Reader/);

    await page.getByRole('link', { name: '← Campaigns' }).click();
    const row = page.getByRole('row').filter({ hasText: 'First issue' });
    await row.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'First issue' }).getByText('Finished').waitFor({ timeout: 20_000 });
    await sink.waitFor(4);
    await screenshot(page, 'campaigns');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('converts the body when the format changes, after asking, and keeps it when cancelled', async () => {
    const t = server();
    const list = await t.request('POST', '/api/lists', { name: 'Converts', type: 'private', optin: 'single' });
    const c = await t.request('POST', '/api/campaigns', { name: 'Formats', subject: 'S', lists: [list.body.data.id], content_type: 'markdown', body: '# Hello\n\nSome **bold** news.' });
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns/${c.body.data.id}`);
    const format = page.getByLabel('Format', { exact: true });
    await format.selectOption({ label: 'Raw HTML' });
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    // Cancelled: the format goes back (once the dialog's answer is handled).
    await waitForValue(format, (v) => v === 'markdown');
    assert.match(await page.locator('#c-body').inputValue(), /^# Hello/);
    await format.selectOption({ label: 'Raw HTML' });
    await page.getByRole('dialog').getByRole('button', { name: 'Convert' }).click();
    await waitForValue(page.locator('#c-body'), (v) => v.includes('<h1'));
    assert.match(await page.locator('#c-body').inputValue(), /<h1[^>]*>Hello<\/h1>[\s\S]*<strong>bold<\/strong>/);
    await page.keyboard.press('Control+s');
    await page.getByText('Saved', { exact: true }).waitFor();
    const saved = (await t.request('GET', `/api/campaigns/${c.body.data.id}`)).body.data;
    assert.equal(saved.content_type, 'html');
    assert.match(saved.body, /<strong>bold<\/strong>/);
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });
});
