// Publishing a campaign to the archive with nothing else set: it renders in the archive
// template greeting nobody, with no unsubscribe or web-view link that would lead nowhere, a
// Subscribe link, and a way back to the archive's list of issues.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addSubscriber, until } from '../campaigns/fixtures.ts';

let t: TestServer;
let sink: SmtpSink;
let campaign: { id: number; uuid: string; archive_template_id: number; template_id: number };

const hrefs = (html: string) => [...html.matchAll(/href="([^"]*)"/g)].map((m) => m[1].replaceAll('&amp;', '&'));

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  const r = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({})], 'app.root_url': t.url });
  assert.equal(r.status, 200, r.text);
  const list = addList(t.server.ctx.db, 'News', 'single');
  addSubscriber(t.server.ctx.db, 'ann@example.com', 'Ann Reader', [[list, 'confirmed']]);
  const c = await t.request('POST', '/api/campaigns', {
    name: 'Issue 1', subject: 'Issue 1 for {{ .Subscriber.FirstName }}', lists: [list], archive: true, archive_slug: 'issue-1', content_type: 'html',
    body: '<p>Hello {{ .Subscriber.FirstName }}!</p><p><a href="{{ UnsubscribeURL }}">Unsubscribe</a> · <a href="{{ MessageURL }}">View in a browser</a> · <a href="{{ ManageURL }}">Preferences</a></p>',
  });
  assert.equal(c.status, 200, c.text);
  campaign = c.body.data;
  const s = await t.request('PUT', `/api/campaigns/${campaign.id}/status`, { status: 'running' });
  assert.equal(s.status, 200, s.text);
  await until('the campaign to finish', async () => (await t.request('GET', `/api/campaigns/${campaign.id}`)).body.data.status === 'finished');
});
after(async () => {
  await t.stop();
  await sink.close();
});

describe('the archive by default', () => {
  it('takes the shipped archive template, not the mail template', async () => {
    const templates = (await t.request('GET', '/api/templates')).body.data as { id: number; name: string }[];
    assert.equal(campaign.archive_template_id, templates.find((x) => x.name === 'Default archive template')!.id);
    assert.notEqual(campaign.archive_template_id, campaign.template_id);
  });

  it('greets nobody and has no link that leads nowhere; it links to the form and back to the list', async () => {
    const page = await fetch(`${t.url}/archive/issue-1`);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.doesNotMatch(html, /Hello/);
    assert.doesNotMatch(html, /px\.png/, 'no view pixel on a public page');
    const links = hrefs(html);
    assert.ok(!links.some((h) => h.includes(`/subscription/${campaign.uuid}/`)), 'no unsubscribe link');
    assert.ok(!links.some((h) => h.includes(`/campaign/${campaign.uuid}/`)), 'no web-view link');
    assert.ok(links.includes(`${t.url}/subscription/form`), 'the helpers, the subscribe box and the footer lead to the subscription form');
    assert.ok(links.includes(`${t.url}/archive`), 'a link back to the list of issues');
    assert.ok(links.includes(`${t.url}/archive/issue-1`), 'the web-view link is the page itself');
    for (const h of links.filter((x) => x.startsWith(t.url))) {
      const res = await fetch(h, { redirect: 'manual' });
      assert.equal(res.status, 200, `${h} answers ${res.status}`);
    }
  });

  it('lists the issues with their dates and a Subscribe link', async () => {
    const html = await (await fetch(`${t.url}/archive`)).text();
    assert.match(html, /<a href="[^"]*\/archive\/issue-1">Issue 1 for Subscriber<\/a><time class="muted" datetime="\d{4}-\d{2}-\d{2}">\d{4}-\d{2}-\d{2}<\/time>/);
    assert.match(html, /<a class="button" href="\/subscription\/form">Subscribe<\/a>/);
  });

  it('has no Subscribe link while the public form is off; the unsubscribe helpers then give nothing', async () => {
    await withSettings(t, { 'app.enable_public_subscription_page': false }, async () => {
      const html = await (await fetch(`${t.url}/archive/issue-1`)).text();
      assert.ok(!hrefs(html).some((h) => h.includes('/subscription/')), 'no link to the form or to an unsubscribe page');
      assert.doesNotMatch(await (await fetch(`${t.url}/archive`)).text(), />Subscribe</);
    });
  });

  it('still sends subscribers their own unsubscribe and web-view links', () => {
    const mail = sink.messages.find((m) => m.parsed.headers.get('x-listmonk-campaign') === campaign.uuid)!;
    const links = hrefs(String(mail.parsed.html));
    assert.match(String(mail.parsed.html), /Hello Ann!/);
    assert.ok(links.some((h) => h.startsWith(`${t.url}/subscription/${campaign.uuid}/`)));
    assert.ok(links.some((h) => h.startsWith(`${t.url}/campaign/${campaign.uuid}/`)));
  });

  it('previews the archive page the same way', async () => {
    const p = await t.request('POST', `/api/campaigns/${campaign.id}/preview/archive`, {});
    assert.equal(p.status, 200, p.text);
    assert.doesNotMatch(p.text, /Hello/);
    assert.ok(!hrefs(p.text).some((h) => h.includes(`/subscription/00000000`)));
  });
});
