// Expressions that must be refused with a SegmentError pointing at the offending token,
// before anything runs; the database is the same afterwards.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SegmentError, translateSegment } from '../../src/segments/index.ts';
import { openFixture, type Fixture } from './fixture.ts';

const HOSTILE: [expression: string, message: RegExp, position: number][] = [
  ['1=1; DROP TABLE subscribers', /only one expression is allowed/, 4],
  ['subscribers.id = 1;;', /only one expression is allowed/, 19],
  ['(SELECT password FROM users)', /subquery is only allowed after IN or EXISTS/, 2],
  ["load_extension('x')", /unknown function "load_extension"/, 1],
  ["subscribers.id = 1 AND load_extension('/tmp/evil.so') IS NULL", /unknown function "load_extension"/, 24],
  ['subscribers.id IN (SELECT id FROM users)', /table "users" is not allowed/, 35],
  ['subscribers.id IN (SELECT password FROM users)', /table "users" is not allowed/, 41],
  ['subscribers.id IN (SELECT user_id FROM sessions)', /table "sessions" is not allowed/, 40],
  ['EXISTS (SELECT 1 FROM settings)', /table "settings" is not allowed/, 23],
  ['subscribers.id IN (SELECT id FROM templates)', /table "templates" is not allowed/, 35],
  ['subscribers.id IN (SELECT subscriber_id FROM subscribers)', /table "subscribers" is not allowed/, 46],
  ['subscribers.id IN (SELECT subscriber_id FROM sqlite_master)', /table "sqlite_master" is not allowed/, 46],
  ['subscribers.id IN (SELECT subscriber_id FROM main.subscriber_lists)', /schema-qualified/, 50],
  ["subscribers.id IN (SELECT cid FROM pragma_table_info('users'))", /table functions/, 36],
  ['subscribers.id IN (SELECT subscriber_id FROM subscriber_lists, users)', /joins are not allowed/, 62],
  ['subscribers.id IN (SELECT subscriber_id FROM subscriber_lists JOIN users ON 1=1)', /joins are not allowed/, 63],
  ['subscribers.id IN (SELECT subscriber_id FROM subscriber_lists UNION SELECT id FROM users)', /UNION is not supported/, 63],
  ['subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = (SELECT id FROM users))', /subquery is only allowed/, 80],
  ['subscribers.id IN (SELECT subscriber_id, list_id FROM subscriber_lists)', /exactly one column/, 40],
  ['PRAGMA writable_schema = 1', /"pragma" is not allowed/, 1],
  ["ATTACH DATABASE '/tmp/x.db' AS x", /"attach" is not allowed/, 1],
  ['subscribers.id = 1 OR 1=1 UNION SELECT password FROM users', /unexpected "union"/, 27],
  ["subscribers.id = 1; UPDATE subscribers SET status = 'blocklisted'", /only one expression is allowed/, 19],
  ['DELETE FROM subscribers', /"delete" is not allowed/, 1],
  ['subscribers.id = 1 /* comment */', /comments \("\/\*"\) are not allowed/, 20],
  ['subscribers.id = 1 -- comment', /comments \("--"\) are not allowed/, 20],
  [') OR (1=1', /unbalanced "\)"/, 1],
  ['subscribers.id = 1) OR (1=1', /unbalanced "\)"/, 19],
  ['(subscribers.id = 1', /expected "\)" but found the end of the expression/, 20],
  ["subscribers.password = 'x'", /unknown column "subscribers.password"/, 1],
  ["password = 'x'", /unknown column "password"/, 1],
  ["users.password = 'x'", /unknown table "users"/, 1],
  ["subscriber_lists.list_id = 1", /unknown table "subscriber_lists"; read "subscriber_lists" in a subquery/, 1],
  ['"subscribers"."Name" = \'x\'', /unknown column "subscribers.Name"/, 1],
  ["subscribers.name = 'abc", /unterminated string/, 20],
  ['subscribers.name = "abc', /unterminated quoted identifier/, 20],
  ['subscribers.id = $1', /parameters and dollar-quoted strings/, 18],
  ['subscribers.name = $$x$$', /parameters and dollar-quoted strings/, 20],
  ['subscribers.id = ?', /unexpected "\?"/, 18],
  ["sqlite_version() = '3'", /unknown function "sqlite_version"/, 1],
  ['randomblob(100000000) IS NOT NULL', /unknown function "randomblob"/, 1],
  ["subscribers.name = char(65)", /unknown function "char"/, 20],
  ["main.subscribers.name = 'x'", /more than two parts/, 17],
  ["E'\\x27' = 'x'", /unknown or unsupported type "e"/, 1],
  ['subscribers.id', /needs a boolean value, not integer/, 1],
  ['subscribers.name = 1', /cannot compare text with integer/, 18],
  ['subscribers.id > 4 = true', /cannot be chained/, 20],
  ["subscribers.name ~ '('", /invalid regular expression/, 20],
  ["subscribers.name ~ '(a)\\1'", /invalid regular expression: backreferences and lookaround are not supported/, 20],
  ["subscribers.email ~* '^x(?=y)'", /invalid regular expression: backreferences and lookaround are not supported/, 22],
  ["subscribers.email ~* '(?<!x)y'", /invalid regular expression: backreferences and lookaround are not supported/, 22],
  ["subscribers.name LIKE 'abc\\'", /must not end with the escape character/, 23],
  ["(subscribers.attribs->>'age')::int > 'abc'", /invalid input syntax for type integer: "abc"/, 38],
  ["subscribers.created_at > NOW() - INTERVAL '3 fortnights'", /invalid input syntax for type interval/, 34],
  ["subscribers.created_at > 'yesterdayish'", /invalid input syntax for type timestamp/, 26],
  ["subscribers.attribs @> '{not json'", /invalid input syntax for type jsonb/, 24],
  ["subscribers.created_at > NOW() - subscribers.updated_at", /subtracting timestamps is not supported/, 32],
  ['subscribers.name::regclass IS NULL', /unknown or unsupported type "regclass"/, 17],
  ["subscribers.name SIMILAR TO 'a%'", /SIMILAR TO is not supported/, 18],
  ['count(*) > 1', /unknown function "count"/, 1],
  ['', /the expression is empty/, 0],
  [';', /the expression is empty/, 0],
  ['x'.repeat(50_001), /longer than 50000 characters/, 0],
  [`${'('.repeat(100)}true${')'.repeat(100)}`, /nested more than 64 levels deep/, 65],
  [`${'NOT '.repeat(100)}true`, /nested more than 64 levels deep/, 253],
];

