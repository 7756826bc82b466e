// Sprig v3 generic functions as listmonk enables them (minus env, expandenv, getHostByName),
// with Sprig's argument order and Go semantics. Nothing here reaches files, network,
// environment or database. Functions whose Go implementation needs cryptography that Node
// lacks (bcrypt, certificates, derived passwords) exist so templates parse, and fail when
// called.

import { createCipheriv, createDecipheriv, createHash, randomBytes, randomInt, randomUUID } from 'node:crypto';
import { TemplateError } from '../errors.ts';
import { ExecError, type ExecState, FailCalled, type FuncDef } from '../exec.ts';
import { runsInLinearTime } from '../../linear-regexp.ts';
import { goQuote } from '../gofmt.ts';
import { formatGoTime, GoTime, inZone, isValidZone, localTime, parseGoTime, zeroTime } from '../gotime.ts';
import { byteLen, compareBytes, formatV, goKind, goTypeName, isMap, SafeHTML, sortedKeys, struct, truth } from '../value.ts';
import { chargePerChar, chargeSort, chargeWalk, NODE, stringUnits } from '../meter.ts';

type Fn = FuncDef['fn'];
const f = (params: string, fn: Fn, variadic?: FuncDef['variadic']): FuncDef => ({ params, fn, variadic });

// ---- conversions (Sprig's strval and spf13/cast) ----

function strval(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof SafeHTML) return v.html;
  if (v instanceof Uint8Array) return Buffer.from(v).toString('utf8');
  return formatV(v);
}

function parseGoInt(s: string): bigint | null {
  const t = s.trim().replace(/\.0*$/, '');
  const m = /^([+-]?)(0[xX][0-9a-fA-F_]+|0[bB][01_]+|0[oO]?[0-7_]*|[1-9][0-9_]*|0)$/.exec(t);
  if (!m) return null;
  let body = m[2].replace(/_/g, '');
  if (/^0[0-7]+$/.test(body)) body = '0o' + body.slice(1);
  const v = BigInt(body.toLowerCase());
  return m[1] === '-' ? -v : v;
}

function toInt64(v: unknown): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number') return Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'string' || v instanceof SafeHTML) return parseGoInt(strval(v)) ?? 0n;
  return 0n;
}

function toFloat64(v: unknown): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' || v instanceof SafeHTML) {
    const s = strval(v).trim();
    return /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s) ? Number(s) : 0;
  }
  return 0;
}

function num(v: unknown): number {
  return Number(v as bigint);
}

/** Sprig's empty(). */
function empty(v: unknown): boolean {
  return !truth(v) && !(v instanceof GoTime);
}

function toList(v: unknown, fname: string): unknown[] {
  if (Array.isArray(v)) return v;
  if (v === null || v === undefined) return [];
  throw new ExecError(`Cannot ${fname} on type ${goTypeName(v)}`);
}

function strslice(v: unknown): string[] {
  if (Array.isArray(v)) {
    chargeWalk(NODE * v.length);
    return v.filter((x) => x !== null && x !== undefined).map(strval);
  }
  if (v === null || v === undefined) return [];
  return [strval(v)];
}

function bytesSlice(s: string, start: number, end?: number): string {
  return Buffer.from(s, 'utf8').subarray(start, end).toString('utf8');
}

function guardLen(st: ExecState, n: number): void {
  st.checkValueSize(n);
  st.charge(stringUnits(n));
}

/** parts.join(sep), refused before it is built when the result would be too long. */
function joinBounded(st: ExecState, parts: string[], sep: string): string {
  let len = parts.length > 1 ? (parts.length - 1) * sep.length : 0;
  for (const p of parts) len += p.length;
  guardLen(st, len);
  return parts.join(sep);
}

/** `s`, charged a unit per character (for regular expressions replacing in it). */
function chargedChars(s: string): string {
  chargePerChar(s);
  return s;
}

/** A fallback for a function that fails quietly in Sprig; render limits still fail the render. */
function quietly<T, F>(fn: () => T, fallback: F): T | F {
  try {
    return fn();
  } catch (e) {
    if (e instanceof TemplateError) throw e;
    return fallback;
  }
}

// ---- strings ----

function goTitle(s: string): string {
  chargePerChar(s);
  let prev = ' ';
  let out = '';
  for (const ch of s) {
    out += /[\p{L}\p{N}_']/u.test(prev) ? ch : ch.toUpperCase();
    prev = ch;
  }
  return out;
}

function untitle(s: string): string {
  chargePerChar(s);
  let prev = ' ';
  let out = '';
  for (const ch of s) {
    out += /\s/u.test(prev) ? ch.toLowerCase() : ch;
    prev = ch;
  }
  return out;
}

function swapcase(s: string): string {
  chargePerChar(s);
  let out = '';
  let wordStart = true;
  for (const ch of s) {
    if (/\s/u.test(ch)) { out += ch; wordStart = true; continue; }
    const up = ch.toUpperCase();
    const low = ch.toLowerCase();
    if (ch === up && ch !== low) out += low;
    else if (ch === low && ch !== up) out += wordStart ? up.slice(0) : up;
    else out += ch;
    wordStart = false;
  }
  return out;
}

function splitWords(s: string): string[] {
  chargePerChar(s);
  return s
    .replace(/([\p{Ll}\d])(\p{Lu})/gu, '$1 $2')
    .replace(/(\p{Lu})(\p{Lu}\p{Ll})/gu, '$1 $2')
    .replace(/(\p{L})(\d)/gu, '$1 $2')
    .split(/[\s_\-.]+/u)
    .filter(Boolean);
}

function camelcase(s: string): string {
  chargePerChar(s);
  const lead = /^_*/.exec(s)![0];
  const trail = /_*$/.exec(s.slice(lead.length))![0];
  const core = s.slice(lead.length, s.length - trail.length);
  const parts = core.split(/_+/).filter(Boolean).map((p) => p[0].toUpperCase() + p.slice(1));
  return (lead ? '_' : '') + parts.join('') + (trail ? '_' : '');
}

function wrapText(st: ExecState, s: string, width: number, sep: string, wrapLong: boolean): string {
  chargePerChar(s);
  if (width < 1) width = 1;
  const lines: string[] = [];
  for (const para of s.split('\n')) {
    let line = '';
    for (const word of para.split(' ').filter((w) => w !== '')) {
      let w = word;
      if (line && line.length + 1 + w.length > width) {
        lines.push(line);
        line = '';
      }
      while (wrapLong && w.length > width) {
        if (line) { lines.push(line); line = ''; }
        lines.push(w.slice(0, width));
        w = w.slice(width);
      }
      line = line ? `${line} ${w}` : w;
    }
    lines.push(line);
  }
  return joinBounded(st, lines, sep);
}

function abbrevFull(s: string, left: number, right: number): string {
  const n = byteLen(s);
  if (right < 4 || (left > 0 && right < 7) || n <= right) return s;
  let offset = Math.min(left, n);
  if (n - offset < right - 3) offset = n - (right - 3);
  if (offset <= 4) return bytesSlice(s, 0, right - 3) + '...';
  if (offset + right - 3 < n) return '...' + abbrevFull(bytesSlice(s, offset), 0, right - 3);
  return '...' + bytesSlice(s, n - (right - 3));
}

function seq(args: unknown[]): string {
  const p = args.map(num);
  let start = 1, step = 1, end = 0;
  if (p.length === 0) return '';
  if (p.length === 1) { end = p[0]; if (end < start) step = -1; }
  else if (p.length === 2) { start = p[0]; end = p[1]; if (end < start) step = -1; }
  else if (p.length === 3) { start = p[0]; step = p[1]; end = p[2]; if (step === 0 || (end < start && step > 0) || (end > start && step < 0)) return ''; }
  else return '';
  // Two units per number written.
  chargeWalk(2 * (Math.floor(Math.abs((end - start) / step)) + 1));
  const out: number[] = [];
  for (let i = start; step > 0 ? i <= end : i >= end; i += step) out.push(i);
  return out.join(' ');
}

function untilStep(st: ExecState, start: number, stop: number, step: number): bigint[] {
  const out: bigint[] = [];
  if (step === 0 || (step > 0 && start >= stop) || (step < 0 && start <= stop)) return out;
  const n = Math.ceil(Math.abs((stop - start) / step));
  // Each element is a new Go int (a bigint): about two units.
  st.charge(2 * n);
  for (let i = start; step > 0 ? i < stop : i > stop; i += step) out.push(BigInt(i));
  return out;
}

// ---- random ----

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
function randFrom(st: ExecState, chars: string, count: unknown): string {
  const n = Math.max(0, num(count));
  guardLen(st, n);
  st.charge(n);
  let s = '';
  for (let i = 0; i < n; i++) s += chars[randomInt(chars.length)];
  return s;
}
const ASCII = Array.from({ length: 94 }, (_, i) => String.fromCharCode(32 + i + 1)).join('');

// ---- hashes / encodings ----

function adler32(s: string): string {
  chargePerChar(s);
  let a = 1, b = 0;
  for (const byte of Buffer.from(s, 'utf8')) {
    a = (a + byte) % 65521;
    b = (b + a) % 65521;
  }
  return String(((b << 16) | a) >>> 0);
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function b32enc(s: string): string {
  chargePerChar(s);
  const bytes = Buffer.from(s, 'utf8');
  let bits = 0, value = 0, out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) { out += B32[(value >>> (bits - 5)) & 31]; bits -= 5; }
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  while (out.length % 8) out += '=';
  return out;
}
function b32dec(s: string): string {
  chargePerChar(s);
  const clean = s.replace(/=+$/, '');
  let bits = 0, value = 0;
  const out: number[] = [];
  for (const ch of clean) {
    const i = B32.indexOf(ch);
    if (i < 0) return `illegal base32 data at input byte ${clean.indexOf(ch)}`;
    value = (value << 5) | i;
    bits += 5;
    if (bits >= 8) { out.push((value >>> (bits - 8)) & 255); bits -= 8; }
  }
  return Buffer.from(out).toString('utf8');
}
function b64dec(s: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(s) || s.length % 4 !== 0) return 'illegal base64 data at input byte 0';
  return Buffer.from(s, 'base64').toString('utf8');
}

