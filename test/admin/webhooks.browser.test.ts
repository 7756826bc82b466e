// Browser journeys through Settings → Webhooks, against a real receiver on the loopback (the
// Security tab's switch for private receivers turned on first): create a webhook and see its
// secret once and copy it, a refused URL shown beside its field with what was typed kept, edit
// its events, send a test and see it delivered, retry a failed delivery until it is delivered,
// disable, enable and delete it. Screenshots of each page at 1280 and 390 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser, waitForValue } from '../helpers/browser.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';
import { startReceiver, type Receiver } from '../webhooks/receivers.ts';

const SAVED = 'Settings saved and applied. No restart needed.';

/** The API's view of a webhook's deliveries, newest first. */
async function deliveries(t: TestServer, id: number): Promise<{ id: number; status: string; attempts: number; type: string }[]> {
  const res = await t.request('GET', `/api/webhooks/${id}/deliveries?per_page=100`);
  assert.equal(res.status, 200, res.text);
  return res.body.data.results;
}

/** Waits until the webhook's newest delivery has `status` (the worker sends in the background). */
async function newestIs(t: TestServer, id: number, status: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const [newest] = await deliveries(t, id);
    if (newest?.status === status) return;
    if (Date.now() > deadline) assert.fail(`the newest delivery is ${newest?.status}, not ${status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Clicks a button that asks first, then confirms in the page's dialog. */
async function confirmed(page: Page, button: string, confirm: string): Promise<void> {
  await page.getByRole('button', { name: button }).first().click();
  const reloaded = page.waitForEvent('load');
  await page.getByRole('dialog').getByRole('button', { name: confirm }).click();
  await reloaded;
}

describe('admin webhooks in a browser', { skip: browserSkip() }, () => {
  // One backoff step of an hour: a failed attempt waits for Retry, and the next failure is final.
  const server = useFreshServer({ env: { LISTMGR_WEBHOOK_BACKOFF: '1h' } });
  const browser = useBrowser();
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
  });
  after(async () => {
    await receiver.close();
  });

  it('creates a webhook, shows its secret once, edits its events, tests it, retries a failed delivery, disables, enables and deletes it', async () => {
    const t = server();
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });

    // The receiver is on this machine: the Security tab's switch lets webhooks reach it.
    await page.goto(`${t.url}/admin/settings#security`);
    const allow = page.getByLabel('Allow webhooks to private addresses');
    assert.equal(await allow.isChecked(), false, 'off by default');
    await allow.check();
    const reloaded = page.waitForEvent('load');
    await page.locator('#settings-save').click();
    await reloaded;
    await page.getByText(SAVED).waitFor();
    assert.equal(t.server.ctx.settings.bool('security.webhooks_allow_private'), true);

    // From the settings page to the webhooks: nothing yet, one sentence and "New webhook".
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.locator('.page-head').getByRole('link', { name: 'Webhooks' }).click();
    await page.getByText('A webhook posts each change you choose').waitFor();
    await screenshot(page, 'webhooks-empty');
    await page.getByRole('link', { name: '+ New webhook' }).click();

    // A URL the API refuses: its message beside the URL field, what was typed kept.
    await page.getByLabel('Name').fill('CRM sync');
    await page.getByLabel('URL', { exact: true }).fill('ftp://crm.example.com/hook');
    await page.getByLabel('Description').fill('Keeps the CRM in step');
    await page.getByRole('button', { name: 'New webhook' }).click();
    await page.locator('#webhook-url-error').getByText(/url/).waitFor();
    assert.equal(await page.getByLabel('URL', { exact: true }).getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('URL', { exact: true }).inputValue(), 'ftp://crm.example.com/hook');
    assert.equal(await page.getByLabel('Name').inputValue(), 'CRM sync');
    assert.deepEqual((await t.request('GET', '/api/webhooks')).body.data, [], 'nothing was made');
    await screenshot(page, 'webhook-form-refused');

    // The subscriber events only, chosen by their group's box.
    await page.getByLabel('URL', { exact: true }).fill(receiver.url);
    await page.getByLabel('Only the events ticked below').check();
    await page.getByLabel('All of Subscribers').check();
    assert.equal(await page.getByLabel('subscriber.deleted').isChecked(), true);
    await screenshot(page, 'webhook-form');
    await page.getByRole('button', { name: 'New webhook' }).click();

    // The secret, once: copied with the button; the dialog's tabs show each language's code.
    const dialog = page.getByRole('dialog', { name: 'Webhook created: its signing secret' });
    await dialog.waitFor();
    const secret = await waitForValue(dialog.getByRole('textbox', { name: 'Signing secret' }), (v) => v.startsWith('whsec_'));
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    await dialog.getByRole('button', { name: 'Copy Signing secret' }).click();
    await dialog.getByText('Copied', { exact: true }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    assert.ok(await dialog.getByText('crypto.timingSafeEqual').isVisible(), 'Node first');
    await dialog.getByRole('tab', { name: 'Python' }).click();
    assert.ok(await dialog.getByText('hmac.compare_digest').isVisible());
    assert.ok(!(await dialog.getByText('crypto.timingSafeEqual').isVisible()));
    await screenshot(page, 'webhook-secret');
    await dialog.getByRole('button', { name: 'I have copied it' }).click();
    await page.getByRole('heading', { name: 'CRM sync', level: 1 }).waitFor();
    await page.getByText('Webhook created', { exact: true }).waitFor();
    assert.ok(!(await page.content()).includes(secret.slice(6)), 'the secret is not shown again');
    const [hook] = (await t.request('GET', '/api/webhooks')).body.data;
    assert.deepEqual(hook.events, ['subscriber.created', 'subscriber.updated', 'subscriber.deleted', 'subscriber.blocklisted']);

    // Its events edited: one subscriber type off, a list type on.
    await page.locator('.head-actions').getByRole('link', { name: 'Edit' }).click();
    assert.equal(await page.getByLabel('Only the events ticked below').isChecked(), true);
    await page.getByLabel('subscriber.deleted').uncheck();
    await page.getByLabel('list.created').check();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Saved', { exact: true }).waitFor();
    assert.deepEqual((await t.request('GET', `/api/webhooks/${hook.id}`)).body.data.events, ['subscriber.created', 'subscriber.updated', 'subscriber.blocklisted', 'list.created']);

    // A test event, delivered to the receiver: the result, and the delivery in the list with its request.
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('heading', { name: 'The test event was delivered' }).waitFor();
    await page.getByText('The receiver answered HTTP 200').waitFor();
    assert.equal(receiver.received.length, 1);
    assert.equal(JSON.parse(receiver.received[0].body).type, 'webhook.test');
    const row = page.locator('table.deliveries tbody').first();
    await row.getByText('delivered').waitFor();
    await row.getByRole('button', { name: 'Details' }).click();
    await row.getByText(`webhook-id: ${receiver.ids()[0]}`).waitFor();
    await row.getByText('"type": "webhook.test"').waitFor();
    assert.ok(!(await row.innerText()).includes(secret.slice(6)), 'no secret in the request shown');
    await screenshot(page, 'webhook-deliveries');

    // The receiver fails: the test says so; Retry sends it again (failing once more, the last
    // attempt), then, the receiver mended, Retry on the failed one delivers it.
    receiver.answer(() => 500);
    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByRole('heading', { name: 'The test event was not delivered' }).waitFor();
    await page.getByText('The receiver answered HTTP 500').waitFor();
    await newestIs(t, hook.id, 'retrying');
    await page.locator('table.deliveries tbody').first().getByRole('button', { name: 'Retry' }).click();
    await page.getByText('The delivery will be sent again in a moment').waitFor();
    await newestIs(t, hook.id, 'failed');
    receiver.answer(() => 200);
    await page.goto(`${t.url}/admin/settings/webhooks/${hook.id}?status=failed`);
    const failed = page.locator('table.deliveries tbody').first();
    await failed.getByText('failed').waitFor();
    await failed.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('The delivery will be sent again in a moment').waitFor();
    await newestIs(t, hook.id, 'delivered');
    const [retried] = await deliveries(t, hook.id);
    assert.equal(retried.attempts, 3);
    assert.deepEqual(receiver.ids().slice(1), [receiver.ids()[1], receiver.ids()[1], receiver.ids()[1]], 'the same webhook-id on each attempt');
    await page.goto(`${t.url}/admin/settings/webhooks/${hook.id}`);
    assert.equal(await page.locator('table.deliveries tbody').first().getByText('delivered').count(), 1);

    // Disabled and enabled again from the table; then deleted.
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Webhooks' }).click();
    const listed = page.getByRole('row').filter({ hasText: 'CRM sync' });
    await listed.getByText('Enabled').waitFor();
    await confirmed(page, 'Disable', 'Disable');
    await page.getByRole('row').filter({ hasText: 'CRM sync' }).getByText('Disabled', { exact: true }).waitFor();
    assert.equal((await t.request('GET', `/api/webhooks/${hook.id}`)).body.data.enabled, false);
    await page.getByRole('row').filter({ hasText: 'CRM sync' }).getByRole('button', { name: 'Enable' }).click();
    await page.getByText('"CRM sync" enabled').waitFor();
    assert.equal((await t.request('GET', `/api/webhooks/${hook.id}`)).body.data.enabled, true);
    await screenshot(page, 'webhooks-table');
    await confirmed(page, 'Delete', 'Delete');
    await page.getByText('A webhook posts each change you choose').waitFor();
    assert.deepEqual((await t.request('GET', '/api/webhooks')).body.data, []);
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('shows the list, the form, the secret dialog and the deliveries at 1280 and 390 px, light and dark', async () => {
    const t = server();
    receiver.answer(() => 200);
    const made = await t.request('POST', '/api/webhooks', { name: 'Zapier: new subscribers to the CRM', url: `${receiver.url}?source=listmgr&kind=subscribers`, events: ['subscriber.created', 'subscription.added', 'campaign.viewed'], description: 'Feeds the sales team\'s CRM' });
    assert.equal(made.status, 200, made.text);
    const id = made.body.data.id;
    assert.equal((await t.request('POST', '/api/webhooks', { name: 'Archive', url: 'https://archive.example.com/listmgr', events: ['*'], enabled: false })).status, 200);
    assert.equal((await t.request('PUT', '/api/settings', { 'security.webhooks_allow_private': true })).status, 200);
    assert.equal((await t.request('POST', `/api/webhooks/${id}/test`)).status, 200);
    receiver.answer(() => 503);
    assert.equal((await t.request('POST', `/api/webhooks/${id}/test`)).status, 200);
    for (const dark of [false, true]) {
      for (const width of [1280, 390]) {
        const tab = await signedInTab(browser(), t, { width, dark });
        const { page } = tab;
        const name = (page: string) => `${page}${dark ? '-dark' : ''}`;
        await page.goto(`${t.url}/admin/settings/webhooks`);
        await page.locator('main table').waitFor();
        await screenshot(page, name('webhooks-list'));
        await page.goto(`${t.url}/admin/settings/webhooks/${id}/edit`);
        await screenshot(page, name('webhook-edit'));
        await page.goto(`${t.url}/admin/settings/webhooks/${id}`);
        await page.locator('table.deliveries tbody').first().getByRole('button', { name: 'Details' }).click();
        await page.locator('table.deliveries tbody').first().getByText('webhook-id:').waitFor();
        await screenshot(page, name('webhook-page'));
        await page.getByRole('button', { name: 'Rotate secret' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Rotate the secret' }).click();
        const dialog = page.getByRole('dialog', { name: 'The new signing secret' });
        await waitForValue(dialog.getByRole('textbox', { name: 'Signing secret' }), (v) => v.startsWith('whsec_'));
        await dialog.getByText('for 24 hours').waitFor();
        await screenshot(page, name('webhook-rotated'));
        const reloaded = page.waitForEvent('load');
        await page.keyboard.press('Escape');
        await reloaded;
        await page.getByText('The secret was rotated').waitFor();
        assert.deepEqual(tab.problems, []);
        await tab.close();
      }
    }
  });
});
