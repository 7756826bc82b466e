// Browser journeys through the settings page: change the site name and root URL and see them
// applied without a restart; move between tabs with the keyboard (the tab in the URL); a bad
// value shown beside its field with what was typed kept; an SMTP block pointed at the real sink,
// its test message arriving there, and a failing relay's own error shown inline; the page
// read-only for a role with settings:get alone. Screenshots at 1280 and 390 px, light and dark.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { userWithRole } from '../helpers/admin.ts';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { DEFAULT_SETTINGS } from '../../src/settings/defaults.ts';
import { useFreshServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { startFakePop3 } from '../bounces/fake-servers.ts';

const SAVED = 'Settings saved and applied. No restart needed.';

/**
 * Saves the settings form and waits for what proves the save happened: the API's answer to the
 * PUT, the page reloaded, and that new page's notice. (A wait on the notice alone passed at once
 * when an earlier save's notice was still showing, and the journey went on before the save.)
 */
async function saveSettings(page: Page): Promise<void> {
  const reloaded = page.waitForEvent('load');
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.request().method() === 'PUT' && new URL(r.url()).pathname === '/api/settings'),
    page.locator('#settings-save').click(),
  ]);
  // Checked before reading the body: the page reloads on success, and a reloaded page's answers are gone.
  if (res.status() !== 200) assert.fail(`saving the settings answered ${res.status()}: ${await res.text()}`);
  await reloaded;
  await page.getByText(SAVED).waitFor();
}

