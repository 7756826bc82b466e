// The examples of docs/templating.md, rendered by the engine as the doc says they render.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { campaignData, campaignMessageData, compileCampaignLayout, compileTemplate, subscriberData, trackBodyLinks, txMessageData } from '../../src/templating/index.ts';

const doc = readFileSync(new URL('../../docs/templating.md', import.meta.url), 'utf8');
const CAMPAIGN = '22222222-2222-4222-8222-222222222222';
const SUB = '11111111-1111-4111-8111-111111111111';
const ZERO = '00000000-0000-0000-0000-000000000000';
const sub = (name: string, attribs: Record<string, unknown> = {}) =>
  subscriberData({ id: 7, uuid: SUB, email: 'jane@example.com', name, attribs, created_at: '2026-03-04T10:00:00Z' });
const msg = (s = sub('Jane Doe', { plan: 'pro', tags: ['go', 'sql'], points: 2000000 })) =>
  campaignMessageData(campaignData({ id: 3, uuid: CAMPAIGN, name: 'N', subject: 'S' }), s);
const ctx = {
  rootURL: 'https://news.example.com/',
  trackLink: (_url: string, c: string, s: string) => `https://news.example.com/link/L/${c}/${s}`,
  now: () => new Date('2026-11-26T12:00:00Z'),
  i18n: { code: 'en', name: 'English', messages: { 'email.unsub': 'Unsubscribe' } },
};
const render = (src: string, data: unknown = msg()) => compileCampaignLayout('', src).render(data, ctx);

/** The doc's fenced html blocks, in order. */
const blocks = [...doc.matchAll(/```html\n([\s\S]*?)```/g)].map((m) => m[1]);

describe('docs/templating.md', () => {
  it('the opening example', () => {
    assert.equal(render(blocks[0]).replace(/\s+/g, ' ').trim(),
      `<p>Hello Jane,</p> <p>Thanks for being a Pro member.</p> <p><a href="https://news.example.com/link/L/${CAMPAIGN}/${ZERO}">See the offer</a></p> <p><a href="https://news.example.com/subscription/${CAMPAIGN}/${SUB}">Unsubscribe</a></p>`);
  });

  it('the syntax notes', () => {
    assert.equal(render('{{ .Subscriber.Attribs.nope }}|{{ .Subscriber.Attribs.city | default "there" }}'), '|there');
    assert.equal(compileTemplate('{{ .Subscriber.Attribs.points }} {{ printf "%.0f" .Subscriber.Attribs.points }}', { mode: 'text' }).render(msg()), '2e+06 2000000');
    assert.equal(render('{{ .Subscriber.CreatedAt.Time.Format "2 Jan 2006" }}'), '4 Mar 2026');
    assert.equal(compileTemplate('{{ .Subscriber.Name }}').render({ Subscriber: sub('<b>Bob</b>') }), '&lt;b&gt;Bob&lt;/b&gt;');
  });

  it('FirstName and LastName', () => {
    const names = (n: string) => compileTemplate('{{ .Subscriber.FirstName }}/{{ .Subscriber.LastName }}').render({ Subscriber: sub(n) });
    assert.equal(names('Jane Doe'), 'Jane/Doe');
    assert.equal(names('Mr J. Smith'), 'Smith/Smith');
    assert.equal(names('Jane Doe Jr'), 'Jane/Doe');
  });

  it("listmonk's functions and shorthands", () => {
    assert.equal(render('{{ TrackView }}|{{ ManageURL }}|{{ OptinURL }}|{{ MessageURL }}|{{ ArchiveURL }}|{{ RootURL }}'), [
      `<img src="https://news.example.com/campaign/${CAMPAIGN}/${ZERO}/px.png" width="1" height="1" style="display:none;max-height:0;max-width:0;opacity:0" alt="">`,
      `https://news.example.com/subscription/${CAMPAIGN}/${SUB}?manage=true`,
      `https://news.example.com/subscription/optin/${SUB}?`,
      `https://news.example.com/campaign/${CAMPAIGN}/${SUB}`,
      'https://news.example.com/archive',
      'https://news.example.com',
    ].join('|'));
    const tracked = `https://news.example.com/link/L/${CAMPAIGN}/${ZERO}`;
    assert.equal(render('<a href="https://example.com@TrackLink">a</a> {{ TrackLink "https://example.com" }}'), `<a href="${tracked}">a</a> ${tracked}`);
    assert.equal(render('{{ Date "2 January 2006" }}|{{ Date "" }}'), '26 November 2026|Thu Nov 26 12:00:00 2026');
    assert.equal(render('{{ L.T "email.unsub" }}|{{ L.T "no.such.key" }}|{{ L.Code }}'), 'Unsubscribe|no.such.key|en');
  });

  it('what is not available', () => {
    assert.throws(() => compileTemplate('{{ env "HOME" }}'), /function "env" not defined/);
    assert.throws(() => compileTemplate('{{ bcrypt "x" }}').render({}), /bcrypt is not available/);
  });

  it('the "track links" example', () => {
    const tracked = render(trackBodyLinks(blocks[1], { track: true, plain: false }));
    assert.match(tracked, new RegExp(`<a href="https://news.example.com/link/L/${CAMPAIGN}/${ZERO}">the post</a>`));
    assert.match(tracked, /<a href="https:\/\/example\.com\/terms">Terms<\/a>/);
    assert.match(tracked, new RegExp(`<a href="https://news.example.com/subscription/${CAMPAIGN}/${SUB}">Unsubscribe</a>`));
  });

  it('the examples', () => {
    assert.equal(render(blocks[3]).trim(), '<p>Hi Jane,</p>\n<p>Here is what happened up to 26 November 2026.</p>');
    assert.equal(render(blocks[4]).replace(/\s+/g, ' ').trim(), '<p>Your Pro features are below.</p> <p>You follow: go, sql.</p>');
    assert.match(render(blocks[4], msg(sub('Al', { plan: 'free' }))), new RegExp(`<a href="https://news.example.com/link/L/${CAMPAIGN}/${ZERO}">Upgrade to Pro</a>`));
    const subject = doc.match(/A subject \(text, not escaped\): `(.*)`\./)![1];
    assert.equal(compileTemplate(subject, { mode: 'text', funcs: 'campaign', shorthands: true }).render(msg(), ctx), 'Jane, your November digest');
    const tx = compileTemplate(blocks[5], { funcs: 'generic' }).render(txMessageData(sub('Jane Doe'), { data: { order_id: 'A-17', items: ['Book', 'Pen'] } }), ctx);
    assert.equal(tx.trim(), '<p>Order A-17 for Jane Doe:</p>\n<ul><li>Book</li><li>Pen</li></ul>');
  });
});
