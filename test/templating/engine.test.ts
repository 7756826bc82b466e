// Go text/template semantics: syntax, control flow, printing, built-ins, errors, limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, TemplateError, type CompileOptions, type RenderContext } from '../../src/templating/index.ts';

process.env.TZ = 'UTC';

function render(src: string, data: unknown = {}, opts: CompileOptions = {}, ctx: RenderContext = {}): string {
  return compileTemplate(src, { mode: 'text', name: 'body', ...opts }).render(data, ctx);
}

const data = {
  Subscriber: {
    Name: 'Jane',
    Attribs: {
      city: 'Bengaluru', projects: 3, big: 1000000, l: [1, 2], m: { b: 1, a: 'x' }, nul: null,
      stack: { languages: ['go', 'ts'] }, empty: [], t: true,
    },
  },
  L: ['a', 'b', 'c'],
  M: { z: 1, a: 2, m: 3 },
  N: 3n,
  F: (x: bigint) => x * 2n,
};

const cases: [name: string, src: string, want: string][] = [
  // text, comments, trimming
  ['plain text', 'hello', 'hello'],
  ['trim both sides', 'Hi   {{- .Subscriber.Name -}}  !', 'HiJane!'],
  ['trim newlines', 'a\n\t {{- "b" }}\n', 'ab\n'],
  ['comment', 'a{{/* note */}}b', 'ab'],
  ['multi-line comment with trim', 'a \n{{- /* x\ny */ -}}\n b', 'ab'],
  ['negative number is not a trim marker', '{{-3}}', '-3'],
  // pipelines and variables
  ['pipeline, last argument', '{{ .Subscriber.Name | upper | printf "Dear %s" }}', 'Dear JANE'],
  ['parenthesised', '{{ printf "%s-%s" (lower "A") ("B") }}', 'a-B'],
  ['declare prints nothing', '{{ $n := 5 }}[{{ $n }}]', '[5]'],
  ['assign', '{{ $n := 1 }}{{ $n = 2 }}{{ $n }}', '2'],
  ['scope ends at end', '{{ $x := 1 }}{{ if true }}{{ $x := 2 }}{{ $x }}{{ end }}{{ $x }}', '21'],
  ['range assignment updates outer', '{{ $s := 0 }}{{ range $i, $v := .L }}{{ $s = $i }}{{ end }}{{ $s }}', '2'],
  ['one range variable is the element', '{{ range $e := .L }}{{ $e }}{{ end }}', 'abc'],
  ['$ is root', '{{ range .L }}{{ $.N }}{{ end }}', '333'],
  ['variable field chain', '{{ $s := .Subscriber }}{{ $s.Attribs.city }}', 'Bengaluru'],
  ['chain on parenthesised', '{{ (index .Subscriber.Attribs.stack.languages 1) }}', 'ts'],
  // fields and missing keys
  ['nested attribs', '{{ .Subscriber.Attribs.stack.languages }}', '[go ts]'],
  ['missing key', '{{ .Subscriber.Attribs.nope }}', '<no value>'],
  ['missing key chain', '{{ .Subscriber.Attribs.nope.deeper }}', '<no value>'],
  ['json null', '{{ .Subscriber.Attribs.nul }}', '<no value>'],
  ['missing key is false', '{{ if .Subscriber.Attribs.nope }}y{{ else }}n{{ end }}', 'n'],
  // printing
  ['float 1e6', '{{ .Subscriber.Attribs.big }}', '1e+06'],
  ['float 3', '{{ .Subscriber.Attribs.projects }}', '3'],
  ['map print', '{{ .Subscriber.Attribs.m }}', 'map[a:x b:1]'],
  ['slice print', '{{ .L }}', '[a b c]'],
  ['bool', '{{ .Subscriber.Attribs.t }}', 'true'],
  ['int literal', '{{ 1000000 }}', '1000000'],
  ['float literal', '{{ 1.5e6 }} {{ 2500000.0 }} {{ 1234567.0 }} {{ 999999.0 }} {{ 100000.5 }} {{ 0.0001 }} {{ 0.00001 }}', '1.5e+06 2.5e+06 1.234567e+06 999999 100000.5 0.0001 1e-05'],
  ['char literal', "{{ 'a' }}", '97'],
  ['hex and raw', '{{ 0x1F }} {{ `a\\n` }}', '31 a\\n'],
  // if / with / range
  ['if else if else', '{{ if eq .N 1 }}one{{ else if eq .N 3 }}three{{ else }}other{{ end }}', 'three'],
  ['with sets dot', '{{ with .Subscriber.Attribs.city }}{{ . }}{{ end }}', 'Bengaluru'],
  ['with else', '{{ with .Subscriber.Attribs.empty }}x{{ else }}empty{{ end }}', 'empty'],
  ['else with', '{{ with .Subscriber.Attribs.nope }}a{{ else with .Subscriber.Attribs.city }}b={{ . }}{{ else }}c{{ end }}', 'b=Bengaluru'],
  ['range slice', '{{ range .L }}<{{ . }}>{{ end }}', '<a><b><c>'],
  ['range index and value', '{{ range $i, $v := .L }}{{ $i }}={{ $v }} {{ end }}', '0=a 1=b 2=c '],
  ['range map sorted', '{{ range $k, $v := .M }}{{ $k }}{{ $v }}{{ end }}', 'a2m3z1'],
  ['range int', '{{ range 3 }}{{ . }}{{ end }}', '012'],
  ['range else', '{{ range .Subscriber.Attribs.empty }}x{{ else }}none{{ end }}', 'none'],
  ['range missing is empty', '{{ range .Subscriber.Attribs.nope }}x{{ else }}none{{ end }}', 'none'],
  ['break', '{{ range $i := 10 }}{{ if eq $i 3 }}{{ break }}{{ end }}{{ $i }}{{ end }}', '012'],
  ['continue', '{{ range $i := 5 }}{{ if eq $i 1 3 }}{{ continue }}{{ end }}{{ $i }}{{ end }}', '024'],
  ['break in inner loop only', '{{ range 2 }}{{ range $j := 5 }}{{ if eq $j 1 }}{{ break }}{{ end }}{{ $j }}{{ end }};{{ end }}', '0;0;'],
  // define / template / block
  ['define and template', '{{ define "x" }}[{{ . }}]{{ end }}{{ template "x" "a" }}{{ template "x" }}', '[a][<no value>]'],
  ['template does not see caller variables', '{{ define "x" }}{{ $ }}{{ end }}{{ $v := 1 }}{{ template "x" 7 }}', '7'],
  ['block', '{{ block "b" .N }}B{{ . }}{{ end }}', 'B3'],
  ['empty define does not replace', '{{ define "b" }}B{{ end }}{{ define "b" }} {{ end }}{{ template "b" }}', 'B'],
  ['define "content" and call it (what listmonk clients send)', '{{ define "content" }}[{{ .N }}]{{ end }}{{ template "content" . }}', '[3]'],
  ['a top level of only definitions is the definition of its own name', '{{ define "body" }}B{{ .N }}{{ end }}\n', 'B3'],
  ['an empty definition of its own name is replaced', '{{ define "body" }} {{ end }}T', 'T'],
  // built-ins
  ['and returns operand', '{{ and 1 0 2 }}|{{ and 1 2 }}', '0|2'],
  ['or returns operand', '{{ or 0 "" "x" }}|{{ or 0 "" }}', 'x|'],
  ['and short-circuits', '{{ and false (index .L 99) }}', 'false'],
  ['not', '{{ not 0 }} {{ not .L }}', 'true false'],
  ['len bytes', '{{ len "héllo" }} {{ len .L }} {{ len .M }}', '6 3 3'],
  ['index', '{{ index .L 1 }} {{ index .M "z" }} {{ index .Subscriber.Attribs "city" }}', 'b 1 Bengaluru'],
  ['index missing map key', '{{ index .M "q" }}', '<no value>'],
  ['slice is Sprig\'s', '{{ slice .L 1 }} {{ slice .L 1 2 }}', '[b c] [b]'],
  ['print spacing', '{{ print 1 2 "a" 3 "b" }}', '1 2a3b'],
  ['print nil', '{{ print nil }}', '<nil>'],
  ['println', '{{ println 1 "a" }}', '1 a\n'],
  ['html', '{{ html "<a href=\'x\'>&\\"" }}', '&lt;a href=&#39;x&#39;&gt;&amp;&#34;'],
  ['js', '{{ js "it\'s <x>=" }}', "it\\'s \\u003Cx\\u003E\\u003D"],
  ['urlquery', '{{ urlquery "a b&c/é" }}', 'a+b%26c%2F%C3%A9'],
  ['call', '{{ call .F 21 }}', '42'],
  ['eq many', '{{ eq "b" "a" "b" }} {{ eq 1 2 }}', 'true false'],
  ['eq missing key is false', '{{ eq .Subscriber.Attribs.nope "x" }}', 'false'],
  ['eq float with float literal', '{{ eq .Subscriber.Attribs.projects 3.0 }}', 'true'],
  ['ne lt le gt ge', '{{ ne 1 2 }} {{ lt 1 2 }} {{ le 2 2 }} {{ gt "b" "a" }} {{ ge 1.5 2.5 }}', 'true true true true false'],
  // printf verbs
  ['printf verbs', '{{ printf "%s|%d|%v|%f|%.2f|%q|%x|%X|%t|%%" "s" 42 .L 3.5 3.14159 "q" 255 "hi" true }}', 's|42|[a b c]|3.500000|3.14|"q"|ff|6869|true|%'],
  ['printf widths', '{{ printf "[%5d][%-5s][%05d][%+d][%8.3f][%-8v]" 42 "ab" 42 5 3.14159 "x" }}', '[   42][ab   ][00042][+5][   3.142][x       ]'],
  ['printf e and g', '{{ printf "%e %g %g %.3g" 1234.5678 0.00001 1e21 1234.5678 }}', '1.234568e+03 1e-05 1e+21 1.23e+03'],
  ['printf bad verb', '{{ printf "%d" "x" }} {{ printf "%d" .Subscriber.Attribs.projects }}', '%!d(string=x) %!d(float64=3)'],
  ['printf nil: only %v prints it', '{{ printf "%s|%d|%v" nil nil nil }}', '%!s(<nil>)|%!d(<nil>)|<nil>'],
  ['printf missing key is nil', '{{ printf "%s" .Subscriber.Attribs.nope }}', '%!s(<nil>)'],
  ['nil in a branch not taken', '{{ if false }}{{ nil }}{{ end }}ok', 'ok'],
  ['printf missing and extra', '{{ printf "%d %d" 1 }} {{ printf "%d" 1 2 }}', '1 %!d(MISSING) 1%!(EXTRA int=2)'],
  ['printf float of attrib', '{{ printf "%.0f" .Subscriber.Attribs.big }}', '1000000'],
  ['printf %c %U %o %b', '{{ printf "%c %U %o %b" 65 65 8 5 }}', 'A U+0041 10 101'],
  ['printf %T', '{{ printf "%T %T %T %T" 1 1.5 "s" .L }}', 'int float64 string []interface {}'],
];

