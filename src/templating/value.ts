// The Go value model the engine works on, mapped onto JavaScript values:
//   string            -> Go string
//   boolean           -> Go bool
//   bigint            -> Go int (int64); template integer literals, len, Sprig int results
//   number            -> Go float64 (JSON numbers, e.g. subscriber attribs)
//   null              -> Go nil
//   undefined         -> "no value" (a missing map key; prints <no value> in text mode)
//   array             -> Go slice
//   plain object      -> Go map[string]any (keys iterate sorted)
//   struct(...)       -> Go struct: only listed members exist; function members are methods
//   SafeHTML          -> html/template.HTML (trusted markup)
//   GoTime            -> time.Time
//   function          -> a func value (usable with `call`)

import { formatGoTime, GoTime } from './gotime.ts';
import { chargeSort, chargeWalk, NODE, stringUnits } from './meter.ts';

export { GoTime };

/** Trusted HTML (Go's template.HTML): not escaped in HTML text context. */
export class SafeHTML {
  readonly html: string;
  constructor(html: string) {
    this.html = html;
  }
  toString(): string {
    return this.html;
  }
}

export function safe(html: string): SafeHTML {
  return new SafeHTML(html);
}

const STRUCT_TYPE = Symbol('goStructType');

/** Marks `fields` as a Go struct named `typeName`; function members become methods. */
export function struct<T extends object>(typeName: string, fields: T): T {
  Object.defineProperty(fields, STRUCT_TYPE, { value: typeName, enumerable: false });
  return fields;
}

const VARIADIC = new WeakSet<object>();

/** Marks a struct method as variadic (Go `...`): it takes at least `fn.length` arguments, not exactly. */
export function variadic<F extends (...args: never[]) => unknown>(fn: F): F {
  VARIADIC.add(fn);
  return fn;
}

export function isVariadic(fn: object): boolean {
  return VARIADIC.has(fn);
}

export function structType(v: object): string | undefined {
  return (v as { [STRUCT_TYPE]?: string })[STRUCT_TYPE];
}

export function isMap(v: unknown): v is Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return false;
  return hasMapPrototype(v) && structType(v) === undefined;
}

/** A plain object (a map unless it is marked as a struct). */
export function hasMapPrototype(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

export function isStruct(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && structType(v) !== undefined;
}

/** Go type name as %T / typeOf would print it. */
export function goTypeName(v: unknown): string {
  if (v === undefined || v === null) return '<nil>';
  switch (typeof v) {
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'bigint': return 'int';
    case 'number': return 'float64';
    case 'function': return 'func';
  }
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof SafeHTML) return 'template.HTML';
  if (v instanceof GoTime) return 'time.Time';
  if (v instanceof Uint8Array) return '[]uint8';
  const st = structType(v as object);
  if (st !== undefined) return st;
  return 'map[string]interface {}';
}

/** Go reflect.Kind name, as Sprig's kindOf prints it. */
export function goKind(v: unknown): string {
  if (v === undefined || v === null) return 'invalid';
  switch (typeof v) {
    case 'string': return 'string';
    case 'boolean': return 'bool';
    case 'bigint': return 'int';
    case 'number': return 'float64';
    case 'function': return 'func';
  }
  if (v instanceof SafeHTML) return 'string';
  if (Array.isArray(v) || v instanceof Uint8Array) return 'slice';
  if (v instanceof GoTime || isStruct(v)) return 'struct';
  return 'map';
}

/** Go template truthiness: false, 0, nil, and empty string/slice/map are false. */
export function truth(v: unknown): boolean {
  if (v === undefined || v === null) return false;
  switch (typeof v) {
    case 'boolean': return v;
    case 'string': return v.length > 0;
    case 'bigint': return v !== 0n;
    case 'number': return v !== 0;
    case 'function': return true;
  }
  if (Array.isArray(v)) return v.length > 0;
  if (v instanceof SafeHTML) return v.html.length > 0;
  if (v instanceof Uint8Array) return v.length > 0;
  if (isMap(v)) {
    for (const _ in v) return true;
    return false;
  }
  return true;
}

/** Sorted keys of a map, the order Go's fmt and range use. */
export function sortedKeys(m: Record<string, unknown>): string[] {
  const keys = Object.keys(m);
  if (keys.length > 1) {
    chargeWalk(keys.length);
    chargeSort(keys.length);
  }
  return keys.sort(compareBytes);
}

