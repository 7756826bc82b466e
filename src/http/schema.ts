// Typed request inputs: zod schemas built from these field readers validate a body or query,
// give the TypeScript type of what a service receives, and describe the API (OpenAPI).
//
// The readers keep listmonk's leniencies and our messages: absent and JSON null mean "not
// given"; strings are trimmed; integers may come as numeric strings. Where an array is
// expected, JSON must send one, as listmonk's decoder requires (`"lists": "1"` is a 400); a
// form body, which carries a list as repeated fields, may send one value (see `formBody`).
// Each error message names the field through a `{key}` placeholder that `inputError` fills
// with its path.
import type { Context } from 'hono';
import { z } from 'zod';
import { DomainError, invalid as invalidInput } from '../core/errors.ts';
import { parseJson } from './json.ts';
import { LIMITS } from '../core/limits.ts';
import { readHeaderList } from '../mail/message.ts';

export { z };

const present = (v: unknown) => v !== undefined && v !== null;

/**
 * A field reader: `read` returns the value or throws a FieldError; `json` describes the input
 * (JSON Schema), and `required` marks a field that must be given.
 */
function field<T>(json: Record<string, unknown>, read: (v: unknown) => T, required = false) {
  return (required ? z.unknown() : z.unknown().optional()).transform((v, ctx): T => {
    try {
      return read(v);
    } catch (e) {
      if (!(e instanceof FieldError)) throw e;
      ctx.addIssue({ code: 'custom', message: e.message });
      return z.NEVER;
    }
  }).meta(json);
}

/** A field that is missing or wrong; its message holds `{key}` for the field's name. */
class FieldError extends Error {}
const invalid = (rule: string) => new FieldError(`invalid "{key}": ${rule}`);
const required = (hint = '') => new FieldError(`"{key}" is required${hint}`);

function toInt(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim())) return Number(v.trim());
  return null;
}

function readString(v: unknown, o: StringOptions): string | undefined {
  if (!present(v)) return undefined;
  if (typeof v !== 'string') throw invalid('expected a string');
  const s = o.trim === false ? v : v.trim();
  if (o.maxBytes !== undefined && Buffer.byteLength(s) > o.maxBytes) throw invalid(`longer than ${o.maxBytes} bytes`);
  return s;
}

export interface StringOptions {
  /** Longest value in UTF-8 bytes (none when not given). */
  maxBytes?: number;
  /** Trim surrounding white space (default true). */
  trim?: boolean;
}

const stringJson = (o: StringOptions) => ({ type: 'string', ...(o.maxBytes !== undefined && Number.isFinite(o.maxBytes) ? { maxLength: o.maxBytes } : {}) });

/** Go's strconv.ParseBool spellings, which listmonk accepts in query strings and forms. */
export function parseBool(v: string | undefined): boolean | undefined {
  if (v === undefined) return undefined;
  const s = v.trim();
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(s)) return true;
  if (['0', 'f', 'F', 'false', 'FALSE', 'False'].includes(s)) return false;
  return undefined;
}

function readBool(v: unknown): boolean | undefined {
  if (!present(v) || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const parsed = parseBool(v);
    if (parsed !== undefined) return parsed;
  }
  throw invalid('expected true or false');
}

function readInt(v: unknown, min?: number): number | undefined {
  if (!present(v) || v === '') return undefined;
  const n = toInt(v);
  if (n === null) throw invalid('expected an integer');
  if (min !== undefined && n < min) throw invalid(`must be at least ${min}`);
  return n;
}

function readEnum<T extends string>(v: unknown, allowed: readonly T[]): T | undefined {
  const s = readString(v, {});
  if (s === undefined || s === '') return undefined;
  if (!allowed.includes(s as T)) throw invalid(`"${s}" is not one of ${allowed.join(', ')}`);
  return s as T;
}

/** Tags as listmonk normalises them: trimmed, inner whitespace runs to "-", empties dropped. */
export function normaliseTags(tags: string[] | undefined): string[] {
  return (tags ?? []).map((t) => t.trim().replace(/\s+/g, '-')).filter((t) => t !== '').map((t) => {
    if (t.length > LIMITS.tagChars) throw invalidInput(`invalid tag "${t.slice(0, 20)}…": longer than ${LIMITS.tagChars} characters`);
    return t;
  });
}

