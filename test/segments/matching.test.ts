// Which subscribers each supported expression selects, run on a real SQLite file.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { openFixture, UUID_4, type Fixture } from './fixture.ts';

// Subscribers (see fixture.ts): 1 Anna (Berlin, 30, vip, tags vip+beta), 2 Bob (Porto, age "45"),
// 3 andré (berlin, blocklisted), 4 Carol (disabled, vip "true", nested), 5 ÉMILE (empty-ish),
// 6 Zed (x@y.z, Berlin, 30). NOW is 2025-06-15T12:00:00.000Z.
const CASES: [expression: string, ids: number[]][] = [
  // The examples listmonk users write.
  ["subscribers.name ILIKE 'an%'", [1, 3]],
  ["subscribers.email='x@y.z'", [6]],
  ['subscribers.id=42', []],
  ['subscribers.id=2', [2]],
  [`subscribers.uuid = '${UUID_4}'`, [4]],
  ["subscribers.attribs->>'city' = 'Berlin'", [1, 6]],
  ["(subscribers.attribs->>'age')::INT > 30", [2]],
  ["subscribers.attribs->'address'->>'zip' = '10115'", [1]],
  ["subscribers.created_at > NOW() - INTERVAL '30 days'", [1, 3, 5]],
  ["subscribers.attribs->'tags' ? 'vip'", [1]],
  ["subscribers.status != 'blocklisted' AND (subscribers.name ~* '^a' OR subscribers.email LIKE '%@gmail.com')", [1, 2]],
  ['subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = 3)', []],
  ['subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = 2)', [1, 3]],
  ['subscribers.id IN (SELECT subscriber_id FROM campaign_views WHERE campaign_id = 3)', [2, 5]],
  ["subscribers.attribs->>'score' IS NOT NULL", [1]],
  ["NOT subscribers.attribs ? 'x'", [1, 2, 4, 5]],
  ["subscribers.attribs ? 'x'", [3, 6]],
  ["(subscribers.attribs->>'vip')::boolean = true", [1, 4]],
  ["(subscribers.attribs->>'vip')::boolean = false", [2]],
  ["subscribers.attribs->>'vip' = 'true'", [1, 4]],

  // Spacing, keyword and identifier case, trailing semicolon, unqualified columns.
  ["subscribers.attribs->>'city'='Berlin'", [1, 6]],
  ["  subscribers.attribs ->> 'city'  =  'Berlin'  ", [1, 6]],
  ["SUBSCRIBERS.NAME = 'Zed'", [6]],
  ["subscribers.name ilike 'AN%' and subscribers.status = 'enabled'", [1]],
  ["subscribers.email = 'x@y.z';", [6]],
  ["subscribers.email = 'x@y.z' ;  ", [6]],
  ["name = 'Zed'", [6]],
  ["email = 'x@y.z'", [6]],
  ["attribs->>'city' = 'Berlin'", [1, 6]],
  ['"subscribers"."name" = \'Zed\'', [6]],

  // Precedence.
  ["subscribers.id = 1 OR subscribers.id = 2 AND subscribers.status = 'disabled'", [1]],
  ["(subscribers.id = 1 OR subscribers.id = 2) AND subscribers.status = 'disabled'", []],
  ['NOT subscribers.id = 1 AND subscribers.id < 3', [2]],
  ['subscribers.id * 2 + 1 = 7', [3]],
  ['subscribers.id + 2 * 2 = 5', [1]],
  ['(subscribers.id + 2) * 2 = 10', [3]],
  ["subscribers.attribs->'tags' ? 'vip' OR subscribers.attribs->'tags' ? 'news'", [1, 2]],
  ["(subscribers.id > 4) = true", [5, 6]],

  // Comparisons of JSON text behave as Postgres text, whatever the JSON type.
  ["subscribers.attribs->>'age' = '30'", [1, 6]],
  ["subscribers.attribs->>'age' = '45'", [2]],
  ["subscribers.attribs->>'score' = '9.5'", [1]],
  ["subscribers.attribs->>'address' LIKE '%10115%'", [1]],
  ["(subscribers.attribs->>'age')::numeric > 30", [2, 4]],
  ["(subscribers.attribs->>'age')::float >= 30.5", [2, 4]],
  ["(subscribers.attribs->'age')::int = 30", [1, 6]],
  ["subscribers.attribs->'nested'->'deep'->'k'->2->>'z' = 'y'", [4]],
  ["subscribers.attribs #>> '{nested,deep,k,2,z}' = 'y'", [4]],
  ["subscribers.attribs->'nested'->'deep'->'k'->-1->>'z' = 'y'", [4]],
  ["subscribers.attribs->>'we\"ird' = 'k'", [5]],
  ["jsonb_typeof(subscribers.attribs->'age') = 'string'", [2]],
  ["jsonb_typeof(subscribers.attribs->'age') = 'number'", [1, 3, 4, 6]],

  // NULL handling.
  ["subscribers.attribs->>'city' <> 'Berlin'", [2, 3]],
  ["subscribers.attribs->>'city' IS NULL", [4, 5]],
  ["subscribers.attribs->>'x' IS NULL", [1, 2, 3, 4, 5]],
  ["subscribers.attribs->'x' IS NULL", [1, 2, 4, 5]],
  ["subscribers.attribs->>'city' = NULL", []],
  ["subscribers.attribs->>'city' IS DISTINCT FROM 'Berlin'", [2, 3, 4, 5]],
  ["NOT (subscribers.attribs->>'city' = 'Berlin')", [2, 3]],
  ["COALESCE(subscribers.attribs->>'city', 'none') = 'none'", [4, 5]],
  ["COALESCE((subscribers.attribs->>'age')::numeric, 0) = 0", [5]],
  ["NULLIF(subscribers.attribs->>'city', 'Berlin') IS NULL", [1, 4, 5, 6]],

  // Case rules: = and LIKE and ~ are case-sensitive; ILIKE and ~* are not, for any script.
  ["subscribers.email = 'X@Y.Z'", []],
  ["subscribers.name LIKE 'an%'", [3]],
  ["subscribers.name LIKE 'An%'", [1]],
  ["subscribers.name NOT LIKE '%o%'", [1, 3, 6]],
  ["subscribers.name ILIKE 'émile%'", [5]],
  ["subscribers.name ILIKE '%ölz'", [3]],
  ["subscribers.name LIKE '_ed'", [6]],
  ["subscribers.email LIKE 'x\\@y.z'", [6]],
  ["subscribers.name ~ '^a'", [3]],
  ["subscribers.name ~* '^a'", [1, 3]],
  ["subscribers.name !~* '^a'", [2, 4, 5, 6]],
  ["subscribers.name !~ '^[A-Z]'", [3, 5]],
  ["subscribers.name ~* 'ÉMI'", [5]],
  ["subscribers.name ~* 'ANDRÉ ö'", [3]],
  ["subscribers.name ~* '^[A-B]\\w'", [1, 2, 3]],
  ["subscribers.name ~* '\\W'", [1, 2, 3, 5]],
  // Patterns that backtrack exponentially elsewhere (V8 runs them in linear time, see below).
  ["subscribers.name ~ '(n+)+a '", [1]],
  ["subscribers.email ~* '^(X|XX)*@'", [6]],
  ["LOWER(subscribers.attribs->>'city') = 'berlin'", [1, 3, 6]],
  ["UPPER(subscribers.name) = 'ÉMILE DUPONT'", [5]],
  ["LOWER(subscribers.name) = 'émile dupont'", [5]],

  // Dates, timestamps and intervals against the fixed created_at values.
  ["subscribers.created_at > NOW() - INTERVAL '1 day 2 hours'", [3, 5]],
  ["subscribers.created_at > NOW() - INTERVAL '2 months'", [1, 2, 3, 5]],
  ["subscribers.created_at > NOW() - interval '1 week'", [1, 3, 5]],
  ["subscribers.created_at > NOW() - INTERVAL '90 minutes'", [5]],
  ["subscribers.created_at < NOW() - INTERVAL '1 year' + INTERVAL '7 months'", [4]],
  ["subscribers.created_at > CURRENT_TIMESTAMP - INTERVAL '1 hour 30 mins'", [5]],
  ["subscribers.created_at >= CURRENT_DATE", [5]],
  ['subscribers.created_at >= CURRENT_DATE - 1', [3, 5]],
  ["subscribers.created_at < '2025-01-01'", [4]],
  ["subscribers.created_at = '2025-01-31 10:00:00'", [6]],
  ["subscribers.created_at = '2025-01-31T12:00:00+02:00'", [6]],
  ["subscribers.created_at BETWEEN '2025-06-01' AND '2025-06-15'", [1, 3]],
  ["subscribers.created_at + INTERVAL '1 month' = '2025-02-28T10:00:00Z'", [6]],
  ["subscribers.created_at + INTERVAL '1 day' > NOW()", [3, 5]],
  ["INTERVAL '10 days' + subscribers.created_at > NOW()", [1, 3, 5]],
  ["subscribers.created_at::date = '2025-06-14'", [3]],
  ["subscribers.created_at::date = DATE '2025-06-14'", [3]],
  ["(subscribers.attribs->>'signup')::timestamp > '2025-01-01'", [2]],
  ["(subscribers.attribs->>'signup')::date < '2025-01-01'", [5]],
  ["date_trunc('month', subscribers.created_at) = '2025-06-01'", [1, 3, 5]],
  ["date_trunc('week', subscribers.created_at) = '2025-06-09'", [1, 3, 5]],
  ['EXTRACT(YEAR FROM subscribers.created_at) = 2024', [4]],
  ["date_part('month', subscribers.created_at) = 1", [6]],
  ['extract(dow from subscribers.created_at) = 0', [5]],

  // BETWEEN, IN, arithmetic, functions, casts.
  ['subscribers.id BETWEEN 2 AND 4', [2, 3, 4]],
  ['subscribers.id NOT BETWEEN 2 AND 4', [1, 5, 6]],
  ['subscribers.id BETWEEN SYMMETRIC 4 AND 2', [2, 3, 4]],
  ["(subscribers.attribs->>'age')::numeric BETWEEN 25 AND 31", [1, 4, 6]],
  ['subscribers.id IN (1, 3, 99)', [1, 3]],
  ["subscribers.id IN ('1', '3')", [1, 3]],
  ["subscribers.status IN ('disabled', 'blocklisted')", [3, 4]],
  ["subscribers.status NOT IN ('disabled', 'blocklisted')", [1, 2, 5, 6]],
  ['subscribers.id / 2 = 1', [2, 3]],
  ['subscribers.id % 2 = 0', [2, 4, 6]],
  ['-subscribers.id = -5', [5]],
  ['subscribers.id::numeric / 4 = 0.75', [3]],
  ['subscribers.id ^ 2 = 16', [4]],
  ["subscribers.id = '2'", [2]],
  ["subscribers.id::text = '4'", [4]],
  ["subscribers.id::text || '-' || subscribers.name = '6-Zed'", [6]],
  ['LENGTH(subscribers.name) = 3', [6]],
  ["TRIM('  Zed ') = subscribers.name", [6]],
  ["substring(subscribers.email, 1, 3) = 'bob'", [2]],
  ["replace(subscribers.email, 'gmail', 'x') = 'bob@x.com'", [2]],
  ["concat(subscribers.name, '!', NULL) = 'Zed!'", [6]],
  ['round((subscribers.attribs->>\'age\')::numeric) = 31', [4]],
  ["abs(subscribers.id - 10) = 4", [6]],
  ["CASE WHEN subscribers.id < 3 THEN 'low' ELSE 'high' END = 'low'", [1, 2]],
  ["CASE subscribers.status WHEN 'disabled' THEN 1 WHEN 'blocklisted' THEN 1 ELSE 0 END = 1", [3, 4]],

  // JSON containment, key tests, arrays.
  ['subscribers.attribs @> \'{"city": "Berlin"}\'', [1, 6]],
  ['subscribers.attribs @> \'{"address": {"zip": "10115"}}\'', [1]],
  ["subscribers.attribs->'tags' @> '[\"beta\"]'", [1]],
  ["subscribers.attribs->'tags' @> '\"news\"'", [2]],
  ['\'{"city": "Porto"}\' <@ subscribers.attribs', [2]],
  ["subscribers.attribs->'tags' ?| array['news', 'beta']", [1, 2]],
  ["subscribers.attribs->'tags' ?& '{vip,beta}'", [1]],
  ["subscribers.attribs->'tags' ?& '{vip,news}'", []],
  ["subscribers.attribs->'address' ? 'zip'", [1, 2]],
  ["jsonb_array_length(subscribers.attribs->'tags') = 0", [3]],
  ["jsonb_array_length(subscribers.attribs->'tags') > 1", [1]],
  ["jsonb_array_length(subscribers.attribs->'city') IS NULL", [1, 2, 3, 4, 5, 6]],
  ["subscribers.attribs->'tags' = '[\"news\"]'", [2]],

  // Subqueries over the allowed tables.
  ["EXISTS (SELECT 1 FROM subscriber_lists sl WHERE sl.subscriber_id = subscribers.id AND sl.status = 'confirmed')", [1, 3]],
  ['EXISTS (SELECT * FROM bounces WHERE bounces.subscriber_id = subscribers.id)', [2, 6]],
  ["subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id IN (SELECT id FROM lists WHERE name = 'Beta'))", [1, 3]],
  ["subscribers.id NOT IN (SELECT subscriber_id FROM subscriber_lists WHERE status <> 'unsubscribed')", [4, 5, 6]],
  ["subscribers.id IN (SELECT subscriber_id FROM link_clicks WHERE link_id IN (SELECT id FROM links WHERE url LIKE '%example%'))", [4]],
  ["subscribers.id IN (SELECT subscriber_id FROM bounces WHERE type = 'hard')", [2]],
  ["subscribers.id IN (SELECT DISTINCT subscriber_id FROM campaign_views WHERE created_at > NOW() - INTERVAL '14 days')", [1, 5]],
  ["subscribers.id IN (SELECT subscriber_id FROM subscriber_lists AS s WHERE s.list_id IN (SELECT list_id FROM campaign_lists WHERE campaign_id IN (SELECT id FROM campaigns WHERE name = 'Three')))", [1, 2]],
  // An unqualified name inside a subquery is the subquery's column first (status of the subscription).
  ["subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE status = 'unsubscribed')", [1]],
  // Literal values never become SQL.
  ["subscribers.name = 'Robert''); DROP TABLE subscribers;--'", []],
];

