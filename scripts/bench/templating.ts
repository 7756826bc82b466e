// Renders a realistic campaign (≈3 KB layout with ≈10 actions around a ≈2 KB body with
// tracked links) for many subscribers and prints BENCH lines.

import { campaignData, campaignMessageData, compileCampaignLayout, subscriberData, type RenderContext } from '../../src/templating/index.ts';

const css = Array.from({ length: 30 }, (_, i) => `  .c${i} { color: #${(i * 111111).toString(16).slice(0, 6).padEnd(6, '0')}; padding: ${i}px; margin: 0 auto; }`).join('\n');
const layout = `<!doctype html>
<html>
<head>
<meta charset="utf-8">
<title>{{ .Campaign.Subject }}</title>
<style>
body { background: #f0f1f3; font-family: Helvetica, Arial, sans-serif; font-size: 15px; line-height: 26px; margin: 0; color: #444; }
.wrap { background: #fff; padding: 30px; max-width: 525px; margin: 0 auto; border-radius: 5px; }
.footer { text-align: center; font-size: 12px; color: #888; }
${css}
</style>
</head>
<body style="background: #f0f1f3; margin: 0;">
<div class="gutter" style="padding: 30px;">&nbsp;</div>
<div class="wrap" style="background: #fff; padding: 30px; max-width: 525px; margin: 0 auto;">
  {{ template "content" . }}
</div>
<div class="footer" style="text-align: center; font-size: 12px; color: #888;">
  <p>{{ L.T "email.unsubHelp" }}
    <a href="{{ UnsubscribeURL . }}" style="color: #888;">{{ L.T "email.unsub" }}</a>
    &nbsp;&nbsp;
    <a href="{{ MessageURL . }}" style="color: #888;">{{ L.T "email.viewInBrowser" }}</a>
  </p>
  <p>Sent to {{ .Subscriber.Email }} on {{ .Campaign.Name }}</p>
</div>
<div class="gutter" style="padding: 30px;">&nbsp;{{ TrackView . }}</div>
</body>
</html>
`;

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
  i18n: { code: 'en', name: 'English', messages: { 'email.unsub': 'Unsubscribe', 'email.viewInBrowser': 'View in browser', 'email.unsubHelp': "Don't want to receive these e-mails?" } },
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
