// Render limits against values a template builds: functions that walk a value (print it,
// encode it, compare or copy it) are charged for what they visit, so a value that doubles
// itself in a loop ({{ $x = list $x $x }}, 2^n nodes for n steps) fails the render on its
// step budget in the middle of one call instead of holding the process for seconds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, TemplateError, type CompileOptions } from '../../src/templating/index.ts';
import { DEFAULT_LIMITS } from '../../src/templating/exec.ts';

/** Lists $x and $y of 2^(n+1) - 1 nodes each, made of one shared part per level. */
const doubled = (n: number) => `{{ $x := list 1 }}{{ $y := list 1 }}{{ range until ${n} }}{{ $x = list $x $x }}{{ $y = list $y $y }}{{ end }}`;
/** The same with maps. */
const doubledMap = (n: number) => `{{ $x := dict "k" "v" }}{{ $y := dict "k" "v" }}{{ range until ${n} }}{{ $x = dict "a" $x "b" $x }}{{ $y = dict "a" $y "b" $y }}{{ end }}`;

// A wall-time limit far away, so that only the step budget can stop these renders.
const NO_DEADLINE: CompileOptions = { limits: { timeoutMs: 60_000 } };

function failsOnSteps(src: string, opts: CompileOptions = {}): number {
  const t = compileTemplate(src, { ...NO_DEADLINE, ...opts });
  const start = performance.now();
  assert.throws(() => t.render({}), (e: unknown) => {
    assert.ok(e instanceof TemplateError, `not a TemplateError: ${String(e)}`);
    assert.match(e.message, new RegExp(`render exceeded ${DEFAULT_LIMITS.maxSteps} steps`), src);
    return true;
  });
  return performance.now() - start;
}

// Every function that walks its argument, after 40 doublings (2^41 nodes: without charging the
// walk none of these would end).
const walking: [name: string, call: string, opts?: CompileOptions][] = [
  ['toJson', '{{ $_ := toJson $x }}'],
  ['toPrettyJson', '{{ $_ := toPrettyJson $x }}'],
  ['toRawJson', '{{ $_ := toRawJson $x }}'],
  ['mustToJson', '{{ $_ := mustToJson $x }}'],
  ['printf %v', '{{ $_ := printf "%v" $x }}'],
  ['printf %d on a list', '{{ $_ := printf "%d" $x }}'],
  ['printf %s in EXTRA', '{{ $_ := printf "" $x }}'],
  ['print', '{{ $_ := print $x }}'],
  ['println', '{{ $_ := println $x }}'],
  ['toString', '{{ $_ := toString $x }}'],
  ['cat', '{{ $_ := cat $x }}'],
  ['quote', '{{ $_ := quote $x }}'],
  ['squote', '{{ $_ := squote $x }}'],
  ['join', '{{ $_ := join "," $x }}'],
  ['toStrings', '{{ $_ := toStrings $x }}'],
  ['sortAlpha', '{{ $_ := sortAlpha $x }}'],
  ['html', '{{ $_ := html $x }}'],
  ['js', '{{ $_ := js $x }}'],
  ['urlquery', '{{ $_ := urlquery $x }}'],
  // Two values of the same shape built apart ($y): equal, so every node is compared.
  ['deepEqual', '{{ $_ := deepEqual $x $y }}'],
  ['deepCopy', '{{ $_ := deepCopy $x }}'],
  ['mustDeepCopy', '{{ $_ := mustDeepCopy $x }}'],
  ['merge', '{{ $_ := merge (dict) (dict "a" $x) }}'],
  ['mergeOverwrite', '{{ $_ := mergeOverwrite (dict "a" 1) (dict "a" $x) }}'],
  ['uniq', '{{ $_ := uniq (list $x $y) }}'],
  ['has', '{{ $_ := has $x (list 1 $y) }}'],
  ['without', '{{ $_ := without (list 1 $y) $x }}'],
  ['text output', '{{ $x }}', { mode: 'text' }],
  ['html output', '<p>{{ $x }}</p>'],
  ['html attribute', '<p title="{{ $x }}">'],
  ['URL attribute', '<a href="/?q={{ $x }}">'],
  ['JavaScript value', '<script>var x = {{ $x }};</script>'],
  ['JavaScript string', '<script>var x = "{{ $x }}";</script>'],
  ['CSS value', '<p style="color: {{ $x }}">'],
  ['template call argument printed', '{{ define "p" }}{{ . }}{{ end }}{{ template "p" $x }}'],
];