describe('segment expressions select the right subscribers', () => {
  let fixture: Fixture;
  before(() => {
    fixture = openFixture();
  });
  after(() => fixture.close());

  for (const [expression, ids] of CASES) {
    test(expression, () => {
      assert.deepEqual(fixture.ids(expression), ids);
    });
  }

  test('the translation is parenthesised, so a top-level OR cannot escape the caller\'s filter', async () => {
    const { translateSegment } = await import('../../src/segments/index.ts');
    const { sql, params } = translateSegment('subscribers.id = 1 OR subscribers.id = 2');
    const rows = fixture.db.prepare(`SELECT id FROM subscribers WHERE subscribers.status = 'disabled' AND ${sql}`).all(...params);
    assert.deepEqual(rows, []);
  });

  test('long AND / OR chains run: they are emitted as balanced trees within SQLite\'s depth limit', () => {
    const anyOf = Array.from({ length: 2000 }, (_, i) => `id = ${i + 3}`).join(' OR ');
    assert.deepEqual(fixture.ids(anyOf), [3, 4, 5, 6]);
    const allOf = Array.from({ length: 2000 }, (_, i) => `id <> ${i + 3}`).join(' AND ');
    assert.deepEqual(fixture.ids(allOf), [1, 2]);
  });

  test('literals are bound as parameters, not written into the SQL', async () => {
    const { translateSegment } = await import('../../src/segments/index.ts');
    const { sql, params } = translateSegment("subscribers.name = 'x''); DROP TABLE subscribers;--' AND subscribers.id = 42");
    assert.doesNotMatch(sql, /DROP|42|'x/);
    assert.deepEqual(params, ["x'); DROP TABLE subscribers;--", 42]);
  });
  test('->> equality tests the document text first and still finds escaped and non-string values', async () => {
    const { translateSegment } = await import('../../src/segments/index.ts');
    const { sql, params } = translateSegment("subscribers.attribs->>'city' = 'Berlin' AND subscribers.id > 0");
    assert.match(sql, /instr\(/, 'a substring test guards the JSON parse');
    assert.ok(params.includes('Berlin'));
    // Stored text that spells the value with escapes (no literal "Berlin" in it) still matches.
    const update = fixture.db.prepare('UPDATE subscribers SET attribs = ? WHERE id = ?');
    const saved = fixture.db.prepare('SELECT attribs FROM subscribers WHERE id = 6').pluck().get() as string;
    update.run('{"city":"B\\u0065rlin","age":30,"flag":true,"n":12}', 6);
    try {
      for (const [expression, ids] of [
        ["subscribers.attribs->>'city' = 'Berlin'", [1, 6]],
        ["subscribers.attribs->>'flag' = 'true'", [6]],
        ["subscribers.attribs->>'n' = '12'", [6]],
        ["subscribers.attribs->>'city' = 'Berl'", []],
        // Not at the top of the filter: NOT and OR see the plain comparison (NULL stays NULL).
        ["NOT (subscribers.attribs->>'city' = 'Berlin')", [2, 3]],
        ["subscribers.attribs->>'city' = 'Porto' OR subscribers.id = 5", [2, 5]],
        ["'Berlin' = subscribers.attribs->>'city'", [1, 6]],
        ["subscribers.attribs->'address'->>'zip' = '10115'", [1]],
      ] as const) {
        assert.deepEqual(fixture.ids(expression), ids, expression);
      }
    } finally {
      update.run(saved, 6);
    }
  });
  test('top-level attribs string equalities are reported for a text index to narrow the rows', async () => {
    const { translateSegment } = await import('../../src/segments/index.ts');
    const strings = (e: string) => translateSegment(e).attribStrings;
    assert.deepEqual(strings("subscribers.attribs->>'city' = 'Berlin' AND attribs->'address'->>'zip' = 'Main St'"), ['Berlin', 'Main St']);
    assert.deepEqual(strings("'Berlin' = subscribers.attribs->>'city'"), ['Berlin']);
    // Values that can be numbers or booleans, short strings, and anything under OR or NOT are not.
    for (const e of [
      "subscribers.attribs->>'age' = '30'", "subscribers.attribs->>'n' = '-1x'", "subscribers.attribs->>'vip' = 'true'",
      "subscribers.attribs->>'c' = 'ab'", "subscribers.attribs->>'city' = 'Berlin' OR subscribers.id = 1",
      "NOT subscribers.attribs->>'city' = 'Berlin'", "subscribers.attribs->>'city' <> 'Berlin'",
      "subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE meta->>'src' = 'form')",
    ]) {
      assert.deepEqual(strings(e), [], e);
    }
  });
});

describe('regular expressions and LIKE patterns that backtrack exponentially or polynomially', () => {
  let fixture: Fixture;
  before(() => {
    fixture = openFixture();
    fixture.db.prepare("INSERT INTO subscribers (id, uuid, email, name) VALUES (7, 'long', 'long@example.org', ?)").run('a'.repeat(20_000));
    fixture.db.prepare("INSERT INTO subscribers (id, uuid, email, name) VALUES (8, 'emoji', 'emoji@example.org', '😀é')").run();
  });
  after(() => fixture.close());

  test('"_" in a non-ASCII ILIKE pattern stands for one character, even outside the BMP', () => {
    assert.deepEqual(fixture.ids("subscribers.id > 6 AND subscribers.name ILIKE '_É'"), [8]);
    assert.deepEqual(fixture.ids("subscribers.id > 6 AND subscribers.name ILIKE '__É'"), []);
  });

  // With backtracking alone each of these runs for hours on the 20,000-character name; a
  // regression fails by the timeout instead of hanging the run.
  for (const pattern of ["~ '(a+)+b'", "~ 'a*a*a*a*a*b'", "~* '(A|AA)*C'", "~* '^(\\w+\\s?)*$'", "LIKE '%a%a%a%a%a%b'", "ILIKE '%a%a%a%a%a%b'", "ILIKE '%A%a%A%a%A%é'"]) {
    test(`${pattern} finishes on a 20,000-character value`, { timeout: 60_000 }, () => {
      assert.deepEqual(fixture.ids(`subscribers.id = 7 AND subscribers.name ${pattern}`), pattern.endsWith("$'") ? [7] : []);
    });
  }
});