function readObject(v: unknown): Record<string, unknown> | undefined {
  if (!present(v)) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw invalid('expected a JSON object');
  return v as Record<string, unknown>;
}

function readStringArray(v: unknown): string[] | undefined {
  if (!present(v)) return undefined;
  if (!Array.isArray(v)) throw invalid('expected an array of strings');
  return v.map((x) => {
    if (typeof x !== 'string') throw invalid('expected an array of strings');
    return x;
  });
}

function readIntArray(v: unknown): number[] | undefined {
  if (!present(v)) return undefined;
  if (!Array.isArray(v)) throw invalid('expected an array of positive integers');
  return v.map((x) => {
    const n = toInt(x);
    if (n === null || n < 1) throw invalid('expected an array of positive integers');
    return n;
  });
}

/** A form checkbox or a JSON boolean: true, "on" or a true spelling, in any of repeated values. */
function isChecked(v: unknown): boolean {
  if (v === true) return true;
  if (Array.isArray(v)) return v.some(isChecked);
  return typeof v === 'string' && (parseBool(v) === true || v === 'on');
}

/** The field readers a schema is made of. `opt*` may be absent; `req*` must be given. */
export const f = {
  optString: (o: StringOptions = {}) => field(stringJson(o), (v) => readString(v, o)),
  /** A string that must be given and not empty. */
  reqString: (o: StringOptions = {}) => field(stringJson(o), (v) => {
    const s = readString(v, o);
    if (s === undefined || s === '') throw required();
    return s;
  }, true),
  optEnum: <T extends string>(allowed: readonly T[]) => field({ type: 'string', enum: allowed }, (v) => readEnum(v, allowed)),
  reqEnum: <T extends string>(allowed: readonly T[]) => field({ type: 'string', enum: allowed }, (v) => {
    const e = readEnum(v, allowed);
    if (e === undefined) throw required(` (one of ${allowed.join(', ')})`);
    return e;
  }, true),
  optInt: (o: { min?: number } = {}) => field({ type: 'integer', ...(o.min !== undefined ? { minimum: o.min } : {}) }, (v) => readInt(v, o.min)),
  optBool: () => field({ type: 'boolean' }, readBool),
  /** A checkbox: ticked (see isChecked) or not; never refused. */
  checkbox: () => field({ type: 'boolean' }, isChecked),
  /** Text exactly as typed; '' when absent or not text. Never refused (sign-in forms answer a bad field as a wrong one). */
  text: () => field({ type: 'string' }, (v) => (typeof v === 'string' ? v : '')),
  /** Positive integers. */
  optIntArray: () => field({ type: 'array', items: { type: 'integer', minimum: 1 } }, readIntArray),
  /** Positive integers, at least one; `hint` follows "is required" (e.g. " (one or more list IDs)"). */
  reqIntArray: (hint = '') => field({ type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 1 }, (v) => {
    const ids = readIntArray(v);
    if (!ids?.length) throw required(hint);
    return ids;
  }, true),
  /** IDs, or objects with an `id` (a resource's `lists` or `media` read back from a GET and PUT back whole). */
  optIdList: () => field({ type: 'array', items: { anyOf: [{ type: 'integer', minimum: 1 }, { type: 'object', properties: { id: { type: ['integer', 'null'] } } }] } }, (v) => {
    if (!present(v)) return undefined;
    if (!Array.isArray(v)) throw invalid('expected an array of IDs');
    // A GET echoes deleted lists and media as {id: null, name}; sent back, they name nothing.
    const entries = v.filter((x) => !(x !== null && typeof x === 'object' && (x as { id?: unknown }).id === null));
    return entries.map((x) => {
      const id = x !== null && typeof x === 'object' ? (x as { id?: unknown }).id : x;
      const n = typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id;
      if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw invalid('expected an array of positive integer IDs');
      return n;
    });
  }),
  optStringArray: () => field({ type: 'array', items: { type: 'string' } }, readStringArray),
  /** Strings, at least one; `hint` follows "is required". */
  reqStringArray: (hint = '') => field({ type: 'array', items: { type: 'string' }, minItems: 1 }, (v) => {
    const strings = readStringArray(v);
    if (!strings?.length) throw required(hint);
    return strings;
  }, true),
  /** Tags, normalised as listmonk does. */
  optTags: () => field({ type: 'array', items: { type: 'string', maxLength: LIMITS.tagChars } }, (v) => {
    const tags = readStringArray(v);
    return tags === undefined ? undefined : normaliseTags(tags);
  }),
  optObject: () => field({ type: 'object' }, readObject),
  /** A JSON object, or its JSON text (a form field carries one so); empty text is not given. */
  optJsonObject: () => field({ type: 'object' }, (v) => {
    if (typeof v !== 'string') return readObject(v);
    if (v.trim() === '') return undefined;
    let parsed: unknown;
    try {
      parsed = parseJson(v);
    } catch {
      throw invalid('not valid JSON');
    }
    return readObject(parsed);
  }),
  /** A date and time Date.parse reads (ISO 8601), returned in ISO form; "" is not given. */
  optTimestamp: () => field({ type: 'string', format: 'date-time' }, (v) => {
    if (!present(v) || v === '') return undefined;
    if (typeof v !== 'string') throw invalid('expected a timestamp string');
    const t = Date.parse(v);
    if (Number.isNaN(t)) throw invalid(`"${v}" is not a timestamp`);
    return new Date(t).toISOString();
  }),
  /**
   * A field a change may clear (listmonk's PUT sends null for that): absent is undefined (keep
   * the stored value); JSON null, or what `inner` reads as not given (such as ""), is null.
   */
  clearable: <T>(inner: z.ZodType<T | undefined>) => z.unknown().optional().transform((v, ctx): T | null | undefined => {
    if (v === undefined) return undefined;
    if (v === null) return null;
    const r = inner.safeParse(v);
    if (r.success) return r.data ?? null;
    for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
    return z.NEVER;
  }).meta({ anyOf: [z.globalRegistry.get(inner) ?? {}, { type: 'null' }] }),
  /** A list of {"Header-Name": "value"} objects (campaign and tx headers; the rule is readHeaderList's). */
  optHeaderList: () => field({ type: 'array', items: { type: 'object', additionalProperties: { type: 'string' } } }, (v) => (present(v) ? readHeaderList(v, invalid) : undefined)),
  /** Any JSON value, passed through (the service checks it). */
  any: () => z.unknown().optional().meta({}),
};