test('limits: eq of a value that doubled itself fails at once, naming its type, not printing it', () => {
  const t = compileTemplate(`${doubled(40)}{{ $_ := eq $x $x }}`, NO_DEADLINE);
  assert.throws(() => t.render({}), /error calling eq: non-comparable type \[\]interface \{\}$/);
});

for (const [name, call, opts] of walking) {
  test(`limits: ${name} of a value that doubled itself fails on the step budget`, () => {
    failsOnSteps(doubled(40) + call, opts);
  });
}

for (const [name, call] of [
  ['toJson', '{{ $_ := toJson $x }}'],
  ['printf %v', '{{ $_ := printf "%v" $x }}'],
  ['deepEqual', '{{ $_ := deepEqual $x $y }}'],
  ['deepCopy', '{{ $_ := deepCopy $x }}'],
  ['merge', '{{ $_ := merge (dict "a" (dict)) (dict "a" $x) }}'],
  ['values', '{{ $_ := values $x | toString }}'],
  ['JavaScript value', '<script>var x = {{ $x }};</script>'],
]) {
  test(`limits: ${name} of a map that doubled itself fails on the step budget`, () => {
    failsOnSteps(doubledMap(40) + call);
  });
}

test('limits: a walk is stopped within its render\'s limits, not after it', () => {
  // The budget is what bounds the time: a small budget stops the walk almost at once.
  const t = compileTemplate(doubled(60) + '{{ toJson $x }}', { limits: { maxSteps: 10_000, timeoutMs: 60_000 } });
  const start = performance.now();
  assert.throws(() => t.render({}), /render exceeded 10000 steps/);
  assert.ok(performance.now() - start < 1000, 'the walk went on past its budget');
  // And the deadline fires in the middle of a walk too.
  const slow = compileTemplate(doubled(60) + '{{ toJson $x }}', { limits: { maxSteps: 1e12, timeoutMs: 50 } });
  const t0 = performance.now();
  assert.throws(() => slow.render({}), /render exceeded 50 ms/);
  assert.ok(performance.now() - t0 < 1500, 'the deadline did not fire during the walk');
});

test('limits: values shared by reference are charged each time they are visited', () => {
  // 2^11 - 1 lists printed, three units per list and element: about 15,000 units.
  const src = doubled(10) + '{{ $_ := toString $x }}ok';
  assert.throws(() => compileTemplate(src, { limits: { maxSteps: 10_000 } }).render({}), /render exceeded 10000 steps/);
  assert.equal(compileTemplate(src, { limits: { maxSteps: 20_000 } }).render({}), 'ok');
});

test('limits: copying a list in a loop is charged per element (no quadratic loop on a small budget)', () => {
  failsOnSteps('{{ $l := list }}{{ range until 100000 }}{{ $l = append $l 1 }}{{ end }}');
  failsOnSteps('{{ $l := until 1000 }}{{ range until 100000 }}{{ $_ := reverse $l }}{{ end }}');
  failsOnSteps('{{ $l := until 1000 }}{{ range until 100000 }}{{ $_ := concat $l $l }}{{ end }}');
  failsOnSteps('{{ $l := until 3000 }}{{ $_ := uniq $l }}');
  failsOnSteps('{{ $m := dict }}{{ range $i := until 5000 }}{{ $_ := set $m (toString $i) $i }}{{ $_ := len $m }}{{ end }}');
  failsOnSteps('{{ $m := dict }}{{ range $i := until 5000 }}{{ $_ := set $m (toString $i) $i }}{{ range $m }}{{ break }}{{ end }}{{ end }}');
});

