import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  markdownToHtml,
  htmlToMarkdown,
  htmlToPlainText,
  plainToHtml,
  convertContent,
  ContentConversionError,
} from '../../src/content/convert.ts';

// Expected outputs follow goldmark as configured by listmonk (XHTML tags, heading ids,
// typographer with straight double quotes).
const markdownCases: Array<[string, string, string]> = [
  ['atx heading gets an id', '## Hi there', '<h2 id="hi-there">Hi there</h2>\n'],
  ['id drops punctuation and non-ASCII', '## Hello Wörld!', '<h2 id="hello-wrld">Hello Wörld!</h2>\n'],
  ['duplicate ids are numbered', '# A\n\n# A\n\n# A', '<h1 id="a">A</h1>\n<h1 id="a-1">A</h1>\n<h1 id="a-2">A</h1>\n'],
  ['empty id becomes "heading"', '# !!!', '<h1 id="heading">!!!</h1>\n'],
  ['setext heading id from its last line', 'Big\nTitle\n===', '<h1 id="title">Big\nTitle</h1>\n'],
  ['id from the raw source', '## Hello *World*', '<h2 id="hello-world">Hello <em>World</em></h2>\n'],
  ['paragraph', 'Hello world', '<p>Hello world</p>\n'],
  ['hard break is XHTML', 'one  \ntwo', '<p>one<br />\ntwo</p>\n'],
  ['thematic break is XHTML', '---', '<hr />\n'],
  ['strikethrough', '~~gone~~', '<p><del>gone</del></p>\n'],
  [
    'task list',
    '- [x] done\n- [ ] todo',
    '<ul>\n<li><input checked="" disabled="" type="checkbox" /> done</li>\n<li><input disabled="" type="checkbox" /> todo</li>\n</ul>\n',
  ],
  [
    'table with alignment',
    '| a | b |\n|:--|--:|\n| 1 | 2 |',
    '<table>\n<thead>\n<tr>\n<th align="left">a</th>\n<th align="right">b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td align="left">1</td>\n<td align="right">2</td>\n</tr>\n</tbody>\n</table>\n',
  ],
  ['table without body rows', '| a |\n|---|', '<table>\n<thead>\n<tr>\n<th>a</th>\n</tr>\n</thead>\n</table>\n'],
  ['image is XHTML', '![Logo](https://x.com/l.png "T")', '<p><img src="https://x.com/l.png" alt="Logo" title="T" /></p>\n'],
  ['raw HTML block passes through', '<div class="box">raw</div>', '<div class="box">raw</div>\n'],
  ['inline raw HTML passes through', 'a <b>b</b> c', '<p>a <b>b</b> c</p>\n'],
  ['double quotes stay straight', 'Say "hi"', '<p>Say "hi"</p>\n'],
  ['apostrophe', "it's", '<p>it&rsquo;s</p>\n'],
  ['single quotes', "'quoted'", '<p>&lsquo;quoted&rsquo;</p>\n'],
  ['dashes and ellipsis', 'a -- b --- c...', '<p>a &ndash; b &mdash; c&hellip;</p>\n'],
  ['angle quotes', 'x << y >> z', '<p>x &laquo; y &raquo; z</p>\n'],
  ['ampersand escaped, entities kept', 'A & B &amp; C &copy;', '<p>A &amp; B &amp; C &copy;</p>\n'],
  ['no typography in code', '`a -- "b"`', '<p><code>a -- &quot;b&quot;</code></p>\n'],
  ['bare URLs are not linked', 'see https://x.com and www.y.com', '<p>see https://x.com and www.y.com</p>\n'],
  ['autolink in angle brackets', '<https://x.com>', '<p><a href="https://x.com">https://x.com</a></p>\n'],
  [
    'fenced code',
    '```js\nconst a = "x";\n```',
    '<pre><code class="language-js">const a = &quot;x&quot;;\n</code></pre>\n',
  ],
];

for (const [name, md, html] of markdownCases) {
  test(`markdownToHtml: ${name}`, () => {
    assert.equal(markdownToHtml(md), html);
  });
}

