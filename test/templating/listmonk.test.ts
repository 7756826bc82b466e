// listmonk functions, function sets, shorthands, composition and the data model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  applyShorthands, campaignData, campaignMessageData, compileCampaignLayout, compileTemplate, containsTemplateExpression,
  hasContentPlaceholder, subscriberData, TemplateError, txMessageData, firstName, lastName, type RenderContext,
} from '../../src/templating/index.ts';
import { defaultTemplates } from '../../src/templates/defaults/index.ts';

process.env.TZ = 'UTC';

const sub = subscriberData({
  id: 7, uuid: 'sub-uuid', email: 'tom@example.com', name: 'Tom & Jerry', attribs: { city: 'Bengaluru', n: 1000000 },
  created_at: '2024-01-02T03:04:05.000Z',
});
const camp = campaignData({ id: 3, uuid: 'camp-uuid', name: 'News', subject: 'Hello {{ .Subscriber.Name }}', tags: ['a', 'b'] });
const msg = campaignMessageData(camp, sub);
const registered: string[] = [];
const ctx: RenderContext = {
  rootURL: 'https://lists.example.com/',
  logoURL: 'https://lists.example.com/logo.png',
  individualTracking: true,
  trackLink: (url, c, s) => {
    registered.push(url);
    return `https://lists.example.com/link/L1/${c}/${s}`;
  },
  i18n: { code: 'en', name: 'English', messages: { 'email.unsub': 'Unsubscribe', 'x.plural': 'apple | apples', 'x.hi': 'Hi {name}, from {from}' } },
  now: () => new Date('2024-01-02T03:04:05Z'),
};

function campaign(src: string, c: RenderContext = ctx): string {
  return compileTemplate(src, { mode: 'html', funcs: 'campaign', shorthands: true }).render(msg, c);
}

const cases: [name: string, src: string, want: string][] = [
  ['TrackLink', '<a href="{{ TrackLink "https://x.com/a" . }}">', '<a href="https://lists.example.com/link/L1/camp-uuid/sub-uuid">'],
  ['TrackLink shorthand', '{{ TrackLink "https://x.com/a" }}', 'https://lists.example.com/link/L1/camp-uuid/sub-uuid'],
  ['@TrackLink shorthand', '<a href="https://x.com/a?b=1&amp;c=2@TrackLink">x</a>', '<a href="https://lists.example.com/link/L1/camp-uuid/sub-uuid">x</a>'],
  ['TrackView', '{{ TrackView . }}', '<img src="https://lists.example.com/campaign/camp-uuid/sub-uuid/px.png" width="1" height="1" style="display:none;max-height:0;max-width:0;opacity:0" alt="">'],
  ['UnsubscribeURL shorthand', '<a href="{{ UnsubscribeURL }}">', '<a href="https://lists.example.com/subscription/camp-uuid/sub-uuid">'],
  ['ManageURL', '<a href="{{ManageURL}}">', '<a href="https://lists.example.com/subscription/camp-uuid/sub-uuid?manage=true">'],
  ['OptinURL has a trailing ?', '<a href="{{ OptinURL . }}l=abc">', '<a href="https://lists.example.com/subscription/optin/sub-uuid?l=abc">'],
  ['MessageURL', '{{ MessageURL . }}', 'https://lists.example.com/campaign/camp-uuid/sub-uuid'],
  ['ArchiveURL and RootURL', '{{ ArchiveURL }} {{ RootURL }}', 'https://lists.example.com/archive https://lists.example.com'],
  ['URL in text is escaped', '{{ ManageURL . }}', 'https://lists.example.com/subscription/camp-uuid/sub-uuid?manage=true'],
  ['Date', '{{ Date "2006-01-02 15:04" }}|{{ Date "" }}', '2024-01-02 03:04|Tue Jan  2 03:04:05 2024'],
  ['L.T', '{{ L.T "email.unsub" }} {{ L.T "missing.key" }} {{ L.T "x.plural" }}', 'Unsubscribe missing.key apple'],
  ['L.Ts and L.Tc', '{{ L.Ts "x.hi" "name" .Subscriber.Name "from" "us" }}|{{ L.Ts "x.hi" "odd" }}|{{ L.Tc "x.plural" 2 }}', 'Hi Tom &amp; Jerry, from us|x.hi: Invalid arguments|apples'],
  ['L fields', '{{ L.Code }} {{ L.Name }}', 'en English'],
  ['Safe', '{{ Safe "<!--[if mso]><p><![endif]-->" }}', '<!--[if mso]><p><![endif]-->'],
  ['subscriber fields', '{{ .Subscriber.ID }} {{ .Subscriber.Email }} {{ .Subscriber.Attribs.city }} {{ .Subscriber.Status }}', '7 tom@example.com Bengaluru enabled'],
  ['FirstName LastName', '{{ .Subscriber.FirstName }}/{{ .Subscriber.LastName }}', 'Tom/Jerry'],
  ['campaign fields', '{{ .Campaign.UUID }} {{ .Campaign.Name }} {{ .Campaign.Subject }} {{ .Campaign.Tags }}', 'camp-uuid News Hello {{ .Subscriber.Name }} [a b]'],
  ['null time', '{{ .Subscriber.CreatedAt }}|{{ .Subscriber.CreatedAt.Time.Format "2006-01-02" }}|{{ .Subscriber.UpdatedAt.Valid }}', '{2024-01-02 03:04:05 &#43;0000 UTC true}|2024-01-02|false'],
  ['unknown struct field', '{{ with .Subscriber }}{{ if true }}ok{{ end }}{{ end }}', 'ok'],
];

