// Knowing what happened to a send, in a browser: the campaigns table follows a running campaign
// beside a paused one (without reloading for the paused one), a paused campaign's page says
// why and what to do, the dashboard lists paused campaigns, the first-run checklist's choice
// of counting opens and clicks per subscriber, and the analytics page's approximate rates.
// Screenshots at 1280 and 390 px, light and dark.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer } from '../helpers/server.ts';

describe('paused campaigns and approximate rates in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();

  it('follows the running campaign only, says why one paused and what to do, on its page and the dashboard', async () => {
    const t = server();
    // Status rows are set directly in the database: the sender must not act on them.
    await t.server.ctx.delivery.stop();
    const list = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data;
    const create = async (name: string) => (await t.request('POST', '/api/campaigns', { name, subject: name, lists: [list.id] })).body.data.id as number;
    const paused = await create('Relay down');
    const running = await create('Going out');
    const db = t.server.ctx.db;
    const f = fixtures(db);
    f.campaignState(paused, { status: 'paused', to_send: 400, sent: 100, status_reason: 'the mail server refused the connection (ECONNREFUSED)' });
    f.campaignState(running, { status: 'running', to_send: 400, sent: 300, started_at: new Date().toISOString() });

    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    let loads = 0;
    page.on('load', () => loads++);
    const stats = () => page.waitForResponse((r) => r.url().includes('/api/campaigns/running/stats'));
    await page.goto(`${t.url}/admin/campaigns`);
    // Two polls answered, and the page still the one loaded: the paused row (absent from the
    // running stats) made it reload every second before.
    await stats();
    await stats();
    assert.equal(loads, 1);
    assert.equal(await page.getByRole('progressbar', { name: 'Progress of Going out' }).getAttribute('value'), '75');

    await page.goto(`${t.url}/admin/campaigns/${paused}`);
    const banner = page.getByRole('region', { name: 'This campaign is paused' });
    await banner.getByText('The sending stopped: the mail server refused the connection (ECONNREFUSED)').waitFor();
    assert.equal(await banner.getByRole('link', { name: 'Settings → SMTP' }).getAttribute('href'), '/admin/settings#smtp');
    assert.equal(await page.getByRole('progressbar', { name: 'Progress of Relay down' }).getAttribute('value'), '25');
    // Resume from the banner asks, then starts it again.
    await banner.getByRole('button', { name: 'Resume' }).click();
    await page.locator('dialog[open]').getByRole('button', { name: 'Resume' }).click();
    await page.getByText('"Relay down" is now running').waitFor();
    assert.equal(db.prepare('SELECT status FROM campaigns WHERE id = ?').pluck().get(paused), 'running');
    f.campaignState(paused, { status: 'paused', status_reason: 'the mail server refused the connection (ECONNREFUSED)' });

    await page.goto(`${t.url}/admin`);
    const dash = page.getByRole('region', { name: 'A campaign is paused' });
    await dash.getByRole('link', { name: 'Relay down' }).waitFor();
    assert.match(await dash.innerText(), /Relay down: the mail server refused the connection \(ECONNREFUSED\)/);

    // The first-run checklist's choice: per subscriber, saved through the API.
    await page.getByRole('button', { name: 'Yes, per subscriber' }).click();
    await page.getByText('Opens and clicks are now counted per subscriber.').waitFor();
    assert.equal(t.server.ctx.settings.bool('privacy.individual_tracking'), true);
    assert.equal(await page.getByRole('button', { name: 'Yes, per subscriber' }).getAttribute('aria-pressed'), 'true');
    assert.equal((await t.request('PUT', '/api/settings', { 'privacy.individual_tracking': false })).status, 200);
    f.campaignState(running, { status: 'finished', sent: 400 });
    f.view(running, null);
    f.view(running, null);
    assert.deepEqual(tab.problems, []);
    await tab.close();

    for (const dark of [false, true]) {
      for (const width of [1280, 390]) {
        const shot = await signedInTab(browser(), t, { width, dark });
        const name = (what: string) => `${what}${dark ? '-dark' : ''}`;
        await shot.page.goto(`${t.url}/admin/campaigns/${paused}`);
        await screenshot(shot.page, name('campaign-paused'));
        await shot.page.goto(`${t.url}/admin`);
        await screenshot(shot.page, name('dashboard-paused'));
        await shot.page.goto(`${t.url}/admin/campaigns/analytics?id=${running}`);
        await shot.page.getByText('≈ Approximate, because individual tracking is off').waitFor();
        await screenshot(shot.page, name('analytics-approximate'));
        assert.deepEqual(shot.problems, []);
        await shot.close();
      }
    }
  });
});