test('markdownToHtml keeps template actions intact', () => {
  assert.equal(
    markdownToHtml('Go to {{ TrackLink "https://x" }} now, {{ .Subscriber.Attribs.first_name }}'),
    '<p>Go to {{ TrackLink "https://x" }} now, {{ .Subscriber.Attribs.first_name }}</p>\n',
  );
  assert.equal(
    markdownToHtml('{{ if eq .Subscriber.Attribs.city "X" }}yes -- it\'s{{ else }}no{{ end }}'),
    '<p>{{ if eq .Subscriber.Attribs.city "X" }}yes &ndash; it&rsquo;s{{ else }}no{{ end }}</p>\n',
  );
  assert.equal(markdownToHtml('[Read](https://x.com/a?b=1&c=2@TrackLink)'), '<p><a href="https://x.com/a?b=1&amp;c=2@TrackLink">Read</a></p>\n');
  assert.equal(markdownToHtml('See https://x.com@TrackLink'), '<p>See https://x.com@TrackLink</p>\n');
  // Better than listmonk: raw HTML with nested quotes in an action is still HTML.
  assert.equal(
    markdownToHtml('Click <a href="{{ TrackLink "https://x.com" }}">here</a>'),
    '<p>Click <a href="{{ TrackLink "https://x.com" }}">here</a></p>\n',
  );
  // A link destination holding an action becomes a link.
  assert.equal(markdownToHtml('[here]({{ TrackLink "https://x.com" }})'), '<p><a href="{{ TrackLink "https://x.com" }}">here</a></p>\n');
  // As goldmark, the heading id takes fragments of the action's source.
  assert.equal(markdownToHtml('## Hi {{ .Subscriber.Name }}'), '<h2 id="hi--subscribername-">Hi {{ .Subscriber.Name }}</h2>\n');
  assert.equal(markdownToHtml('{{/* a\nmulti-line "comment" */}}'), '<p>{{/* a\nmulti-line "comment" */}}</p>\n');
  assert.equal(markdownToHtml('{{ "}}" }} x'), '<p>{{ "}}" }} x</p>\n');
});

test('markdownToHtml leaves text that looks like its internal tokens alone', () => {
  assert.equal(markdownToHtml('Lmtpl0Z {{ .X }}'), '<p>Lmtpl0Z {{ .X }}</p>\n');
});

const htmlToMarkdownCases: Array<[string, string, string]> = [
  ['headings are ATX', '<h1>Title</h1><h2>Sub</h2>', '# Title\n\n## Sub'],
  ['emphasis', '<p><strong>a</strong> <em>b</em> <del>c</del></p>', '**a** _b_ ~~c~~'],
  ['links', '<p><a href="https://x.com" title="T">x</a></p>', '[x](https://x.com "T")'],
  ['lists', '<ul><li>a</li><li>b</li></ul><ol start="3"><li>c</li><li>d</li></ol>', '- a\n- b\n\n3. c\n4. d'],
  ['code block', '<pre><code class="language-js">a = 1;\n</code></pre>', '```js\na = 1;\n```'],
  ['markdown characters escaped', '<p>*not bold* 1. x</p>', '\\*not bold\\* 1. x'],
  ['tables kept as HTML', '<table><tr><td>1</td></tr></table>', '<table><tbody><tr><td>1</td></tr></tbody></table>'],
  ['scripts dropped', '<p>a</p><script>alert(1)</script><style>p{}</style>', 'a'],
  ['blank lines collapse', '<p>a</p><p></p><br><br><p>b</p>', 'a\n\nb'],
];

for (const [name, html, md] of htmlToMarkdownCases) {
  test(`htmlToMarkdown: ${name}`, async () => {
    assert.equal(await htmlToMarkdown(html), md);
  });
}

test('htmlToMarkdown keeps template actions intact', async () => {
  assert.equal(
    await htmlToMarkdown('<p>Hi {{ .Subscriber.Attribs.first_name }}, <a href="{{ TrackLink "https://x.com/a_b" }}">go</a> or <a href="https://y.com@TrackLink">y</a>*</p>'),
    'Hi {{ .Subscriber.Attribs.first_name }}, [go]({{ TrackLink "https://x.com/a_b" }}) or [y](https://y.com@TrackLink)\\*',
  );
  assert.equal(await htmlToMarkdown('<p>{{ if eq .Subscriber.Attribs.city "X" }}yes{{ end }}</p>'), '{{ if eq .Subscriber.Attribs.city "X" }}yes{{ end }}');
});

test('markdown → HTML → markdown preserves the structure', async () => {
  const md = [
    '# Launch day',
    '',
    'Hello {{ .Subscriber.FirstName }}, this is **big** news with a [link](https://x.com@TrackLink).',
    '',
    '## What changed',
    '',
    '- item one',
    '- item two',
    '  - nested',
    '',
    '1. first',
    '2. second',
    '',
    '- [x] done',
    '- [ ] todo',
    '',
    '> quoted',
    '',
    '```sh',
    'echo "hi"',
    '```',
    '',
    '---',
    '',
    '![Logo](https://x.com/l.png)',
  ].join('\n');
  const html = markdownToHtml(md);
  assert.equal(await htmlToMarkdown(html), md);
  assert.equal(markdownToHtml(await htmlToMarkdown(html)), html);
});