for (const [name, src, want] of cases) {
  test(`listmonk: ${name}`, () => {
    assert.equal(campaign(src), want);
  });
}

test('listmonk: TrackLink registers the URL with &amp; decoded', () => {
  registered.length = 0;
  campaign('<a href="https://x.com/a?b=1&amp;c=2@TrackLink">x</a>');
  assert.deepEqual(registered, ['https://x.com/a?b=1&c=2']);
});

test('listmonk: tracking off and anonymous tracking', () => {
  const off = { ...ctx, disableTracking: true };
  assert.equal(campaign('{{ TrackLink "https://x.com/a" . }}|{{ TrackView . }}', off), 'https://x.com/a|');
  const anon = { ...ctx, individualTracking: false };
  assert.equal(campaign('{{ TrackLink "https://x.com/a" . }}', anon), 'https://lists.example.com/link/L1/camp-uuid/00000000-0000-0000-0000-000000000000');
  assert.match(campaign('{{ TrackView . }}', anon), /campaign\/camp-uuid\/00000000-0000-0000-0000-000000000000\/px\.png/);
  const failing = { ...ctx, trackLink: () => null };
  assert.equal(campaign('{{ TrackLink "https://x.com/a" . }}', failing), 'https://x.com/a');
});

test('listmonk: URL functions without the message fail at render', () => {
  const t = compileTemplate('{{- UnsubscribeURL }}', { funcs: 'campaign', shorthands: true });
  assert.throws(() => t.render(msg, ctx), /wrong number of args for UnsubscribeURL: want 1 got 0/);
});

test('listmonk: shorthand rewrites', () => {
  assert.equal(applyShorthands('{{TrackLink "https://a.com/x"}}'), '{{ TrackLink "https://a.com/x" . }}');
  assert.equal(applyShorthands('https://a.com/x@y@TrackLink'), '{{ TrackLink "https://a.com/x@y" . }}');
  assert.equal(applyShorthands("href='https://a.com/it's@TrackLink'"), `href='{{ TrackLink "https://a.com/it's" . }}'`);
  assert.equal(applyShorthands('{{TrackView}} {{ UnsubscribeURL }} {{ManageURL }} {{ OptinURL}} {{ MessageURL }}'), '{{ TrackView . }} {{ UnsubscribeURL . }} {{ ManageURL . }} {{ OptinURL . }} {{ MessageURL . }}');
  assert.equal(applyShorthands('{{- UnsubscribeURL -}}'), '{{- UnsubscribeURL -}}');
});

test('listmonk: shorthands are off unless asked for', () => {
  const t = compileTemplate('https://x.com@TrackLink', { funcs: 'campaign' });
  assert.equal(t.render(msg, ctx), 'https://x.com@TrackLink');
});

