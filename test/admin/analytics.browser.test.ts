// Browser journeys through campaign analytics: find campaigns by name among more than the most
// recent ones, keep the choice in the URL, read the rates, and open who opened and clicked; and
// a campaign sent into a real SMTP sink whose pixel and tracked link, once loaded, show there.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { useFreshServer } from '../helpers/server.ts';
import { useSink, useSmtpSink } from '../helpers/smtp.ts';

describe('admin analytics in a browser', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  const smtp = useSink();

  it('shows the view and the click of a reader who opened the sent message and followed its link', async () => {
    const t = server();
    const sink = smtp();
    await useSmtpSink(t, sink);
    for (const [key, value] of [['app.root_url', t.url], ['privacy.individual_tracking', true]] as const) {
      assert.equal((await t.request('PUT', `/api/settings/${key}`, value)).status, 200);
    }
    const list = (await t.request('POST', '/api/lists', { name: 'Sent to', type: 'private', optin: 'single' })).body.data.id;
    for (const name of ['Bea', 'Caio']) {
      assert.equal((await t.request('POST', '/api/subscribers', { email: `${name.toLowerCase()}@example.com`, name, lists: [list], preconfirm_subscriptions: true })).status, 200);
    }
    const c = await t.request('POST', '/api/campaigns', { name: 'Tracked issue', subject: 'Hello', lists: [list], content_type: 'html', body: '<p>Read <a href="https://example.com/article">the article</a>.</p>' });
    const id = c.body.data.id;
    sink.messages.length = 0;
    assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status, 200);
    const mails = await sink.waitFor(2);
    const bea = mails.find((m) => m.to.includes('bea@example.com'))!;
    const html = String(bea.parsed.html);
    const pixel = /src="([^"]+\/px\.png)"/.exec(html)?.[1];
    const link = /href="([^"]+\/link\/[^"]+)"/.exec(html)?.[1];
    assert.ok(pixel && link, 'the message has the view pixel and a tracked link');
    // Bea's mail client loads the pixel; she follows the link.
    assert.equal((await fetch(pixel.replace(/&amp;/g, '&'))).status, 200);
    const followed = await fetch(link.replace(/&amp;/g, '&'), { redirect: 'manual' });
    assert.equal(followed.headers.get('location'), 'https://example.com/article');

    const tab = await signedInTab(browser(), t);
    const { page } = tab;
    await page.goto(`${t.url}/admin/campaigns/analytics?id=${id}`);
    await page.getByRole('figure').filter({ hasText: 'Views' }).getByText('(1)').waitFor();
    await page.getByRole('figure').filter({ hasText: 'Clicks' }).getByText('(1)').waitFor();
    await page.getByRole('link', { name: 'https://example.com/article' }).waitFor();
    const rates = page.getByRole('row').filter({ hasText: 'Tracked issue' }).filter({ hasText: '%' });
    await rates.getByText('50.0%').first().waitFor(); // 1 reader of the 2 sent opened, and clicked
    await rates.getByRole('link', { name: 'Who opened and clicked' }).click();
    await page.getByRole('link', { name: 'bea@example.com' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'caio@example.com' }).count(), 0);
    await page.getByRole('link', { name: 'Clicked', exact: true }).click();
    await page.getByRole('row').filter({ hasText: 'bea@example.com' }).getByRole('link', { name: 'https://example.com/article' }).waitFor();
    assert.deepEqual(tab.problems, []);
    await tab.close();
  });

  for (const width of [1280, 390]) {
    it(`searches campaigns by name, keeps the choice in the URL, shows rates and who opened (${width} px)`, async () => {
      const t = server();
      assert.equal((await t.request('PUT', '/api/settings/privacy.individual_tracking', true)).status, 200);
      const list = (await t.request('POST', '/api/lists', { name: `Readers ${width}`, type: 'public', optin: 'single' })).body.data.id;
      const reader = (await t.request('POST', '/api/subscribers', { email: `ana${width}@example.com`, name: 'Ana', lists: [list], preconfirm_subscriptions: true })).body.data.id;
      // The oldest campaign is the one to find: 25 newer ones come first in any "most recent" list.
      const db = t.server.ctx.db;
      const old = (await t.request('POST', '/api/campaigns', { name: `Winter sale ${width}`, subject: 'Sale', lists: [list] })).body.data.id;
      const f = fixtures(db);
      f.campaignState(old, { created_at: '2019-12-01T00:00:00.000Z', status: 'finished', sent: 4 });
      for (let i = 1; i <= 25; i++) await t.request('POST', '/api/campaigns', { name: `Weekly ${width}-${i}`, subject: 'Weekly', lists: [list] });
      const day = new Date(Date.now() - 86_400_000).toISOString();
      f.view(old, reader, day);
      const tab = await signedInTab(browser(), t, { width });
      const { page } = tab;
      await page.goto(`${t.url}/admin/campaigns/analytics`);
      const search = page.getByRole('combobox', { name: 'Search campaigns' });
      await search.fill(`winter sale ${width}`);
      const results = page.getByRole('listbox', { name: 'Campaigns found' });
      await results.getByRole('option', { name: new RegExp(`Winter sale ${width}`) }).getByRole('button').click();
      await search.fill(`weekly ${width}-2`);
      await results.getByRole('option', { name: new RegExp(`Weekly ${width}-25`) }).waitFor();
      await screenshot(page, 'analytics-search');
      await results.getByRole('option', { name: new RegExp(`Weekly ${width}-25`) }).getByRole('button').click();
      await page.keyboard.press('Escape');
      const chosen = page.getByRole('list', { name: 'Chosen campaigns' });
      await chosen.getByText(`Winter sale ${width}`).waitFor();
      await chosen.getByRole('button', { name: `Remove Weekly ${width}-25` }).click();
      assert.equal(await chosen.getByText(`Weekly ${width}-25`).count(), 0);
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL(new RegExp(`[?&]id=${old}(&|$)`));
      assert.ok(!/Weekly|id=\d+&id=/.test(decodeURIComponent(new URL(page.url()).search)), 'only the chosen campaign is in the URL');
      // The URL alone brings the same view back (a bookmark).
      await page.goto(page.url());
      await chosen.getByText(`Winter sale ${width}`).waitFor();
      const rates = page.getByRole('row').filter({ hasText: `Winter sale ${width}` }).filter({ hasText: '%' });
      await rates.getByText('25.0%').first().waitFor();
      await screenshot(page, 'analytics');

      await rates.getByRole('link', { name: 'Who opened and clicked' }).click();
      await page.getByRole('heading', { name: `Winter sale ${width}: who opened and clicked` }).waitFor();
      await page.getByRole('link', { name: `ana${width}@example.com` }).waitFor();
      const exported = page.getByRole('link', { name: 'Export as CSV' });
      const download = await Promise.all([page.waitForEvent('download'), exported.click()]).then(([d]) => d);
      const { readFile } = await import('node:fs/promises');
      const csv = await readFile((await download.path())!, 'utf8');
      assert.match(csv, new RegExp(`^subscriber_uuid,email,name,views,first_viewed_at,last_viewed_at\n[0-9a-f-]+,ana${width}@example.com,Ana,1,`));
      await screenshot(page, 'analytics-readers');
      await page.getByRole('link', { name: `ana${width}@example.com` }).click();
      await page.getByRole('heading', { name: /ana\d+@example.com|Ana/ }).first().waitFor();
      assert.deepEqual(tab.problems, []);
      await tab.close();
    });
  }
});
