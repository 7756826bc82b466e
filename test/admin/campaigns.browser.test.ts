// Browser journey through the campaign pages: write a campaign, preview it, test-send it,
// start it from the table and watch its progress reach the end.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, typeInCodeEditor, useBrowser, waitForValue } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer } from '../helpers/server.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

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
    const partners = await t.request('POST', '/api/lists', { name: 'Partners', type: 'private', optin: 'single' });
    await t.request('POST', '/api/lists', { name: 'Retired readers', type: 'private', optin: 'single', status: 'archived' });
    const readers: number[] = [];
    for (let i = 1; i <= 3; i++) {
      const res = await t.request('POST', '/api/subscribers', { email: `reader${i}@example.com`, name: `Reader ${i}`, lists: [list.body.data.id], preconfirm_subscriptions: true });
      assert.equal(res.status, 200);
      readers.push(res.body.data.id);
    }
    // Partners share reader1 and add one more: both lists reach 4, each subscriber once.
    assert.equal((await t.request('PUT', '/api/subscribers/lists', { ids: [readers[0]], action: 'add', target_list_ids: [partners.body.data.id], status: 'confirmed' })).status, 200);
    assert.equal((await t.request('POST', '/api/subscribers', { email: 'partner@example.com', name: 'Partner', lists: [partners.body.data.id] })).status, 200);
    const upload = new FormData();
    upload.append('file', new Blob(['%PDF-1.4 the price list'], { type: 'application/pdf' }), 'price-list.pdf');
    assert.equal((await t.request('POST', '/api/media', undefined, { raw: upload })).status, 200);
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Create new' }).click();
    await page.getByLabel('Name').fill('First issue');
    await page.getByLabel('Subject').fill('Hello {{ .Subscriber.FirstName }}');
    // The lists: searched, ticked, counted as the send will count them; archived ones are not offered.
    const lists = page.getByRole('group', { name: 'Lists to send to' });
    const audience = lists.locator('[data-audience]');
    await audience.getByText('Choose at least one list.').waitFor();
    await lists.getByRole('searchbox', { name: 'Search lists' }).fill('read');
    await page.keyboard.press('Enter');
    assert.equal(await lists.getByLabel('Partners').isVisible(), false);
    assert.equal(await lists.getByLabel('Retired readers').count(), 0);
    await lists.getByLabel('Readers').check();
    await audience.getByText('Reaches 3 subscribers of 1 list').waitFor();
    assert.equal(await page.locator('[data-error-for]:not(:empty)').count(), 0, 'Enter in the search box saved nothing');
    assert.match(page.url(), /\/admin\/campaigns\/new$/);
    await lists.getByRole('searchbox', { name: 'Search lists' }).fill('');
    await lists.getByLabel('Partners').check();
    await audience.getByText('Reaches 4 subscribers of 2 lists').waitFor();
    await screenshot(page, 'campaign-lists');
    await lists.getByRole('button', { name: 'Remove Partners' }).click();
    await audience.getByText('Reaches 3 subscribers of 1 list').waitFor();
    assert.equal(await lists.getByLabel('Partners').isChecked(), false);
    await page.getByLabel('Format', { exact: true }).selectOption({ label: 'Raw HTML' });
    await typeInCodeEditor(page, 'Body', '<h1>Issue one</h1><p>Thanks for reading.</p>');
    await page.getByRole('button', { name: 'New campaign' }).click();
    await page.getByRole('heading', { name: 'First issue' }).waitFor();

    // An attachment from the media library, saved with the campaign.
    await page.getByRole('button', { name: 'Add attachments' }).click();
    const picker = page.getByRole('dialog', { name: 'Attach a file from the media library' });
    await picker.getByRole('button', { name: 'Attach price-list.pdf' }).waitFor();
    await screenshot(page, 'attachment-picker');
    await picker.getByRole('button', { name: 'Attach price-list.pdf' }).click();
    const attachments = page.getByRole('group', { name: 'Attachments' });
    await attachments.getByRole('button', { name: 'Remove price-list.pdf' }).waitFor();
    await screenshot(page, 'campaign-attachments');

    // F9 previews what is in the editor, saved or not, in a sandboxed frame.
    await typeInCodeEditor(page, 'Body', '<h1>Issue one, edited</h1>');
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
    assert.deepEqual(test.parsed.attachments.map((a) => [a.filename, a.content.toString()]), [['price-list.pdf', '%PDF-1.4 the price list']]);

    await page.getByRole('link', { name: '← Campaigns' }).click();
    const row = page.getByRole('row').filter({ hasText: 'First issue' });
    await row.getByRole('button', { name: 'Start', exact: true }).click();
    // The start names whom it goes to.
    await page.getByRole('dialog').getByText('Send "First issue" to 3 subscribers of 1 list?').waitFor();
    await screenshot(page, 'campaign-start-summary');
    await page.getByRole('dialog').getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'First issue' }).getByText('Finished').waitFor({ timeout: 20_000 });
    await sink.waitFor(4);
    await screenshot(page, 'campaigns');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('starts a campaign to a list of 2,000 subscribers and watches its progress bar reach the end', async () => {
    const t = server();
    await useSmtpSink(t, sink);
    const list = (await t.request('POST', '/api/lists', { name: 'Big list', type: 'private', optin: 'single' })).body.data.id;
    const rows = Array.from({ length: 2000 }, (_, i) => `reader${i}@big.example.com,Reader ${i}`).join('\n');
    const form = new FormData();
    form.set('params', JSON.stringify({ mode: 'subscribe', subscription_status: 'confirmed', lists: [list] }));
    form.set('file', new Blob([`email,name\n${rows}\n`]), 'big.csv');
    assert.equal((await t.request('POST', '/api/import/subscribers', undefined, { raw: form })).status, 200);
    await t.server.ctx.importer.whenIdle();
    const created = await t.request('POST', '/api/campaigns', { name: 'Big send', subject: 'Hello', lists: [list], content_type: 'html', body: '<p>Hi {{ .Subscriber.Name }}</p>' });
    assert.equal(created.status, 200, created.text);
    const before = sink.messages.length;
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns`);
    const row = page.getByRole('row').filter({ hasText: 'Big send' });
    await row.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('dialog').getByText('Send "Big send" to 2,000 subscribers of 1 list?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Start', exact: true }).click();
    // The bar moves without a reload: values read from the page while the campaign runs.
    const bar = row.getByRole('progressbar', { name: /Big send/ });
    await bar.waitFor();
    const seen = new Set<number>();
    let screenshotTaken = false;
    while ((await bar.count()) > 0) {
      const value = Number(await bar.getAttribute('value').catch(() => null));
      if (Number.isFinite(value)) seen.add(value);
      if (!screenshotTaken && value > 0 && value < 100) {
        await screenshot(page, 'campaign-progress');
        screenshotTaken = true;
      }
      await page.waitForTimeout(200);
    }
    await row.getByText('Finished').waitFor({ timeout: 30_000 });
    assert.ok([...seen].some((v) => v > 0 && v < 100), `the bar showed progress on the way: ${[...seen].join(', ')}`);
    const campaign = (await t.request('GET', `/api/campaigns/${created.body.data.id}`)).body.data;
    assert.deepEqual([campaign.status, campaign.sent, campaign.to_send], ['finished', 2000, 2000]);
    await sink.waitFor(before + 2000, 60_000);
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('starts from the campaign\'s page: the summary counts the lists ticked in the form, which is saved first; a schedule names its time', async () => {
    const t = server();
    const a = (await t.request('POST', '/api/lists', { name: 'Alpha', type: 'private', optin: 'single' })).body.data.id;
    const b = (await t.request('POST', '/api/lists', { name: 'Beta', type: 'private', optin: 'single' })).body.data.id;
    for (const [email, lists] of [['a1@example.com', [a]], ['a2@example.com', [a, b]], ['b1@example.com', [b]]] as const) {
      assert.equal((await t.request('POST', '/api/subscribers', { email, name: email, lists })).status, 200);
    }
    const c = (await t.request('POST', '/api/campaigns', { name: 'Page start', subject: 'S', lists: [a], content_type: 'html', body: '<p>Hi</p>' })).body.data.id;
    const later = new Date(Date.UTC(2031, 4, 6, 9, 30)).toISOString();
    const s = (await t.request('POST', '/api/campaigns', { name: 'Page schedule', subject: 'S', lists: [a, b], send_at: later })).body.data.id;
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns/${s}`);
    await page.getByRole('button', { name: 'Schedule', exact: true }).click();
    const question = await page.getByRole('dialog').locator('#confirm-text').innerText();
    assert.match(question, /^Schedule "Page schedule" to be sent to 3 subscribers of 2 lists on .*2031.*\?$/);
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();

    // The archive's stand-in subscriber: filled with a sample at once when empty, after asking otherwise.
    await page.goto(`${t.url}/admin/campaigns/${c}`);
    const meta = page.getByRole('textbox', { name: 'Archive subscriber data' });
    await page.getByRole('button', { name: 'Fill with a sample subscriber' }).click();
    assert.deepEqual(JSON.parse(await waitForValue(meta, (v) => v.includes('email'))), { email: 'email@domain.com', name: 'Subscriber', attribs: {} });
    await meta.fill('{"name": "Kept"}');
    await page.getByRole('button', { name: 'Fill with a sample subscriber' }).click();
    await page.getByRole('dialog').getByText('Replace the archive subscriber data with a sample subscriber?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await meta.inputValue(), '{"name": "Kept"}');
    await page.getByRole('button', { name: 'Fill with a sample subscriber' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Replace' }).click();
    await waitForValue(meta, (v) => v.includes('email@domain.com'));

    const lists = page.getByRole('group', { name: 'Lists to send to' });
    await lists.getByText('Reaches 2 subscribers of 1 list').waitFor();
    // With no list ticked the save before the start is refused: the reason beside the lists, nothing started.
    await lists.getByRole('button', { name: 'Remove Alpha' }).click();
    await lists.getByText('Choose at least one list.').waitFor();
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('dialog').getByText('Send "Page start" to 0 subscribers of 0 lists?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Start', exact: true }).click();
    await page.locator('#c-lists-error').getByText(/lists/).waitFor();
    assert.equal((await t.request('GET', `/api/campaigns/${c}`)).body.data.status, 'draft');
    await lists.getByLabel('Alpha').check();
    await lists.getByLabel('Beta').check();
    await lists.getByText('Reaches 3 subscribers of 2 lists').waitFor();
    await page.getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByRole('dialog').getByText('Send "Page start" to 3 subscribers of 2 lists?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Start', exact: true }).click();
    await page.getByText('"Page start" is now running').waitFor();
    const started = (await t.request('GET', `/api/campaigns/${c}`)).body.data;
    assert.deepEqual(started.lists.map((l: { name: string }) => l.name).sort(), ['Alpha', 'Beta'], 'the ticked list was saved before the start');
    assert.notEqual(started.status, 'draft');
    // Finished, the page shows the lists it went to, unchangeable. The running campaign's page
    // reloads itself once the campaign is no longer running (a page.goto here raced that reload,
    // and the running page already says it cannot be changed): wait for the finished page.
    fixtures(t.server.ctx.db).campaignState(c, { status: 'finished' });
    await page.locator('[data-campaign-status="finished"]').waitFor({ state: 'attached' });
    const done = page.getByRole('group', { name: 'Lists to send to' }).getByRole('list', { name: 'Chosen lists' });
    await page.getByText('This campaign can no longer be changed').waitFor();
    assert.deepEqual(await done.getByRole('listitem').allInnerTexts(), ['Alpha', 'Beta']);
    assert.equal(await done.getByRole('button').count(), 0);
    assert.deepEqual(tab.problems, []);
    await tab.close();

    // On a phone: the same page, the lists and attachments in one column.
    const phone = await signedInTab(browser(), t, { width: 390 });
    await phone.page.goto(`${t.url}/admin/campaigns/${s}`);
    await phone.page.getByRole('group', { name: 'Lists to send to' }).getByText('Reaches 3 subscribers of 2 lists').waitFor();
    await screenshot(phone.page, 'campaign-page');
    await phone.page.getByRole('button', { name: 'Schedule', exact: true }).click();
    await phone.page.getByRole('dialog').getByText(/^Schedule "Page schedule" to be sent to 3 subscribers of 2 lists on/).waitFor();
    await screenshot(phone.page, 'campaign-schedule-summary');
    assert.deepEqual(phone.problems, []);
    await phone.close();
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
