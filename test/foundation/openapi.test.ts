// The API describes itself: /api/openapi.json is a valid OpenAPI 3.1 document generated from the
// route tables, it lists every /api route the app registers, and /api/docs shows it as a page.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Validator } from '@seriousme/openapi-schema-validator';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { appRoutes } from '../helpers/routes.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
});
after(() => t.stop());

describe('OpenAPI document', () => {
  it('validates as OpenAPI 3.1', async () => {
    const r = await t.request('GET', '/api/openapi.json');
    assert.equal(r.status, 200);
    assert.equal(r.body.openapi, '3.1.0');
    const result = await new Validator().validate(r.body);
    assert.deepEqual(result.errors ?? [], []);
    assert.equal(result.valid, true);
  });

  it('lists every /api route the app registers, with its method', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const documented = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths as Record<string, object>)) {
      for (const method of Object.keys(ops)) documented.add(`${method.toUpperCase()} ${path.replace(/\{[^}]+\}/g, ':p')}`);
    }
    const missing = (await appRoutes()).filter((r) => r.path.startsWith('/api/'))
      .map((r) => `${r.method} ${r.path.replace(/:[^/]+/g, ':p')}`)
      .filter((r) => !documented.has(r));
    assert.deepEqual(missing, []);
  });

  it('describes a route with its permission, parameters and body fields', async () => {
    const doc = (await t.request('GET', '/api/openapi.json')).body;
    const create = doc.paths['/api/lists'].post;
    assert.deepEqual(create['x-permissions'], ['lists:manage_all']);
    const schema = create.requestBody.content['application/json'].schema;
    const input = doc.components.schemas[schema.$ref.split('/').pop()];
    assert.deepEqual(input.properties.type.enum, ['private', 'public']);
    assert.equal(input.properties.name.maxLength, 2000);
    assert.deepEqual(input.required, ['name', 'type', 'optin']);
    const get = doc.paths['/api/lists/{id}'].get;
    assert.deepEqual(get.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`), ['path:id']);
  });

  it('is for signed-in users only', async () => {
    assert.equal((await t.request('GET', '/api/openapi.json', undefined, { auth: null })).status, 403);
    assert.equal((await t.request('GET', '/api/docs', undefined, { auth: null })).status, 403);
  });

  it('/api/docs shows the reference as a page', async () => {
    const r = await t.request('GET', '/api/docs');
    assert.equal(r.status, 200);
    assert.match(r.headers.get('content-type') ?? '', /text\/html/);
    assert.match(r.text, /<h3><span class="m">POST<\/span>\/api\/lists<\/h3>/);
    assert.match(r.text, /Requires <code>lists:manage_all<\/code>/);
    assert.match(r.headers.get('content-security-policy') ?? '', /default-src 'none'/);
    assert.doesNotMatch(r.text, /<script/);
  });
});
