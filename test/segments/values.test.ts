// Postgres input rules for literals, and the documentation kept in step with the allow-lists.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { SUBQUERY_TABLES } from '../../src/segments/catalog.ts';
import { ALLOWED_FUNCTIONS } from '../../src/segments/translate.ts';
import { addInterval, parseInterval, parseTimestamp } from '../../src/segments/values.ts';

const HOUR = 3_600_000;
const NOW = new Date('2025-06-15T12:00:00.000Z');

describe('interval input', () => {
  const cases: [string, ReturnType<typeof parseInterval>][] = [
    ['30 days', { months: 0, days: 30, ms: 0 }],
    ['1 day', { months: 0, days: 1, ms: 0 }],
    ['1 day 2 hours', { months: 0, days: 1, ms: 2 * HOUR }],
    ['1 DAY 2 HOURS 3 minutes 4 seconds', { months: 0, days: 1, ms: 2 * HOUR + 3 * 60_000 + 4000 }],
    ['2 weeks', { months: 0, days: 14, ms: 0 }],
    ['1 year 2 months', { months: 14, days: 0, ms: 0 }],
    ['1.5 hours', { months: 0, days: 0, ms: 1.5 * HOUR }],
    ['1.5 days', { months: 0, days: 1, ms: 12 * HOUR }],
    ['-1 week', { months: 0, days: -7, ms: 0 }],
    ['3 days ago', { months: 0, days: -3, ms: 0 }],
    ['01:30:00', { months: 0, days: 0, ms: 1.5 * HOUR }],
    ['1 day 01:00', { months: 0, days: 1, ms: HOUR }],
    ['10 mins', { months: 0, days: 0, ms: 600_000 }],
    ['', null],
    ['days', null],
    ['3 fortnights', null],
    ['1 day; drop', null],
  ];
  for (const [text, expected] of cases) {
    test(JSON.stringify(text), () => assert.deepEqual(parseInterval(text), expected));
  }
});

describe('timestamp input and interval arithmetic', () => {
  test('forms of a timestamp literal', () => {
    const at = Date.UTC(2025, 0, 31, 10, 0, 0);
    assert.equal(parseTimestamp('2025-01-31 10:00', NOW), at);
    assert.equal(parseTimestamp('2025-01-31T10:00:00.000Z', NOW), at);
    assert.equal(parseTimestamp('2025-01-31T12:00:00+02:00', NOW), at);
    assert.equal(parseTimestamp('2025-01-31T05:30-0430', NOW), at);
    assert.equal(parseTimestamp('2025-01-31', NOW), Date.UTC(2025, 0, 31));
    assert.equal(parseTimestamp('today', NOW), Date.UTC(2025, 5, 15));
    assert.equal(parseTimestamp('yesterday', NOW), Date.UTC(2025, 5, 14));
    assert.equal(parseTimestamp('2025-02-30', NOW), null);
    assert.equal(parseTimestamp('2025-01-31 25:00', NOW), null);
    assert.equal(parseTimestamp('31/01/2025', NOW), null);
  });

  test('months are added first and clamped to the month end, as Postgres does', () => {
    const jan31 = Date.UTC(2025, 0, 31, 10);
    assert.equal(new Date(addInterval(jan31, { months: 1, days: 0, ms: 0 }, 1)).toISOString(), '2025-02-28T10:00:00.000Z');
    assert.equal(new Date(addInterval(jan31, { months: 1, days: 1, ms: 0 }, 1)).toISOString(), '2025-03-01T10:00:00.000Z');
    assert.equal(new Date(addInterval(Date.UTC(2024, 2, 31), { months: 1, days: 0, ms: 0 }, -1)).toISOString(), '2024-02-29T00:00:00.000Z');
    assert.equal(new Date(addInterval(jan31, { months: 0, days: 0, ms: 1500 }, -1)).toISOString(), '2025-01-31T09:59:58.500Z');
  });
});

describe('docs/segments.md lists the allow-lists', () => {
  const docs = readFileSync(new URL('../../docs/segments.md', import.meta.url), 'utf8');
  test('every allowed function', () => {
    for (const name of ALLOWED_FUNCTIONS) assert.match(docs, new RegExp(`\`${name}[(\`]`), name);
  });
  test('every allowed table and its columns', () => {
    for (const [table, columns] of Object.entries(SUBQUERY_TABLES)) {
      const row = docs.split('\n').find((line) => line.startsWith(`| \`${table}\` |`));
      assert.ok(row, table);
      assert.equal(row.split('|')[2].trim(), Object.keys(columns).join(', '), table);
    }
  });
});
