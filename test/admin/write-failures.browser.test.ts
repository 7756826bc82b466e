// No write of the admin fails silently: every page's changes are made to fail (the browser's
// request to the API answered 400 or 500 by the test, as a refusal or a crash would be) and
// each shows a visible message, beside its field or as a notice, keeping what was typed.
// Then the real refusal a person first met: a test send the API refuses, shown beside the field.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Locator, Page } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer } from '../helpers/server.ts';
import { startSmtpSink } from '../helpers/smtp.ts';

const REFUSED = /Refused by the test/;

interface Write {
  name: string;
  path: string;
  /** Makes the write; a confirmation or prompt it opens is answered by `press`. */
  act: (page: Page) => Promise<void>;
  /** A field whose typed value must still be there after the refusal: [label, value]. */
  kept?: [string, string];
  /** 500 instead of 400: a crash rather than a refusal. */
  status?: number;
}

/** Clicks `target`; a confirmation or prompt that opens is confirmed. */
async function press(page: Page, target: Locator): Promise<void> {
  await target.click();
  const dialog = page.locator('dialog[open]');
  await dialog.or(page.getByText(REFUSED).first()).first().waitFor();
  if (await dialog.count()) await dialog.locator('.actions button:not(.secondary)').first().click();
}

const click = (selector: string) => async (page: Page) => press(page, page.locator(selector).first());
const fillAndSubmit = (label: string, value: string, button: string) => async (page: Page) => {
  await page.getByLabel(label, { exact: true }).first().fill(value);
  await press(page, page.getByRole('button', { name: button, exact: true }).first());
};
const selectRowThen = (action: string) => async (page: Page) => {
  await page.locator('input[data-row]').first().check();
  await press(page, page.locator(`[x-on\\:click="${action}"]`).first());
};

