// The plain-text alternative of campaign messages: derived once from the HTML source and
// rendered per subscriber; sources it cannot be derived from fall back to converting each
// rendered message. Either way the text matches what the HTML shows to that subscriber.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCampaign, type RenderCampaign, type RenderSubscriber } from '../../src/rendering/message.ts';
import { defaultTemplates } from '../../src/templates/defaults/index.ts';
import { templateCatalog } from '../../src/i18n/index.ts';

const CAMPAIGN_UUID = '11111111-2222-3333-4444-555555555555';
const env = {
  rootUrl: 'https://news.example', individualTracking: true, disableTracking: false, i18n: templateCatalog('en'),
  trackLink: (url: string, c: string, s: string) => `https://news.example/link/${encodeURIComponent(url)}/${c}/${s}`,
};

function campaign(body: string, over: Partial<RenderCampaign> = {}): RenderCampaign {
  return {
    id: 1, uuid: CAMPAIGN_UUID, name: 'N', subject: 'S', from_email: 'n@example.com', body, altbody: null, content_type: 'html',
    headers: [], tags: [], attribs: {}, type: 'regular', messenger: 'email', template_id: null, send_at: null,
    created_at: '2025-01-01T00:00:00.000Z', updated_at: '2025-01-01T00:00:00.000Z', started_at: null, to_send: 0, sent: 0,
    archive: false, archive_slug: null, ...over,
  };
}

const sub = (name: string, attribs: Record<string, unknown> = {}): RenderSubscriber => ({
  id: 7, uuid: '99999999-8888-7777-6666-555555555555', email: 'r@example.com', name, attribs, status: 'enabled', created_at: null, updated_at: null,
});

const layout = defaultTemplates.find((t) => t.type === 'campaign')!.body;

test('derived in the default template: per-subscriber values and conditions, links, no pixel or markup', () => {
  const c = compileCampaign(campaign('<h2>News</h2><p>Dear {{ .Subscriber.Name }},</p>{{ if eq .Subscriber.Attribs.plan "pro" }}<p>Pro tips inside.</p>{{ end }}' +
    '<p><a href="{{ TrackLink "https://example.org/a" . }}">Read</a></p>{{ TrackView . }}'), layout, env);
  const pro = c.render(sub('Ann <Lee>', { plan: 'pro' }), true).altbody!;
  const free = c.render(sub('Bob', { plan: 'free' }), true).altbody!;
  assert.match(pro, /Dear Ann <Lee>,/);
  assert.match(pro, /Pro tips inside\./);
  assert.match(free, /Dear Bob,/);
  assert.doesNotMatch(free, /Pro tips/);
  assert.match(free, /Read <https:\/\/news\.example\/link\/https%3A%2F%2Fexample\.org%2Fa\/11111111-2222-3333-4444-555555555555\/99999999-/);
  assert.match(free, /\/subscription\/11111111-2222-3333-4444-555555555555\/99999999-8888-7777-6666-555555555555/);
  for (const t of [pro, free]) assert.doesNotMatch(t, /<img|<!--|px\.png|\{\{|\n\n\n/);
});

test('markup produced at render time is converted, not copied into the text', () => {
  const literal = compileCampaign(campaign('<p>{{ Safe "<b>Bold</b> words" }}</p>'), null, env).render(sub('A'), true).altbody;
  assert.equal(literal, 'Bold words');
  const dynamic = compileCampaign(campaign('<div>{{ Safe .Subscriber.Attribs.html }}</div>'), null, env).render(sub('A', { html: '<p>Hi <i>there</i></p>' }), true).altbody;
  assert.equal(dynamic, 'Hi there');
});

test('a range over table rows repeats every row in the text', () => {
  const body = '<table><tr><th>Item</th></tr>{{ range .Subscriber.Attribs.items }}<tr><td>{{ . }}</td></tr>{{ end }}</table>';
  const text = compileCampaign(campaign(body), null, env).render(sub('A', { items: ['apples', 'pears', 'plums'] }), true).altbody!;
  for (const item of ['apples', 'pears', 'plums']) assert.match(text, new RegExp(item));
  assert.doesNotMatch(text, /\{\{/);
});

test('the author\'s altbody wins; plain content and previews get none', () => {
  const withAlt = compileCampaign(campaign('<p>x</p>', { altbody: 'Text for {{ .Subscriber.Name }}' }), null, env);
  assert.equal(withAlt.render(sub('Cy'), true).altbody, 'Text for Cy');
  assert.equal(compileCampaign(campaign('x', { content_type: 'plain' }), null, env).render(sub('A'), true).altbody, null);
  assert.equal(compileCampaign(campaign('<p>x</p>'), null, env).render(sub('A')).altbody, null);
});

test('markdown campaigns derive their text from the converted HTML', () => {
  const text = compileCampaign(campaign('# Title\n\nHello **{{ .Subscriber.Name }}**', { content_type: 'markdown' }), null, env).render(sub('Dee'), true).altbody;
  assert.equal(text, 'Title\n\nHello Dee');
});