/** A query-string parameter as the URL gives it: every value of a repeated key. */
export type QueryValues = string[] | undefined;

function queryField<T>(json: Record<string, unknown>, read: (values: string[]) => T, required = false) {
  return field(json, (v) => read((v as QueryValues) ?? []), required);
}

function readQueryIds(values: string[]): number[] {
  return values.flatMap((s) => s.split(',')).filter((s) => s.trim() !== '').map((s) => {
    const n = toInt(s);
    if (n === null || n < 1) throw invalid('expected positive integers');
    return n;
  });
}

/** Query-string readers: each gets every value of its key. */
export const q = {
  /** The first value, untrimmed (as Hono's `c.req.query(key)`), or undefined. */
  str: () => queryField({ type: 'string' }, (vs) => vs[0]),
  /** The first value read by `read` (which never refuses), described by `json`. */
  first: <T>(json: Record<string, unknown>, read: (v: string | undefined) => T) => queryField(json, (vs) => read(vs[0])),
  /** Every value, commas splitting too (`?id=1&id=2`, `?id=1,2`), as positive integers. */
  ids: () => queryField({ type: 'array', items: { type: 'integer', minimum: 1 } }, readQueryIds),
  /** As `ids`, at least one; `hint` follows "is required". */
  reqIds: (hint = '') => queryField({ type: 'array', items: { type: 'integer', minimum: 1 }, minItems: 1 }, (vs) => {
    const ids = readQueryIds(vs);
    if (!ids.length) throw required(hint);
    return ids;
  }, true),
  /** Every value, as given. */
  all: () => queryField({ type: 'array', items: { type: 'string' } }, (vs) => vs),
  /** The first value as an integer (absent or empty: undefined); otherwise a 400. */
  int: (o: { min?: number } = {}) => queryField({ type: 'integer', ...(o.min !== undefined ? { minimum: o.min } : {}) }, (vs) => readInt(vs[0], o.min)),
  /** The first value read as Go's ParseBool; undefined when absent or not a boolean spelling. */
  bool: () => queryField({ type: 'boolean' }, (vs) => parseBool(vs[0])),
  /** The first value if it is one of `allowed` (empty: undefined); otherwise a 400. */
  enum: <T extends string>(allowed: readonly T[]) => queryField({ type: 'string', enum: allowed }, (vs) => readEnum(vs[0], allowed)),
};

