// html/template contextual escaping as listmonk's html engine applies it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, TemplateError } from '../../src/templating/index.ts';

function html(src: string, data: unknown = {}): string {
  return compileTemplate(src, { mode: 'html', name: 'body' }).render(data);
}

const cases: [name: string, src: string, data: unknown, want: string][] = [
  ['text escaping', '<p>{{ . }}</p>', `Tom & Jerry <x> "q" 'a' +`, '<p>Tom &amp; Jerry &lt;x&gt; &#34;q&#34; &#39;a&#39; &#43;</p>'],
  ['number exponent escaped', '{{ . }}', 1000000, '1e&#43;06'],
  ['missing key prints nothing', '[{{ .nope }}]', {}, '[]'],
  ['json null prints nothing', '[{{ .n }}]', { n: null }, '[]'],
  ['quoted attribute', '<p title="{{ . }}">', 'a"b<c>', '<p title="a&#34;b&lt;c&gt;">'],
  ['single-quoted attribute', "<p title='{{ . }}'>", "it's", "<p title='it&#39;s'>"],
  ['unquoted attribute', '<p title={{ . }}>', 'a b=c', '<p title=a&#32;b&#61;c>'],
  ['unquoted empty attribute', '<p title={{ . }}>', '', '<p title=ZgotmplZ>'],
  ['href unsafe scheme', '<a href="{{ . }}">x</a>', 'javascript:alert(1)', '<a href="#ZgotmplZ">x</a>'],
  ['href unsafe scheme of URL characters only', '<a href="{{ . }}">x</a>', 'javascript:void', '<a href="#ZgotmplZ">x</a>'],
  ['href colon after a slash is no scheme', '<a href="{{ . }}">x</a>', '/a:b', '<a href="/a:b">x</a>'],
  ['href upper-case scheme allowed', '<a href="{{ . }}">x</a>', 'HTTPS://x.com/', '<a href="HTTPS://x.com/">x</a>'],
  ['href plus escaped for the attribute', '<a href="{{ . }}">x</a>', 'https://x.com/?a=b+c', '<a href="https://x.com/?a=b&#43;c">x</a>'],
  ['href percent at end encoded', '<a href="{{ . }}">x</a>', 'https://x.com/%4', '<a href="https://x.com/%254">x</a>'],
  ['href trusted HTML gets its text', '<a href="{{ Safe . }}">x</a>', '/a<b>c</b>', '<a href="/a%3cb%3ec%3c/b%3e">x</a>'],
  ['href single-quoted with a quote and brackets', "<a href='{{ . }}'>x</a>", "/it's/[a]", "<a href='/it%27s/[a]'>x</a>"],
  ['href with only kept bytes unchanged', '<a href="{{ . }}">x</a>', 'https://x.com/a-b_c.d~e!f$g*h,i;j=k?l@m#n', '<a href="https://x.com/a-b_c.d~e!f$g*h,i;j=k?l@m#n">x</a>'],
  ['href https with ampersand', '<a href="{{ . }}">x</a>', 'https://x.com/a?b=1&c=2', '<a href="https://x.com/a?b=1&amp;c=2">x</a>'],
  ['href mailto allowed', '<a href="{{ . }}">', 'MAILTO:a@b.c', '<a href="MAILTO:a@b.c">'],
  ['href relative allowed', '<a href="{{ . }}">', '/p/a b', '<a href="/p/a%20b">'],
  ['href keeps valid percent escapes', '<a href="{{ . }}">', 'https://x.com/%41%zz', '<a href="https://x.com/%41%25zz">'],
  ['href non-ascii encoded', '<a href="{{ . }}">', 'https://x.com/é', '<a href="https://x.com/%c3%a9">'],
  ['query part fully encoded', '<a href="https://x.com/?q={{ . }}">', 'Tom & Jerry', '<a href="https://x.com/?q=Tom%20%26%20Jerry">'],
  ['src is a URL attribute', '<img src="{{ . }}">', 'data:image/png;base64,xx', '<img src="#ZgotmplZ">'],
  ['comment stripped', 'a<!-- hidden {{ . }} -->b', 'x', 'ab'],
  ['mso conditional comment stripped', '<!--[if mso]><table><![endif]-->x', {}, 'x'],
  ['untyped nil prints nothing', '{{ . }}', null, ''],
  ['stray less-than', 'a < b and 1<2', {}, 'a &lt; b and 1&lt;2'],
  ['doctype preserved', '<!DOCTYPE html><html>', {}, '<!DOCTYPE html><html>'],
  ['script value', '<script>var x = {{ . }};</script>', 'a<b', '<script>var x = "a\\u003cb";</script>'],
  ['script number padded', '<script>var n = {{ . }};</script>', 5n, '<script>var n =  5 ;</script>'],
  ['script string', '<script>var x = "{{ . }}";</script>', 'a"b\'c', '<script>var x = "a\\u0022b\\u0027c";</script>'],
  ['script comments stripped', '<script>a(); // c\n/* d */ b();</script>', {}, '<script>a(); \n  b();</script>'],
  ['event handler', '<button onclick="f({{ . }})">', 'x', '<button onclick="f(&#34;x&#34;)">'],
  ['style attribute value', '<p style="color: {{ . }}">', 'red', '<p style="color: red">'],
  ['style attribute unsafe', '<p style="color: {{ . }}">', 'expression(alert(1))', '<p style="color: ZgotmplZ">'],
  ['style element', '<style>p { color: {{ . }} }</style>', '#fff', '<style>p { color: #fff }</style>'],
  ['title is RCDATA', '<title>{{ . }}</title>', '<b>&', '<title>&lt;b&gt;&amp;</title>'],
  ['textarea keeps < as text', '<textarea><b>{{ . }}</textarea>', 'x', '<textarea>&lt;b>x</textarea>'],
  ['attribute name context', '<p {{ . }}="1">', 'title', '<p title="1">'],
  ['unsafe attribute name', '<p {{ . }}="1">', 'onclick', '<p ZgotmplZ="1">'],
];

