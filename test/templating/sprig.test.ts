// Sprig functions with Sprig's argument order and Go results; dates on a fixed clock.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTemplate, type RenderContext } from '../../src/templating/index.ts';

process.env.TZ = 'UTC';
const ctx: RenderContext = { now: () => new Date('2024-01-02T03:04:05Z') };
const data = { A: { p: 3, city: 'Paris', list: ['b', 'a'] } };

function text(src: string): string {
  return compileTemplate(src, { mode: 'text', funcs: 'generic' }).render(data, ctx);
}

const cases: [string, string][] = [
  // strings
  ['{{ "hello" | upper }} {{ lower "HeLLo" }} {{ title "hello wide world" }} {{ untitle "Hello World" }}', 'HELLO hello Hello Wide World hello world'],
  ['{{ trim "  x  " }}|{{ trimAll "$" "$5.00$" }}|{{ trimPrefix "-" "-x-" }}|{{ trimSuffix "-" "-x-" }}', 'x|5.00|x-|-x'],
  ['{{ replace " " "-" "a b c" }} {{ contains "cat" "catch" }} {{ hasPrefix "ca" "cat" }} {{ hasSuffix "x" "cat" }}', 'a-b-c true true false'],
  ['{{ repeat 3 "ab" }} {{ substr 0 5 "hello world" }} {{ trunc 5 "hello world" }} {{ trunc -5 "hello world" }}', 'ababab hello hello world'],
  ['{{ abbrev 5 "hello world" }} {{ nospace "a b\tc" }} {{ initials "John Doe" }}', 'he... abc JD'],
  ['{{ snakecase "FirstName" }} {{ camelcase "http_server" }} {{ kebabcase "FirstName" }}', 'first_name HttpServer first-name'],
  ['{{ quote "a" 1 }} {{ squote "a" }} {{ cat "a" 1 "b" }}', `"a" "1" 'a' a 1 b`],
  ['{{ indent 2 "a\\nb" }}|{{ nindent 2 "a" }}', '  a\n  b|\n  a'],
  ['{{ plural "one" "many" 1 }} {{ plural "one" "many" 2 }} {{ wrap 5 "aaa bbb ccc" }}', 'one many aaa\nbbb\nccc'],
  ['{{ "foo" | repeat 2 }} {{ "a,b" | splitList "," }} {{ toString 1.5 }} {{ hello }}', 'foofoo [a b] 1.5 Hello!'],
  ['{{ swapcase "Hello World" }}', 'hELLO wORLD'],
  // lists
  ['{{ list 1 "a" 2.5 }} {{ join "-" (list "a" "b" 3) }} {{ sortAlpha .A.list }}', '[1 a 2.5] a-b-3 [a b]'],
  ['{{ first (list 1 2 3) }} {{ last (list 1 2 3) }} {{ rest (list 1 2 3) }} {{ initial (list 1 2 3) }}', '1 3 [2 3] [1 2]'],
  ['{{ append (list 1) 2 }} {{ prepend (list 1) 0 }} {{ concat (list 1) (list 2 3) }} {{ reverse (list 1 2) }}', '[1 2] [0 1] [1 2 3] [2 1]'],
  ['{{ uniq (list 1 1 2) }} {{ without (list 1 2 3) 2 }} {{ has 2 (list 1 2) }} {{ compact (list 1 "" 0 2) }}', '[1 2] [1 3] true [1 2]'],
  ['{{ slice (list 1 2 3 4) 1 3 }} {{ chunk 2 (list 1 2 3) }}', '[2 3] [[1 2] [3]]'],
  ['{{ until 3 }} {{ untilStep 0 10 4 }} {{ seq 3 }}|{{ seq 2 -1 0 }}', '[0 1 2] [0 4 8] 1 2 3|2 1 0'],
  ['{{ (split "$" "a$b")._1 }} {{ (splitn "," 2 "a,b,c")._1 }}', 'b b,c'],
  // dicts
  ['{{ $d := dict "b" 2 "a" 1 }}{{ $d }} {{ get $d "a" }} [{{ get $d "z" }}] {{ hasKey $d "b" }} {{ keys $d }} {{ values $d }}', 'map[a:1 b:2] 1 [] true [a b] [1 2]'],
  ['{{ $d := dict "a" 1 }}{{ $_ := set $d "b" 2 }}{{ $d }} {{ unset $d "a" }} {{ pick (dict "a" 1 "b" 2) "a" }} {{ omit (dict "a" 1 "b" 2) "a" }}', 'map[a:1 b:2] map[b:2] map[a:1] map[b:2]'],
  ['{{ dig "a" "b" "def" (dict "a" (dict "b" "x")) }} {{ dig "a" "z" "def" (dict "a" (dict "b" "x")) }}', 'x def'],
  ['{{ merge (dict "a" 1) (dict "a" 2 "b" 3) }} {{ mergeOverwrite (dict "a" 1) (dict "a" 2) }} {{ pluck "a" (dict "a" 1) (dict "b" 2) }}', 'map[a:1 b:3] map[a:2] [1]'],
  // math
  ['{{ add 1 2 3 }} {{ add1 .A.p }} {{ sub 5 3 }} {{ mul 2 3 4 }} {{ div 7 2 }} {{ mod 7 3 }}', '6 4 2 24 3 1'],
  ['{{ max 1 5 3 }} {{ min 3 1 2 }} {{ biggest 1 9 }} {{ floor 1.7 }} {{ ceil 1.2 }} {{ round 3.14159 2 }}', '5 1 9 1 2 3.14'],
  ['{{ addf 1.5 2 }} {{ subf 5 1.5 }} {{ mulf 1.5 2 }} {{ divf 1 4 }} {{ maxf 1 2.5 }} {{ minf 1 2.5 }} {{ add1f 1.5 }}', '3.5 3.5 3 0.25 2.5 1 2.5'],
  ['{{ add .A.p 0.9 }} {{ mul 1000 1000 }} {{ .A.p | int }} {{ int "42" }} {{ atoi "12" }} {{ float64 "1.5" }} {{ int 3.9 }} {{ toDecimal "0777" }}', '3 1000000 3 42 12 1.5 3 511'],
  // defaults and logic
  ['{{ default "x" "" }} {{ default "x" "y" }} {{ .A.nope | default "none" }} {{ default 5 0 }}', 'x y none 5'],
  ['{{ empty "" }} {{ empty 0 }} {{ empty (list) }} {{ empty "a" }} {{ coalesce "" 0 "y" }} {{ ternary "a" "b" true }} {{ ternary "a" "b" false }}', 'true true true false y a b'],
  ['{{ all 1 "a" }} {{ all 1 "" }} {{ any 0 "" "x" }} {{ any 0 "" }}', 'true false true false'],
  // JSON
  ['{{ list 1 2.5 "a" | toJson }} {{ dict "b" 2 "a" "<x>" | toJson }} {{ dict "a" "<x>" | toRawJson }}', '[1,2.5,"a"] {"a":"\\u003cx\\u003e","b":2} {"a":"<x>"}'],
  ['{{ dict "a" (list 1) | toPrettyJson }}', '{\n  "a": [\n    1\n  ]\n}'],
  ['{{ (fromJson "{\\"a\\":{\\"b\\":1}}").a.b }} {{ fromJson "nope" }}', '1 <no value>'],
  // reflection, encodings, hashes
  ['{{ typeOf 1 }} {{ typeOf 1.5 }} {{ typeOf "s" }} {{ typeOf (list) }} {{ kindOf (dict) }} {{ kindIs "string" "x" }} {{ typeIs "int" 1 }}', 'int float64 string []interface {} map true true'],
  ['{{ deepEqual (list 1 (dict "a" 1)) (list 1 (dict "a" 1)) }} {{ deepCopy (dict "a" (list 1)) }}', 'true map[a:[1]]'],
  ['{{ b64enc "hello" }} {{ b64dec "aGVsbG8=" }} {{ b32enc "hi" }} {{ b32dec "NBUQ====" }}', 'aGVsbG8= hello NBUQ==== hi'],
  ['{{ sha1sum "hello" }} {{ adler32sum "hello" }}', 'aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d 103547413'],
  ['{{ sha256sum "hello" }}', '2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824'],
  // regex
  ['{{ regexMatch "^[a-z]+$" "abc" }} {{ regexMatch "(?i)^ABC$" "abc" }} {{ regexFind "a." "xaXaY" }} {{ regexFindAll "a." "aXaYaZ" 2 }}', 'true true aX [aX aY]'],
  ['{{ regexReplaceAll "a(x*)b" "-ab-axxb-" "${1}W" }} {{ regexReplaceAllLiteral "a(x*)b" "-ab-" "$1" }} {{ regexSplit "a" "banana" -1 }}', '-W-xxW- -$1- [b n n ]'],
  ['{{ regexReplaceAll "(?P<first>\\\\w+) (?P<last>\\\\w+)" "Jane Doe" "$last, $first" }} {{ regexQuoteMeta "a.b*c" }}', 'Doe, Jane a\\.b\\*c'],
  // paths and URLs
  ['{{ base "/a/b.txt" }} {{ dir "/a/b/c" }} {{ clean "a//b/../c" }} {{ ext "x.tar.gz" }} {{ isAbs "/x" }} {{ base "" }}', 'b.txt /a/b a/c .gz true .'],
  ['{{ $u := urlParse "https://u@x.com:8080/p?q=1#f" }}{{ $u.scheme }} {{ $u.host }} {{ $u.hostname }} {{ $u.path }} {{ $u.query }} {{ $u.fragment }} {{ $u.userinfo }}', 'https x.com:8080 x.com /p q=1 f u'],
  ['{{ urlJoin (dict "scheme" "https" "host" "x.com" "path" "/a" "query" "b=1") }}', 'https://x.com/a?b=1'],
  ['{{ semverCompare "^1.2.0" "1.3.4" }} {{ semverCompare "~1.2.0" "1.3.0" }} {{ semverCompare ">=1.0, <2.0" "1.5.0" }} {{ (semver "1.2.3-beta").Minor }} {{ (semver "v2.0.1").Prerelease }}', 'true false true 2 '],
  // dates
  ['{{ now | date "2006-01-02 15:04:05" }} {{ date "Jan 2, 2006 3:04PM MST" now }}', '2024-01-02 03:04:05 Jan 2, 2024 3:04AM UTC'],
  ['{{ toDate "2006-01-02" "2017-12-31" | date "Monday 02/01/06" }} {{ date "2006-01-02" 0 }}', 'Sunday 31/12/17 1970-01-01'],
  ['{{ dateInZone "2006-01-02 15:04 -07:00" now "Asia/Kolkata" }} {{ dateInZone "15:04" now "Not/AZone" }}', '2024-01-02 08:34 +05:30 03:04'],
  ['{{ htmlDate now }} {{ htmlDateInZone now "America/New_York" }} {{ unixEpoch now }}', '2024-01-02 2024-01-01 1704164645'],
  ['{{ ago (toDate "2006-01-02 15:04:05" "2024-01-02 01:03:05") }} {{ duration 95 }} {{ duration 3600 }} {{ durationRound "2h10m" }} {{ durationRound 90000000000000 }}', '2h1m0s 1m35s 1h0m0s 2h 1d'],
  ['{{ dateModify "1.5h" (toDate "2006-01-02" "2024-01-02") | date "15:04" }} {{ dateModify "-24h" now | date "Jan 2" }}', '01:30 Jan 1'],
  ['{{ (toDate "2006-01-02T15:04:05Z07:00" "2024-03-10T10:00:00+02:00").UTC.Format "15:04 Z07:00" }} {{ toDate "2006-01-02" "bad" | date "2006" }}', '08:00 Z 0001'],
  ['{{ (now).Year }} {{ (now).Month }} {{ (now).Weekday }} {{ now.Format "_2 Jan .000" }}', '2024 January Tuesday  2 Jan .000'],
];

