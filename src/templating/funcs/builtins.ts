// Go text/template's predefined functions (and/or are special forms in the compiler).

import { ExecError, type FuncDef } from '../exec.ts';
import { sprintf } from '../gofmt.ts';
import { byteLen, compareBytes, goTypeName, isMap, SafeHTML, sprint, sprintln, truth } from '../value.ts';
import { chargePerChar, chargeWalk } from '../meter.ts';

type BasicKind = 'bool' | 'int' | 'float' | 'string' | 'invalid' | 'other';

function basicKind(v: unknown): BasicKind {
  if (v === undefined || v === null) return 'invalid';
  switch (typeof v) {
    case 'boolean': return 'bool';
    case 'bigint': return 'int';
    case 'number': return 'float';
    case 'string': return 'string';
  }
  if (v instanceof SafeHTML) return 'string';
  return 'other';
}

function scalar(v: unknown): unknown {
  return v instanceof SafeHTML ? v.html : v;
}

const errBadComparison = 'incompatible types for comparison';

function eq(args: unknown[]): boolean {
  const [a, ...rest] = args;
  if (rest.length === 0) throw new ExecError('missing argument for comparison');
  const k1 = basicKind(a);
  for (const b of rest) {
    const k2 = basicKind(b);
    let same = false;
    if (k1 !== k2) {
      if (k1 !== 'invalid' && k2 !== 'invalid') throw new ExecError(errBadComparison);
    } else if (k1 === 'other') {
      if (Array.isArray(a) || Array.isArray(b) || isMap(a) || isMap(b)) throw new ExecError(`non-comparable type ${goTypeName(Array.isArray(a) || isMap(a) ? a : b)}`);
      same = a === b;
    } else if (k1 === 'invalid') {
      same = true;
    } else {
      same = scalar(a) === scalar(b);
    }
    if (same) return true;
  }
  return false;
}

function lt(a: unknown, b: unknown): boolean {
  const k1 = basicKind(a);
  const k2 = basicKind(b);
  if (k1 === 'invalid' || k1 === 'other' || k2 === 'invalid' || k2 === 'other') throw new ExecError('invalid type for comparison');
  if (k1 !== k2) throw new ExecError(errBadComparison);
  if (k1 === 'bool') throw new ExecError('invalid type for comparison');
  if (k1 === 'string') return compareBytes(scalar(a) as string, scalar(b) as string) < 0;
  return (a as number) < (b as number);
}

/** Go's evalArgs: one string argument as is, else fmt.Sprint of all. */
export function evalArgs(args: unknown[]): string {
  if (args.length === 1 && typeof args[0] === 'string') return args[0];
  if (args.length === 1 && args[0] instanceof SafeHTML) return args[0].html;
  return sprint(args);
}

/** template.HTMLEscapeString */
export function htmlEscapeString(s: string): string {
  chargePerChar(s);
  return s.replace(/[\0"'&<>]/g, (c) => HTML_ESC[c]);
}
const HTML_ESC: Record<string, string> = { '\0': '\uFFFD', '"': '&#34;', "'": '&#39;', '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** template.JSEscapeString */
export function jsEscapeString(s: string): string {
  chargePerChar(s);
  let out = '';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '\\': out += '\\\\'; continue;
      case "'": out += "\\'"; continue;
      case '"': out += '\\"'; continue;
      case '<': out += '\\u003C'; continue;
      case '>': out += '\\u003E'; continue;
      case '&': out += '\\u0026'; continue;
      case '=': out += '\\u003D'; continue;
      case '\n': out += '\\u000A'; continue;
      case '\r': out += '\\u000D'; continue;
      case '\t': out += '\\u0009'; continue;
    }
    if (c < 0x20 || c === 0x7f) out += '\\u' + c.toString(16).toUpperCase().padStart(4, '0');
    else out += ch;
  }
  return out;
}

/** url.QueryEscape */
export function queryEscape(s: string): string {
  chargePerChar(s);
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c)) out += c;
    else if (c === ' ') out += '+';
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}

function toIndex(v: unknown): number {
  if (typeof v === 'bigint') return Number(v);
  if (v === undefined || v === null) throw new ExecError('cannot index slice/array with nil');
  throw new ExecError(`cannot index slice/array with type ${typeof v === 'number' ? 'float64' : typeof v}`);
}

function index(args: unknown[]): unknown {
  let item = args[0];
  if (item === undefined || item === null) throw new ExecError('index of untyped nil');
  for (const key of args.slice(1)) {
    if (Array.isArray(item) || typeof item === 'string' || item instanceof SafeHTML) {
      const i = toIndex(key);
      if (typeof item === 'string' || item instanceof SafeHTML) {
        const bytes = Buffer.from(scalar(item) as string, 'utf8');
        if (i < 0 || i >= bytes.length) throw new ExecError('index out of range');
        item = BigInt(bytes[i]);
        continue;
      }
      if (i < 0 || i >= item.length) throw new ExecError('index out of range');
      item = item[i];
    } else if (isMap(item)) {
      if (typeof key !== 'string') throw new ExecError(`value has type ${typeof key === 'bigint' ? 'int' : 'float64'}; should be string`);
      item = Object.hasOwn(item, key) ? item[key] : undefined;
    } else if (item === undefined || item === null) {
      throw new ExecError('index of untyped nil');
    } else {
      throw new ExecError(`can't index item of type ${typeof item}`);
    }
  }
  return item;
}

function len(v: unknown): bigint {
  if (typeof v === 'string') return BigInt(byteLen(v));
  if (v instanceof SafeHTML) return BigInt(byteLen(v.html));
  if (Array.isArray(v)) return BigInt(v.length);
  if (isMap(v)) {
    const n = Object.keys(v).length;
    chargeWalk(n);
    return BigInt(n);
  }
  if (v === undefined || v === null) throw new ExecError('len of nil pointer');
  throw new ExecError(`len of type ${typeof v === 'bigint' ? 'int' : typeof v === 'number' ? 'float64' : typeof v}`);
}

const any = (params: string, fn: FuncDef['fn'], variadic?: FuncDef['variadic']): FuncDef => ({ params, fn, variadic });

export const BUILTINS: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['not', any('a', (a) => !truth(a[0]))],
  ['len', any('a', (a) => len(a[0]))],
  ['index', any('a', index, 'a')],
  ['print', any('', (a) => sprint(a), 'a')],
  ['printf', any('s', (a, st) => {
    return sprintf(a[0] as string, a.slice(1), (n) => st.checkValueSize(n));
  }, 'a')],
  ['println', any('', (a) => sprintln(a), 'a')],
  ['html', any('', (a) => htmlEscapeString(evalArgs(a)), 'a')],
  ['js', any('', (a) => jsEscapeString(evalArgs(a)), 'a')],
  ['urlquery', any('', (a) => queryEscape(evalArgs(a)), 'a')],
  ['call', any('a', (a) => {
    const fn = a[0];
    if (typeof fn !== 'function') throw new ExecError(`non-function of type ${typeof fn}`);
    return (fn as (...x: unknown[]) => unknown)(...a.slice(1));
  }, 'a')],
  ['eq', any('a', eq, 'a')],
  ['ne', any('aa', (a) => !eq(a))],
  ['lt', any('aa', (a) => lt(a[0], a[1]))],
  ['le', any('aa', (a) => lt(a[0], a[1]) || eq(a))],
  ['gt', any('aa', (a) => !lt(a[0], a[1]) && !eq(a))],
  ['ge', any('aa', (a) => !lt(a[0], a[1]))],
]);