test('function sets: tx templates cannot use campaign functions', () => {
  for (const fn of ['TrackLink "x" .', 'TrackView .', 'UnsubscribeURL .', 'RootURL', 'LogoURL']) {
    assert.throws(() => compileTemplate(`{{ ${fn} }}`, { funcs: 'generic' }), (e: unknown) => e instanceof TemplateError && /function "\w+" not defined/.test(e.message), fn);
  }
  assert.equal(compileTemplate('{{ Date "2006" }} {{ L.T "k" }} {{ Safe "<b>" }} {{ upper "x" }}', { funcs: 'generic' }).render({}, ctx), '2024 k <b> X');
});

test('function sets: system templates have RootURL and LogoURL but not TrackLink', () => {
  const t = compileTemplate('<img src="{{ LogoURL }}"><a href="{{ RootURL }}/admin/campaigns/{{ index . "ID" }}">', { funcs: 'system' });
  assert.equal(t.render({ ID: 5n }, ctx), '<img src="https://lists.example.com/logo.png"><a href="https://lists.example.com/admin/campaigns/5">');
  assert.throws(() => compileTemplate('{{ TrackLink "x" . }}', { funcs: 'system' }), /function "TrackLink" not defined/);
});

test('no env, expandenv or getHostByName', () => {
  for (const fn of ['env "HOME"', 'expandenv "$HOME"', 'getHostByName "localhost"']) {
    assert.throws(() => compileTemplate(`{{ ${fn} }}`, { funcs: 'campaign' }), /not defined/);
  }
});

test('subject: text engine, no escaping, <no value> for missing keys', () => {
  const t = compileTemplate('Hi {{ .Subscriber.Name }} {{ .Subscriber.Attribs.nope }}', { mode: 'text', funcs: 'campaign', shorthands: true });
  assert.equal(t.render(msg, ctx), 'Hi Tom & Jerry <no value>');
});

test('tx template data', () => {
  const tx = txMessageData(subscriberData({ uuid: 'u', email: 'a@b.c', name: 'Ann' }), { data: { order_id: 'A-1', shipping_date: '2024-05-01' } });
  const t = compileTemplate('<p>Hello {{ .Subscriber.Name }}, order {{ .Tx.Data.order_id }} ships {{ .Tx.Data.shipping_date }}</p>', { funcs: 'generic' });
  assert.equal(t.render(tx, ctx), '<p>Hello Ann, order A-1 ships 2024-05-01</p>');
});

test('FirstName / LastName use UTF-8 byte length', () => {
  assert.equal(firstName('Jo Anne Smith'), 'Anne');
  assert.equal(firstName('Dr. John Smith'), 'Dr.');
  assert.equal(firstName('Al Li'), 'Al Li');
  assert.equal(firstName('Zö Li'), 'Zö');
  assert.equal(lastName('Jo Anne Smith'), 'Smith');
  assert.equal(lastName('Mary Ng'), 'Mary');
  // Edges: empty chunks from repeated, leading or trailing spaces; CJK (3 bytes); emoji (4 bytes).
  for (const [name, first, last] of [
    ['', '', ''], [' ', ' ', ' '], ['  Ann  Lee  ', 'Ann', 'Lee'], ['李 四五', '李', '四五'],
    ['a \u{1F600} b', '\u{1F600}', '\u{1F600}'], ['Al Bo Li', 'Al Bo Li', 'Al Bo Li'],
  ]) {
    assert.equal(firstName(name), first, `firstName ${JSON.stringify(name)}`);
    assert.equal(lastName(name), last, `lastName ${JSON.stringify(name)}`);
  }
});

test('placeholder and expression checks', () => {
  assert.equal(hasContentPlaceholder('<b>{{ template "content" . }}</b>'), true);
  assert.equal(hasContentPlaceholder('{{template "content" .}}'), true);
  assert.equal(hasContentPlaceholder('{{ template\n "content"  . }}'), true);
  assert.equal(hasContentPlaceholder('{{- template "content" . -}}'), false);
  assert.equal(hasContentPlaceholder('{{ template "content" }}'), false);
  assert.equal(containsTemplateExpression('a {{ b }}'), true);
  assert.equal(containsTemplateExpression('}} {{'), false);
  assert.equal(containsTemplateExpression('just {{ text'), false);
});