for (const [name, src, want] of cases) {
  test(`text: ${name}`, () => {
    assert.equal(render(src, data), want);
  });
}

test('newlines are allowed inside actions', () => {
  assert.equal(render('{{ printf "%s"\n  "x" }}'), 'x');
});

const syntaxErrors: [name: string, src: string, message: string][] = [
  ['stray brace', 'a\nb\n  {{ .A } }}', 'template: body:3:8: unexpected "}" in operand'],
  ['unknown function', 'x {{ foo 1 }}', 'template: body:1:5: function "foo" not defined'],
  ['unclosed action', 'a {{ .A ', 'unclosed action'],
  ['missing end', '{{ if .A }}x', 'unexpected EOF'],
  ['stray end', 'x\n{{ end }}', 'template: body:2:3: unexpected {{end}}'],
  ['undefined variable', '{{ $x }}', 'undefined variable "$x"'],
  ['missing if value', '{{ if }}x{{ end }}', 'missing value for if'],
  ['break outside range', '{{ break }}', '{{break}} outside {{range}}'],
  ['unterminated string', '{{ "abc }}', 'unterminated quoted string'],
  ['unclosed comment', '{{/* abc }}', 'unclosed comment'],
  ['non-function with args', '{{ "a" "b" }}', "can't give argument to non-function"],
  ['two definitions in one source', '{{ block "b" . }}x{{ end }}{{ define "b" }}y{{ end }}', 'template: multiple definition of template "b"'],
  // Go adds the top level last, as a definition of the template's own name.
  ['a source defining its own name', '{{ define "body" }}x{{ end }}{{ template "body" . }}', 'template: body:1:52: template: multiple definition of template "body"'],
  ['a block of its own name', '{{ block "body" . }}x{{ end }}', 'template: multiple definition of template "body"'],
];

