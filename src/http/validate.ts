// Field readers: one validation style for every module. Each returns the typed value or
// undefined (absent or JSON null, which clients send for "not given"), and throws a 400 that
// names the field when the value has the wrong shape.
import type { Context } from 'hono';
import { badRequest } from './errors.ts';
import type { Body } from './body.ts';
import { parseBool } from './schema.ts';

export { normaliseTags, parseBool } from './schema.ts';

const present = (v: unknown) => v !== undefined && v !== null;

export function optString(b: Body, key: string, opts: { maxBytes?: number; trim?: boolean } = {}): string | undefined {
  const v = b[key];
  if (!present(v)) return undefined;
  if (typeof v !== 'string') throw badRequest(`invalid "${key}": expected a string`);
  const s = opts.trim === false ? v : v.trim();
  if (opts.maxBytes !== undefined && Buffer.byteLength(s) > opts.maxBytes) throw badRequest(`invalid "${key}": longer than ${opts.maxBytes} bytes`);
  return s;
}

export function reqString(b: Body, key: string, opts: { minBytes?: number; maxBytes?: number; trim?: boolean } = {}): string {
  const s = optString(b, key, opts);
  if (s === undefined || Buffer.byteLength(s) < (opts.minBytes ?? 1)) throw badRequest(`"${key}" is required`);
  return s;
}

export function optEnum<T extends string>(b: Body, key: string, allowed: readonly T[]): T | undefined {
  const s = optString(b, key);
  if (s === undefined || s === '') return undefined;
  if (!allowed.includes(s as T)) throw badRequest(`invalid "${key}": "${s}" is not one of ${allowed.join(', ')}`);
  return s as T;
}

export function reqEnum<T extends string>(b: Body, key: string, allowed: readonly T[]): T {
  const v = optEnum(b, key, allowed);
  if (v === undefined) throw badRequest(`"${key}" is required (one of ${allowed.join(', ')})`);
  return v;
}

function toInt(v: unknown): number | null {
  if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
  if (typeof v === 'string' && /^-?\d{1,15}$/.test(v.trim())) return Number(v.trim());
  return null;
}

export function optInt(b: Body, key: string, opts: { min?: number } = {}): number | undefined {
  const v = b[key];
  if (!present(v) || v === '') return undefined;
  const n = toInt(v);
  if (n === null) throw badRequest(`invalid "${key}": expected an integer`);
  if (opts.min !== undefined && n < opts.min) throw badRequest(`invalid "${key}": must be at least ${opts.min}`);
  return n;
}

export function optBool(b: Body, key: string): boolean | undefined {
  const v = b[key];
  if (!present(v) || v === '') return undefined;
  if (typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    const parsed = parseBool(v);
    if (parsed !== undefined) return parsed;
  }
  throw badRequest(`invalid "${key}": expected true or false`);
}

export function optIntArray(b: Body, key: string): number[] | undefined {
  let v = b[key];
  if (!present(v)) return undefined;
  if (!Array.isArray(v)) v = [v]; // a single form field
  return (v as unknown[]).map((x) => {
    const n = toInt(x);
    if (n === null || n < 1) throw badRequest(`invalid "${key}": expected an array of positive integers`);
    return n;
  });
}

/** IDs, or objects with an `id` (a resource's `lists` or `media` read back from a GET and PUT back whole). */
export function optIdList(b: Body, key: string): number[] | undefined {
  const v = b[key];
  if (v === undefined || v === null) return undefined;
  if (!Array.isArray(v)) throw badRequest(`invalid "${key}": expected an array of IDs`);
  // A GET echoes deleted lists and media as {id: null, name}; sent back, they name nothing.
  const entries = v.filter((x) => !(x !== null && typeof x === 'object' && (x as { id?: unknown }).id === null));
  return entries.map((x) => {
    const id = x !== null && typeof x === 'object' ? (x as { id?: unknown }).id : x;
    const n = typeof id === 'string' && /^\d+$/.test(id) ? Number(id) : id;
    if (typeof n !== 'number' || !Number.isSafeInteger(n) || n < 1) throw badRequest(`invalid "${key}": expected an array of positive integer IDs`);
    return n;
  });
}

export function optStringArray(b: Body, key: string): string[] | undefined {
  let v = b[key];
  if (!present(v)) return undefined;
  if (!Array.isArray(v)) v = [v];
  return (v as unknown[]).map((x) => {
    if (typeof x !== 'string') throw badRequest(`invalid "${key}": expected an array of strings`);
    return x;
  });
}

export function optObject(b: Body, key: string): Record<string, unknown> | undefined {
  const v = b[key];
  if (!present(v)) return undefined;
  if (typeof v !== 'object' || Array.isArray(v)) throw badRequest(`invalid "${key}": expected a JSON object`);
  return v as Record<string, unknown>;
}

/**
 * A list of {"Header-Name": "value"} objects (campaign, tx and SMTP headers). Names must be
 * header tokens and values one line, so no input can add a header of its own.
 */
export function optHeaderList(b: Body, key: string): Record<string, string>[] | undefined {
  const v = b[key];
  if (!present(v)) return undefined;
  const shape = () => badRequest(`invalid "${key}": expected an array of {"Header-Name": "value"} objects`);
  if (!Array.isArray(v)) throw shape();
  return v.map((h) => {
    if (h === null || typeof h !== 'object' || Array.isArray(h)) throw shape();
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(h)) {
      if (!/^[!-9;-~]+$/.test(name)) throw badRequest(`invalid "${key}": "${name}" is not a valid header name`);
      if (typeof value !== 'string' || /[\r\n]/.test(value)) throw badRequest(`invalid "${key}": the value of "${name}" must be a one-line string`);
      out[name] = value;
    }
    return out;
  });
}

/** Path parameter that must be an integer >= 1. */
export function pathId(c: Context, name = 'id'): number {
  const raw = c.req.param(name) ?? '';
  if (!/^\d{1,15}$/.test(raw) || Number(raw) < 1) throw badRequest('invalid ID');
  return Number(raw);
}

/** Repeated query parameter as positive integers (?id=1&id=2); 400 naming it otherwise. */
export function queryIds(c: Context, name: string): number[] {
  return (c.req.queries(name) ?? []).flatMap((s) => s.split(',')).filter((s) => s.trim() !== '').map((s) => {
    const n = toInt(s);
    if (n === null || n < 1) throw badRequest(`invalid "${name}": expected positive integers`);
    return n;
  });
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID in its canonical text form (any case). */
export function isUuid(s: string): boolean {
  return UUID_RE.test(s);
}
