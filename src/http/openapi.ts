// The API's OpenAPI 3.1 description, generated from the route tables and their zod schemas:
// nothing here is written beside them by hand, so the document cannot drift from the code.
import { z } from 'zod';
import type { AnyRoute, Route } from './routes.ts';

type JsonSchema = Record<string, unknown>;

export interface OpenApiInfo {
  version: string;
  /** Where the tables are mounted (`/api`). */
  basePath: string;
}

const ERROR_RESPONSE = { description: 'The request was refused: `message` says why.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };

const BODY_TYPES: Record<string, string[]> = {
  json: ['application/json'],
  'json-or-form': ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'],
};

/** A JSON Schema for a zod schema, with named parts moved to `components.schemas`. */
function schemaOf(s: z.ZodType, components: Record<string, JsonSchema>): JsonSchema {
  const json = z.toJSONSchema(s, { io: 'input', unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  const defs = (json.$defs ?? {}) as Record<string, JsonSchema>;
  delete json.$defs;
  delete json.$schema;
  const relink = (v: JsonSchema): JsonSchema => JSON.parse(JSON.stringify(v).replaceAll('"#/$defs/', '"#/components/schemas/')) as JsonSchema;
  for (const [id, def] of Object.entries(defs)) components[id] = relink(def);
  return relink(json);
}

/** `/lists/:id` → `/lists/{id}`, and the path parameters. */
function pathOf(path: string): { path: string; params: string[] } {
  const params: string[] = [];
  const p = path.replace(/:([A-Za-z_]+)/g, (_m, name: string) => {
    params.push(name);
    return `{${name}}`;
  });
  return { path: p, params };
}

function accessText(r: AnyRoute<unknown>): string {
  if (r.access === 'public') return 'Open to anyone.';
  if (r.access === 'signed-in') return 'Any signed-in user or API user.';
  if (r.access === 'super-admin') return 'A Super Admin only.';
  const perms = typeof r.access === 'string' ? [r.access] : r.access;
  return `Requires ${perms.map((p) => `\`${p}\``).join(' or ')}.`;
}

function operation(r: Route<unknown, z.ZodType, z.ZodType>, tag: string, components: Record<string, JsonSchema>): JsonSchema {
  const { params } = pathOf(r.path);
  const parameters: JsonSchema[] = params.map((name) => ({
    name, in: 'path', required: true,
    schema: name === 'id' ? { type: 'integer', minimum: 1 } : { type: 'string' },
  }));
  if (r.query) {
    const ref = schemaOf(r.query(), components);
    const q = ref.$ref ? components[String(ref.$ref).split('/').pop()!] : ref;
    const required = (q.required ?? []) as string[];
    for (const [name, schema] of Object.entries((q.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({ name, in: 'query', required: required.includes(name), schema, ...(schema.type === 'array' ? { style: 'form', explode: true } : {}) });
    }
  }
  const op: JsonSchema = {
    tags: [tag],
    summary: r.summary,
    description: accessText(r),
    operationId: `${r.method.toLowerCase()}${r.path.replace(/[:/{}_.-]+(\w)/g, (_m, ch: string) => ch.toUpperCase())}`,
    ...(parameters.length ? { parameters } : {}),
    'x-permissions': r.access === 'public' || r.access === 'signed-in' || r.access === 'super-admin' ? [] : [r.access].flat(),
    security: r.access === 'public' ? [] : [{ basicAuth: [] }, { tokenAuth: [] }, { session: [] }],
    responses: {
      200: r.raw
        ? { description: `The ${r.raw} response.`, content: { [r.raw]: {} } }
        : { description: 'Success, in listmonk\'s envelope.', content: { 'application/json': { schema: { $ref: '#/components/schemas/Envelope' } } } },
      400: ERROR_RESPONSE,
      ...(r.access === 'public' ? {} : { 403: ERROR_RESPONSE }),
      404: ERROR_RESPONSE,
      ...(r.limit ? { 429: { description: 'Too many requests from this client: try again after `Retry-After` seconds.', content: ERROR_RESPONSE.content } } : {}),
    },
  };
  if (r.body) {
    const schema = schemaOf(r.body(), components);
    const kind = r.bodyKind ?? 'json';
    const types = kind.startsWith('text:') ? [...BODY_TYPES['json-or-form'], 'text/plain'] : BODY_TYPES[kind] ?? ['application/json'];
    op.requestBody = { required: false, content: Object.fromEntries(types.map((t) => [t, { schema: t === 'text/plain' ? { type: 'string', description: `the value of "${kind.slice(5)}"` } : schema }])) };
  } else if (r.describedBody) {
    op.requestBody = { required: true, content: { [r.describedBody.contentType]: { schema: r.describedBody.schema ? schemaOf(r.describedBody.schema(), components) : {} } } };
  }
  return op;
}

/** The OpenAPI document for tables mounted under `info.basePath`, keyed by tag (the section). */
export function openApiDocument(tables: Record<string, readonly AnyRoute<never>[]>, info: OpenApiInfo): JsonSchema {
  const components: Record<string, JsonSchema> = {
    Envelope: { type: 'object', properties: { data: { description: 'The result.' } }, required: ['data'] },
    Error: { type: 'object', properties: { message: { type: 'string' } }, required: ['message'] },
  };
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const [tag, table] of Object.entries(tables)) {
    for (const r of table) {
      const { path } = pathOf(r.path);
      (paths[info.basePath + path] ??= {})[r.method.toLowerCase()] = operation(r as Route<unknown, z.ZodType, z.ZodType>, tag, components);
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'listmgr API',
      version: info.version,
      description: 'listmonk\'s HTTP API as listmgr serves it. Successful answers are `{"data": …}`; refusals are `{"message": "…"}` with a 4xx status. '
        + 'Authenticate with HTTP Basic `api_user:token`, the header `Authorization: token api_user:token`, or an admin session cookie.',
    },
    tags: Object.keys(tables).map((name) => ({ name })),
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        basicAuth: { type: 'http', scheme: 'basic', description: 'API user name and token.' },
        tokenAuth: { type: 'apiKey', in: 'header', name: 'Authorization', description: '`token api_user:token`' },
        session: { type: 'apiKey', in: 'cookie', name: 'session', description: 'The admin session cookie (changes also need a same-site Origin).' },
      },
    },
  };
}