describe('admin settings in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  let sink: SmtpSink;
  let strict: SmtpSink;

  before(async () => {
    sink = await startSmtpSink();
    strict = await startSmtpSink({ auth: { user: 'mailer', pass: 'right-pass' } });
  });
  after(async () => {
    await sink.close();
    await strict.close();
  });

  it('saves the site name and root URL and shows them applied; a bad value is shown beside its field', async () => {
    const t = server();
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const save = page.locator('#settings-save');
    assert.equal(await save.isDisabled(), true, 'nothing changed yet: Save is disabled');

    await page.getByLabel('Site name').fill('Harbour Notes');
    assert.equal(await save.isDisabled(), false, 'a change enables Save');
    await page.getByLabel('Site name').fill('Mailing list');
    assert.equal(await save.isDisabled(), true, 'back as it was: Save is disabled again');
    await page.getByLabel('Site name').fill('Harbour Notes');
    await page.getByLabel('Root URL').fill(t.url);
    await saveSettings(page);
    assert.equal(await page.locator('.topbar .brand').innerText(), 'Harbour Notes');
    assert.equal(await page.getByLabel('Root URL').inputValue(), t.url);
    assert.equal(t.server.ctx.settings.rootUrl(), t.url);
    // Applied without a restart: the public pages have the new name at once.
    const form = await (await fetch(`${t.url}/subscription/form`)).text();
    assert.match(form, /Harbour Notes/);

    // Tabs: the arrow keys move between them, and the URL says which is open.
    await page.getByRole('tab', { name: 'General' }).focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.getByRole('tab', { name: 'Performance' }).getAttribute('aria-selected'), 'true');
    assert.ok(page.url().endsWith('#performance'));
    assert.ok(await page.getByLabel('Concurrency').isVisible());
    assert.ok(!(await page.getByLabel('Site name').isVisible()), 'other tabs are hidden');

    await page.getByLabel('Message rate').fill('7');
    await page.getByLabel('Concurrency').fill('0');
    await save.click();
    const error = page.locator('#s-app-concurrency-error');
    await error.getByText('invalid setting "app.concurrency": must be at least 1').waitFor();
    assert.equal(await page.getByLabel('Concurrency').getAttribute('aria-invalid'), 'true');
    assert.equal(await page.getByLabel('Concurrency').inputValue(), '0');
    assert.equal(await page.getByLabel('Message rate').inputValue(), '7');
    assert.equal(t.server.ctx.settings.num('app.message_rate'), 10, 'nothing was saved');
    await screenshot(page, 'settings-refused');

    // A refusal on another tab opens that tab: the field is on the General tab.
    await page.getByLabel('Concurrency').fill('10');
    await page.goto(`${t.url}/admin/settings#general`);
    await page.getByLabel('Default `from` email').fill('not an address');
    await page.getByRole('tab', { name: 'Privacy' }).click();
    await save.click();
    await page.locator('#s-app-from-email-error').getByText(/is not an e-mail address/).waitFor();
    assert.equal(await page.getByRole('tab', { name: 'General' }).getAttribute('aria-selected'), 'true');
    assert.equal(await page.getByLabel('Default `from` email').inputValue(), 'not an address');

    // Put back what was typed: leaving with unsaved changes would ask first.
    await page.getByLabel('Default `from` email').fill('listmgr <noreply@listmgr.yoursite.com>');
    await page.getByRole('tab', { name: 'Performance' }).click();
    await page.getByLabel('Message rate').fill('10');
    assert.equal(await save.isDisabled(), true, 'everything is as saved again');

    // Appearance: the public pages' CSS typed in the code editor enables Save and is served at once.
    await page.getByRole('tab', { name: 'Appearance' }).click();
    const publicCss = page.locator('#panel-appearance .cm-content').nth(2);
    await publicCss.click();
    await page.keyboard.type('.hero{color:teal}');
    assert.equal(await save.isDisabled(), false, 'typing in the code editor enables Save');
    await saveSettings(page);
    assert.match(await (await fetch(`${t.url}/public/custom.css`)).text(), /\.hero\{color:teal\}/);
    assert.equal(await page.getByRole('link', { name: /Open the public subscription form/ }).getAttribute('href'), `${t.url}/subscription/form`);

    for (const dark of [false, true]) {
      for (const width of [1280, 390]) {
        const shot = await signedInTab(browser(), t, { width, dark });
        await shot.page.goto(`${t.url}/admin/settings`);
        for (const [name, label] of [['general', 'General'], ['security', 'Security'], ['smtp', 'SMTP'], ['bounces', 'Bounces'], ['appearance', 'Appearance']]) {
          await shot.page.getByRole('tab', { name: label }).click();
          await screenshot(shot.page, `settings-${name}${dark ? '-dark' : ''}`);
        }
        assert.deepEqual(shot.problems, []);
        await shot.close();
      }
    }
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('sets up an SMTP server on the sink, tests it, shows a failing relay\'s own error, and keeps a bad JSON header as typed', async () => {
    const t = server();
    // The sink is on loopback and not saved yet: the test may reach it only with this setting.
    assert.equal((await t.request('PUT', '/api/settings', { 'security.allow_private_outbound': true })).status, 200);
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/settings#smtp`);
    assert.equal(await page.getByRole('tab', { name: 'SMTP' }).getAttribute('aria-selected'), 'true');
    const block = page.locator('[data-block="smtp"]').first();
    await block.getByLabel('Preset').selectOption({ label: 'Gmail / Google Workspace' });
    assert.equal(await block.getByLabel('Host', { exact: true }).inputValue(), 'smtp.gmail.com');
    assert.equal(await block.getByLabel('Port', { exact: true }).inputValue(), '465');

    await block.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await block.getByLabel('Port', { exact: true }).fill(String(sink.port));
    await block.getByLabel('Auth protocol').selectOption('none');
    await block.getByLabel('TLS', { exact: true }).selectOption('none');
    await block.getByLabel('Enabled').check();
    await block.getByLabel('To e-mail').fill('ops@example.com');
    await block.getByRole('button', { name: 'SMTP connection test' }).click();
    await block.getByText(`Sent: 127.0.0.1:${sink.port} accepted the test message for ops@example.com.`).waitFor();
    const [mail] = await sink.waitFor(1);
    assert.deepEqual(mail.to, ['ops@example.com']);
    assert.match(mail.parsed.subject ?? '', /SMTP test/);

    // A relay that refuses the sign-in: its own words, inline.
    await page.getByRole('button', { name: '+ Add SMTP server' }).click();
    const second = page.locator('[data-block="smtp"]').nth(1);
    await second.getByLabel('Host', { exact: true }).fill('127.0.0.1');
    await second.getByLabel('Port', { exact: true }).fill(String(strict.port));
    await second.getByLabel('Auth protocol').selectOption('login');
    await second.getByLabel('TLS', { exact: true }).selectOption('none');
    await second.getByLabel('Username', { exact: true }).fill('mailer');
    await second.getByLabel('Password', { exact: true }).fill('wrong-pass');
    await second.getByLabel('To e-mail').fill('ops@example.com');
    await second.getByRole('button', { name: 'SMTP connection test' }).click();
    await second.getByText(/refused the user name or password \(SMTP 535\): the relay answered "535 Invalid username or password"/).waitFor();
    // A closed port: the one answer for anything that does not speak SMTP.
    await second.getByLabel('Port', { exact: true }).fill('1');
    await second.getByLabel('Wait timeout').fill('1s');
    await second.getByRole('button', { name: 'SMTP connection test' }).click();
    await second.getByText('SMTP test failed: could not talk SMTP with 127.0.0.1:1 (check the host, the port and the TLS setting)').waitFor();
    await second.getByRole('button', { name: 'Remove server' }).click();
    assert.equal(await page.locator('[data-block="smtp"]').count(), 1);

    // A custom header that is not JSON: the message beside the field, the text kept.
    await block.getByLabel('Custom headers').fill('[{"X-Campaign": ');
    await page.locator('#settings-save').click();
    await block.getByText(/^Not valid JSON/).waitFor();
    assert.equal(await block.getByLabel('Custom headers').inputValue(), '[{"X-Campaign": ');
    await block.getByLabel('Custom headers').fill('[{"X-Campaign": "weekly"}]');
    await screenshot(page, 'settings-smtp-tested');
    await saveSettings(page);
    const smtp = t.server.ctx.settings.get<Record<string, unknown>[]>('smtp');
    assert.equal(smtp.length, 1);
    assert.deepEqual({ host: smtp[0].host, port: smtp[0].port, enabled: smtp[0].enabled, email_headers: smtp[0].email_headers }, { host: '127.0.0.1', port: sink.port, enabled: true, email_headers: [{ 'X-Campaign': 'weekly' }] });

    // An added block takes the next position and is saved with it.
    await page.getByRole('button', { name: '+ Add SMTP server' }).click();
    const added = page.locator('[data-block="smtp"]').nth(1);
    assert.equal(await added.getByLabel('Host', { exact: true }).getAttribute('name'), 'smtp[1].host');
    await added.getByLabel('Host', { exact: true }).fill('smtp.example.net');
    assert.equal(await added.locator('legend').innerText(), 'SMTP server smtp.example.net');
    await added.getByLabel('Enabled').uncheck();
    await saveSettings(page);
    assert.equal(t.server.ctx.settings.get<Record<string, unknown>[]>('smtp')[1].host, 'smtp.example.net');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('shows a fresh install one empty server with placeholders, fills the local relay preset, offers to enable and save a server once its test passes, and asks before leaving unsaved changes', async () => {
    const t = server();
    // The SMTP setting as an install writes it (the tests' template enables a placeholder).
    t.server.ctx.db.prepare(`UPDATE settings SET value = ? WHERE key = 'smtp'`).run(JSON.stringify(DEFAULT_SETTINGS.smtp));
    t.server.ctx.settings.reload();
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/settings#smtp`);
    const blocks = page.locator('[data-block="smtp"]');
    assert.equal(await blocks.count(), 1);
    const block = blocks.first();
    const host = block.getByLabel('Host', { exact: true });
    assert.equal(await host.inputValue(), '');
    assert.equal(await host.getAttribute('placeholder'), 'smtp.example.com');
    assert.equal(await block.getByLabel('Username', { exact: true }).inputValue(), '');
    assert.equal(await block.getByLabel('Password', { exact: true }).getAttribute('placeholder'), 'Not set', 'nothing is saved: no "Saved (hidden)"');
    assert.equal(await block.getByLabel('Enabled').isChecked(), false);
    await screenshot(page, 'settings-smtp-fresh');

    await block.getByLabel('Preset').selectOption({ label: 'Local relay, no sign-in (localhost:25)' });
    assert.equal(await host.inputValue(), 'localhost');
    assert.equal(await block.getByLabel('Port', { exact: true }).inputValue(), '25');
    assert.equal(await block.getByLabel('Auth protocol').inputValue(), 'none');
    assert.equal(await block.getByLabel('TLS', { exact: true }).inputValue(), 'none');

    // Pointed at the sink (a relay on this machine), tested: the page offers to enable and save it.
    await host.fill('127.0.0.1');
    await block.getByLabel('Port', { exact: true }).fill(String(sink.port));
    const offer = block.getByRole('button', { name: 'Enable and save this server' });
    assert.equal(await offer.isVisible(), false);
    await block.getByLabel('To e-mail').fill('ops@example.com');
    await block.getByRole('button', { name: 'SMTP connection test' }).click();
    await offer.waitFor();
    await screenshot(page, 'settings-smtp-enable-offer');
    await page.setViewportSize({ width: 390, height: 900 });
    await screenshot(page, 'settings-smtp-enable-offer');
    await page.setViewportSize({ width: 1280, height: 900 });

    // Leaving now asks first (the change is not saved); staying keeps what was typed.
    // (The tab's own listener dismisses it, and records it as a problem: taken out below.)
    const asked = new Promise<string>((resolve) => page.once('dialog', (d) => resolve(d.type())));
    void page.getByRole('navigation', { name: 'Main menu' }).getByRole('link', { name: 'Dashboard' }).click();
    assert.equal(await asked, 'beforeunload');
    tab.problems.splice(tab.problems.findIndex((p) => p.startsWith('dialog: beforeunload')), 1);
    assert.equal(await host.inputValue(), '127.0.0.1');

    await offer.click();
    await page.getByText('Settings saved and applied. No restart needed.').waitFor();
    const [saved] = t.server.ctx.settings.get<Record<string, unknown>[]>('smtp');
    assert.deepEqual({ enabled: saved.enabled, host: saved.host, port: saved.port, auth_protocol: saved.auth_protocol, tls_type: saved.tls_type }, { enabled: true, host: '127.0.0.1', port: sink.port, auth_protocol: 'none', tls_type: 'none' });
    // Saved and enabled: a passing test offers nothing more.
    await block.getByLabel('To e-mail').fill('ops@example.com');
    await block.getByRole('button', { name: 'SMTP connection test' }).click();
    await block.getByText(`Sent: 127.0.0.1:${sink.port} accepted`).waitFor();
    assert.equal(await offer.isVisible(), false);

    // A saved password says so only while it would be used: a changed host asks for it again.
    await block.getByLabel('Auth protocol').selectOption('login');
    await block.getByLabel('Username', { exact: true }).fill('mailer');
    await block.getByLabel('Password', { exact: true }).fill('relay-pass');
    await page.locator('#settings-save').click();
    // The page reloaded with the password saved (the field says so only then).
    const password = page.locator('[data-block="smtp"] input[data-sub="password"][data-secret-saved]');
    await password.waitFor();
    assert.equal(await password.getAttribute('placeholder'), 'Saved (hidden). Type to replace it.');
    await page.locator('[data-block="smtp"]').first().getByLabel('Host', { exact: true }).fill('relay.example.net');
    assert.equal(await password.getAttribute('placeholder'), 'Type the password again: the saved one is only used for the server it was saved for');
    await page.locator('[data-block="smtp"]').first().getByLabel('Host', { exact: true }).fill('127.0.0.1');
    assert.equal(await password.getAttribute('placeholder'), 'Saved (hidden). Type to replace it.');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  it('scans the bounce mailbox on demand and shows the result; asks to save first while changes are pending', async () => {
    const t = server();
    const box = await startFakePop3([Buffer.from('From: a@example.com\r\nSubject: hello\r\n\r\nNot a bounce\r\n')]);
    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    try {
      await page.goto(`${t.url}/admin/settings#bounces`);
      await page.getByLabel('Enable bounce processing').check();
      const mailbox = page.locator('[data-block="bounce.mailboxes"]');
      await mailbox.getByLabel('Enable bounce mailbox').check();
      await mailbox.getByLabel('Host', { exact: true }).fill('127.0.0.1');
      await mailbox.getByLabel('Port', { exact: true }).fill(String(box.port));
      await mailbox.getByLabel('Username', { exact: true }).fill('bounces');
      await mailbox.getByLabel('Password', { exact: true }).fill('secret');
      await mailbox.getByLabel('TLS', { exact: true }).uncheck();
      assert.equal(await page.getByRole('button', { name: 'Scan now' }).isDisabled(), true, 'the scan uses the saved settings: save first');
      await page.getByText('Save your changes first').waitFor();
      await saveSettings(page);
      assert.equal(await page.getByRole('tab', { name: 'Bounces' }).getAttribute('aria-selected'), 'true', 'the page comes back on its tab');
      await page.getByRole('button', { name: 'Scan now' }).click();
      await page.locator('#scan-result').getByText(`pop://127.0.0.1:${box.port} · 1 message(s) read, 0 bounce(s) recorded`).waitFor();
      await screenshot(page, 'settings-bounces-scanned');
      assert.deepEqual(tab.problems, []);
    } finally {
      await tab.close();
      await box.close();
    }
  });

  it('shows a settings:manage role the custom JavaScript read-only, and asks for the password again when a saved server\'s host changes', async () => {
    const t = server();
    const saved = await t.request('PUT', '/api/settings', { smtp: [{ enabled: true, name: 'relay', host: 'smtp.example.com', port: 587, auth_protocol: 'login', username: 'mailer', password: 'relay-secret', tls_type: 'STARTTLS' }] });
    assert.equal(saved.status, 200, saved.text);
    const manager = await userWithRole(t, ['settings:get', 'settings:manage']);
    for (const width of [1280, 390]) {
      const tab = await signedInTab(browser(), t, { ...manager, width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/settings#appearance`);
      const panel = page.locator('#panel-appearance');
      assert.equal(await panel.getByText('Only a Super Admin may change custom JavaScript').count(), 2);
      assert.equal(await panel.locator('textarea[name="appearance.admin.custom_js"]').isDisabled(), true);
      assert.equal(await panel.locator('textarea[name="appearance.public.custom_css"]').isDisabled(), false);
      assert.equal(await panel.locator('.cm-content').nth(1).getAttribute('contenteditable'), 'false', 'the JavaScript editor takes no typing');
      await screenshot(page, 'settings-appearance-manager');

      await page.getByRole('tab', { name: 'SMTP' }).click();
      const block = page.locator('[data-block="smtp"]').first();
      await block.getByLabel('Host', { exact: true }).fill('smtp.elsewhere.example');
      await page.locator('#settings-save').click();
      await block.getByText(/the host, port, user name or TLS settings of smtp\[0\] \("email-relay"\) changed: type the password again/).waitFor();
      assert.equal(await block.getByLabel('Password', { exact: true }).getAttribute('aria-invalid'), 'true');
      assert.equal(t.server.ctx.settings.get<{ host: string }[]>('smtp')[0].host, 'smtp.example.com');
      await screenshot(page, 'settings-smtp-retype-password');
      assert.deepEqual(tab.problems, []);
      await tab.close();
    }
  });

  it('is read-only with settings:get alone', async () => {
    const t = server();
    const reader = await userWithRole(t, ['settings:get']);
    const tab = await signedInTab(browser(), t, { ...reader });
    const { page } = tab;
    await page.goto(`${t.url}/admin/settings#appearance`);
    await page.getByText('changing them needs the settings:manage permission').waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save' }).count(), 0);
    await page.getByRole('tab', { name: 'General' }).click();
    assert.equal(await page.getByLabel('Site name').isDisabled(), true);
    await page.getByRole('tab', { name: 'SMTP' }).click();
    assert.equal(await page.getByRole('button', { name: 'SMTP connection test' }).count(), 0);
    await page.getByRole('tab', { name: 'Bounces' }).click();
    assert.equal(await page.getByRole('button', { name: 'Scan now' }).count(), 0);
    await screenshot(page, 'settings-read-only');
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });
});
