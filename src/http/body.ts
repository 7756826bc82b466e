// Reading request bodies. JSON and form bodies (url-encoded or multipart) both become a plain
// object; repeated form fields become arrays. Anything unreadable is a 400 that says why.
import type { Context } from 'hono';
import { badRequest } from './errors.ts';

export type Body = Record<string, unknown>;

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

async function readText(c: Context): Promise<string> {
  return c.req.text();
}

function parseJsonText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch (e) {
    throw badRequest(`invalid JSON body: ${(e as Error).message}`);
  }
}

async function readForm(c: Context): Promise<Body> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch {
    throw badRequest('invalid form body');
  }
  const out: Body = {};
  for (const [k, v] of form.entries()) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else out[k] = Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** A JSON object body. An empty body is {}. Other content types are refused. */
export async function readJson(c: Context): Promise<Body> {
  const type = mediaType(c);
  const text = await readText(c);
  if (text.trim() === '') return {};
  if (type !== 'application/json' && type !== '') throw badRequest(`unsupported content type "${type}": send application/json`);
  const v = parseJsonText(text);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw badRequest('the request body must be a JSON object');
  return v as Body;
}

/** A JSON value of any shape (e.g. PUT /settings/{key}). */
export async function readJsonValue(c: Context): Promise<unknown> {
  const type = mediaType(c);
  if (type !== 'application/json' && type !== '') throw badRequest(`unsupported content type "${type}": send application/json`);
  const text = await readText(c);
  if (text.trim() === '') throw badRequest('the request body is empty');
  return parseJsonText(text);
}

/** JSON or form body, for routes that accept both. */
export async function readBody(c: Context): Promise<Body> {
  const type = mediaType(c);
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') return readForm(c);
  if (type !== 'application/json' && type !== '' && (await readText(c)).trim() !== '') {
    throw badRequest(`unsupported content type "${type}": send application/json or a form (application/x-www-form-urlencoded, multipart/form-data)`);
  }
  return readJson(c);
}

/**
 * JSON, form, or a text/plain body taken as the value of `plainKey` (by-query routes); with a
 * plain body the other fields come from the URL's query string (`?action=add&target_list_ids=2`).
 */
export async function readBodyOrText(c: Context, plainKey: string): Promise<Body> {
  if (mediaType(c) !== 'text/plain') return readBody(c);
  const fields = Object.entries(c.req.queries()).map(([k, v]) => [k, v.length === 1 ? v[0] : v]);
  return { ...Object.fromEntries(fields), [plainKey]: await readText(c) };
}
