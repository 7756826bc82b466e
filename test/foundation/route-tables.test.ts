// mount() makes a route's schemas on the route's first request, once: a server that has only
// started holds none of them (they were most of its idle memory; npm run bench:footprint).
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Hono } from 'hono';
import { DomainError } from '../../src/core/errors.ts';
import { httpStatus } from '../../src/http/errors.ts';
import { mount, routesFor, type MountOptions } from '../../src/http/routes.ts';
import { z } from '../../src/http/schema.ts';
import type { AppEnv } from '../../src/http/types.ts';

describe('route tables', () => {
  it('make a route\'s body and query schemas on its first request, and only once', async () => {
    const made = { body: 0, query: 0 };
    const route = routesFor<null>();
    const table = [
      route({
        method: 'POST', path: '/things', access: 'public', summary: 'test',
        body: () => (made.body++, z.object({ name: z.string().min(1) })),
        query: () => (made.query++, z.object({ dry: z.array(z.string()).optional() })),
        handler: (c, _s, input) => c.json({ name: input.body.name, dry: input.query.dry ?? [] }),
      }),
    ];
    const app = new Hono<AppEnv>();
    app.onError((err, c) => c.json({ message: err.message }, err instanceof DomainError ? httpStatus(err) : 500));
    const pass: MountOptions['trackWrites'] = async (_c, next) => next();
    mount(app, table, null, { guard: () => pass, trackWrites: pass, bodyBytes: 1024 });
    assert.deepEqual(made, { body: 0, query: 0 }, 'nothing made when mounted');

    const post = (body: unknown) => app.request('/things?dry=1', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const ok = await post({ name: 'a' });
    assert.equal(ok.status, 200);
    assert.deepEqual(await ok.json(), { name: 'a', dry: ['1'] });
    const refused = await post({ name: '' });
    assert.equal(refused.status, 400, 'the schema made on first use still validates');
    assert.match((await refused.json() as { message: string }).message, /invalid "name"/);
    assert.deepEqual(made, { body: 1, query: 1 }, 'made once, reused by later requests');
  });
});