function aesKey(password: string): Buffer {
  const key = Buffer.alloc(32);
  Buffer.from(password, 'utf8').copy(key);
  return key;
}
function encryptAES(password: string, plaintext: string): string {
  const data = Buffer.from(plaintext, 'utf8');
  const pad = 16 - (data.length % 16);
  const padded = Buffer.concat([data, Buffer.alloc(pad, pad)]);
  const iv = randomBytes(16);
  const c = createCipheriv('aes-256-cbc', aesKey(password), iv);
  c.setAutoPadding(false);
  return Buffer.concat([iv, c.update(padded), c.final()]).toString('base64');
}
function decryptAES(password: string, crypt: string): string {
  const data = Buffer.from(crypt, 'base64');
  if (data.length < 16 || (data.length - 16) % 16 !== 0) throw new ExecError('cipher text too short');
  const d = createDecipheriv('aes-256-cbc', aesKey(password), data.subarray(0, 16));
  d.setAutoPadding(false);
  const plain = Buffer.concat([d.update(data.subarray(16)), d.final()]);
  return plain.subarray(0, plain.length - plain[plain.length - 1]).toString('utf8');
}

// ---- JSON (Go encoding/json) ----

/** A copy of `v` JSON.stringify writes as Go's encoding/json would; charged per node and string. */
function toJSONValue(v: unknown): unknown {
  // Copying and then writing each node: twice a walk's cost.
  chargeWalk(2 * NODE);
  if (v === undefined || v === null) return null;
  // Strings are written escaped, and escaped again for HTML: a unit per character (what a
  // string full of characters to escape costs).
  if (typeof v === 'string') {
    chargePerChar(v);
    return v;
  }
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof SafeHTML) {
    chargePerChar(v.html);
    return v.html;
  }
  if (v instanceof GoTime) return formatGoTime(v, '2006-01-02T15:04:05.999999999Z07:00');
  if (Array.isArray(v)) return v.map(toJSONValue);
  if (typeof v === 'object') {
    const out: Record<string, unknown> = {};
    const keys = isMap(v) ? sortedKeys(v) : Object.keys(v);
    for (const k of keys) {
      chargeWalk(stringUnits(k.length));
      const x = (v as Record<string, unknown>)[k];
      if (typeof x !== 'function') out[k] = toJSONValue(x);
    }
    return out;
  }
  if (typeof v === 'number' && !Number.isFinite(v)) throw new ExecError('json: unsupported value (NaN or infinity)');
  return v;
}

function goJSON(v: unknown, indent: string, escapeHTML: boolean): string {
  // toJSONValue leaves nothing JSON.stringify cannot write (no bigint), so no replacer is needed.
  const s = JSON.stringify(toJSONValue(v), null, indent) ?? 'null';
  const fixed = s.replace(/[\u2028\u2029]/g, (c) => (c === '\u2028' ? '\\u2028' : '\\u2029'));
  return escapeHTML ? fixed.replace(/[<>&]/g, (c) => '\\u00' + c.charCodeAt(0).toString(16)) : fixed;
}

function fromJSON(s: string): unknown {
  // Parsing is native, but every few characters can make a value (as in "[[],[],…]").
  chargeWalk(s.length >>> 2);
  return JSON.parse(s);
}

// ---- dates ----

function dateArg(st: ExecState, date: unknown): GoTime {
  if (date instanceof GoTime) return date;
  if (typeof date === 'bigint') return localTime(Number(date) * 1000);
  return now(st);
}

function now(st: ExecState): GoTime {
  return localTime((st.ctx.now ? st.ctx.now() : new Date()).getTime());
}

function dateInZone(st: ExecState, layout: string, date: unknown, zone: string): string {
  const t = dateArg(st, date);
  return formatGoTime(isValidZone(zone) ? inZone(t, zone) : t.UTC(), layout);
}

const DUR_UNITS: Record<string, number> = { ns: 1, us: 1e3, 'µs': 1e3, 'μs': 1e3, ms: 1e6, s: 1e9, m: 60e9, h: 3600e9 };