for (const [src, want] of cases) {
  test(`sprig: ${src.slice(0, 70)}`, () => {
    assert.equal(text(src), want);
  });
}

test('sprig: random and uuid have the right shape', () => {
  assert.match(text('{{ randAlphaNum 12 }}'), /^[A-Za-z0-9]{12}$/);
  assert.match(text('{{ randNumeric 5 }}'), /^[0-9]{5}$/);
  assert.match(text('{{ uuidv4 }}'), /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  const n = Number(text('{{ randInt 5 8 }}'));
  assert.ok(n >= 5 && n < 8);
  assert.equal(text('{{ shuffle "aaa" }}'), 'aaa');
});

test('sprig: encryptAES round trip', () => {
  assert.equal(text('{{ encryptAES "secret" "hello world" | decryptAES "secret" }}'), 'hello world');
});

test('sprig: regular expressions that backtrack catastrophically run in linear time', { timeout: 10_000 }, () => {
  const long = 'a'.repeat(20_000);
  assert.equal(text(`{{ regexMatch "(a+)+$" "${long}b" }}`), 'false');
  assert.equal(text(`{{ mustRegexMatch "^(a|aa)*$" "${long}" }}`), 'true');
  assert.equal(text(`{{ regexFind "a*a*a*a*a*b" "${long}" }}`), '');
  assert.equal(text(`{{ regexReplaceAll "\\\\A(a+)+c" "${long}" "x" | len }}`), '20000');
  // Case-insensitive ones too: their letters are spelled out in both cases.
  assert.equal(text(`{{ regexMatch "(?i)(A+)+$" "${long}b" }}`), 'false');
  assert.equal(text(`{{ mustRegexMatch "(?i)^(A|AA)*$" "${long}" }}`), 'true');
  // A class range that mixes letters and other characters is left to the backtracking engine,
  // where nesting repetition is refused.
  assert.throws(() => text('{{ mustRegexMatch "(?i)([0-z]+)+$" "aaab" }}'), /too complex/);
  assert.equal(text('{{ mustRegexMatch "(?i)^[0-z]+$" "ABC" }}'), 'true');
});

test('sprig: case-insensitive regular expressions match either case', () => {
  const cases: [string, string, string][] = [
    ['(?i)^hello wörld$', 'HeLLo WÖRLD', 'true'],
    ['(?i)^[a-f]+$', 'aBcF', 'true'],
    ['(?i)^[a-f]+$', 'aBcG', 'false'],
    ['(?i)^[^a-f]+$', 'XYZ', 'true'],
    ['(?i)^[^a-f]+$', 'xAy', 'false'],
    ['(?i)^[[:upper:]]+$', 'abc', 'true'],
    ['(?i)^[ -~]+$', 'Any Text!', 'true'],
    ['(?i)^\\\\x41\\\\x62$', 'aB', 'true'],
    ['(?i)^[\\\\x41]+$', 'aA', 'true'],
    ['(?i)^\\\\w\\\\S\\\\D$', 'A-x', 'true'],
    ['(?i)^\\\\W$', 'A', 'false'],
    ['(?i)^[\\\\d]+x$', '12X', 'true'],
  ];
  for (const [re, s, want] of cases) assert.equal(text(`{{ regexMatch "${re}" "${s}" }}`), want, `${re} on ${s}`);
  assert.equal(text('{{ regexReplaceAll "(?i)(?P<Word>b+)" "aBbA abba" "<${Word}>" }}'), 'a<Bb>A a<bb>a');
  assert.equal(text('{{ regexFindAll "(?i)ab" "Ab aB AB ab" -1 }}'), '[Ab aB AB ab]');
  assert.equal(text('{{ regexSplit "(?i)x" "aXbxc" -1 }}'), '[a b c]');
});

test('sprig: \\A and \\z match only at the ends of the text, also in multi-line mode', () => {
  assert.equal(text('{{ regexMatch "\\\\Aab\\\\z" "ab" }} {{ regexMatch "\\\\Aab\\\\z" "ab\\n" }} {{ regexMatch "b\\\\z" "ab" }}'), 'true false true');
  assert.equal(text('{{ regexMatch "(?m)^b$" "a\\nb\\nc" }} {{ regexMatch "(?m)\\\\Ab" "a\\nb" }} {{ regexMatch "(?m)a\\\\z" "a\\nb" }} {{ regexMatch "(?m)\\\\Aa" "a\\nb" }}'), 'true false false true');
  assert.throws(() => text('{{ mustRegexMatch "(?m)\\\\A(a+)+" "aaa" }}'), /too complex/);
});

test('sprig: crypto functions needing bcrypt/certificates exist but fail when called', () => {
  assert.throws(() => text('{{ bcrypt "x" }}'), /bcrypt is not available/);
  assert.throws(() => text('{{ genCA "x" 1 }}'), /genCA is not available/);
});

test('sprig: int parameters reject float attribs as Go does', () => {
  assert.throws(() => text('{{ repeat .A.p "x" }}'), /wrong type for value; expected int; got float64/);
  assert.equal(text('{{ repeat (int .A.p) "x" }}'), 'xxx');
});

test('sprig: spelled-out cases match as the i flag does (500 generated patterns)', () => {
  const atoms = ['a', 'B', 'z', '[a-c]', '[^x-z]', '[A-F0-9]', '\\\\w', '\\\\d', '.', '[[:alpha:]]', '(ab|Cd)', 'é', '\\\\x41'];
  const quantifiers = ['', '*', '+', '?', '{1,2}'];
  const texts = ['abc', 'ABC', 'aBz', 'XYZ', 'É', 'ée', 'Cd', 'cD', '09af', 'AF', 'a1', '', 'zZz'];
  let seed = 42;
  const pick = <T>(a: T[]) => a[(seed = (seed * 1103515245 + 12345) % 2 ** 31) % a.length];
  for (let k = 0; k < 500; k++) {
    const pattern = Array.from({ length: 1 + (k % 3) }, () => pick(atoms) + pick(quantifiers)).join('');
    const s = pick(texts);
    const js = pattern.replaceAll('\\\\', '\\').replaceAll('[[:alpha:]]', '[A-Za-z]');
    const want = String(new RegExp(`^(?:${js})$`, 'i').test(s));
    assert.equal(text(`{{ regexMatch "(?i)^(?:${pattern})$" "${s}" }}`), want, `(?i)${pattern} on "${s}"`);
  }
});