test('limits: functions are charged for the length of the strings they take and return', () => {
  // 2 MB handed to a function 1,000 times: about 64,000 units each.
  failsOnSteps('{{ $s := repeat 1000000 "ab" }}{{ range until 1000 }}{{ $_ := upper $s }}{{ end }}');
  failsOnSteps('{{ $s := repeat 1000000 "ab" }}{{ range until 1000 }}{{ $_ := sha256sum $s }}{{ end }}');
  failsOnSteps('{{ $s := repeat 1000000 "ab" }}{{ range until 1000 }}{{ $_ := contains "x" $s }}{{ end }}');
  // Functions that go through a string character by character in JavaScript: a unit per character.
  failsOnSteps('{{ $s := repeat 600000 "ab" }}{{ $_ := title $s }}');
  failsOnSteps('{{ $s := repeat 600000 "ab" }}{{ $_ := js $s }}');
  failsOnSteps('{{ $s := repeat 600000 "ab" }}{{ $_ := quote $s }}');
  // Splitting: counted before the parts are made.
  failsOnSteps('{{ $s := repeat 2000000 "a" }}{{ $_ := splitList "" $s }}');
  failsOnSteps('{{ $s := repeat 2000000 "a" }}{{ $_ := splitList "a" $s }}');
  failsOnSteps('{{ $s := repeat 2000000 "\\n" }}{{ $_ := indent 1 $s }}');
  failsOnSteps('{{ $s := repeat 2000000 "<" }}{{ $_ := html $s }}');
  failsOnSteps('{{ $s := repeat 1000000 "<" }}{{ range until 100 }}{{ $_ := toJson $s }}{{ end }}');
  // Strings JSON-encoded: a unit per character (escaping one full of < costs that much).
  failsOnSteps('{{ $s := repeat 600000 "<" }}{{ $_ := toJson $s }}');
  failsOnSteps('{{ $s := repeat 600000 "<" }}<script>var s = {{ $s }};</script>');
  // Paths, looked at character by character.
  failsOnSteps('{{ $s := repeat 600000 "a" }}{{ $_ := ext $s }}');
  // Time zones: Intl takes about 10 µs a lookup, and 50 µs to try a name.
  failsOnSteps('{{ range until 5000 }}{{ $_ := dateInZone "2006" now "Europe/Paris" }}{{ end }}');
  // Trusted HTML is charged where it is escaped, not where it is written as it is.
  failsOnSteps('{{ $h := Safe (repeat 100000 "<b>") }}{{ range until 10 }}<script>var s = "{{ $h }}";</script>{{ end }}');
  assert.equal(compileTemplate('{{ $h := Safe (repeat 100000 "<b>") }}{{ range until 10 }}{{ $h }}{{ end }}').render({}).length, 3_000_000);
  // Escaping what an action writes: a unit per character.
  failsOnSteps('{{ $s := repeat 100000 "<>" }}{{ range until 100 }}<a {{ $s }}>{{ end }}');
  // Regular expressions: per match, and the text times the pattern.
  failsOnSteps('{{ $s := repeat 100000 "ab" }}{{ range until 100 }}{{ $_ := regexReplaceAll "a(b)" $s "$1" }}{{ end }}');
  failsOnSteps('{{ $s := repeat 100000 "ab" }}{{ range until 100 }}{{ $_ := regexFindAll "a" $s -1 }}{{ end }}');
});

