// The settings schema (src/settings/schema.ts): it covers every setting of the defaults, which
// it takes as they are; PUT /api/settings and PUT /api/settings/{key} refuse a wrong type with a
// 400 naming the setting (and the field inside it), changing nothing; and the API reference
// describes the settings body with a property per setting.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_SETTINGS } from '../../src/settings/defaults.ts';
import { settingsSchema } from '../../src/settings/schema.ts';
import { parseInput, z } from '../../src/http/schema.ts';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

const settingsOf = async (t: TestServer) => (await t.request('GET', '/api/settings')).body.data;

describe('the settings schema', () => {
  it('has every setting of the defaults, and nothing else', () => {
    const schema = settingsSchema();
    assert.ok(schema instanceof z.ZodObject);
    assert.deepEqual(Object.keys(schema.shape), Object.keys(DEFAULT_SETTINGS));
  });

  it('takes every default as it is', () => {
    assert.deepEqual(parseInput(settingsSchema(), DEFAULT_SETTINGS), DEFAULT_SETTINGS);
  });

  it('fills the fields an object or a block leaves out from the default, and drops keys that are not settings', () => {
    const read = parseInput(settingsSchema(), { 'bounce.actions': { soft: { count: 3 } }, smtp: [{ host: 'smtp.example.com' }], 'app.nope': 1 });
    assert.deepEqual(read['bounce.actions'], { ...(DEFAULT_SETTINGS['bounce.actions'] as object), soft: { count: 3, action: 'none' } });
    const [block] = read.smtp as Record<string, unknown>[];
    assert.deepEqual([block.host, block.port, block.tls_type, block.password, block.uuid], ['smtp.example.com', 587, 'STARTTLS', '', '']);
    assert.equal('app.nope' in read, false);
  });
});

describe('a wrong type', () => {
  const server = useFreshServer();
  let was: unknown;
  const refused = (name: string, body: Record<string, unknown>, message: string): Scenario => ({
    name: `PUT /api/settings refuses ${name} with 400 naming it, changing nothing`,
    method: 'PUT', path: '/api/settings', body: { 'app.site_name': 'Changed?', ...body }, status: 400, contains: [message],
    before: async (t) => {
      was = await settingsOf(t);
    },
    after: async (_res, t) => assert.deepEqual(await settingsOf(t), was),
  });
  runScenarios(server, [
    refused('a number for a string', { 'app.from_email': 5 }, 'invalid setting "app.from_email": expected a string'),
    refused('a string for a boolean', { 'app.enable_public_archive': 'yes' }, 'invalid setting "app.enable_public_archive": expected a boolean'),
    refused('a numeric string for an integer', { 'app.concurrency': '4' }, 'invalid setting "app.concurrency": expected an integer'),
    refused('a string for a list', { 'privacy.domain_blocklist': 'spam.example' }, 'invalid setting "privacy.domain_blocklist": expected an array'),
    refused('a number in a list', { 'upload.extensions': ['jpg', 5] }, 'invalid setting "upload.extensions[1]": expected a string'),
    refused('a boolean for an object', { 'bounce.postmark': true }, 'invalid setting "bounce.postmark": expected an object'),
    refused('a wrong field of an object', { 'bounce.azure': { enabled: 1 } }, 'invalid setting "bounce.azure.enabled": expected a boolean'),
    refused('a wrong field of an SMTP server', { smtp: [{ host: 'smtp.example.com', port: '25' }] }, 'invalid setting "smtp[0].port": expected an integer'),
    refused('a wrong field of a messenger', { messengers: [{ name: 'sms', max_conns: 'many' }] }, 'invalid setting "messengers[0].max_conns": expected an integer'),
    {
      name: 'PUT /api/settings/{key} refuses a wrong type with 400 naming the setting, changing nothing',
      method: 'PUT', path: '/api/settings/bounce.actions', body: { hard: { count: 'one' } }, status: 400,
      contains: ['invalid setting "bounce.actions.hard.count": expected an integer'],
    },
    {
      name: 'PUT /api/settings/{key} refuses null for a string',
      method: 'PUT', path: '/api/settings/app.site_name', body: null, status: 400,
      contains: ['invalid setting "app.site_name": expected a string'],
    },
  ]);
});

describe('the API reference', () => {
  const server = useFreshServer();

  it('describes PUT /api/settings with a property per setting, with its type and rules', async () => {
    const doc = (await server().request('GET', '/api/openapi.json')).body;
    const ref: string = doc.paths['/api/settings'].put.requestBody.content['application/json'].schema.$ref;
    const body = doc.components.schemas[ref.split('/').pop()!];
    assert.deepEqual(Object.keys(body.properties), Object.keys(DEFAULT_SETTINGS));
    assert.equal(body.required, undefined, 'every setting may be left out');
    const p = body.properties;
    assert.equal(p['app.site_name'].type, 'string');
    assert.equal(p['app.enable_public_archive'].type, 'boolean');
    assert.deepEqual([p['app.concurrency'].type, p['app.concurrency'].minimum], ['integer', 1]);
    assert.deepEqual(p['upload.provider'].enum, ['filesystem', 's3']);
    assert.deepEqual(p['privacy.domain_blocklist'].items, { type: 'string' });
    assert.deepEqual(p['bounce.actions'].properties.soft.properties.action.enum, ['none', 'unsubscribe', 'blocklist', 'delete']);
    const smtp = p.smtp.items.properties;
    assert.deepEqual([smtp.port.type, smtp.port.minimum, smtp.port.maximum], ['integer', 1, 65535]);
    assert.deepEqual(smtp.tls_type.enum, ['none', 'STARTTLS', 'TLS']);
    assert.equal(smtp.tls_type.default, 'STARTTLS');
  });
});