for (const [name, src, message] of syntaxErrors) {
  test(`syntax error: ${name}`, () => {
    assert.throws(() => compileTemplate(src, { name: 'body', mode: 'text' }), (e: unknown) => {
      assert.ok(e instanceof TemplateError, 'TemplateError');
      assert.ok(e.message.includes(message), `${e.message} should include ${message}`);
      return true;
    });
  });
}

const renderErrors: [name: string, src: string, message: string][] = [
  ['index out of range', 'a\n{{ index .L 5 }}', 'template: body:2:3: executing "body" at <index .L 5>: error calling index: index out of range'],
  ['int vs float comparison', '{{ if eq .Subscriber.Attribs.projects 3 }}x{{ end }}', 'error calling eq: incompatible types for comparison'],
  ['field of string', '{{ .Subscriber.Name.First }}', "can't evaluate field First in type string"],
  ['wrong arg type', '{{ upper .Subscriber.Attribs.projects }}', 'wrong type for value; expected string; got float64'],
  ['missing value for string parameter', '{{ upper .Subscriber.Attribs.nope }}', 'invalid value; expected string'],
  ['wrong arg count', '{{ upper "a" "b" }}', 'wrong number of args for upper: want 1 got 2'],
  ['undefined template', '{{ template "nope" }}', 'template "nope" not defined'],
  ['fail with the text in the template', '{{ fail "boom" }}', 'error calling fail: boom'],
  ['fail with a computed text', '{{ fail (printf "%v" .Subscriber.Name) }}', 'executing "body" at <fail (printf "%v" .Subscriber.Name)>: error calling fail: called (its message is not shown'],
  ['nil as a command', '{{ nil }}', 'template: body:1:3: executing "body" at <nil>: nil is not a command'],
  ['nil as a condition', '{{ if nil }}x{{ end }}', 'nil is not a command'],
  ['nil piped', '{{ nil | print }}', 'nil is not a command'],
  ['method without its argument', '{{ L.T }}', 'executing "body" at <L.T>: wrong number of args for T: want 1 got 0'],
  ['method with too many arguments', '{{ L.T "a" "b" }}', 'wrong number of args for T: want 1 got 2'],
  ['variadic method without its argument', '{{ L.Ts }}', 'wrong number of args for Ts: want at least 1 got 0'],
  ['range over float', '{{ range .Subscriber.Attribs.projects }}{{ end }}', "range can't iterate over float64"],
];