test('htmlToPlainText gives readable text with links', () => {
  const html = [
    '<html><head><title>T</title><style>p { color: red }</style></head><body>',
    '<h1>Big news</h1>',
    '<p>Hello <b>there</b>, read <a href="https://x.com/post">the post</a> or visit <a href="https://x.com">https://x.com</a>.</p>',
    '<ul><li>one</li><li>two</li></ul>',
    '<p><img src="https://x.com/px.png" alt=""><img src="https://x.com/l.png" alt="Our logo"></p>',
    '</body></html>',
  ].join('');
  assert.equal(
    htmlToPlainText(html),
    'Big news\n\nHello there, read the post <https://x.com/post> or visit https://x.com.\n\n * one\n * two\n\nOur logo',
  );
});

test('htmlToPlainText wraps long paragraphs but never splits a template action', () => {
  const words = Array.from({ length: 30 }, (_, i) => `word${i}`).join(' ');
  const text = htmlToPlainText(`<p>${words} {{ .Subscriber.Attribs.very_long_attribute_name | default "friend of ours" }} ${words}</p>`);
  for (const line of text.split('\n')) {
    if (!line.includes('{{')) assert.ok(line.length <= 78, `line too long: ${line}`);
  }
  assert.ok(text.includes('{{ .Subscriber.Attribs.very_long_attribute_name | default "friend of ours" }}'));
  assert.ok(text.split('\n').length > 2);
  assert.equal(
    htmlToPlainText('<p><a href="{{ TrackLink "https://x.com" }}">Read</a> &amp; {{ UnsubscribeURL }}</p>'),
    'Read <{{ TrackLink "https://x.com" }}> & {{ UnsubscribeURL }}',
  );
});

test('plainToHtml escapes text and builds paragraphs', () => {
  assert.equal(
    plainToHtml('Hi {{ .Subscriber.Name }} & "friends" <3\nsecond line\n\n\nNew paragraph\r\n'),
    '<p>Hi {{ .Subscriber.Name }} &amp; &quot;friends&quot; &lt;3<br />\nsecond line</p>\n<p>New paragraph</p>',
  );
  assert.equal(plainToHtml('   \n\n'), '');
});

test('convertContent implements the content-conversion request', async () => {
  assert.equal(await convertContent('markdown', 'html', '# Launch day\n\n- item one'), '<h1 id="launch-day">Launch day</h1>\n<ul>\n<li>item one</li>\n</ul>\n');
  assert.equal(await convertContent('markdown', 'richtext', 'Hi *x*'), '<p>Hi <em>x</em></p>\n');
  assert.equal(await convertContent('markdown', 'plain', '# Hi\n\n[a](https://x.com)'), 'Hi\n\na <https://x.com>');
  assert.equal(await convertContent('html', 'markdown', '<h2>Hi</h2>'), '## Hi');
  assert.equal(await convertContent('richtext', 'plain', '<p>a<br>b</p>'), 'a\nb');
  assert.equal(await convertContent('richtext', 'html', '<p>x</p>'), '<p>x</p>');
  assert.equal(await convertContent('plain', 'richtext', 'a\nb'), '<p>a<br />\nb</p>');
  assert.equal(await convertContent('plain', 'markdown', '*a* # b'), '\\*a\\* # b');
  assert.equal(await convertContent('visual', 'visual', '<html></html>'), '<html></html>');
  assert.equal(await convertContent('markdown', 'markdown', '# x'), '# x');
});

test('convertContent rejects unknown types and unsupported pairs', async () => {
  const cases: Array<[unknown, unknown, unknown, RegExp]> = [
    ['visual', 'html', '<p>x</p>', /visual content to html is not supported/],
    ['markdown', 'visual', '# x', /markdown content to visual is not supported/],
    ['plain', 'visual', 'x', /not supported/],
    ['rtf', 'html', 'x', /'from' must be one of richtext, html, markdown, plain, visual/],
    ['markdown', undefined, 'x', /'to' must be one of/],
    ['markdown', 'html', 42, /'body' must be a string/],
  ];
  for (const [from, to, body, message] of cases) {
    await assert.rejects(convertContent(from, to, body), (err: unknown) => err instanceof ContentConversionError && message.test(err.message));
  }
});

test('htmlToPlainText puts link targets in <…>, never in (…) where a linkifier would take the `)`', () => {
  const text = htmlToPlainText('<p>Please <a href="https://x.com/subscription/optin/11111111-2222-3333-4444-555555555555?l=a">confirm</a></p>');
  // A long URL wraps onto a line of its own.
  assert.equal(text, 'Please confirm\n<https://x.com/subscription/optin/11111111-2222-3333-4444-555555555555?l=a>');
  assert.doesNotMatch(text, /\(https?:/);
});