/** A query object for zod: each key with every value it has in the URL. */
export function queryValues(url: string): Record<string, string[]> {
  // No prototype: a key such as `__proto__` is a key like any other.
  const out: Record<string, string[]> = Object.create(null);
  for (const [k, v] of new URL(url).searchParams) (out[k] ??= []).push(v);
  return out;
}

/** The bodies that came as forms (url-encoded, multipart, or a by-query route's URL fields). */
const formBodies = new WeakSet<object>();

/**
 * Marks `body` as a form's fields: a field sent once holds one value where a repeated one holds
 * several, so `parseInput` reads a single value as a one-item array where the schema expects an
 * array (`l=<uuid>`). JSON bodies get no such leniency.
 */
export function formBody<T extends Record<string, unknown>>(body: T): T {
  formBodies.add(body);
  return body;
}

/** The fields of an object schema (through its transforms), or null for other schemas. */
function objectShape(schema: z.ZodType): Record<string, z.ZodType> | null {
  if (schema instanceof z.ZodObject) return schema.shape as Record<string, z.ZodType>;
  if (schema instanceof z.ZodPipe) return objectShape(schema.in as z.ZodType);
  return null;
}

/** Whether a field reader takes an array (maybe or null, as `clearable` describes it). */
function takesArray(field: z.ZodType): boolean {
  const json = z.globalRegistry.get(field) as { type?: unknown; anyOf?: { type?: unknown }[] } | undefined;
  return json?.type === 'array' || (json?.anyOf ?? []).some((j) => j.type === 'array');
}

/** A form's single values of array fields as one-item arrays. */
function formArrays(schema: z.ZodType, body: Record<string, unknown>): Record<string, unknown> {
  const shape = objectShape(schema);
  if (!shape) return body;
  const out = { ...body };
  for (const [key, field] of Object.entries(shape)) {
    if (present(out[key]) && !Array.isArray(out[key]) && takesArray(field)) out[key] = [out[key]];
  }
  return out;
}

/**
 * Validates input against a schema; the first problem becomes a 400 naming the field. Schemas
 * read fields in the order a person fills a form, so the first problem is the one to fix first.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown): z.output<S> {
  const input = typeof value === 'object' && value !== null && formBodies.has(value) ? formArrays(schema, value as Record<string, unknown>) : value;
  const r = schema.safeParse(input);
  if (r.success) return r.data;
  throw inputError(r.error);
}

/** A field's path as messages name it: `smtp[0].port`. */
const pathText = (path: PropertyKey[]) => path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');

function inputError(e: z.ZodError): DomainError {
  const issue = e.issues[0];
  const key = pathText(issue.path);
  if (issue.message.includes('{key}')) return invalidInput(issue.message.replaceAll('{key}', key));
  // zod's own checks (an object where a body must be one, an unknown key in a strict object).
  return invalidInput(key ? `invalid "${key}": ${issue.message}` : issue.message);
}

/** Path parameter that must be an integer >= 1. */
export function pathId(c: Context, name = 'id'): number {
  const raw = c.req.param(name) ?? '';
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw invalidInput('invalid ID');
  return Number(raw);
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical text form (any case). */
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}
