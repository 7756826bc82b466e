// Translated lookups keep SQLite's indexes usable, so a segment by id, e-mail or uuid is a
// single index search, not a table scan.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { translateSegment } from '../../src/segments/index.ts';
import { NOW, openFixture, UUID_4, type Fixture } from './fixture.ts';

const INDEXED: [expression: string, index: RegExp][] = [
  ['subscribers.id=42', /SEARCH subscribers USING INTEGER PRIMARY KEY \(rowid=\?\)/],
  ['subscribers.id = 42;', /SEARCH subscribers USING INTEGER PRIMARY KEY \(rowid=\?\)/],
  ['subscribers.id IN (1, 2, 3)', /SEARCH subscribers USING INTEGER PRIMARY KEY \(rowid=\?\)/],
  ["subscribers.email='x@y.z'", /SEARCH subscribers USING (COVERING )?INDEX sqlite_autoindex_subscribers_\d \(email=\?\)/],
  ["email = 'x@y.z'", /SEARCH subscribers USING (COVERING )?INDEX sqlite_autoindex_subscribers_\d \(email=\?\)/],
  [`subscribers.uuid = '${UUID_4}'`, /SEARCH subscribers USING (COVERING )?INDEX sqlite_autoindex_subscribers_\d \(uuid=\?\)/],
  ["subscribers.created_at > NOW() - INTERVAL '30 days'", /SEARCH subscribers USING (COVERING )?INDEX subscribers_created_at \(created_at>\?\)/],
  ["subscribers.status = 'blocklisted'", /SEARCH subscribers USING (COVERING )?INDEX subscribers_status \(status=\?\)/],
];

describe('translated lookups use the indexes', () => {
  let fixture: Fixture;
  before(() => {
    fixture = openFixture();
  });
  after(() => fixture.close());

  for (const [expression, index] of INDEXED) {
    test(expression, () => {
      const { sql, params } = translateSegment(expression, { now: NOW });
      const plan = fixture.db
        .prepare(`EXPLAIN QUERY PLAN SELECT id FROM subscribers WHERE ${sql}`)
        .all(...params)
        .map((row) => (row as { detail: string }).detail)
        .join('\n');
      assert.match(plan, index);
      assert.doesNotMatch(plan, /SCAN subscribers/);
    });
  }

  test('the same SQL and parameters come out for the same expression', () => {
    const a = translateSegment("subscribers.attribs->>'city' = 'Berlin' AND subscribers.id > 3", { now: NOW });
    const b = translateSegment("subscribers.attribs->>'city' = 'Berlin' AND subscribers.id > 3", { now: NOW });
    assert.deepEqual(a, b);
    assert.match(a.sql, /^\(.*\)$/s);
  });
});