const layout = `<!doctype html>
<html><head><title>{{ .Campaign.Subject }}</title></head>
<body>
<div class="wrap">{{ template "content" . }}</div>
<!-- footer -->
<div class="footer"><a href="{{ UnsubscribeURL . }}">{{ L.T "email.unsub" }}</a>
<a href="{{ MessageURL . }}">view</a></div>
<div class="gutter">{{ TrackView . }}</div>
</body></html>`;

test('campaign layout wraps the body', () => {
  const t = compileCampaignLayout(layout, '<p>Hi {{ .Subscriber.FirstName }} from {{ .Subscriber.Attribs.city }}</p>\n<a href="https://x.com@TrackLink">go</a>');
  assert.equal(t.render(msg, ctx), `<!doctype html>
<html><head><title>Hello {{ .Subscriber.Name }}</title></head>
<body>
<div class="wrap"><p>Hi Tom from Bengaluru</p>
<a href="https://lists.example.com/link/L1/camp-uuid/sub-uuid">go</a></div>

<div class="footer"><a href="https://lists.example.com/subscription/camp-uuid/sub-uuid">Unsubscribe</a>
<a href="https://lists.example.com/campaign/camp-uuid/sub-uuid">view</a></div>
<div class="gutter"><img src="https://lists.example.com/campaign/camp-uuid/sub-uuid/px.png" width="1" height="1" style="display:none;max-height:0;max-width:0;opacity:0" alt=""></div>
</body></html>`);
});

test('campaign layout: templates defined in the layout are callable from the body', () => {
  const t = compileCampaignLayout('{{ define "btn" }}<a class="button" href="{{ . }}">Go</a>{{ end }}{{ template "content" . }}', '{{ template "btn" "https://x.com" }}');
  assert.equal(t.render(msg, ctx), '<a class="button" href="https://x.com">Go</a>');
});

test('campaign layout: templates defined in the body are lost', () => {
  assert.throws(() => compileCampaignLayout('{{ template "content" . }}', '{{ define "x" }}X{{ end }}{{ template "x" }}').render(msg, ctx), (e: unknown) => e instanceof TemplateError && /no such template "x"|"x" not defined/.test(e.message));
});

test('campaign layout: placeholder twice renders the body twice; empty layout is just the body', () => {
  assert.equal(compileCampaignLayout('{{ template "content" . }}|{{ template "content" . }}', 'B').render(msg, ctx), 'B|B');
  assert.equal(compileCampaignLayout('', '<p>{{ .Subscriber.Email }}</p>').render(msg, ctx), '<p>tom@example.com</p>');
});

test('campaign layout: body inside <title> is escaped as RCDATA', () => {
  assert.equal(compileCampaignLayout('<title>{{ template "content" . }}</title>', '<b>x</b>').render(msg, ctx), '<title>&lt;b>x&lt;/b></title>');
});

test('campaign layout: syntax error in the body names the content template', () => {
  assert.throws(() => compileCampaignLayout(layout, '<p>\n{{ if }}</p>'), /template: content:2:\d+: missing value for if/);
});

// {{ define "content" }}…{{ end }}{{ template "content" . }}, which listmonk client libraries
// send for every template type, composed as listmonk composes each type: campaign and archive
// templates are layouts ("base") that the campaign body replaces "content" in (AddParseTree),
// unless the body is empty; tx templates are parsed as "base" (body and subject); a visual
// template is a campaign body ("content"), where Go refuses a second "content".
const DEFINE_AND_CALL = '{{ define "content" }}<p>Hi {{ .Subscriber.FirstName }}</p>{{ end }}{{ template "content" . }}';
const archiveLayout = defaultTemplates.find((t) => t.name === 'Default archive template')!.body;
const txMsg = txMessageData(subscriberData({ uuid: 'u', email: 'a@b.c', name: 'Ann Lee' }), { data: {} });