test('limits: a pattern V8 must backtrack is charged its worst case before it runs', () => {
  // Multi-line with \A or \z, or case-insensitive with a class range mixing letters and
  // other characters: no linear engine, and adjacent quantifiers backtrack polynomially.
  for (const re of ['(?m)\\\\Aa*a*a*a*a*a*b', '(?m)a*a*a*a*a*a*b\\\\z', '(?i)[0-z]*[0-z]*[0-z]*[0-z]*[0-z]*!']) {
    const start = performance.now();
    assert.throws(() => compileTemplate(`{{ regexMatch "${re}" (repeat 300 "a") }}`).render({}), /render exceeded \d+ steps/, re);
    assert.ok(performance.now() - start < 1000, re);
  }
  // The same kinds of pattern on ordinary text still match.
  const r = (src: string) => compileTemplate(src, { mode: 'text' }).render({});
  assert.equal(r('{{ regexMatch "(?m)\\\\Aab" "ab\\ncd" }} {{ regexMatch "(?i)[0-z]*!" (repeat 1000 "a") }} {{ regexReplaceAll "(?i)[0-z]+" "ab-CD" "X" }}'), 'true false X-X');
});

test('limits: a string doubled in a loop fails on its size, before it is built', () => {
  for (const grow of ['print $s $s', 'printf "%s%s" $s $s', 'cat $s $s', 'join "" (list $s $s)', 'replace "x" "xx" $s', 'indent 1 (print $s "\\n" $s)']) {
    const t = compileTemplate(`{{ $s := "xxxxxxxx" }}{{ range until 40 }}{{ $s = ${grow} }}{{ end }}`, NO_DEADLINE);
    assert.throws(() => t.render({}), /a value exceeds 10485760 characters|render exceeded \d+ steps/, grow);
  }
  // What a single call would make is refused before it is made.
  for (const big of ['replace "a" (repeat 100000 "b") (repeat 100000 "a")', 'indent 100000000 (repeat 1000 "\\n")', 'join (repeat 100000 "b") (until 1000)',
    'wrapWith 1 (repeat 100000 "b") (repeat 100000 "a ")', 'regexReplaceAll "a" (repeat 100000 "a") (repeat 1000 "b")']) {
    assert.throws(() => compileTemplate(`{{ $_ := ${big} }}`).render({}), /a value exceeds 10485760 characters|render exceeded \d+ steps/, big);
  }
});

test('printf: widths and precisions over a million are refused as in Go', () => {
  const r = (s: string) => compileTemplate(s, { mode: 'text' }).render({});
  assert.equal(r('{{ printf "%*d" 10000000 1 }}'), '%!(BADWIDTH)1');
  assert.equal(r('{{ printf "%.*d" 10000000 1 }}'), '%!(BADPREC)1');
  // Go stops reading digits once the number is over a million, so up to 10,000,009 is read.
  assert.equal(r('{{ printf "%100000000d" 1 }}'), '%!(NOVERB)%!(EXTRA int=1)');
  assert.equal(r('{{ printf "%.100000000d" 1 }}'), '%!(NOVERB)%!(EXTRA int=1)');
  assert.equal(r('{{ printf "%5d|%-4s|%.3d" 1 "a" 7 }}'), '    1|a   |007');
  assert.equal(r('{{ printf "%*d" 1000000 1 | len }}'), '1000000');
});

test('limits: legitimate templates stay far within the budget (a quarter of it for 1,000 lines printed, encoded, copied and compared)', () => {
  // A tx template listing 1,000 order lines, printing and encoding its data.
  const items = Array.from({ length: 1000 }, (_, i) => ({ name: `item ${i}`, qty: (i % 5) + 1, price: 9.99 }));
  const t = compileTemplate(
    '<table>{{ range $i, $it := .items }}<tr><td>{{ add1 $i }}</td><td>{{ $it.name | title }}</td><td>{{ $it.qty }}</td>' +
      '<td>{{ printf "%.2f" (mulf $it.price $it.qty) }}</td></tr>{{ end }}</table>{{ toJson . | len }} {{ len (printf "%v" .) }} {{ deepEqual . (deepCopy .) }}',
    { limits: { maxSteps: DEFAULT_LIMITS.maxSteps / 4 } },
  );
  assert.match(t.render({ items }), /<\/table>\d+ \d+ true$/);
});
