// Whatever the input, the translator either refuses it with a SegmentError or produces SQL
// that SQLite prepares and runs: user input can never surface as another kind of error.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SegmentError } from '../../src/segments/index.ts';
import { openFixture, type Fixture } from './fixture.ts';

const VOCABULARY = [
  'subscribers.id', 'subscribers.name', 'subscribers.attribs', 'subscribers.created_at', 'email', 'status', 'attribs',
  "'Berlin'", "'30'", "'{a,b}'", "'2025-01-01'", "'{\"a\":1}'", "'a\"b'", "'\\'", "'%'", "'['", 'NULL', 'TRUE', '42', '-1', '2.5',
  '=', '<>', '<', '>=', '+', '-', '*', '/', '%', '^', '||', '->', '->>', '#>>', '?', '?|', '?&', '@>', '~*', '!~', '::int', '::text',
  '::jsonb', '::date', '::boolean', '::timestamp', 'AND', 'OR', 'NOT', 'IS', 'NULL', 'IN', 'LIKE', 'ILIKE', 'BETWEEN', '(', ')', ',',
  'NOW()', "INTERVAL '1 day'", 'CURRENT_DATE', 'lower(', 'coalesce(', 'jsonb_array_length(', 'date_trunc(\'day\',', 'CASE', 'WHEN',
  'THEN', 'ELSE', 'END', 'EXISTS', 'SELECT', 'subscriber_id', 'FROM', 'subscriber_lists', 'WHERE', 'list_id', 'ARRAY[', ']',
];

/** A small deterministic generator, so a failure can be replayed. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2_147_483_648;
    return state / 2_147_483_648;
  };
}

describe('random token sequences', () => {
  let fixture: Fixture;
  before(() => {
    fixture = openFixture();
  });
  after(() => fixture.close());

  test('are refused with SegmentError or run without error', () => {
    const random = generator(20250615);
    let ran = 0;
    for (let i = 0; i < 5000; i++) {
      const length = 1 + Math.floor(random() * 9);
      const expression = Array.from({ length }, () => VOCABULARY[Math.floor(random() * VOCABULARY.length)]).join(' ');
      try {
        fixture.ids(expression);
        ran++;
      } catch (e) {
        assert.ok(e instanceof SegmentError, `${expression}\n→ ${String(e)}`);
      }
    }
    // The generator must also produce valid expressions, or the test proves little.
    assert.ok(ran > 15, `only ${ran} expressions ran`);
  });

  test('odd attribute keys are read literally', () => {
    for (const key of ['a"b', 'a\\b', 'a.b', '[0]', '$', '', '\\"', "'", '🙂', 'a b', '#-1']) {
      const quoted = key.replace(/'/g, "''");
      assert.deepEqual(fixture.ids(`subscribers.attribs->>'${quoted}' IS NOT NULL`), [], key);
      assert.deepEqual(fixture.ids(`subscribers.attribs ? '${quoted}'`), [], key);
    }
  });
});