for (const [name, src, message] of renderErrors) {
  test(`render error: ${name}`, () => {
    const t = compileTemplate(src, { name: 'body', mode: 'text' });
    assert.throws(() => t.render(data), (e: unknown) => {
      assert.ok(e instanceof TemplateError, 'TemplateError');
      assert.ok(e.message.includes(message), `${e.message} should include ${message}`);
      return true;
    });
    // The failure belongs to that render only.
    const ok = compileTemplate('fine', { mode: 'text' });
    assert.equal(ok.render(data), 'fine');
  });
}

// Render errors reach whoever rendered (a tx caller, a previewing user): they name the template,
// the line and the kind of error, never a value of the data.
const SECRET = 'secret-7f3a@example.com';
const secretData = { S: SECRET, P: `(${SECRET}`, N: 12345678901n, F: 98765.4321, L: [SECRET], M: { k: SECRET }, B: true };
const leakingTemplates: string[] = [
  '{{ fail .S }}',
  '{{ fail (printf "%v" .) }}',
  '{{ .S | fail }}',
  '{{ range .F }}{{ end }}',
  '{{ range $k, $v := .N }}{{ end }}',
  '{{ index .L .N }}',
  '{{ index .S .N }}',
  '{{ .S | .B }}',
  '{{ mustRegexFind .P "x" }}',
  '{{ urlParse .S }}',
  '{{ semver .S }}',
  '{{ semverCompare .S "1.0.0" }}',
  '{{ substr 5 1 .S }}',
  '{{ eq .L .L }}',
  '{{ mustFromJson .S }}',
];

