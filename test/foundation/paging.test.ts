// Paging and ordering parameters, as listmonk's paginator reads them.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseOrder, parseOrderBy, parsePaging } from '../../src/core/paging.ts';
import { startTestServer } from '../helpers/server.ts';

describe('parsePaging', () => {
  const cases: [Record<string, string>, { page: number; perPage: number; all: boolean; offset: number }][] = [
    [{}, { page: 1, perPage: 20, all: false, offset: 0 }],
    [{ page: '3', per_page: '10' }, { page: 3, perPage: 10, all: false, offset: 20 }],
    [{ per_page: '0' }, { page: 1, perPage: 20, all: false, offset: 0 }],
    [{ per_page: 'lots', page: 'x' }, { page: 1, perPage: 20, all: false, offset: 0 }],
    [{ per_page: '1000000' }, { page: 1, perPage: 1000000, all: false, offset: 0 }],
    [{ per_page: 'all', page: '4' }, { page: 1, perPage: 0, all: true, offset: 0 }],
    [{ per_page: 'ALL' }, { page: 1, perPage: 0, all: true, offset: 0 }],
    [{ per_page: '-1' }, { page: 1, perPage: 0, all: true, offset: 0 }],
    [{ page: '-2' }, { page: 1, perPage: 20, all: false, offset: 0 }],
    // Beyond 64-bit integers: bounded, so SQLite's LIMIT and OFFSET stay integers.
    [{ page: '99999999999999999999', per_page: '99999999999999999999' }, { page: 1e9, perPage: 1e9, all: false, offset: (1e9 - 1) * 1e9 }],
  ];
  for (const [query, want] of cases) {
    it(`reads ${JSON.stringify(query)}`, () => {
      const p = parsePaging(query);
      assert.deepEqual({ page: p.page, perPage: p.perPage, all: p.all, offset: p.offset }, want);
    });
  }
});

describe('huge page numbers over HTTP', () => {
  it('answer an empty page on every paged resource', async () => {
    const t = await startTestServer();
    try {
      for (const path of ['/api/subscribers', '/api/lists', '/api/campaigns', '/api/templates', '/api/bounces']) {
        for (const q of ['page=99999999999999999999', 'per_page=9999999999999999999', 'page=99999999999999999999&per_page=99999999999999999999']) {
          const res = await t.request('GET', `${path}?${q}`);
          assert.equal(res.status, 200, `${path}?${q}: ${res.text}`);
        }
      }
      const res = await t.request('GET', '/api/subscribers?page=99999999999999999999');
      assert.deepEqual(res.body.data.results, []);
    } finally {
      await t.stop();
    }
  });
});

describe('parseOrder / parseOrderBy', () => {
  it('accepts asc/desc in any case; anything else is desc', () => {
    assert.equal(parseOrder('ASC'), 'ASC');
    assert.equal(parseOrder('asc'), 'ASC');
    assert.equal(parseOrder('desc'), 'DESC');
    assert.equal(parseOrder('sideways'), 'DESC');
    assert.equal(parseOrder(undefined), 'DESC');
  });
  it('maps allowed names to columns and falls back silently', () => {
    const allowed = { name: 's.name', created_at: 's.created_at' };
    assert.equal(parseOrderBy('name', allowed, 's.id'), 's.name');
    assert.equal(parseOrderBy('password; DROP', allowed, 's.id'), 's.id');
    assert.equal(parseOrderBy('toString', allowed, 's.id'), 's.id');
  });
});