/** time.ParseDuration, in nanoseconds. */
function parseDuration(s: string): number {
  const m = /^([+-]?)((?:\d+\.?\d*|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(s);
  if (s === '0') return 0;
  if (!m) throw new ExecError('time: invalid duration');
  let total = 0;
  for (const part of s.replace(/^[+-]/, '').matchAll(/(\d+\.?\d*|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) total += Number(part[1]) * DUR_UNITS[part[2]];
  return m[1] === '-' ? -total : total;
}

/** time.Duration.String() of a nanosecond count. */
function durationString(ns: number): string {
  if (ns === 0) return '0s';
  const neg = ns < 0;
  let u = Math.abs(ns);
  let out: string;
  if (u < 1e9) {
    if (u < 1e3) out = `${u}ns`;
    else if (u < 1e6) out = `${trimFrac(u / 1e3)}µs`;
    else out = `${trimFrac(u / 1e6)}ms`;
  } else {
    const h = Math.floor(u / 3600e9);
    u -= h * 3600e9;
    const m = Math.floor(u / 60e9);
    u -= m * 60e9;
    const sec = trimFrac(u / 1e9);
    out = h ? `${h}h${m}m${sec}s` : m ? `${m}m${sec}s` : `${sec}s`;
  }
  return neg ? '-' + out : out;
}
function trimFrac(x: number): string {
  return String(Number(x.toFixed(9)));
}

function durationRound(st: ExecState, v: unknown): string {
  let d: number;
  if (typeof v === 'string') {
    try { d = parseDuration(v); } catch { d = 0; }
  } else if (v instanceof GoTime) d = (now(st).ms - v.ms) * 1e6;
  else d = Number(toInt64(v));
  const u = Math.abs(d);
  const sec = 1e9, min = 60 * sec, hour = 60 * min, day = 24 * hour, month = 30 * day, year = 365 * day;
  if (u > year) return Math.floor(u / year) + 'y';
  if (u > month) return Math.floor(u / month) + 'mo';
  if (u > day) return Math.floor(u / day) + 'd';
  if (u > hour) return Math.floor(u / hour) + 'h';
  if (u > min) return Math.floor(u / min) + 'm';
  if (u > sec) return Math.floor(u / sec) + 's';
  return '0s';
}

function toDate(layout: string, value: string): GoTime {
  chargePerChar(layout);
  chargePerChar(value);
  return parseGoTime(layout, value, undefined);
}

function dateModify(fmt: string, date: unknown): GoTime {
  const t = date instanceof GoTime ? date : zeroTime();
  const ns = parseDuration(fmt);
  const ms = t.ms + Math.trunc(ns / 1e6);
  return new GoTime(ms, t.offset, t.zone, t.subNanos);
}

// ---- lists and dicts ----

function uniq(list: unknown[]): unknown[] {
  chargeWalk(list.length);
  const out: unknown[] = [];
  for (const v of list) if (!out.some((o) => deepEqual(o, v))) out.push(v);
  return out;
}

/** reflect.DeepEqual; charged per pair of values compared (and per 32 characters of equal-length strings). */
function deepEqual(a: unknown, b: unknown): boolean {
  chargeWalk(NODE);
  if (typeof a === 'string' && typeof b === 'string' && a.length === b.length) chargeWalk(stringUnits(a.length));
  if (a === b) return true;
  if (a instanceof SafeHTML && b instanceof SafeHTML) return a.html === b.html;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((x, i) => deepEqual(x, b[i]));
  if (isMap(a) && isMap(b)) {
    const ka = Object.keys(a);
    chargeWalk(NODE * ka.length);
    return ka.length === Object.keys(b).length && ka.every((k) => Object.hasOwn(b, k) && deepEqual(a[k], b[k]));
  }
  if (a instanceof GoTime && b instanceof GoTime) return a.ms === b.ms && a.offset === b.offset;
  return false;
}

/** A copy of the maps and slices in `v`; charged per node copied. */
function deepCopy(v: unknown): unknown {
  chargeWalk(NODE);
  if (Array.isArray(v)) return v.map(deepCopy);
  if (isMap(v)) {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) out[k] = deepCopy(v[k]);
    return out;
  }
  return v;
}

function dict(args: unknown[]): Record<string, unknown> {
  const d: Record<string, unknown> = {};
  for (let i = 0; i < args.length; i += 2) d[strval(args[i])] = i + 1 < args.length ? args[i + 1] : '';
  return d;
}

function asMap(v: unknown): Record<string, unknown> {
  if (isMap(v)) return v;
  if (v === null || v === undefined) return {};
  throw new ExecError(`wrong type for value; expected map[string]interface {}; got ${goTypeName(v)}`);
}

function merge(dst: Record<string, unknown>, src: Record<string, unknown>, overwrite: boolean): void {
  const keys = Object.keys(src);
  chargeWalk(NODE * (1 + keys.length));
  for (const k of keys) {
    const s = src[k];
    const d = dst[k];
    if (isMap(d) && isMap(s)) merge(d, s, overwrite);
    else if (overwrite ? !empty(s) || !Object.hasOwn(dst, k) : empty(d)) dst[k] = deepCopy(s);
  }
}

function dig(args: unknown[]): unknown {
  const d = args[args.length - 1];
  const def = args[args.length - 2];
  const keys = args.slice(0, -2).map(strval);
  let cur: unknown = asMap(d);
  for (const k of keys) {
    if (!isMap(cur) || !Object.hasOwn(cur, k)) return def;
    cur = cur[k];
  }
  return cur;
}

function sliceList(list: unknown, idx: unknown[]): unknown {
  const l = toList(list, 'slice');
  const i = idx.map((x) => Number(toInt64(x)));
  const start = i.length > 0 ? i[0] : 0;
  const end = i.length > 1 ? i[1] : l.length;
  if (start < 0 || end > l.length || start > end) throw new ExecError('slice bounds out of range');
  chargeWalk(end - start);
  return l.slice(start, end);
}

// ---- regular expressions (RE2 syntax mapped onto JavaScript) ----

const regexCache = new Map<string, RegExp>();

/**
 * Compiles a Go (RE2) pattern; rejects syntax RE2 lacks. RE2 runs in linear time; so does a
 * pattern V8's linear engine can run (linear-regexp.ts). That engine has no i flag, so a
 * case-insensitive pattern spells out both cases of its letters (foldCase). The few others
 * (multi-line ones with \A or \z, mapped onto lookaround; case-insensitive ones with a class
 * range foldCase leaves alone) are refused when they nest repetition, the shape of
 * catastrophic backtracking.
 */
function goRegex(pattern: string, global = false): RegExp {
  const key = (global ? 'g' : '-') + pattern;
  const hit = regexCache.get(key);
  if (hit) return hit;
  let flags = global ? 'g' : '';
  let p = pattern;
  const lead = /^\(\?([imsU]+)\)/.exec(p);
  if (lead) {
    if (lead[1].includes('i')) flags += 'i';
    if (lead[1].includes('m')) flags += 'm';
    if (lead[1].includes('s')) flags += 's';
    p = p.slice(lead[0].length);
  }
  if (/\\[1-9]|\(\?[=!]|\(\?<[=!]/.test(p)) throw new ExecError('error parsing regexp: invalid or unsupported Perl syntax');
  p = p.replace(/\(\?P</g, '(?<');
  // Without the m flag JavaScript's ^ and $ match only at the ends of the text, as \A and \z do.
  p = flags.includes('m') ? p.replace(/\\z/g, '$(?![\\s\\S])').replace(/\\A/g, '^(?<![\\s\\S])') : p.replace(/\\z/g, '$').replace(/\\A/g, '^');
  p = p.replace(/\[:(alpha|digit|alnum|space|upper|lower|punct|xdigit|word):\]/g, (_m, c: string) => POSIX[c]);
  if (flags.includes('i')) {
    const folded = foldCase(p);
    const caseSensitive = flags.replace('i', '');
    if (folded !== null && runsInLinearTime(folded, caseSensitive)) [p, flags] = [folded, caseSensitive];
  }
  const linear = runsInLinearTime(p, flags);
  if (!linear && hasNestedRepetition(p)) throw new ExecError('regular expression too complex (nested repetition)');
  let re: RegExp;
  try {
    re = new RegExp(p, flags);
  } catch (e) {
    throw new ExecError('error parsing regexp');
  }
  if (!linear) backtracking.set(re, countQuantifiers(p));
  if (regexCache.size > 500) regexCache.clear();
  regexCache.set(key, re);
  return re;
}
const POSIX: Record<string, string> = {
  alpha: 'A-Za-z', digit: '0-9', alnum: 'A-Za-z0-9', space: '\\t\\n\\v\\f\\r ', upper: 'A-Z', lower: 'a-z',
  punct: '!-\\/:-@\\[-`{-~', xdigit: '0-9A-Fa-f', word: '\\w',
};

/** The other case of a character, when it has one of one UTF-16 unit. */
function otherCase(c: string): string | null {
  const lower = c.toLowerCase();
  const other = c === lower ? c.toUpperCase() : lower;
  return other !== c && other.length === 1 ? other : null;
}

/** Length of the escape starting at p[i] (a backslash): \xHH, \uHHHH, \cX, \p{...} or one character. */
function escapeLength(p: string, i: number): number {
  const c = p[i + 1];
  if (c === 'x') return 4;
  if (c === 'u') return 6;
  if (c === 'c') return 3;
  if ((c === 'p' || c === 'P') && p[i + 2] === '{') return Math.max(3, p.indexOf('}', i) - i + 1);
  return 2;
}

/** The other case of the letter a \xHH or \uHHHH escape stands for. */
function escapedOtherCase(escape: string): string | null {
  return /^\\[xu][0-9A-Fa-f]+$/.test(escape) ? otherCase(String.fromCharCode(parseInt(escape.slice(2), 16))) : null;
}

/**
 * The pattern with each letter outside group names matching both cases: `a` as `[aA]`, `\x41`
 * as `[\x41a]`, `[a-f]` as `[a-fA-F]`. Null for what it leaves alone: a class range between an
 * escape and a character, or one that covers some letters of a case but not all.
 */
function foldCase(p: string): string | null {
  let out = '';
  for (let i = 0; i < p.length;) {
    if (p[i] === '\\') {
      const escape = p.slice(i, i + escapeLength(p, i));
      const other = escapedOtherCase(escape);
      out += other ? `[${escape}${other}]` : escape;
      i += escape.length;
    } else if (p.startsWith('(?<', i)) {
      const end = p.indexOf('>', i) + 1 || p.length;
      out += p.slice(i, end);
      i = end;
    } else if (p[i] === '[') {
      const cls = foldClass(p, i);
      if (!cls) return null;
      out += cls.text;
      i = cls.end;
    } else {
      const other = otherCase(p[i]);
      out += other ? `[${p[i]}${other}]` : p[i];
      i++;
    }
  }
  return out;
}

/** foldCase for the class starting at p[start]: the class and the index after it. */
function foldClass(p: string, start: number): { text: string; end: number } | null {
  let i = start + 1;
  if (p[i] === '^') i++;
  let added = '';
  while (i < p.length && p[i] !== ']') {
    const isRange = p[i + 1] === '-' && i + 2 < p.length && p[i + 2] !== ']';
    if (p[i] === '\\') {
      const escape = p.slice(i, i + escapeLength(p, i));
      added += escapedOtherCase(escape) ?? '';
      i += escape.length;
      if (p[i] === '-' && i + 1 < p.length && p[i + 1] !== ']') return null;
    } else if (isRange) {
      const [lo, hi] = [p[i], p[i + 2]];
      if (hi === '\\') return null;
      if ((/[a-z]/.test(lo) && /[a-z]/.test(hi)) || (/[A-Z]/.test(lo) && /[A-Z]/.test(hi))) added += `${otherCase(lo)}-${otherCase(hi)}`;
      else if (!coversCasesAlike(lo.charCodeAt(0), hi.charCodeAt(0)) || otherCase(lo) || otherCase(hi)) return null;
      i += 3;
    } else {
      added += otherCase(p[i]) ?? '';
      i++;
    }
  }
  if (i >= p.length) return null; // unterminated: RegExp reports it
  return { text: p.slice(start, i) + added + ']', end: i + 1 };
}

/** Whether the code point range holds each ASCII letter in both cases or in neither. */
function coversCasesAlike(lo: number, hi: number): boolean {
  const covers = (from: number, to: number) => (lo <= from && hi >= to ? 'all' : hi < from || lo > to ? 'none' : 'some');
  const upper = covers(65, 90);
  return upper !== 'some' && upper === covers(97, 122);
}

/**
 * Patterns V8's linear engine cannot run (see goRegex), by the number of quantifiers they
 * hold: without nested repetition, matching one backtracks in up to (text length)^(q+1) steps
 * (a*a*a*b over a run of a's), so they are charged that much before they run.
 */
const backtracking = new WeakMap<RegExp, number>();

/** Quantifiers (*, +, ?, {…}) outside classes and escapes. */
function countQuantifiers(p: string): number {
  let n = 0;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') { i++; continue; }
    if (c === '[') {
      while (i < p.length && p[i] !== ']') { if (p[i] === '\\') i++; i++; }
      continue;
    }
    if (c === '(' && p[i + 1] === '?') { i++; continue; }
    if (c === '*' || c === '+' || c === '?' || c === '{') n++;
  }
  return n;
}

/** True when a quantified group itself contains a quantifier: the shape behind catastrophic backtracking. */
function hasNestedRepetition(p: string): boolean {
  const stack: boolean[] = [];
  let inner = false;
  for (let i = 0; i < p.length; i++) {
    const c = p[i];
    if (c === '\\') { i++; continue; }
    if (c === '[') {
      while (i < p.length && p[i] !== ']') { if (p[i] === '\\') i++; i++; }
      continue;
    }
    if (c === '(') { stack.push(inner); inner = false; continue; }
    if (c === ')') {
      const had = inner;
      inner = stack.pop() ?? false;
      const q = p[i + 1];
      if (q === '*' || q === '+' || q === '{') {
        if (had) return true;
        inner = true;
      } else if (had) inner = true;
      continue;
    }
    if (c === '*' || c === '+' || c === '{') inner = true;
  }
  return false;
}

/** Go's Regexp.Expand template ($1, ${1}, $name, ${name}, $$) as a replacer. */
function goReplacer(template: string): (...m: unknown[]) => string {
  if (!template.includes('$')) return () => template;
  // Parsed once: literal text and group references, alternating (references at odd indices).
  const parts: string[] = [];
  let last = 0;
  for (const m of template.matchAll(/\$(\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g)) {
    if (m[1] === '$') {
      parts.push(template.slice(last, m.index) + '$', '');
    } else {
      parts.push(template.slice(last, m.index), m[2] ?? m[3]);
    }
    last = m.index + m[0].length;
  }
  parts.push(template.slice(last));
  return (...m: unknown[]) => {
    chargeWalk(parts.length);
    const groupsIdx = m.length - 1;
    const named = (typeof m[groupsIdx] === 'object' ? m[groupsIdx] : undefined) as Record<string, string> | undefined;
    const numbered = m.slice(0, named ? m.length - 3 : m.length - 2) as (string | undefined)[];
    let out = parts[0];
    for (let i = 1; i < parts.length; i += 2) {
      const name = parts[i];
      if (name !== '') out += (/^\d+$/.test(name) ? numbered[Number(name)] : named?.[name]) ?? '';
      out += parts[i + 1];
    }
    return out;
  };
}

/** Units per match a regex function handles (a match with its groups, its replacement). */
const MATCH = 6;

/**
 * The compiled pattern, charged for matching it against `text`: linear in the text times the
 * pattern's size (V8's linear engine simulates the pattern's automaton over the text), or the
 * worst case of backtracking for a pattern that engine cannot run.
 */
function chargedRegex(pattern: string, text: string, global = false): RegExp {
  const re = goRegex(pattern, global);
  const q = backtracking.get(re);
  const units = q === undefined ? (text.length + 1) * (pattern.length + 1) : Math.min(1e15, (text.length + 1) ** (q + 1));
  chargeWalk(Math.ceil(units / 8));
  return re;
}

/** s.replace(re, …) with the replacement's added length bounded by the output budget as it grows. */
function regexReplace(st: ExecState, pattern: string, s: string, replacement: (...m: unknown[]) => string): string {
  const re = chargedRegex(pattern, s, true);
  let added = 0;
  return s.replace(re, (...m: unknown[]) => {
    chargeWalk(MATCH);
    const r = replacement(...m);
    added += r.length;
    st.checkValueSize(s.length + added);
    return r;
  });
}

function regexSplit(re: string, s: string, n: number): string[] {
  if (n === 0) return [];
  const r = chargedRegex(re, s, true);
  const out: string[] = [];
  let last = 0;
  for (const m of s.matchAll(r)) {
    if (n > 0 && out.length === n - 1) break;
    chargeWalk(MATCH);
    if (m[0] === '' && (m.index === 0 || m.index === s.length)) continue;
    out.push(s.slice(last, m.index));
    last = m.index! + m[0].length;
  }
  out.push(s.slice(last));
  return out;
}

// ---- misc ----

function goPathClean(p: string): string {
  if (p === '') return '.';
  const rooted = p[0] === '/';
  const parts: string[] = [];
  for (const seg of p.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (parts.length && parts[parts.length - 1] !== '..') parts.pop();
      else if (!rooted) parts.push('..');
      continue;
    }
    parts.push(seg);
  }
  const out = (rooted ? '/' : '') + parts.join('/');
  return out || (rooted ? '/' : '.');
}
function goPathBase(p: string): string {
  if (p === '') return '.';
  p = p.replace(/\/+$/, '');
  if (p === '') return '/';
  return p.slice(p.lastIndexOf('/') + 1);
}
function goPathDir(p: string): string {
  return goPathClean(p.slice(0, p.lastIndexOf('/') + 1));
}
function goPathExt(p: string): string {
  for (let i = p.length - 1; i >= 0 && p[i] !== '/'; i--) if (p[i] === '.') return p.slice(i);
  return '';
}

function urlParse(s: string): Record<string, unknown> {
  let u: URL;
  try {
    u = new URL(s);
  } catch {
    throw new ExecError('unable to parse url');
  }
  return {
    scheme: u.protocol.replace(/:$/, ''), host: u.host, hostname: u.hostname, path: decodeURIComponent(u.pathname),
    query: u.search.replace(/^\?/, ''), opaque: '', fragment: decodeURIComponent(u.hash.replace(/^#/, '')),
    userinfo: u.username ? (u.password ? `${u.username}:${u.password}` : u.username) : '',
  };
}
function urlJoin(d: Record<string, unknown>): string {
  const g = (k: string) => (d[k] === undefined || d[k] === null ? '' : strval(d[k]));
  let s = g('scheme') ? g('scheme') + ':' : '';
  if (g('host') || g('scheme')) s += '//' + (g('userinfo') ? g('userinfo') + '@' : '') + g('host');
  s += encodeURI(g('path'));
  if (g('query')) s += '?' + g('query');
  if (g('fragment')) s += '#' + encodeURIComponent(g('fragment'));
  return s;
}

interface SemVer { major: number; minor: number; patch: number; pre: string; meta: string; original: string }

function parseSemver(v: string): SemVer {
  const m = /^v?(\d+)(?:\.(\d+))?(?:\.(\d+))?(?:-([0-9A-Za-z.-]+))?(?:\+([0-9A-Za-z.-]+))?$/.exec(v.trim());
  if (!m) throw new ExecError('Invalid Semantic Version');
  return { major: Number(m[1]), minor: Number(m[2] ?? 0), patch: Number(m[3] ?? 0), pre: m[4] ?? '', meta: m[5] ?? '', original: v };
}
function cmpSemver(a: SemVer, b: SemVer): number {
  for (const k of ['major', 'minor', 'patch'] as const) if (a[k] !== b[k]) return a[k] < b[k] ? -1 : 1;
  if (a.pre === b.pre) return 0;
  if (!a.pre) return 1;
  if (!b.pre) return -1;
  return a.pre < b.pre ? -1 : 1;
}
function semverStruct(v: SemVer): object {
  return struct('*semver.Version', {
    Major: () => BigInt(v.major), Minor: () => BigInt(v.minor), Patch: () => BigInt(v.patch),
    Prerelease: () => v.pre, Metadata: () => v.meta, Original: () => v.original,
    String: () => `${v.major}.${v.minor}.${v.patch}${v.pre ? '-' + v.pre : ''}${v.meta ? '+' + v.meta : ''}`,
  });
}
/** Masterminds semver constraints: comparison operators, ~, ^, x-ranges, `,`/space (and), `||` (or). */
function semverCompare(constraint: string, version: string): boolean {
  const v = parseSemver(version);
  return constraint.split('||').some((group) =>
    group.trim().split(/\s*,\s*|\s+(?=[<>=!~^])/).filter(Boolean).every((c) => {
      const m = /^(>=|<=|!=|=>|=<|>|<|=|~>|~|\^)?\s*v?([0-9xX*]+)(?:\.([0-9xX*]+))?(?:\.([0-9xX*]+))?(-[0-9A-Za-z.-]+)?$/.exec(c.trim());
      if (!m) throw new ExecError('improper constraint');
      const op = m[1] ?? '=';
      const wild = (x?: string) => x === undefined || /^[xX*]$/.test(x);
      const major = Number(wild(m[2]) ? 0 : m[2]), minor = Number(wild(m[3]) ? 0 : m[3]), patch = Number(wild(m[4]) ? 0 : m[4]);
      const base: SemVer = { major, minor, patch, pre: m[5]?.slice(1) ?? '', meta: '', original: c };
      if (v.pre && !base.pre) return false;
      const cmp = cmpSemver(v, base);
      const upper = (u: SemVer) => cmpSemver(v, u) < 0;
      if (op === '=' && (wild(m[2]) || wild(m[3]) || wild(m[4]))) {
        if (wild(m[2])) return true;
        if (wild(m[3])) return v.major === major;
        return v.major === major && v.minor === minor;
      }
      switch (op) {
        case '=': return cmp === 0;
        case '!=': return cmp !== 0;
        case '>': return cmp > 0;
        case '<': return cmp < 0;
        case '>=': case '=>': return cmp >= 0;
        case '<=': case '=<': return cmp <= 0;
        case '~': case '~>':
          return cmp >= 0 && upper(m[3] === undefined ? { ...base, major: major + 1, minor: 0, patch: 0, pre: '' } : { ...base, minor: minor + 1, patch: 0, pre: '' });
        default: // ^
          if (major > 0 || m[3] === undefined) return cmp >= 0 && upper({ ...base, major: major + 1, minor: 0, patch: 0, pre: '' });
          if (minor > 0 || m[4] === undefined) return cmp >= 0 && upper({ ...base, minor: minor + 1, patch: 0, pre: '' });
          return cmp >= 0 && upper({ ...base, patch: patch + 1, pre: '' });
      }
    }),
  );
}

function unsupported(name: string): FuncDef {
  return f('', () => {
    throw new ExecError(`${name} is not available in listmgr templates`);
  }, 'a');
}

function listFn(name: string, fn: (l: unknown[], a: unknown[]) => unknown, params = 'a', variadic?: FuncDef['variadic']): FuncDef {
  return f(params, (a) => fn(toList(a[0], name), a.slice(1)), variadic);
}

/** A list function that copies the list: charged per element. */
function copyingListFn(name: string, fn: (l: unknown[], a: unknown[]) => unknown, params = 'a', variadic?: FuncDef['variadic']): FuncDef {
  return listFn(name, (l, a) => {
    chargeWalk(l.length);
    return fn(l, a);
  }, params, variadic);
}

function mathReduce(a: unknown[], op: (x: bigint, y: bigint) => bigint): bigint {
  return a.slice(1).reduce<bigint>((acc, v) => op(acc, toInt64(v)), toInt64(a[0]));
}

function floatReduce(a: unknown[], op: (x: number, y: number) => number): number {
  return a.slice(1).reduce<number>((acc, v) => op(acc, toFloat64(v)), toFloat64(a[0]));
}

function roundHalf(x: number, p: number, r: number): number {
  const pow = Math.pow(10, p);
  const digit = pow * x;
  const [intPart, frac] = [Math.trunc(digit), digit - Math.trunc(digit)];
  const round = Math.abs(frac) >= r ? (digit < 0 ? Math.floor(digit) : Math.ceil(digit)) : intPart;
  return round / pow;
}

const entries: [string, FuncDef][] = [
  // Dates
  ['now', f('', (_a, st) => now(st))],
  ['date', f('sa', (a, st) => dateInZone(st, a[0] as string, a[1], 'Local'))],
  ['dateInZone', f('sas', (a, st) => dateInZone(st, a[0] as string, a[1], a[2] as string))],
  ['htmlDate', f('a', (a, st) => dateInZone(st, '2006-01-02', a[0], 'Local'))],
  ['htmlDateInZone', f('as', (a, st) => dateInZone(st, '2006-01-02', a[0], a[1] as string))],
  ['dateModify', f('sa', (a) => { try { return dateModify(a[0] as string, a[1]); } catch { return a[1]; } })],
  ['mustDateModify', f('sa', (a) => dateModify(a[0] as string, a[1]))],
  ['ago', f('a', (a, st) => durationString(Math.round((now(st).ms - dateArg(st, a[0]).ms) / 1000) * 1e9))],
  ['duration', f('a', (a) => durationString(Number(toInt64(a[0])) * 1e9))],
  ['durationRound', f('a', (a, st) => durationRound(st, a[0]))],
  ['toDate', f('ss', (a) => quietly(() => toDate(a[0] as string, a[1] as string), zeroTime()))],
  ['mustToDate', f('ss', (a) => toDate(a[0] as string, a[1] as string))],
  ['unixEpoch', f('a', (a) => {
    if (!(a[0] instanceof GoTime)) throw new ExecError(`wrong type for value; expected time.Time; got ${goTypeName(a[0])}`);
    return String(Math.floor(a[0].ms / 1000));
  })],
  // Strings
  ['hello', f('', () => 'Hello!')],
  ['upper', f('s', (a) => (a[0] as string).toUpperCase())],
  ['lower', f('s', (a) => (a[0] as string).toLowerCase())],
  ['title', f('s', (a) => goTitle(a[0] as string))],
  ['untitle', f('s', (a) => untitle(a[0] as string))],
  ['substr', f('iis', (a) => {
    const s = a[2] as string, start = num(a[0]), end = num(a[1]), n = byteLen(s);
    if (start < 0) return bytesSlice(s, 0, end);
    if (end < 0 || end > n) return bytesSlice(s, start);
    if (start > end) throw new ExecError('slice bounds out of range');
    return bytesSlice(s, start, end);
  })],
  ['repeat', f('is', (a, st) => {
    const n = num(a[0]);
    if (n < 0) throw new ExecError('strings: negative Repeat count');
    guardLen(st, n * (a[1] as string).length);
    return (a[1] as string).repeat(n);
  })],
  ['trim', f('s', (a) => (a[0] as string).trim())],
  ['trimAll', f('ss', (a) => trimCutset(a[1] as string, a[0] as string))],
  ['trimall', f('ss', (a) => trimCutset(a[1] as string, a[0] as string))],
  ['trimPrefix', f('ss', (a) => ((a[1] as string).startsWith(a[0] as string) ? (a[1] as string).slice((a[0] as string).length) : a[1]))],
  ['trimSuffix', f('ss', (a) => ((a[1] as string).endsWith(a[0] as string) && (a[0] as string) ? (a[1] as string).slice(0, -(a[0] as string).length) : a[1]))],
  ['nospace', f('s', (a) => chargedChars(a[0] as string).replace(/\s/gu, ''))],
  ['abbrev', f('is', (a) => (num(a[0]) < 4 ? a[1] : abbrevFull(a[1] as string, 0, num(a[0]))))],
  ['abbrevboth', f('iis', (a) => abbrevFull(a[2] as string, num(a[0]), num(a[1])))],
  ['trunc', f('is', (a) => {
    const s = a[1] as string, c = num(a[0]), n = byteLen(s);
    if (c < 0 && n + c > 0) return bytesSlice(s, n + c);
    if (c >= 0 && n > c) return bytesSlice(s, 0, c);
    return s;
  })],
  ['initials', f('s', (a) => {
    chargePerChar(a[0] as string);
    const words = (a[0] as string).split(/\s+/u).filter(Boolean);
    return words.map((w) => String.fromCodePoint(w.codePointAt(0)!)).join('');
  })],
  ['swapcase', f('s', (a) => swapcase(a[0] as string))],
  ['shuffle', f('s', (a) => {
    chargePerChar(a[0] as string);
    const chars = Array.from(a[0] as string);
    for (let i = chars.length - 1; i > 0; i--) {
      const j = randomInt(i + 1);
      [chars[i], chars[j]] = [chars[j], chars[i]];
    }
    return chars.join('');
  })],
  ['snakecase', f('s', (a) => splitWords(a[0] as string).map((w) => w.toLowerCase()).join('_'))],
  ['camelcase', f('s', (a) => camelcase(a[0] as string))],
  ['kebabcase', f('s', (a) => splitWords(a[0] as string).map((w) => w.toLowerCase()).join('-'))],
  ['wrap', f('is', (a, st) => wrapText(st, a[1] as string, num(a[0]), '\n', false))],
  ['wrapWith', f('iss', (a, st) => wrapText(st, a[2] as string, num(a[0]), a[1] as string, true))],
  ['contains', f('ss', (a) => (a[1] as string).includes(a[0] as string))],
  ['hasPrefix', f('ss', (a) => (a[1] as string).startsWith(a[0] as string))],
  ['hasSuffix', f('ss', (a) => (a[1] as string).endsWith(a[0] as string))],
  ['quote', f('', (a) => a.filter((v) => v !== null).map((v) => goQuote(strval(v))).join(' '), 'a')],
  ['squote', f('', (a) => a.filter((v) => v !== null).map((v) => `'${strval(v)}'`).join(' '), 'a')],
  ['cat', f('', (a) => a.filter((v) => v !== null).map(strval).join(' '), 'a')],
  ['indent', f('is', (a, st) => indent(st, num(a[0]), a[1] as string))],
  ['nindent', f('is', (a, st) => '\n' + indent(st, num(a[0]), a[1] as string))],
  ['replace', f('sss', (a, st) => {
    return joinBounded(st, splitCharged(a[2] as string, a[0] as string), a[1] as string);
  })],
  ['plural', f('ssi', (a) => (num(a[2]) === 1 ? a[0] : a[1]))],
  ['toString', f('a', (a) => strval(a[0]))],
  // Random
  ['randAlphaNum', f('i', (a, st) => randFrom(st, ALNUM, a[0]))],
  ['randAlpha', f('i', (a, st) => randFrom(st, ALNUM.slice(0, 52), a[0]))],
  ['randAscii', f('i', (a, st) => randFrom(st, ASCII, a[0]))],
  ['randNumeric', f('i', (a, st) => randFrom(st, '0123456789', a[0]))],
  ['randInt', f('ii', (a) => {
    const min = num(a[0]), max = num(a[1]);
    if (max <= min) throw new ExecError('invalid argument to Intn');
    return BigInt(min + randomInt(max - min));
  })],
  ['randBytes', f('i', (a, st) => {
    guardLen(st, num(a[0]) * 2);
    return randomBytes(Math.max(0, num(a[0]))).toString('base64');
  })],
  // Hashes and encodings
  ['sha1sum', f('s', (a) => createHash('sha1').update(a[0] as string).digest('hex'))],
  ['sha256sum', f('s', (a) => createHash('sha256').update(a[0] as string).digest('hex'))],
  ['sha512sum', f('s', (a) => createHash('sha512').update(a[0] as string).digest('hex'))],
  ['adler32sum', f('s', (a) => adler32(a[0] as string))],
  ['b64enc', f('s', (a) => Buffer.from(a[0] as string, 'utf8').toString('base64'))],
  ['b64dec', f('s', (a) => b64dec(a[0] as string))],
  ['b32enc', f('s', (a) => b32enc(a[0] as string))],
  ['b32dec', f('s', (a) => b32dec(a[0] as string))],
  // Type conversion
  ['atoi', f('s', (a) => {
    const s = a[0] as string;
    return /^[+-]?\d+$/.test(s) ? BigInt(s) : 0n;
  })],
  ['int', f('a', (a) => toInt64(a[0]))],
  ['int64', f('a', (a) => toInt64(a[0]))],
  ['float64', f('a', (a) => toFloat64(a[0]))],
  ['toDecimal', f('a', (a) => {
    const s = strval(a[0]);
    return /^[0-7]+$/.test(s) ? BigInt('0o' + s) : 0n;
  })],
  ['toStrings', f('a', (a) => strslice(a[0]))],
  // Splitting and sequences
  ['split', f('ss', (a) => Object.fromEntries(splitCharged(a[1] as string, a[0] as string).map((p, i) => [`_${i}`, p])))],
  ['splitList', f('ss', (a) => splitCharged(a[1] as string, a[0] as string))],
  ['splitn', f('sis', (a) => {
    const n = num(a[1]);
    const parts = splitCharged(a[2] as string, a[0] as string);
    const capped = n > 0 && parts.length > n ? [...parts.slice(0, n - 1), parts.slice(n - 1).join(a[0] as string)] : n === 0 ? [] : parts;
    return Object.fromEntries(capped.map((p, i) => [`_${i}`, p]));
  })],
  ['join', f('sa', (a, st) => joinBounded(st, strslice(a[1]), a[0] as string))],
  ['sortAlpha', f('a', (a) => {
    const l = strslice(a[0]);
    chargeSort(l.length);
    return l.sort(compareBytes);
  })],
  ['seq', f('', (a) => seq(a), 'i')],
  ['until', f('i', (a, st) => untilStep(st, 0, num(a[0]), num(a[0]) < 0 ? -1 : 1))],
  ['untilStep', f('iii', (a, st) => untilStep(st, num(a[0]), num(a[1]), num(a[2])))],
  // Integer math
  ['add', f('', (a) => mathReduce(a.length ? a : [0n], (x, y) => x + y), 'a')],
  ['add1', f('a', (a) => toInt64(a[0]) + 1n)],
  ['sub', f('aa', (a) => toInt64(a[0]) - toInt64(a[1]))],
  ['mul', f('a', (a) => mathReduce(a, (x, y) => x * y), 'a')],
  ['div', f('aa', (a) => {
    const d = toInt64(a[1]);
    if (d === 0n) throw new ExecError('runtime error: integer divide by zero');
    return toInt64(a[0]) / d;
  })],
  ['mod', f('aa', (a) => {
    const d = toInt64(a[1]);
    if (d === 0n) throw new ExecError('runtime error: integer divide by zero');
    return toInt64(a[0]) % d;
  })],
  ['max', f('a', (a) => mathReduce(a, (x, y) => (y > x ? y : x)), 'a')],
  ['biggest', f('a', (a) => mathReduce(a, (x, y) => (y > x ? y : x)), 'a')],
  ['min', f('a', (a) => mathReduce(a, (x, y) => (y < x ? y : x)), 'a')],
  ['floor', f('a', (a) => Math.floor(toFloat64(a[0])))],
  ['ceil', f('a', (a) => Math.ceil(toFloat64(a[0])))],
  ['round', f('ai', (a) => roundHalf(toFloat64(a[0]), num(a[1]), a.length > 2 ? toFloat64(a[2]) : 0.5), 'f')],
  // Float math
  ['addf', f('', (a) => floatReduce(a.length ? a : [0], (x, y) => x + y), 'a')],
  ['add1f', f('a', (a) => toFloat64(a[0]) + 1)],
  ['subf', f('a', (a) => floatReduce(a, (x, y) => x - y), 'a')],
  ['mulf', f('a', (a) => floatReduce(a, (x, y) => x * y), 'a')],
  ['divf', f('a', (a) => floatReduce(a, (x, y) => x / y), 'a')],
  ['maxf', f('a', (a) => floatReduce(a, Math.max), 'a')],
  ['minf', f('a', (a) => floatReduce(a, Math.min), 'a')],
  // Defaults and logic
  ['default', f('a', (a) => (a.length < 2 || empty(a[1]) ? a[0] : a[1]), 'a')],
  ['empty', f('a', (a) => empty(a[0]))],
  ['coalesce', f('', (a) => a.find((v) => !empty(v)) ?? null, 'a')],
  ['ternary', f('aaa', (a) => {
    if (typeof a[2] !== 'boolean') throw new ExecError(`wrong type for value; expected bool; got ${goTypeName(a[2])}`);
    return a[2] ? a[0] : a[1];
  })],
  ['all', f('', (a) => a.every((v) => !empty(v)), 'a')],
  ['any', f('', (a) => a.some((v) => !empty(v)), 'a')],
  ['compact', copyingListFn('compact', (l) => l.filter((v) => !empty(v)))],
  ['mustCompact', copyingListFn('compact', (l) => l.filter((v) => !empty(v)))],
  ['fail', f('s', (a) => { throw new FailCalled(a[0] as string); })],
  // JSON
  ['toJson', f('a', (a) => quietly(() => goJSON(a[0], '', true), ''))],
  ['toPrettyJson', f('a', (a) => quietly(() => goJSON(a[0], '  ', true), ''))],
  ['toRawJson', f('a', (a) => quietly(() => goJSON(a[0], '', false), ''))],
  ['mustToJson', f('a', (a) => goJSON(a[0], '', true))],
  ['mustToPrettyJson', f('a', (a) => goJSON(a[0], '  ', true))],
  ['mustToRawJson', f('a', (a) => goJSON(a[0], '', false))],
  ['fromJson', f('s', (a) => quietly(() => fromJSON(a[0] as string), null))],
  ['mustFromJson', f('s', (a) => fromJSON(a[0] as string))],
  // Copy and reflection
  ['deepCopy', f('a', (a) => deepCopy(a[0]))],
  ['mustDeepCopy', f('a', (a) => deepCopy(a[0]))],
  ['typeOf', f('a', (a) => goTypeName(a[0]))],
  ['typeIs', f('sa', (a) => a[0] === goTypeName(a[1]))],
  ['typeIsLike', f('sa', (a) => a[0] === goTypeName(a[1]) || a[0] === '*' + goTypeName(a[1]))],
  ['kindOf', f('a', (a) => goKind(a[0]))],
  ['kindIs', f('sa', (a) => a[0] === goKind(a[1]))],
  ['deepEqual', f('aa', (a) => deepEqual(a[0], a[1]))],
  // Paths (string manipulation only)
  ['base', f('s', (a) => goPathBase(chargedChars(a[0] as string)))],
  ['dir', f('s', (a) => goPathDir(chargedChars(a[0] as string)))],
  ['clean', f('s', (a) => goPathClean(chargedChars(a[0] as string)))],
  ['ext', f('s', (a) => goPathExt(chargedChars(a[0] as string)))],
  ['isAbs', f('s', (a) => (a[0] as string).startsWith('/'))],
  ['osBase', f('s', (a) => goPathBase(chargedChars(a[0] as string)))],
  ['osDir', f('s', (a) => goPathDir(chargedChars(a[0] as string)))],
  ['osClean', f('s', (a) => goPathClean(chargedChars(a[0] as string)))],
  ['osExt', f('s', (a) => goPathExt(chargedChars(a[0] as string)))],
  ['osIsAbs', f('s', (a) => (a[0] as string).startsWith('/'))],
  // Lists
  ['list', f('', (a) => a, 'a')],
  ['tuple', f('', (a) => a, 'a')],
  ...(['first', 'mustFirst'] as const).map((n): [string, FuncDef] => [n, listFn('find first', (l) => (l.length ? l[0] : null))]),
  ...(['last', 'mustLast'] as const).map((n): [string, FuncDef] => [n, listFn('find last', (l) => (l.length ? l[l.length - 1] : null))]),
  ...(['rest', 'mustRest'] as const).map((n): [string, FuncDef] => [n, copyingListFn('find rest', (l) => (l.length ? l.slice(1) : null))]),
  ...(['initial', 'mustInitial'] as const).map((n): [string, FuncDef] => [n, copyingListFn('find initial', (l) => (l.length ? l.slice(0, -1) : null))]),
  ...(['append', 'push', 'mustAppend', 'mustPush'] as const).map((n): [string, FuncDef] => [n, copyingListFn('push', (l, a) => [...l, a[0]], 'aa')]),
  ...(['prepend', 'mustPrepend'] as const).map((n): [string, FuncDef] => [n, copyingListFn('prepend', (l, a) => [a[0], ...l], 'aa')]),
  ['concat', f('', (a) => a.flatMap((l) => {
    const list = toList(l, 'concat');
    chargeWalk(list.length);
    return list;
  }), 'a')],
  ...(['reverse', 'mustReverse'] as const).map((n): [string, FuncDef] => [n, copyingListFn('reverse', (l) => [...l].reverse())]),
  ...(['uniq', 'mustUniq'] as const).map((n): [string, FuncDef] => [n, listFn('uniq', uniq)]),
  ...(['without', 'mustWithout'] as const).map((n): [string, FuncDef] => [n, copyingListFn('without', (l, a) => l.filter((v) => !a.some((o) => deepEqual(o, v))), 'a', 'a')]),
  ...(['has', 'mustHas'] as const).map((n): [string, FuncDef] => [n, f('aa', (a) => toList(a[1], 'find has').some((v) => deepEqual(v, a[0])))]),
  ...(['slice', 'mustSlice'] as const).map((n): [string, FuncDef] => [n, f('a', (a) => sliceList(a[0], a.slice(1)), 'a')]),
  ...(['chunk', 'mustChunk'] as const).map((n): [string, FuncDef] => [n, f('ia', (a) => {
    const size = num(a[0]);
    const l = toList(a[1], 'chunk');
    if (size < 1) throw new ExecError('size must be positive');
    chargeWalk(l.length + Math.ceil(l.length / size));
    const out: unknown[][] = [];
    for (let i = 0; i < l.length; i += size) out.push(l.slice(i, i + size));
    return out;
  })]),
  // Dicts
  ['dict', f('', (a) => dict(a), 'a')],
  ['get', f('ms', (a) => { const d = asMap(a[0]); return Object.hasOwn(d, a[1] as string) ? d[a[1] as string] : ''; })],
  ['set', f('msa', (a) => { const d = asMap(a[0]); d[a[1] as string] = a[2]; return d; })],
  ['unset', f('ms', (a) => { const d = asMap(a[0]); delete d[a[1] as string]; return d; })],
  ['hasKey', f('ms', (a) => Object.hasOwn(asMap(a[0]), a[1] as string))],
  ['pluck', f('s', (a) => a.slice(1).map(asMap).filter((d) => Object.hasOwn(d, a[0] as string)).map((d) => d[a[0] as string]), 'm')],
  ['dig', f('aa', (a) => dig(a), 'a')],
  ['keys', f('', (a) => a.flatMap((d) => sortedKeys(asMap(d))), 'm')],
  ['values', f('m', (a) => { const d = asMap(a[0]); return sortedKeys(d).map((k) => d[k]); })],
  ['pick', f('m', (a) => { const d = asMap(a[0]); return Object.fromEntries(a.slice(1).map(strval).filter((k) => Object.hasOwn(d, k)).map((k) => [k, d[k]])); }, 'a')],
  ['omit', f('m', (a) => {
    const d = asMap(a[0]);
    const drop = new Set(a.slice(1).map(strval));
    const keys = Object.keys(d);
    chargeWalk(keys.length);
    return Object.fromEntries(keys.filter((k) => !drop.has(k)).map((k) => [k, d[k]]));
  }, 'a')],
  ...(['merge', 'mustMerge'] as const).map((n): [string, FuncDef] => [n, f('m', (a) => { const d = asMap(a[0]); for (const s of a.slice(1)) merge(d, asMap(s), false); return d; }, 'm')]),
  ...(['mergeOverwrite', 'mustMergeOverwrite'] as const).map((n): [string, FuncDef] => [n, f('m', (a) => { const d = asMap(a[0]); for (const s of a.slice(1)) merge(d, asMap(s), true); return d; }, 'm')]),
  // Regex
  ['regexMatch', f('ss', (a) => quietly(() => regexTest(a[0] as string, a[1] as string), false))],
  ['mustRegexMatch', f('ss', (a) => regexTest(a[0] as string, a[1] as string))],
  ['regexFindAll', f('ssi', (a) => regexFindAll(a[0] as string, a[1] as string, num(a[2])))],
  ['mustRegexFindAll', f('ssi', (a) => regexFindAll(a[0] as string, a[1] as string, num(a[2])))],
  ['regexFind', f('ss', (a) => regexFind(a[0] as string, a[1] as string))],
  ['mustRegexFind', f('ss', (a) => regexFind(a[0] as string, a[1] as string))],
  ['regexReplaceAll', f('sss', (a, st) => regexReplace(st, a[0] as string, a[1] as string, goReplacer(a[2] as string)))],
  ['mustRegexReplaceAll', f('sss', (a, st) => regexReplace(st, a[0] as string, a[1] as string, goReplacer(a[2] as string)))],
  ['regexReplaceAllLiteral', f('sss', (a, st) => regexReplace(st, a[0] as string, a[1] as string, () => a[2] as string))],
  ['mustRegexReplaceAllLiteral', f('sss', (a, st) => regexReplace(st, a[0] as string, a[1] as string, () => a[2] as string))],
  ['regexSplit', f('ssi', (a) => regexSplit(a[0] as string, a[1] as string, num(a[2])))],
  ['mustRegexSplit', f('ssi', (a) => regexSplit(a[0] as string, a[1] as string, num(a[2])))],
  ['regexQuoteMeta', f('s', (a) => chargedChars(a[0] as string).replace(/[\\.+*?()|[\]{}^$]/g, '\\$&'))],
  // Crypto
  ['encryptAES', f('ss', (a) => encryptAES(a[0] as string, a[1] as string))],
  ['decryptAES', f('ss', (a) => decryptAES(a[0] as string, a[1] as string))],
  ...['bcrypt', 'htpasswd', 'derivePassword', 'genPrivateKey', 'buildCustomCert', 'genCA', 'genCAWithKey', 'genSelfSignedCert',
    'genSelfSignedCertWithKey', 'genSignedCert', 'genSignedCertWithKey'].map((n): [string, FuncDef] => [n, unsupported(n)]),
  // Misc
  ['uuidv4', f('', () => randomUUID())],
  ['semver', f('s', (a) => semverStruct(parseSemver(a[0] as string)))],
  ['semverCompare', f('ss', (a) => semverCompare(a[0] as string, a[1] as string))],
  ['urlParse', f('s', (a) => urlParse(a[0] as string))],
  ['urlJoin', f('m', (a) => urlJoin(asMap(a[0])))],
];

// Sprig registers a few names twice (snake-case aliases).
entries.push(['date_in_zone', entries.find(([n]) => n === 'dateInZone')![1]]);
entries.push(['date_modify', entries.find(([n]) => n === 'dateModify')![1]]);
entries.push(['must_date_modify', entries.find(([n]) => n === 'mustDateModify')![1]]);

function trimCutset(s: string, cutset: string): string {
  chargePerChar(s);
  chargePerChar(cutset);
  const set = new Set(Array.from(cutset));
  const chars = Array.from(s);
  let i = 0;
  let j = chars.length;
  while (i < j && set.has(chars[i])) i++;
  while (j > i && set.has(chars[j - 1])) j--;
  return chars.slice(i, j).join('');
}

function indent(st: ExecState, spaces: number, s: string): string {
  const lines = splitCharged(s, '\n');
  const width = Math.max(0, spaces);
  guardLen(st, s.length + lines.length * width);
  const pad = ' '.repeat(width);
  return pad + lines.join('\n' + pad);
}

function regexTest(re: string, s: string): boolean {
  return chargedRegex(re, s).test(s);
}

function regexFind(re: string, s: string): string {
  return chargedRegex(re, s).exec(s)?.[0] ?? '';
}

/** s.split(sep), charged per part, counted (natively) before the parts are made. */
function splitCharged(s: string, sep: string): string[] {
  if (sep === '') {
    chargeWalk(s.length);
  } else {
    let n = 1;
    for (let i = s.indexOf(sep); i !== -1; i = s.indexOf(sep, i + sep.length)) {
      if (++n % 1024 === 0) chargeWalk(1024);
    }
    chargeWalk(n % 1024);
  }
  return s.split(sep);
}

function regexFindAll(re: string, s: string, n: number): string[] {
  const out: string[] = [];
  if (n === 0) return out;
  for (const m of s.matchAll(chargedRegex(re, s, true))) {
    chargeWalk(MATCH);
    out.push(m[0]);
    if (n > 0 && out.length >= n) break;
  }
  return out;
}

export const SPRIG: ReadonlyMap<string, FuncDef> = new Map(entries);