describe('hostile and invalid expressions are refused', () => {
  let fixture: Fixture;
  let before_: string;
  before(() => {
    fixture = openFixture();
    before_ = fixture.snapshot();
  });
  after(() => fixture.close());

  for (const [expression, message, position] of HOSTILE) {
    test(expression.length > 80 ? `${expression.slice(0, 80)}…` : expression, () => {
      assert.throws(
        () => fixture.ids(expression),
        (e: unknown) => {
          assert.ok(e instanceof SegmentError, `expected a SegmentError, got ${String(e)}`);
          assert.match(e.message, message);
          assert.equal(e.position, position, e.message);
          // The position ends the message, or comes before a hint of the right form.
          if (position > 0) assert.match(e.message, new RegExp(`at position ${position}( — did you mean .+)?$`));
          return true;
        },
      );
    });
  }

  test('an unknown name is refused with the form the user probably meant', () => {
    const hints: [expression: string, message: string][] = [
      ["city = 'Berlin'", `unknown column "city" at position 1 — did you mean subscribers.attribs->>'city'?`],
      ["subscribers.name = 'x' AND ZipCode = '10115'", `unknown column "zipcode" at position 28 — did you mean subscribers.attribs->>'ZipCode'?`],
      ["subscribers.attribs->>'city' = Berlin", `unknown column "berlin" at position 32 — did you mean the text 'Berlin'? Text values go in single quotes`],
      ['list_id = 3', 'unknown column "list_id" at position 1 — did you mean subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE list_id = …)?'],
      // Inside a subquery the table's own columns are what is meant: no guess.
      ['subscribers.id IN (SELECT subscriber_id FROM subscriber_lists WHERE city = 1)', 'unknown column "city" at position 69'],
    ];
    for (const [expression, message] of hints) {
      assert.throws(() => translateSegment(expression), (e: unknown) => e instanceof SegmentError && e.message === message, expression);
    }
  });

  test('a long operator chain is refused before SQLite would refuse it', () => {
    const chain = `subscribers.id = ${Array.from({ length: 2000 }, () => '1').join(' + ')}`;
    assert.throws(() => translateSegment(chain), (e: unknown) => e instanceof SegmentError && /nested more than 64 levels deep at position \d+$/.test(e.message));
  });

  test('an expression that would bind too many values is refused', () => {
    const keys = Array.from({ length: 20_000 }, () => 'a').join(',');
    assert.throws(() => translateSegment(`subscribers.attribs ?& '{${keys}}'`), (e: unknown) => e instanceof SegmentError && /too many values/.test(e.message));
  });

  test('the database is unchanged after every refusal', () => {
    assert.equal(fixture.snapshot(), before_);
    assert.equal(fixture.db.prepare('SELECT count(*) FROM subscribers').pluck().get(), 6);
  });

  test('a refused expression produces no SQL at all', () => {
    let result: unknown = 'untouched';
    try {
      result = translateSegment("subscribers.id = 1 OR load_extension('x')");
    } catch {
      // expected
    }
    assert.equal(result, 'untouched');
  });
});
