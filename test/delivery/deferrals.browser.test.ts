// Browser journey: while the relay defers a running campaign's messages, its row in the
// campaigns table and its page show the deferred count, updated live; once the relay takes
// them again the campaign finishes and the count is gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer } from '../helpers/server.ts';
import { startFaultySmtp, type FaultySmtp } from '../helpers/smtp.ts';
import { addList, addMany, until } from '../campaigns/fixtures.ts';

describe('deferred messages in the admin', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  let sink: FaultySmtp;
  let deferring = false;
  before(async () => {
    sink = await startFaultySmtp({ rcptTo: () => (deferring ? { code: 451, message: '4.7.1 Try again later' } : undefined) });
  });
  after(async () => {
    await sink?.close();
  });

  it('shows the deferred count of a running campaign as it appears, then the campaign finished', async () => {
    const t = server();
    const block = { enabled: true, host: '127.0.0.1', port: sink.port, auth_protocol: 'none', username: '', password: '', tls_type: 'none', max_conns: 1, max_msg_retries: 0 };
    assert.equal((await t.request('PUT', '/api/settings', { smtp: [block], 'app.concurrency': 1, 'app.message_rate': 1, 'app.defer_limit': '1h' })).status, 200);
    const list = addList(t.server.ctx.db, 'Readers', 'single');
    // One message a second: far from done when the relay starts deferring.
    const emails = addMany(t.server.ctx.db, list, 'reader', 200);
    const id = (await t.request('POST', '/api/campaigns', { name: 'Patience', subject: 'S', lists: [list], body: '<p>x</p>', content_type: 'html' })).body.data.id;
    assert.equal((await t.request('PUT', `/api/campaigns/${id}/status`, { status: 'running' })).status, 200);

    const wide = await signedInTab(browser(), t);
    const narrow = await signedInTab(browser(), t, { width: 390 });
    await wide.page.goto(`${t.url}/admin/campaigns`);
    await narrow.page.goto(`${t.url}/admin/campaigns/${id}`);
    const row = wide.page.locator(`tr[data-campaign="${id}"]`);
    assert.equal(await row.getByText('Deferred:').isVisible(), false, 'nothing deferred yet');

    deferring = true;
    await row.getByText(/Deferred: [1-9]/).waitFor();
    await narrow.page.getByText(/Deferred: [1-9]/).waitFor();
    await screenshot(wide.page, 'campaigns-deferred');
    await screenshot(narrow.page, 'campaign-deferred');
    // On a phone the table leaves out its counts column (sent, failed, deferred alike).
    await narrow.page.goto(`${t.url}/admin/campaigns`);
    await narrow.page.locator(`tr[data-campaign="${id}"]`).waitFor();
    await screenshot(narrow.page, 'campaigns-deferred');
    await wide.page.goto(`${t.url}/admin/campaigns/${id}`);
    await wide.page.getByText(/Deferred: [1-9]/).waitFor();
    await screenshot(wide.page, 'campaign-deferred');

    deferring = false;
    assert.equal((await t.request('PUT', '/api/settings', { 'app.message_rate': 1000 })).status, 200);
    await until('the campaign to finish', async () => (await t.request('GET', `/api/campaigns/${id}`)).body.data.status === 'finished', 60_000);
    // The page reloads when the campaign is no longer running.
    await wide.page.getByText('Finished', { exact: true }).waitFor();
    assert.equal(await wide.page.getByText('Deferred:').count(), 0);
    assert.deepEqual(sink.accepted.sort(), emails);
    assert.deepEqual([...wide.problems, ...narrow.problems], []);
    await wide.close();
    await narrow.close();
  });
});