/** Bytewise string comparison (Go compares strings as UTF-8 bytes). */
export function compareBytes(a: string, b: string): number {
  // UTF-16 order equals UTF-8 byte order except around surrogates; fall back only then.
  if (a === b) return 0;
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) {
      if ((x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff)) {
        return Buffer.compare(Buffer.from(a), Buffer.from(b));
      }
      return x < y ? -1 : 1;
    }
  }
  return a.length - b.length;
}

/** Shortest-digit Go %v of a float64 (strconv 'g' with precision -1, exponent from 1e+06). */
export function formatFloatV(f: number): string {
  if (Number.isNaN(f)) return 'NaN';
  if (f === Infinity) return '+Inf';
  if (f === -Infinity) return '-Inf';
  if (f === 0) return Object.is(f, -0) ? '-0' : '0';
  const abs = Math.abs(f);
  if (abs >= 1e-4 && abs < 1e6) {
    // JavaScript picks the same shortest digits and writes plain decimals in this range.
    return String(f);
  }
  return formatExp(f.toExponential());
}

/** Converts JS exponent notation ("1.5e+6", "1e-7") to Go's ("1.5e+06", "1e-07"). */
export function formatExp(js: string): string {
  const i = js.indexOf('e');
  const mant = js.slice(0, i);
  const sign = js[i + 1];
  const digits = js.slice(i + 2);
  return `${mant}e${sign}${digits.length < 2 ? '0' + digits : digits}`;
}

/** Go fmt %v of any value (fmt.Sprint of one operand). */
export function formatV(v: unknown): string {
  switch (typeof v) {
    case 'string': return v;
    case 'bigint': return v.toString();
    case 'number': return formatFloatV(v);
    case 'boolean': return v ? 'true' : 'false';
    case 'undefined': return '<nil>';
    case 'function': return '0x1';
  }
  if (v === null) return '<nil>';
  if (v instanceof SafeHTML) return v.html;
  if (v instanceof GoTime) return formatGoTime(v, '2006-01-02 15:04:05.999999999 -0700 MST');
  return formatContainer(v);
}

/** An element of a container as %v prints it, charged to the render in progress. */
function formatElem(v: unknown): string {
  if (typeof v === 'string') {
    chargeWalk(stringUnits(v.length));
    return v;
  }
  return formatV(v);
}

function formatContainer(v: unknown): string {
  if (Array.isArray(v)) {
    chargeWalk(NODE * (1 + v.length));
    let s = '[';
    for (let i = 0; i < v.length; i++) s += (i ? ' ' : '') + formatElem(v[i]);
    return s + ']';
  }
  if (v instanceof Uint8Array) {
    chargeWalk(NODE * (1 + v.length));
    return '[' + Array.from(v).join(' ') + ']';
  }
  const obj = v as Record<string, unknown>;
  if (isStruct(obj)) {
    const parts: string[] = [];
    const keys = Object.keys(obj);
    chargeWalk(NODE * (1 + keys.length));
    for (const k of keys) {
      if (typeof obj[k] !== 'function') parts.push(formatElem(obj[k]));
    }
    return '{' + parts.join(' ') + '}';
  }
  chargeWalk(NODE * (1 + Object.keys(obj).length));
  let s = 'map[';
  let first = true;
  for (const k of sortedKeys(obj)) {
    chargeWalk(stringUnits(k.length));
    s += (first ? '' : ' ') + k + ':' + formatElem(obj[k]);
    first = false;
  }
  return s + ']';
}

/** fmt.Sprint: spaces are added between operands when neither side is a string. */
export function sprint(args: unknown[]): string {
  let s = '';
  for (let i = 0; i < args.length; i++) {
    const isStr = typeof args[i] === 'string' || args[i] instanceof SafeHTML;
    if (i > 0 && !isStr && !(typeof args[i - 1] === 'string' || args[i - 1] instanceof SafeHTML)) s += ' ';
    s += formatV(args[i]);
  }
  return s;
}

export function sprintln(args: unknown[]): string {
  return args.map(formatV).join(' ') + '\n';
}

/** UTF-8 byte length (Go's len of a string). */
export function byteLen(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}