describe('every admin write that fails says so', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('shows a message for each page\'s writes when the API refuses them or fails', async () => {
    const t = server();
    const list = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'double' })).body.data;
    const sub = (await t.request('POST', '/api/subscribers', { email: 'reader@example.com', name: 'Reader', lists: [list.id] })).body.data;
    fixtures(t.server.ctx.db).bounce({ subscriber: sub.id, type: 'soft' });
    const campaign = (await t.request('POST', '/api/campaigns', { name: 'Spring', subject: 'Spring news', lists: [list.id], content_type: 'html', body: '<p>Hi</p>' })).body.data;
    const template = (await t.request('POST', '/api/templates', { name: 'Extra', type: 'campaign', subject: '', body: '<main>{{ template "content" . }}</main>' })).body.data;
    const upload = new FormData();
    upload.append('file', new Blob(['hello'], { type: 'text/plain' }), 'notes.txt');
    assert.equal((await t.request('POST', '/api/media', undefined, { raw: upload })).status, 200);
    const role = (await t.request('POST', '/api/roles/users', { name: 'Editors', permissions: ['campaigns:get_all'] })).body.data;
    const user = (await t.request('POST', '/api/users', { username: 'editor', email: 'editor@example.com', name: 'Editor', type: 'user', status: 'enabled', password_login: true, password: 'editor-pass-1', user_role_id: role.id })).body.data;
    const listRole = (await t.request('POST', '/api/roles/lists', { name: 'Readers only', lists: [{ id: list.id, permissions: ['list:get'] }] })).body.data;
    for (const [what, r] of Object.entries({ campaign, template, role, user, listRole })) assert.ok(r?.id, `the ${what} fixture`);

    const writes: Write[] = [
      { name: 'lists: delete one', path: '/admin/lists', act: click('[x-on\\:click="deleteOne"]') },
      { name: 'lists: delete selected', path: '/admin/lists', act: selectRowThen('deleteSelected'), status: 500 },
      { name: 'list: save', path: `/admin/lists/${list.id}`, act: fillAndSubmit('Name', 'Renamed readers', 'Save changes'), kept: ['Name', 'Renamed readers'] },
      { name: 'list: delete', path: `/admin/lists/${list.id}`, act: click('[x-on\\:click="deleteOne"]') },
      { name: 'new list', path: '/admin/lists/new', act: fillAndSubmit('Name', 'Fresh list', 'New list'), kept: ['Name', 'Fresh list'] },
      { name: 'subscribers: delete one', path: '/admin/subscribers', act: click('[x-on\\:click="deleteOne"]') },
      { name: 'subscribers: blocklist selected', path: '/admin/subscribers', act: selectRowThen('blocklistSelected') },
      { name: 'subscribers: delete selected', path: '/admin/subscribers', act: selectRowThen('deleteSelected'), status: 500 },
      { name: 'subscriber: save', path: `/admin/subscribers/${sub.id}`, act: fillAndSubmit('Name', 'Renamed reader', 'Save changes'), kept: ['Name', 'Renamed reader'] },
      { name: 'subscriber: send opt-in', path: `/admin/subscribers/${sub.id}`, act: click('[x-on\\:click="sendOptin"]') },
      { name: 'subscriber: delete', path: `/admin/subscribers/${sub.id}`, act: click('[x-on\\:click="remove"]') },
      { name: 'subscriber: delete bounces', path: `/admin/subscribers/${sub.id}?tab=bounces`, act: click('[x-on\\:click="deleteBounces"]') },
      {
        name: 'import', path: '/admin/subscribers/import', act: async (page) => {
          await page.locator('input[type="file"]').setInputFiles({ name: 'people.csv', mimeType: 'text/csv', buffer: Buffer.from('email,name\nnew@example.com,New\n') });
          await page.locator(`input[type="checkbox"][value="${list.id}"]`).check();
          await press(page, page.getByRole('button', { name: 'Start import' }));
        },
      },
      { name: 'bounces: delete one', path: '/admin/subscribers/bounces', act: click('[x-on\\:click="deleteOne"]') },
      { name: 'bounces: blocklist all', path: '/admin/subscribers/bounces', act: click('[x-on\\:click="blocklistAll"]') },
      { name: 'bounces: delete all', path: '/admin/subscribers/bounces', act: click('[x-on\\:click="deleteAll"]'), status: 500 },
      { name: 'campaigns: start', path: '/admin/campaigns', act: click('[x-on\\:click="changeStatus"]') },
      { name: 'campaigns: clone', path: '/admin/campaigns', act: click('[x-on\\:click="cloneOne"]') },
      { name: 'campaigns: delete one', path: '/admin/campaigns', act: click('[x-on\\:click="deleteOne"]') },
      { name: 'campaigns: delete selected', path: '/admin/campaigns', act: selectRowThen('deleteSelected') },
      { name: 'campaign: save', path: `/admin/campaigns/${campaign.id}`, act: fillAndSubmit('Subject', 'Changed subject', 'Save changes'), kept: ['Subject', 'Changed subject'] },
      { name: 'campaign: start (saves first)', path: `/admin/campaigns/${campaign.id}`, act: click('.page-head [x-on\\:click="changeStatus"]'), status: 500 },
      { name: 'campaign: send test', path: `/admin/campaigns/${campaign.id}`, act: fillAndSubmit('E-mail addresses', 'me@example.com', 'Send'), kept: ['E-mail addresses', 'me@example.com'] },
      { name: 'campaign: archive', path: `/admin/campaigns/${campaign.id}`, act: fillAndSubmit('Archive URL name', 'spring-issue', 'Save'), kept: ['Archive URL name', 'spring-issue'] },
      { name: 'new campaign', path: `/admin/campaigns/new?list_id=${list.id}`, act: async (page) => {
        await page.getByLabel('Name', { exact: true }).fill('Summer');
        await fillAndSubmit('Subject', 'Summer news', 'New campaign')(page);
      }, kept: ['Subject', 'Summer news'] },
      { name: 'templates: clone', path: '/admin/campaigns/templates', act: click('[x-on\\:click="cloneOne"]') },
      { name: 'templates: make default', path: '/admin/campaigns/templates', act: click('[x-on\\:click="makeDefault"]') },
      { name: 'templates: delete', path: '/admin/campaigns/templates', act: click('[x-on\\:click="deleteOne"]'), status: 500 },
      { name: 'template: save', path: `/admin/campaigns/templates/${template.id}`, act: fillAndSubmit('Name', 'Renamed template', 'Save changes'), kept: ['Name', 'Renamed template'] },
      { name: 'media: delete', path: '/admin/campaigns/media', act: click('[x-on\\:click="deleteOne"]') },
      {
        name: 'media: upload', path: '/admin/campaigns/media', act: async (page) => {
          await page.locator('input[type="file"]').first().setInputFiles({ name: 'more.txt', mimeType: 'text/plain', buffer: Buffer.from('more') });
        },
      },
      { name: 'users: disable', path: '/admin/users', act: click(`[x-on\\:click="setStatus"][data-id="${user.id}"]`) },
      { name: 'users: delete', path: '/admin/users', act: click(`[x-on\\:click="deleteOne"][data-id="${user.id}"]`) },
      { name: 'user: save', path: `/admin/users/${user.id}`, act: fillAndSubmit('Name', 'Renamed editor', 'Save changes'), kept: ['Name', 'Renamed editor'] },
      { name: 'user roles: clone', path: '/admin/users/roles/users', act: click(`[x-on\\:click="cloneOne"][data-id="${role.id}"]`) },
      { name: 'user roles: delete', path: '/admin/users/roles/users', act: click(`[x-on\\:click="deleteOne"][data-id="${role.id}"]`) },
      { name: 'user role: save', path: `/admin/users/roles/users/${role.id}`, act: fillAndSubmit('Name', 'Chief editors', 'Save changes'), kept: ['Name', 'Chief editors'] },
      { name: 'list role: save', path: `/admin/users/roles/lists/${listRole.id}`, act: fillAndSubmit('Name', 'Readers, renamed', 'Save changes'), kept: ['Name', 'Readers, renamed'] },
      { name: 'profile: save', path: '/admin/profile', act: fillAndSubmit('Name', 'The admin', 'Save changes'), kept: ['Name', 'The admin'] },
      {
        name: 'settings: SMTP test', path: '/admin/settings#smtp', act: async (page) => {
          const block = page.locator('[data-block="smtp"]').first();
          await block.getByLabel('To e-mail').fill('ops@example.com');
          await press(page, block.getByRole('button', { name: 'SMTP connection test' }));
        },
      },
      { name: 'maintenance: compact', path: '/admin/settings/maintenance', act: click('form[data-op="vacuum"] button[type="submit"]') },
      { name: 'dashboard: tracking choice', path: '/admin', act: click('[x-on\\:click="setTracking"][aria-pressed="false"]') },
      { name: 'dashboard: dismiss checklist', path: '/admin', act: click('[x-on\\:click="dismiss"]') },
      // Last: the unsaved change makes leaving the page ask first.
      { name: 'settings: save', path: '/admin/settings', act: fillAndSubmit('Site name', 'Harbour Notes', 'Save'), kept: ['Site name', 'Harbour Notes'], status: 500 },
    ];

    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    let status = 400;
    // Every change the page sends is answered with a refusal (or a crash); reads pass.
    await page.route('**/api/**', async (route) => {
      const req = route.request();
      if (req.method() === 'GET') return route.continue();
      await route.fulfill({ status, contentType: 'application/json', body: JSON.stringify({ message: `Refused by the test (${status}): ${req.method()} ${new URL(req.url()).pathname}` }) });
    });
    for (const w of writes) {
      status = w.status ?? 400;
      await page.goto(`${t.url}${w.path}`);
      await w.act(page);
      const message = page.getByText(REFUSED).first();
      await message.waitFor();
      assert.ok(await message.isVisible(), `${w.name}: the refusal is visible`);
      if (w.kept) assert.equal(await page.getByLabel(w.kept[0], { exact: true }).first().inputValue(), w.kept[1], `${w.name}: what was typed is kept`);
      if (w.name === 'campaign: send test' || w.name === 'subscribers: delete one') await screenshot(page, `write-refused-${w.name.replace(/\W+/g, '-')}`);
    }
    // The browser logs each 500 answer; those are what this test asked for.
    assert.deepEqual(tab.problems.filter((p) => !/status of 500/.test(p)), []);
    await tab.close();
  });

  it('sends a test to an address that is no subscriber, and shows the API\'s refusal of eleven addresses beside the field', async () => {
    const t = server();
    const sink = await startSmtpSink();
    try {
      assert.equal((await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock()] })).status, 200);
      const list = (await t.request('POST', '/api/lists', { name: 'Testers', type: 'private', optin: 'single' })).body.data;
      const campaign = (await t.request('POST', '/api/campaigns', { name: 'Trial', subject: 'Hello {{ .Subscriber.Name }}', lists: [list.id], content_type: 'html', body: '<p>Hi</p>' })).body.data;
      for (const width of [1280, 390]) {
        const tab = await signedInTab(browser(), t, { width });
        const { page } = tab;
        await page.goto(`${t.url}/admin/campaigns/${campaign.id}`);
        const field = page.getByLabel('E-mail addresses', { exact: true });
        const eleven = Array.from({ length: 11 }, (_, i) => `friend${i}@elsewhere.example`).join(', ');
        await field.fill(eleven);
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        const error = page.locator('#test-emails-error');
        await error.getByText('"subscribers": at most 10 addresses per test, not 11').waitFor();
        assert.equal(await field.inputValue(), eleven, 'what was typed is kept');
        assert.equal(await field.getAttribute('aria-invalid'), 'true');
        await screenshot(page, 'campaign-test-refused');
        const before = sink.messages.length;
        await field.fill(`jane.doe${width}@elsewhere.example`);
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        await page.getByText(`Test sent to jane.doe${width}@elsewhere.example`).waitFor();
        const [mail] = (await sink.waitFor(before + 1)).slice(before);
        assert.equal(mail.parsed.subject, `Hello jane.doe${width}`);
        assert.deepEqual(tab.problems, []);
        await tab.close();
      }
    } finally {
      await sink.close();
    }
  });
});
