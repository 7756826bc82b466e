// Reading request bodies. Every route's body is bounded by the bytes actually read (`limitBody`),
// whatever the client declares. JSON and form bodies (url-encoded or multipart) both become a
// plain object; repeated form fields become arrays. Anything unreadable is a 400 that says why.
import type { Context, MiddlewareHandler } from 'hono';
import { DomainError, invalid, tooLarge } from '../core/errors.ts';
import { parseJson } from './json.ts';
import { byteSize } from '../core/limits.ts';
import { formBody } from './schema.ts';

export type Body = Record<string, unknown>;

/**
 * Refuses a body larger than `maxBytes()` with a 413, before more than that is held: a declared
 * Content-Length over the limit at once (Node's parser never delivers more than it declares);
 * a chunked body by counting what is read, failing the read that passes the limit. Only reads
 * are counted, so a handler that never reads the body costs nothing.
 */
export function limitBody(maxBytes: () => number): MiddlewareHandler {
  return async (c, next) => {
    const limit = maxBytes();
    const overLimit = () => tooLarge(`the request body is larger than ${byteSize(limit)}`);
    const declared = c.req.header('content-length');
    if (declared !== undefined && c.req.header('transfer-encoding') === undefined) {
      if (Number(declared) > limit) throw overLimit();
      return next();
    }
    const body = c.req.raw.body;
    if (body) c.req.raw = new Request(c.req.raw, { body: counted(body, limit, overLimit), duplex: 'half' } as RequestInit);
    return next();
  };
}

/** What is read and dropped of a body past its limit, so the client gets the 413 (see `counted`). */
const DISCARDED_BYTES = 64 * 1024 * 1024;

/**
 * `body`, ending in `tooLarge()` once more than `limit` bytes came through. The rest is then
 * read and dropped (up to DISCARDED_BYTES, then the connection is cut): a client still sending
 * would otherwise stall, and be reset before it read the 413.
 */
function counted(body: ReadableStream<Uint8Array>, limit: number, tooLarge: () => Error): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  let read = 0;
  const discard = async () => {
    let dropped = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) {
      dropped += r.value.byteLength;
      if (dropped > DISCARDED_BYTES) return reader.cancel();
    }
  };
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      read += value.byteLength;
      if (read > limit) {
        controller.error(tooLarge());
        void discard().catch(() => {}); // the client went away: nothing to drop
        return;
      }
      controller.enqueue(value);
    },
    cancel: (reason) => reader.cancel(reason),
  });
}

function mediaType(c: Context): string {
  return (c.req.header('content-type') ?? '').split(';')[0].trim().toLowerCase();
}

async function readText(c: Context): Promise<string> {
  return c.req.text();
}

function parseJsonText(text: string): unknown {
  try {
    return parseJson(text);
  } catch (e) {
    throw invalid(`invalid JSON body: ${(e as Error).message}`);
  }
}

async function readForm(c: Context): Promise<Body> {
  let form: FormData;
  try {
    form = await c.req.formData();
  } catch (e) {
    if (e instanceof DomainError) throw e; // over the body limit
    throw invalid('invalid form body');
  }
  // No prototype: a field named `__proto__` is a field like any other.
  const out: Body = Object.create(null);
  for (const [k, v] of form.entries()) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else if (Array.isArray(prev)) prev.push(v); // in place: a field repeated n times costs n, not n²
    else out[k] = [prev, v];
  }
  return formBody(out);
}

/** A JSON object body. An empty body is {}. Other content types are refused. */
export async function readJson(c: Context): Promise<Body> {
  const type = mediaType(c);
  const text = await readText(c);
  if (text.trim() === '') return {};
  if (type !== 'application/json' && type !== '') throw invalid(`unsupported content type "${type}": send application/json`);
  const v = parseJsonText(text);
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw invalid('the request body must be a JSON object');
  return v as Body;
}

/** A JSON value of any shape (e.g. PUT /settings/{key}). */
export async function readJsonValue(c: Context): Promise<unknown> {
  const type = mediaType(c);
  if (type !== 'application/json' && type !== '') throw invalid(`unsupported content type "${type}": send application/json`);
  const text = await readText(c);
  if (text.trim() === '') throw invalid('the request body is empty');
  return parseJsonText(text);
}

/** JSON or form body, for routes that accept both. */
export async function readBody(c: Context): Promise<Body> {
  const type = mediaType(c);
  if (type === 'application/x-www-form-urlencoded' || type === 'multipart/form-data') return readForm(c);
  if (type !== 'application/json' && type !== '' && (await readText(c)).trim() !== '') {
    throw invalid(`unsupported content type "${type}": send application/json or a form (application/x-www-form-urlencoded, multipart/form-data)`);
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
  return formBody({ ...Object.fromEntries(fields), [plainKey]: await readText(c) });
}