for (const src of leakingTemplates) {
  test(`render error without data: ${src}`, () => {
    const t = compileTemplate(`x\n${src}`, { name: 'body', mode: 'text' });
    let message = '';
    try {
      t.render(secretData);
    } catch (e) {
      assert.ok(e instanceof TemplateError, String(e));
      message = e.message;
    }
    assert.ok(message, 'the render fails');
    assert.match(message, /^template: body:2:\d+: executing "body" at </);
    for (const v of ['secret-7f3a', '12345678901', '98765', '4321']) assert.ok(!message.includes(v), `${message} shows ${v}`);
  });
}

test('limits: a huge loop fails cleanly', () => {
  const t = compileTemplate('{{ range $i := until 100000000 }}x{{ end }}', { mode: 'text' });
  assert.throws(() => t.render({}), /render exceeded \d+ steps/);
});

test('limits: nested loops fail on the step budget', () => {
  const t = compileTemplate('{{ range 3000 }}{{ range 3000 }}{{ end }}{{ end }}', { mode: 'text' });
  assert.throws(() => t.render({}), /steps/);
});

test('limits: unbounded recursion fails on depth', () => {
  const t = compileTemplate('{{ define "r" }}x{{ template "r" . }}{{ end }}{{ template "r" . }}', { mode: 'text' });
  assert.throws(() => t.render({}), /nested deeper than 100/);
});

test('limits: huge output fails', () => {
  assert.throws(() => render('{{ repeat 100000000 "xy" }}'), /a value exceeds 10485760 characters/);
  const t = compileTemplate('{{ range 1000 }}0123456789{{ end }}', { mode: 'text', limits: { maxOutput: 5000 } });
  assert.throws(() => t.render({}), /output exceeds 5000/);
});

test('limits: wall time per render', () => {
  const t = compileTemplate('{{ range 100000 }}{{ end }}', { mode: 'text', limits: { timeoutMs: 0 } });
  assert.throws(() => t.render({}), /render exceeded 0 ms/);
});

test('limits: a failed render does not affect the next one', () => {
  const t = compileTemplate('{{ if .big }}{{ range $i := until 10000000 }}{{ end }}{{ end }}ok', { mode: 'text' });
  assert.throws(() => t.render({ big: true }), TemplateError);
  assert.equal(t.render({ big: false }), 'ok');
});

test('compiled template is reusable with different data', () => {
  const t = compileTemplate('Hi {{ .Name }}', { mode: 'text' });
  assert.equal(t.render({ Name: 'A' }), 'Hi A');
  assert.equal(t.render({ Name: 'B' }), 'Hi B');
});