for (const [name, src, data, want] of cases) {
  test(`html: ${name}`, () => {
    assert.equal(html(src, data), want);
  });
}

test('html: Safe is raw in text, tag-stripped in attributes', () => {
  const t = compileTemplate('{{ Safe "<!--[if mso]>x<![endif]-->" }}<b title="{{ Safe "<b>x</b> & y" }}">{{ Safe "<i>i</i>" }}</b>', { mode: 'html' });
  assert.equal(t.render({}), '<!--[if mso]>x<![endif]--><b title="x & y"><i>i</i></b>');
});

test('html: Safe in a URL is still filtered', () => {
  assert.equal(html('<a href="{{ Safe "javascript:x()" }}">', {}), '<a href="#ZgotmplZ">');
});

// Go's ensurePipelineContains: a trailing html/urlquery replaces the contextual escaper it
// is equivalent to instead of being escaped again; elsewhere in a pipeline it is refused.
const predefined: [name: string, src: string, want: string][] = [
  ['html in text escapes once', '{{ html "<a>" }} {{ "<b>" | html }}', '&lt;a&gt; &lt;b&gt;'],
  ['html in text keeps +, as Go\'s html does', '{{ html "a+b" }} {{ "a+b" }}', 'a+b a&#43;b'],
  ['html with several arguments joins them', '{{ html "<a>" "<b>" }}', '&lt;a&gt;&lt;b&gt;'],
  ['html of trusted HTML escapes its markup', '{{ html (Safe "<i>") }}', '&lt;i&gt;'],
  ['html in a quoted attribute', `<p title="{{ html "x'y" }}">`, '<p title="x&#39;y">'],
  ['html in RCDATA', '<title>{{ html "<b>" }}</title>', '<title>&lt;b&gt;</title>'],
  ['html in script is then JS-escaped', '<script>var x = {{ html "<b>" }};</script>', '<script>var x = "\\u0026lt;b\\u0026gt;";</script>'],
  ['urlquery in a query string', '<a href="/x?q={{ urlquery "a b&c" }}">', '<a href="/x?q=a&#43;b%26c">'],
  ['urlquery after the scheme filter', '<a href="{{ urlquery "javascript:x" }}">', '<a href="%23ZgotmplZ">'],
];

for (const [name, src, want] of predefined) {
  test(`html: predefined escaper: ${name}`, () => {
    assert.equal(html(src), want);
  });
}

for (const src of ['{{ html "<a>" | print }}', '{{ urlquery "a" | print }}', '<p title={{ html "x" }}>']) {
  test(`html: predefined escaper refused: ${src}`, () => {
    assert.throws(() => compileTemplate(src, { mode: 'html', name: 'body' }), /html\/template:body: predefined escaper "(html|urlquery)" disallowed in template/);
  });
}

test('html: text mode does not escape', () => {
  const t = compileTemplate('Hi {{ .Name }} <!-- c --> {{ .Nope }}', { mode: 'text' });
  assert.equal(t.render({ Name: 'Tom & Jerry' }), 'Hi Tom & Jerry <!-- c --> <no value>');
});

test('html: branches ending in different contexts are an error', () => {
  assert.throws(() => compileTemplate('<a {{ if .X }}href="{{ end }}x">', { mode: 'html' }), (e: unknown) => {
    assert.ok(e instanceof TemplateError);
    assert.match(e.message, /branches end in different contexts/);
    return true;
  });
});

test('html: ambiguous URL context is an error', () => {
  assert.throws(() => compileTemplate('<a href="{{ if .X }}/search?q={{ else }}/p/{{ end }}{{ .Y }}">', { mode: 'html' }), /ambiguous context within a URL/);
});

test('html: template ending inside a tag is an error', () => {
  assert.throws(() => compileTemplate('<a href="x', { mode: 'html' }), /ends in a non-text context/);
});

test('html: a template is escaped in the context of its call', () => {
  const t = compileTemplate('{{ define "v" }}{{ . }}{{ end }}<p title="{{ template "v" .A }}">{{ template "v" .B }}</p><a href="{{ template "v" .C }}">', { mode: 'html' });
  assert.equal(t.render({ A: 'a"b', B: '<i>', C: 'javascript:x' }), '<p title="a&#34;b">&lt;i&gt;</p><a href="#ZgotmplZ">');
});

test('html: range body context is stable', () => {
  assert.equal(html('<ul>{{ range . }}<li class="{{ . }}">{{ . }}</li>{{ end }}</ul>', ['a', 'b&c']), '<ul><li class="a">a</li><li class="b&amp;c">b&amp;c</li></ul>');
});

test('html: Safe with a script in an attribute keeps only text', () => {
  assert.equal(html('<p title="{{ Safe "<b>a</b><script>b</script>c" }}">', {}), '<p title="abc">');
});
