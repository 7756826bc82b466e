// The templates install ships compile and render with our engine, the way campaigns and tx
// messages use them (src/rendering/message.ts), with the English language pack behind `L`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileCampaign, compileTx, type RenderCampaign, type RenderEnv, type RenderSubscriber } from '../../src/rendering/message.ts';
import { templateCatalog } from '../../src/i18n/index.ts';
import { defaultTemplates } from '../../src/templates/defaults/index.ts';
import { SAMPLE_BODY } from '../../src/templates/service.ts';

const ROOT = 'https://news.example.org';
const CAMPAIGN_UUID = '5f0c1c9e-3d43-4c5e-9a52-2f3c5d0b7e11';
const ZERO = '00000000-0000-0000-0000-000000000000';
const tracked: string[] = [];

const env: RenderEnv = {
  rootUrl: ROOT,
  individualTracking: false,
  disableTracking: false,
  i18n: templateCatalog('en'),
  trackLink: (url, camp, sub) => {
    tracked.push(url);
    return `${ROOT}/link/LINK/${camp}/${sub}`;
  },
};

const reader: RenderSubscriber = {
  id: 7, uuid: '9a1b2c3d-4e5f-4a6b-8c7d-0e1f2a3b4c5d', email: 'ada@example.com', name: 'Ada Lovelace',
  attribs: { city: 'London' }, status: 'enabled', created_at: '2025-01-01T00:00:00.000Z', updated_at: null,
};

function campaign(body: string, contentType: 'richtext' | 'visual'): RenderCampaign {
  return {
    id: 1, uuid: CAMPAIGN_UUID, name: 'Spring', subject: 'Spring news', from_email: 'News <news@example.org>', body, altbody: null,
    content_type: contentType, headers: [], tags: [], attribs: {}, type: 'regular', messenger: 'email', template_id: 1,
    send_at: null, created_at: '2025-03-01T00:00:00.000Z', updated_at: '2025-03-01T00:00:00.000Z', started_at: null,
    to_send: 1, sent: 0, archive: false, archive_slug: null,
  };
}

const shipped = (name: string) => {
  const t = defaultTemplates.find((x) => x.name === name);
  assert.ok(t, name);
  return t;
};

function assertRendered(html: string): void {
  assert.match(html, /^<!doctype html>/);
  assert.ok(!html.includes('{{') && !html.includes('}}'), 'no template action is left');
  assert.ok(!/\b(email|public)\.[a-zA-Z]+\b(?![^<]*>)/.test(html.replace(/<style[\s\S]*?<\/style>/g, '')), 'no untranslated i18n key in the text');
}

test('the default campaign template wraps a body with unsubscribe, web-view links and the tracking pixel', () => {
  tracked.length = 0;
  const html = compileCampaign(campaign(SAMPLE_BODY, 'richtext'), shipped('Default campaign template').body, env).render(reader).html;
  assertRendered(html);
  assert.ok(html.includes('<title>Spring news</title>'));
  assert.ok(html.includes('Hello Ada Lovelace,'), 'the body is inside, rendered for the reader');
  assert.ok(html.includes(`<a href="${ROOT}/subscription/${CAMPAIGN_UUID}/${reader.uuid}"`), 'unsubscribe link');
  assert.match(html, new RegExp(`href="${ROOT}/subscription/${CAMPAIGN_UUID}/${reader.uuid}"[^>]*>Unsubscribe</a>`));
  assert.match(html, new RegExp(`href="${ROOT}/campaign/${CAMPAIGN_UUID}/${reader.uuid}"[^>]*>Open in your browser</a>`), 'web-view link');
  assert.ok(html.includes(`<img src="${ROOT}/campaign/${CAMPAIGN_UUID}/${ZERO}/px.png"`), 'tracking pixel (anonymous without individual tracking)');
  assert.deepEqual(tracked, ['https://example.com/'], "the body's tracked link");
  assert.ok(html.includes(`href="${ROOT}/link/LINK/${CAMPAIGN_UUID}/${ZERO}"`));
});

test('the default archive template wraps a body without unsubscribe link or pixel', () => {
  const html = compileCampaign(campaign(SAMPLE_BODY, 'richtext'), shipped('Default archive template').body, env).render(reader).html;
  assertRendered(html);
  assert.ok(html.includes('Hello Ada Lovelace,'));
  assert.ok(html.includes(`href="${ROOT}/archive"`));
  assert.ok(html.includes('Newsletter archive'));
  assert.ok(!html.includes('/subscription/') && !html.includes('px.png'));
});

test('the sample tx template renders subject and body from .Subscriber and .Tx.Data', () => {
  const t = shipped('Sample transactional template');
  const out = compileTx(t.subject, t.body, null, env).render(reader, {
    data: { order_id: 'A-1042', shipping_date: '2025-04-02', items: ['Tea', 'Cups <2>'] },
  });
  assert.equal(out.subject, 'Welcome Ada Lovelace');
  assertRendered(out.body);
  assert.ok(out.body.includes('Welcome, Ada Lovelace!'));
  assert.ok(out.body.includes('<strong>A-1042</strong>') && out.body.includes('<strong>2025-04-02</strong>'));
  assert.ok(out.body.includes('<li>Tea</li>') && out.body.includes('<li>Cups &lt;2&gt;</li>'), 'items listed and escaped');
});

test('the sample visual template renders as a full document with its links and pixel', () => {
  tracked.length = 0;
  const html = compileCampaign(campaign(shipped('Sample visual template').body, 'visual'), null, env).render(reader).html;
  assertRendered(html);
  assert.ok(html.includes('Hi Ada') && html.includes('<strong>Ada Lovelace</strong>'));
  assert.match(html, new RegExp(`href="${ROOT}/subscription/${CAMPAIGN_UUID}/${reader.uuid}"[^>]*>Unsubscribe</a>`));
  assert.ok(html.includes(`${ROOT}/campaign/${CAMPAIGN_UUID}/${ZERO}/px.png`));
  assert.deepEqual([...new Set(tracked)], ['https://example.com']);
});
