// Renders the default campaign template around a ≈2 KB body with tracked links for many
// subscribers and prints BENCH lines. `npm run bench:templating` runs it bundled, as the
// server runs (scripts/bench/bundled.ts).

import { templateCatalog } from '../../src/i18n/index.ts';
import { defaultTemplates } from '../../src/templates/defaults/index.ts';
import { campaignData, campaignMessageData, compileCampaignLayout, subscriberData, type RenderContext } from '../../src/templating/index.ts';

// The layout is the default campaign template shipped at install.
const layout = defaultTemplates.find((t) => t.isDefault)!.body;

const para = '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.</p>\n';
const body = `<h1>Hello {{ .Subscriber.FirstName }}!</h1>
<p>We hope the weather in {{ .Subscriber.Attribs.city }} is fine. Your plan: {{ .Subscriber.Attribs.plan | default "free" }}.</p>
${para.repeat(6)}<p><a href="https://example.com/offers?id=1&amp;utm=mail@TrackLink">See the offers</a> or
<a href="{{ TrackLink "https://example.com/blog" }}">read the blog</a>.</p>
{{ if .Subscriber.Attribs.vip }}<p class="vip">Thanks for being a VIP.</p>{{ end }}
${para.repeat(3)}`;

const tpl = compileCampaignLayout(layout, body);
const camp = campaignData({ id: 1, uuid: '2f4d0a86-2d43-4a3c-8f4c-7b1d1c9ad0a1', name: 'November news', subject: 'News for {{ .Subscriber.Name }}' });
const links = new Map<string, string>();
const ctx: RenderContext = {
  rootURL: 'https://lists.example.com',
  individualTracking: true,
  i18n: templateCatalog('en'),
  trackLink: (url, c, s) => {
    let id = links.get(url);
    if (!id) links.set(url, (id = `link-${links.size}`));
    return `https://lists.example.com/link/${id}/${c}/${s}`;
  },
};
const N = 2000;
const msgs = Array.from({ length: N }, (_, i) =>
  campaignMessageData(camp, subscriberData({ id: i + 1, uuid: `uuid-${i}`, email: `user${i}@example.com`, name: `User Number ${i}`, attribs: { city: i % 2 ? 'Paris' : 'Lagos', plan: i % 3 ? 'pro' : '', vip: i % 5 === 0 } })));

let bytes = 0;
for (let i = 0; i < N; i++) bytes += tpl.render(msgs[i], ctx).length; // warm-up
const rounds = 10;
const start = process.hrtime.bigint();
for (let r = 0; r < rounds; r++) for (let i = 0; i < N; i++) bytes += tpl.render(msgs[i], ctx).length;
const ns = Number(process.hrtime.bigint() - start);
const renders = rounds * N;
console.log(`layout ${layout.length} B, body ${body.length} B, output ${tpl.render(msgs[0], ctx).length} B (${bytes} total)`);
console.log(`BENCH renders_per_s ${Math.round(renders / (ns / 1e9))}`);
console.log(`BENCH render_us ${(ns / 1e3 / renders).toFixed(2)}`);
