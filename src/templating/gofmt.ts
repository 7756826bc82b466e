// Go's fmt.Sprintf for the verbs templates use: %v %s %d %f %F %e %E %g %G %q %x %X %o %b
// %t %c %U %T %%, flags + - # 0 space, width and precision (also `*`), and Go's error
// notation for bad verbs, missing and extra operands.

import { byteLen, formatExp, formatFloatV, formatV, goTypeName, SafeHTML } from './value.ts';
import { chargePerChar, chargeWalk, NODE, stringUnits } from './meter.ts';

interface Spec {
  plus: boolean;
  minus: boolean;
  sharp: boolean;
  zero: boolean;
  space: boolean;
  width: number; // -1 = none
  prec: number; // -1 = none
}

function runeCount(s: string): number {
  chargePerChar(s);
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function padTo(s: string, spec: Spec, numeric: boolean): string {
  if (spec.width < 0) return s;
  const n = runeCount(s);
  if (n >= spec.width) return s;
  const fill = spec.width - n;
  if (spec.minus) return s + ' '.repeat(fill);
  if (spec.zero) {
    if (numeric && (s[0] === '-' || s[0] === '+' || s[0] === ' ')) return s[0] + '0'.repeat(fill) + s.slice(1);
    return '0'.repeat(fill) + s;
  }
  return ' '.repeat(fill) + s;
}

function signed(neg: boolean, body: string, spec: Spec): string {
  if (neg) return '-' + body;
  if (spec.plus) return '+' + body;
  if (spec.space) return ' ' + body;
  return body;
}

function fmtInt(v: bigint, verb: string, spec: Spec): string {
  const neg = v < 0n;
  const a = neg ? -v : v;
  let body: string;
  switch (verb) {
    case 'x': body = a.toString(16); if (spec.sharp) body = '0x' + body; break;
    case 'X': body = a.toString(16).toUpperCase(); if (spec.sharp) body = '0X' + body; break;
    case 'o': body = a.toString(8); if (spec.sharp) body = '0' + body; break;
    case 'O': body = '0o' + a.toString(8); break;
    case 'b': body = a.toString(2); break;
    default: body = a.toString(10);
  }
  if (spec.prec >= 0 && body.length < spec.prec) body = '0'.repeat(spec.prec - body.length) + body;
  return padTo(signed(neg, body, { ...spec }), spec.prec >= 0 ? { ...spec, zero: false } : spec, true);
}

/** strconv.FormatFloat(f, 'g', prec, 64) with Go's exponent rules. */
function formatG(f: number, prec: number, upper: boolean, sharp: boolean): string {
  if (prec < 0) {
    const s = formatFloatV(f);
    return upper ? s.toUpperCase() : s;
  }
  if (prec === 0) prec = 1;
  const e = f.toExponential(prec - 1);
  const exp = Number(e.slice(e.indexOf('e') + 1));
  let s: string;
  if (exp < -4 || exp >= prec) {
    let mant = e.slice(0, e.indexOf('e'));
    if (!sharp && mant.includes('.')) mant = mant.replace(/\.?0+$/, '');
    s = formatExp(mant + e.slice(e.indexOf('e')));
  } else {
    s = f.toFixed(Math.max(0, prec - 1 - exp));
    if (!sharp && s.includes('.')) s = s.replace(/\.?0+$/, '');
  }
  return upper ? s.toUpperCase() : s;
}

function fmtFloat(f: number, verb: string, spec: Spec): string {
  if (!Number.isFinite(f)) {
    // Go keeps the sign of infinities ("+Inf") and drops it for NaN; never zero-padded.
    let s = Number.isNaN(f) ? 'NaN' : f > 0 ? '+Inf' : '-Inf';
    if (spec.space && !spec.plus && s[0] !== '-') s = ' ' + s.replace('+', '');
    else if (spec.plus && s === 'NaN') s = '+NaN';
    return padTo(s, { ...spec, zero: false }, true);
  }
  const neg = f < 0 || Object.is(f, -0);
  const a = Math.abs(f);
  let body: string;
  switch (verb) {
    case 'f': case 'F': body = a.toFixed(spec.prec < 0 ? 6 : Math.min(spec.prec, 100)); break;
    case 'e': case 'E': {
      body = formatExp(a.toExponential(spec.prec < 0 ? 6 : Math.min(spec.prec, 100)));
      if (verb === 'E') body = body.toUpperCase();
      break;
    }
    case 'g': case 'G': body = formatG(a, spec.prec, verb === 'G', spec.sharp); break;
    default: body = spec.prec < 0 ? formatFloatV(a) : formatG(a, spec.prec, false, spec.sharp);
  }
  return padTo(signed(neg, body, spec), spec, true);
}

/** strconv.Quote: Go double-quoted string with Go escapes. */
export function goQuote(s: string): string {
  chargePerChar(s);
  let out = '"';
  for (const ch of s) {
    const c = ch.codePointAt(0)!;
    switch (ch) {
      case '"': out += '\\"'; continue;
      case '\\': out += '\\\\'; continue;
      case '\n': out += '\\n'; continue;
      case '\r': out += '\\r'; continue;
      case '\t': out += '\\t'; continue;
      case '\x07': out += '\\a'; continue;
      case '\b': out += '\\b'; continue;
      case '\f': out += '\\f'; continue;
      case '\v': out += '\\v'; continue;
    }
    if (c < 0x20 || c === 0x7f) out += '\\x' + c.toString(16).padStart(2, '0');
    else if (c === 0xfffd && ch !== '\ufffd') out += '\\ufffd';
    else out += ch;
  }
  return out + '"';
}

function badVerb(verb: string, v: unknown): string {
  if (v === null || v === undefined) return `%!${verb}(<nil>)`;
  return `%!${verb}(${goTypeName(v)}=${formatV(v)})`;
}

function fmtString(s: string, verb: string, spec: Spec): string {
  switch (verb) {
    case 'v': case 's': {
      if (spec.prec >= 0) {
        chargePerChar(s);
        s = Array.from(s).slice(0, spec.prec).join('');
      }
      return padTo(s, spec, false);
    }
    case 'q': return padTo(goQuote(s), spec, false);
    case 'x': case 'X': {
      let hex = Buffer.from(s, 'utf8').toString('hex');
      if (verb === 'X') hex = hex.toUpperCase();
      if (spec.sharp) hex = (verb === 'X' ? '0X' : '0x') + hex;
      return padTo(hex, spec, false);
    }
    default: return badVerb(verb, s);
  }
}

function fmtOne(v: unknown, verb: string, spec: Spec): string {
  if (verb === 'T') return padTo(v === undefined || v === null ? '<nil>' : goTypeName(v), spec, false);
  if (v instanceof SafeHTML) return fmtString(v.html, verb, spec);
  switch (typeof v) {
    case 'string': return fmtString(v, verb, spec);
    case 'bigint':
      switch (verb) {
        case 'v': case 'd': case 'x': case 'X': case 'o': case 'O': case 'b': return fmtInt(v, verb, spec);
        case 'c': return padTo(String.fromCodePoint(Number(v)), spec, false);
        case 'q': return padTo("'" + String.fromCodePoint(Number(v)) + "'", spec, false);
        case 'U': return padTo('U+' + v.toString(16).toUpperCase().padStart(4, '0'), spec, false);
        case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': return badVerb(verb, v);
        default: return badVerb(verb, v);
      }
    case 'number':
      switch (verb) {
        case 'v': case 'e': case 'E': case 'f': case 'F': case 'g': case 'G': return fmtFloat(v, verb, spec);
        default: return badVerb(verb, v);
      }
    case 'boolean':
      return verb === 'v' || verb === 't' ? padTo(String(v), spec, false) : badVerb(verb, v);
  }
  if (v === null || v === undefined) return verb === 'v' ? padTo('<nil>', spec, false) : badVerb(verb, v);
  if (Array.isArray(v)) {
    chargeWalk(NODE * (1 + v.length));
    if ((verb === 'x' || verb === 'X') && v.every((e) => typeof e === 'string')) return fmtString(v.join(''), verb, spec);
    return '[' + v.map((e) => {
      if (typeof e === 'string') chargeWalk(stringUnits(e.length));
      return fmtOne(e, verb, spec);
    }).join(' ') + ']';
  }
  if (verb === 'v' || verb === 's') return padTo(formatV(v), spec, false);
  return badVerb(verb, v);
}

/** Go's fmt refuses widths and precisions beyond a million (fmt.tooLarge). */
const TOO_LARGE = 1e6;

function toIntArg(v: unknown): number | null {
  if (typeof v === 'bigint') {
    const n = Number(v);
    return n > TOO_LARGE || n < -TOO_LARGE ? null : n;
  }
  return null;
}

/** Go's parsenum: digits at i, or none (num -1) when there are none or the number is too large. */
function parseNum(format: string, i: number): { num: number; next: number } {
  const start = i;
  let num = 0;
  while (i < format.length && format[i] >= '0' && format[i] <= '9') {
    if (num > TOO_LARGE) return { num: -1, next: format.length };
    num = num * 10 + (format.charCodeAt(i) - 48);
    i++;
  }
  return { num: i > start ? num : -1, next: i };
}

/**
 * fmt.Sprintf with Go semantics. `checkLen` is given the length of the text built after each
 * operand, to fail (throw) as soon as it is too long.
 */
export function sprintf(format: string, args: unknown[], checkLen: (len: number) => void = () => {}): string {
  let out = '';
  let argi = 0;
  let i = 0;
  const n = format.length;
  while (i < n) {
    const pct = format.indexOf('%', i);
    if (pct < 0) {
      out += format.slice(i);
      break;
    }
    out += format.slice(i, pct);
    i = pct + 1;
    const spec: Spec = { plus: false, minus: false, sharp: false, zero: false, space: false, width: -1, prec: -1 };
    for (; i < n; i++) {
      const c = format[i];
      if (c === '+') spec.plus = true;
      else if (c === '-') spec.minus = true;
      else if (c === '#') spec.sharp = true;
      else if (c === '0') spec.zero = !spec.minus;
      else if (c === ' ') spec.space = true;
      else break;
    }
    if (format[i] === '*') {
      i++;
      const w = toIntArg(args[argi++]);
      if (w === null) out += '%!(BADWIDTH)';
      else {
        spec.width = Math.abs(w);
        if (w < 0) spec.minus = true;
      }
    } else {
      const w = parseNum(format, i);
      i = w.next;
      if (w.num >= 0) spec.width = w.num;
    }
    if (format[i] === '.') {
      i++;
      if (format[i] === '*') {
        i++;
        const p = toIntArg(args[argi++]);
        if (p === null || p < 0) out += '%!(BADPREC)';
        else spec.prec = p;
      } else {
        const p = parseNum(format, i);
        i = p.next;
        spec.prec = Math.max(0, p.num);
      }
    }
    if (i >= n) {
      out += '%!(NOVERB)';
      break;
    }
    const verb = String.fromCodePoint(format.codePointAt(i)!);
    i += verb.length;
    if (verb === '%') {
      out += '%';
      continue;
    }
    if (argi >= args.length) {
      out += `%!${verb}(MISSING)`;
      continue;
    }
    const arg = args[argi++];
    out += fmtOne(arg === undefined ? null : arg, verb, spec);
    checkLen(out.length);
  }
  checkLen(out.length);
  if (argi < args.length) {
    out += '%!(EXTRA ' + args.slice(argi).map((a) => (a === null || a === undefined ? '<nil>' : `${goTypeName(a)}=${formatV(a)}`)).join(', ') + ')';
  }
  return out;
}

export { byteLen };