const composition: [name: string, render: () => string, want: string | RegExp][] = [
  ['campaign template defining "content": the body takes its place', () => compileCampaignLayout(DEFINE_AND_CALL, '<b>body</b>').render(msg, ctx), '<b>body</b>'],
  ['campaign template defining "content", empty body: its own "content"', () => compileCampaignLayout(DEFINE_AND_CALL, ' \n').render(msg, ctx), '<p>Hi Tom</p>'],
  ['campaign template with a "content" block', () => compileCampaignLayout('<div>{{ block "content" . }}default{{ end }}</div>', 'B').render(msg, ctx), '<div>B</div>'],
  ['campaign template with a "content" block, empty body', () => compileCampaignLayout('<div>{{ block "content" . }}default{{ end }}</div>', '').render(msg, ctx), '<div>default</div>'],
  ['campaign template defining "content" and more, the body calling the others', () => compileCampaignLayout(`{{ define "btn" }}[{{ . }}]{{ end }}${DEFINE_AND_CALL}`, '{{ template "btn" "go" }}').render(msg, ctx), '[go]'],
  ['archive template defining "content"', () => compileCampaignLayout(`{{ define "content" }}<p>placeholder</p>{{ end }}${archiveLayout}`, '<p>archived body</p>').render(msg, ctx), /<p>archived body<\/p>/],
  ['tx template (parsed as "base", as listmonk does)', () => compileTemplate(DEFINE_AND_CALL, { name: 'base' }).render(txMsg, ctx), '<p>Hi Ann</p>'],
  ['tx subject (text, "base")', () => compileTemplate('{{ define "content" }}Hi {{ .Subscriber.Name }}{{ end }}{{ template "content" . }}', { name: 'base', mode: 'text' }).render(txMsg, ctx), 'Hi Ann Lee'],
  ['visual template (a campaign body, "content"): Go refuses it', () => compileCampaignLayout('', DEFINE_AND_CALL).render(msg, ctx), /template: content:1:\d+: template: multiple definition of template "content"/],
  ['a tx template parsed as "content": Go refuses it', () => compileTemplate(DEFINE_AND_CALL, { name: 'content' }).render(txMsg, ctx), /multiple definition of template "content"/],
];

for (const [name, render, want] of composition) {
  test(`define and call: ${name}`, () => {
    if (typeof want === 'string') return assert.equal(render(), want);
    let out: string;
    try {
      out = render();
    } catch (e) {
      assert.ok(e instanceof TemplateError, String(e));
      out = e.message;
    }
    assert.match(out, want);
    assert.doesNotMatch(out, /nested deeper/);
  });
}

test('visual-style template: MSO comments stripped, Safe keeps them', () => {
  const t = compileTemplate('<!--[if mso]><table><tr><td><![endif]-->{{ Safe "<!--[if mso]></td></tr></table><![endif]-->" }}<h1>{{ .Subscriber.Name }}</h1>', { funcs: 'campaign', shorthands: true });
  assert.equal(t.render(msg, ctx), '<!--[if mso]></td></tr></table><![endif]--><h1>Tom &amp; Jerry</h1>');
});

test('Safe on literals: same steps, context escaping and render-time errors as a call per render', () => {
  assert.throws(() => compileTemplate('{{ Safe "<b>" }}', { limits: { maxSteps: 1 } }).render({}), /render exceeded 1 steps/);
  assert.equal(compileTemplate('x{{ Safe "<b>" }}y', { limits: { maxSteps: 2 } }).render({}), 'x<b>y');
  assert.equal(compileTemplate('<p title="{{ Safe "<b>a</b>&" }}">{{ Safe "" }}</p>').render({}), '<p title="a&"></p>');
  const bad = compileTemplate('a{{ if .x }}{{ Safe 1 }}{{ end }}');
  assert.equal(bad.render({}), 'a');
  assert.throws(() => bad.render({ x: true }), /executing "content" at <Safe 1>: wrong type for value; expected string; got int/);
  assert.throws(() => compileTemplate('{{ if .x }}{{ Safe "a" "b" }}{{ end }}').render({ x: true }), /wrong number of args for Safe: want 1 got 2/);
});
