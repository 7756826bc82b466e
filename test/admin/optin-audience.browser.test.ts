// Browser journey of a newcomer who imported readers into a double opt-in list: the campaign
// says who it leaves out and why, and links to the list's opt-in action, which asks first,
// with how many it will mail, and sends each unconfirmed reader one opt-in mail.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';
import { useSink, useSmtpSink } from '../helpers/smtp.ts';

describe('the audience\'s reasons and the opt-in action in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  const smtp = useSink();

  it('shows why a campaign reaches 1 of 4 and sends the 3 unconfirmed their opt-in mail', async () => {
    const t = server();
    const sink = smtp();
    await useSmtpSink(t, sink);
    assert.equal((await t.request('PUT', '/api/settings', { 'app.send_optin_confirmation': false })).status, 200);
    const list = (await t.request('POST', '/api/lists', { name: 'Imported readers', type: 'public', optin: 'double' })).body.data;
    await t.request('POST', '/api/subscribers', { email: 'confirmed@example.com', lists: [list.id], preconfirm_subscriptions: true });
    for (const n of [1, 2, 3]) assert.equal((await t.request('POST', '/api/subscribers', { email: `reader${n}@example.com`, lists: [list.id] })).status, 200);
    const campaign = (await t.request('POST', '/api/campaigns', { name: 'First issue', subject: 'Hello', lists: [list.id] })).body.data.id;

    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/campaigns/${campaign}`);
      const audience = page.getByRole('group', { name: 'Lists to send to' }).locator('[data-audience]');
      await audience.getByText('Reaches 1 of 4 subscribers of 1 list: 3 unconfirmed subscribers of double opt-in lists are not sent to.').waitFor();
      assert.equal(await audience.getByRole('link', { name: 'Imported readers (3 unconfirmed)' }).getAttribute('href'), `/admin/lists/${list.id}#optin`);
      await screenshot(page, 'campaign-audience-reasons');
      await page.getByRole('button', { name: 'Start', exact: true }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('Send "First issue" to 1 of 4 subscribers of 1 list?').waitFor();
      await dialog.getByText('3 unconfirmed subscribers of double opt-in lists are not sent to.').waitFor();
      await screenshot(page, 'campaign-start-reasons');
      // The way to reach them: the list's opt-in action.
      await dialog.getByRole('link', { name: 'Imported readers (3 unconfirmed)' }).click();
      await page.waitForURL(new RegExp(`/admin/lists/${list.id}#optin$`));
      const section = page.getByRole('region', { name: 'Opt-in confirmation' });
      await section.getByText('Unconfirmed subscribers: 3. Of them, not sent an opt-in mail in the last 24 hours: 3.').waitFor();
      await screenshot(page, 'list-optin');
      assert.equal((await t.request('GET', `/api/campaigns/${campaign}`)).body.data.status, 'draft', 'following the link started nothing');
      await page.goto(`${t.url}/admin/lists`);
      await page.getByRole('row').filter({ hasText: 'Imported readers' }).getByRole('button', { name: 'Send opt-in confirmation to unconfirmed subscribers' }).waitFor();
      await screenshot(page, 'lists-optin-row');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }

    // From the lists table, at 390 px in dark mode: asked first with the count, then queued and sent.
    const tab = await signedInTab(browser(), t, { width: 390, dark: true });
    const { page } = tab;
    await page.goto(`${t.url}/admin/lists`);
    const row = page.getByRole('row').filter({ hasText: 'Imported readers' });
    await row.getByRole('button', { name: 'Send opt-in confirmation to unconfirmed subscribers' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Send the opt-in confirmation to 3 unconfirmed subscribers of "Imported readers"?').waitFor();
    await screenshot(page, 'lists-optin-confirm');
    await dialog.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Opt-in confirmation queued for 3 unconfirmed subscribers').waitFor();
    const mails = await sink.waitFor(3);
    assert.deepEqual(mails.flatMap((m) => m.to).sort(), ['reader1@example.com', 'reader2@example.com', 'reader3@example.com']);

    // A second time within 24 hours: nobody to mail, said on the list's page.
    await page.goto(`${t.url}/admin/lists/${list.id}`);
    const section = page.getByRole('region', { name: 'Opt-in confirmation' });
    await section.getByText('Unconfirmed subscribers: 3. Of them, not sent an opt-in mail in the last 24 hours: 0.').waitFor();
    await section.getByText('Each of them was sent an opt-in mail in the last 24 hours').waitFor();
    assert.equal(await section.getByRole('button').count(), 0);
    await screenshot(page, 'list-optin-sent');
    assert.equal(sink.messages.length, 3);
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });
});
