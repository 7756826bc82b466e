// Go html/template's contextual auto-escaper, applied to parsed trees before compilation:
// tracks the HTML/attribute/URL/JS/CSS context through template text, strips comments,
// escapes stray `<`, and attaches the escaper chain Go would add to each printing action.
// Templates called with {{template}} are escaped in the context of the call.

import { TemplateError } from './errors.ts';
import type { Escaper, EscapedNode } from './exec.ts';
import type { Arg, Cmd, Node, Pipe, Tree } from './parse.ts';
import { evalArgs, htmlEscapeString, queryEscape } from './funcs/builtins.ts';
import { formatV, SafeHTML } from './value.ts';
import { chargePerChar, chargeWalk, NODE, stringUnits } from './meter.ts';

const enum S {
  Text, Tag, AttrName, AfterName, BeforeValue, HTMLCmt, RCDATA, Attr, URL, Srcset,
  JS, JSDqStr, JSSqStr, JSTmplLit, JSRegexp, JSBlockCmt, JSLineCmt,
  CSS, CSSDqStr, CSSSqStr, CSSDqURL, CSSSqURL, CSSURL, CSSBlockCmt, CSSLineCmt, Dead,
}
const enum D { None, Dq, Sq, Space }
const enum U { None, PreQuery, QueryOrFrag, Unknown }
const enum J { Regexp, DivOp, Unknown }
const enum A { None, Script, ScriptType, Style, URL, Srcset }
const enum E { None, Script, Style, Textarea, Title }

interface Ctx {
  s: S;
  d: D;
  u: U;
  j: J;
  a: A;
  e: E;
}

const STATE_NAMES = ['stateText', 'stateTag', 'stateAttrName', 'stateAfterName', 'stateBeforeValue', 'stateHTMLCmt', 'stateRCDATA', 'stateAttr', 'stateURL', 'stateSrcset', 'stateJS', 'stateJSDqStr', 'stateJSSqStr', 'stateJSTmplLit', 'stateJSRegexp', 'stateJSBlockCmt', 'stateJSLineCmt', 'stateCSS', 'stateCSSDqStr', 'stateCSSSqStr', 'stateCSSDqURL', 'stateCSSSqURL', 'stateCSSURL', 'stateCSSBlockCmt', 'stateCSSLineCmt', 'stateDead'];

const ctx = (s: S, e: E = E.None, a: A = A.None, d: D = D.None, u: U = U.None, j: J = J.Regexp): Ctx => ({ s, d, u, j, a, e });
const TEXT: Ctx = ctx(S.Text);

function eq(a: Ctx, b: Ctx): boolean {
  return a.s === b.s && a.d === b.d && a.u === b.u && a.j === b.j && a.a === b.a && a.e === b.e;
}
function key(c: Ctx): string {
  return `${c.s}.${c.d}.${c.u}.${c.j}.${c.a}.${c.e}`;
}
function show(c: Ctx): string {
  return `{${STATE_NAMES[c.s]} delim=${c.d} urlPart=${c.u} jsCtx=${c.j} attr=${c.a} element=${c.e}}`;
}

function isComment(s: S): boolean {
  return s === S.HTMLCmt || s === S.JSBlockCmt || s === S.JSLineCmt || s === S.CSSBlockCmt || s === S.CSSLineCmt;
}

const ELEMENTS: Record<string, E> = { script: E.Script, style: E.Style, textarea: E.Textarea, title: E.Title };
const CONTENT_STATE: Record<E, S> = { [E.None]: S.Text, [E.Script]: S.JS, [E.Style]: S.CSS, [E.Textarea]: S.RCDATA, [E.Title]: S.RCDATA };
const END_TAGS: Record<E, string> = { [E.None]: '', [E.Script]: '</script', [E.Style]: '</style', [E.Textarea]: '</textarea', [E.Title]: '</title' };
const ATTR_START: Record<A, S> = { [A.None]: S.Attr, [A.Script]: S.JS, [A.ScriptType]: S.Attr, [A.Style]: S.CSS, [A.URL]: S.URL, [A.Srcset]: S.Srcset };

/** html/template attrTypeMap: attributes whose values are URLs, JS, CSS. */
const URL_ATTRS = new Set(['action', 'archive', 'background', 'cite', 'classid', 'codebase', 'data', 'formaction', 'href', 'icon', 'longdesc', 'manifest', 'poster', 'profile', 'src', 'usemap', 'xmlns']);

function attrKind(name: string): A {
  let n = name;
  if (n.startsWith('data-')) n = n.slice(5);
  else {
    const colon = n.indexOf(':');
    if (colon >= 0) {
      if (n.slice(0, colon) === 'xmlns') return A.URL;
      n = n.slice(colon + 1);
    }
  }
  if (n === 'style') return A.Style;
  if (n === 'srcset') return A.Srcset;
  if (URL_ATTRS.has(n)) return A.URL;
  if (n.startsWith('on')) return A.Script;
  if (n.includes('src') || n.includes('uri') || n.includes('url')) return A.URL;
  return A.None;
}

const isWS = (c: string | undefined) => c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r';

function eatWS(s: string, i: number): number {
  while (i < s.length && isWS(s[i])) i++;
  return i;
}

// ---- transitions: each consumes a prefix of s and returns the new context ----

type Tr = (c: Ctx, s: string) => [Ctx, number];

const tText: Tr = (c, s) => {
  let k = 0;
  for (;;) {
    const lt = s.indexOf('<', k);
    if (lt < 0 || lt + 1 === s.length) return [c, s.length];
    if (s.startsWith('<!--', lt)) return [ctx(S.HTMLCmt), lt + 4];
    let i = lt + 1;
    let end = false;
    if (s[i] === '/') {
      if (i + 1 === s.length) return [c, s.length];
      end = true;
      i++;
    }
    let j = i;
    while (j < s.length && (/[a-zA-Z]/.test(s[j]) || (j !== i && /[0-9]/.test(s[j])))) j++;
    if (j !== i) {
      const e = end ? E.None : ELEMENTS[s.slice(i, j).toLowerCase()] ?? E.None;
      return [ctx(S.Tag, e), j];
    }
    k = j;
  }
};

function eatAttrName(s: string, i: number): number {
  for (let j = i; j < s.length; j++) {
    const c = s[j];
    if (isWS(c) || c === '=' || c === '>') return j;
    if (c === "'" || c === '"' || c === '<') throw new TemplateError(`html/template: ${JSON.stringify(c)} in attribute name: ${JSON.stringify(s.slice(0, j + 1))}`);
  }
  return s.length;
}

const tTag: Tr = (c, s) => {
  const i = eatWS(s, 0);
  if (i === s.length) return [c, s.length];
  if (s[i] === '>') return [ctx(CONTENT_STATE[c.e], c.e), i + 1];
  const j = eatAttrName(s, i);
  if (i === j) throw new TemplateError(`html/template: expected space, attr name, or end of tag, but got ${JSON.stringify(s.slice(i))}`);
  const name = s.slice(i, j).toLowerCase();
  const a = c.e === E.Script && name === 'type' ? A.ScriptType : attrKind(name);
  return [ctx(j === s.length ? S.AttrName : S.AfterName, c.e, a), j];
};

const tAttrName: Tr = (c, s) => {
  const i = eatAttrName(s, 0);
  return i !== s.length ? [{ ...c, s: S.AfterName }, i] : [c, i];
};

const tAfterName: Tr = (c, s) => {
  const i = eatWS(s, 0);
  if (i === s.length) return [c, s.length];
  if (s[i] !== '=') return [{ ...c, s: S.Tag }, i];
  return [{ ...c, s: S.BeforeValue }, i + 1];
};

const tBeforeValue: Tr = (c, s) => {
  let i = eatWS(s, 0);
  if (i === s.length) return [c, s.length];
  let d = D.Space;
  if (s[i] === "'") { d = D.Sq; i++; }
  else if (s[i] === '"') { d = D.Dq; i++; }
  return [{ ...c, s: ATTR_START[c.a], d }, i];
};

const tHTMLCmt: Tr = (c, s) => {
  const i = s.indexOf('-->');
  return i >= 0 ? [ctx(S.Text), i + 3] : [c, s.length];
};

const tWhole: Tr = (c, s) => [c, s.length];

const tURL: Tr = (c, s) => {
  if (/[#?]/.test(s)) return [{ ...c, u: U.QueryOrFrag }, s.length];
  if (eatWS(s, 0) !== s.length && c.u === U.None) return [{ ...c, u: U.PreQuery }, s.length];
  return [c, s.length];
};

const JS_KEYWORDS_BEFORE_REGEXP = /(?:^|[^\w$])(?:break|case|continue|delete|do|else|finally|in|instanceof|return|throw|try|typeof|void)$/;

/** Go's nextJSCtx: does a `/` after this JS text start a regexp or a division? */
function nextJSCtx(s: string, prev: J): J {
  const t = s.replace(/[\t\n\f\r \u2028\u2029]+$/, '');
  if (t === '') return prev;
  const c = t[t.length - 1];
  if (c === '+' || c === '-') {
    let n = 1;
    while (n < t.length && t[t.length - 1 - n] === c) n++;
    return n % 2 === 1 ? J.Regexp : J.DivOp;
  }
  if (c === '.') return t.length !== 1 && /[0-9]/.test(t[t.length - 2]) ? J.DivOp : J.Regexp;
  if (',<>=*%&|^!~?:;({['.includes(c)) return J.Regexp;
  if (JS_KEYWORDS_BEFORE_REGEXP.test(t)) return J.Regexp;
  return J.DivOp;
}

const tJS: Tr = (c, s) => {
  const m = /["'`/]/.exec(s);
  if (!m) return [{ ...c, j: nextJSCtx(s, c.j) }, s.length];
  const i = m.index;
  const j = nextJSCtx(s.slice(0, i), c.j);
  switch (s[i]) {
    case '"': return [{ ...c, s: S.JSDqStr, j: J.Regexp }, i + 1];
    case "'": return [{ ...c, s: S.JSSqStr, j: J.Regexp }, i + 1];
    case '`': return [{ ...c, s: S.JSTmplLit, j: J.Regexp }, i + 1];
    default:
      if (s[i + 1] === '/') return [{ ...c, s: S.JSLineCmt, j }, i + 2];
      if (s[i + 1] === '*') return [{ ...c, s: S.JSBlockCmt, j }, i + 2];
      if (j === J.Regexp) return [{ ...c, s: S.JSRegexp, j }, i + 1];
      if (j === J.DivOp) return [{ ...c, j: J.Regexp }, i + 1];
      throw new TemplateError(`html/template: '/' could start a division or regexp: ${JSON.stringify(s.slice(i))}`);
  }
};

const tJSDelimited: Tr = (c, s) => {
  const end = c.s === S.JSDqStr ? '"' : c.s === S.JSSqStr ? "'" : c.s === S.JSTmplLit ? '`' : '/';
  let inCharset = false;
  for (let i = 0; i < s.length; i++) {
    const ch = s[i];
    if (ch === '\\') { i++; continue; }
    if (c.s === S.JSRegexp) {
      if (ch === '[') inCharset = true;
      else if (ch === ']') inCharset = false;
      else if (ch === '/' && !inCharset) return [{ ...c, s: S.JS, j: J.DivOp }, i + 1];
      continue;
    }
    if (ch === end) return [{ ...c, s: S.JS, j: J.DivOp }, i + 1];
  }
  return [c, s.length];
};

const tBlockCmt: Tr = (c, s) => {
  const i = s.indexOf('*/');
  if (i < 0) return [c, s.length];
  return [{ ...c, s: c.s === S.JSBlockCmt ? S.JS : S.CSS }, i + 2];
};

const tLineCmt: Tr = (c, s) => {
  const i = s.search(/[\n\r\u2028\u2029]/);
  if (i < 0) return [c, s.length];
  return [{ ...c, s: c.s === S.JSLineCmt ? S.JS : S.CSS }, i];
};

const tCSS: Tr = (c, s) => {
  let k = 0;
  for (;;) {
    const m = /[("'/]/.exec(s.slice(k));
    if (!m) return [c, s.length];
    const i = k + m.index;
    switch (s[i]) {
      case '(': {
        const before = s.slice(0, i).replace(/[\t\n\f\r ]+$/, '');
        if (/(?:^|[^-\w])url$/i.test(before)) {
          const j = eatWS(s, i + 1);
          if (s[j] === '"') return [{ ...c, s: S.CSSDqURL }, j + 1];
          if (s[j] === "'") return [{ ...c, s: S.CSSSqURL }, j + 1];
          return [{ ...c, s: S.CSSURL }, j];
        }
        break;
      }
      case '/':
        if (s[i + 1] === '/') return [{ ...c, s: S.CSSLineCmt }, i + 2];
        if (s[i + 1] === '*') return [{ ...c, s: S.CSSBlockCmt }, i + 2];
        break;
      case '"': return [{ ...c, s: S.CSSDqStr }, i + 1];
      case "'": return [{ ...c, s: S.CSSSqStr }, i + 1];
    }
    k = i + 1;
  }
};

const tCSSStr: Tr = (c, s) => {
  const specials = c.s === S.CSSDqStr || c.s === S.CSSDqURL ? '\\"' : c.s === S.CSSSqStr || c.s === S.CSSSqURL ? "\\'" : '\\\t\n\f\r )';
  let k = 0;
  for (;;) {
    let i = -1;
    for (let x = k; x < s.length; x++) if (specials.includes(s[x])) { i = x; break; }
    if (i < 0) {
      const [c1] = tURL(c, decodeCSS(s.slice(k)));
      return [c1, s.length];
    }
    if (s[i] === '\\') {
      i++;
      if (i === s.length) throw new TemplateError(`html/template: unfinished escape sequence in CSS string: ${JSON.stringify(s)}`);
    } else {
      return [{ ...c, s: S.CSS, u: U.None }, i + 1];
    }
    c = tURL(c, decodeCSS(s.slice(0, i + 1)))[0];
    k = i + 1;
  }
};

function decodeCSS(s: string): string {
  return s.replace(/\\([0-9a-fA-F]{1,6})[ \t\n\f\r]?|\\(.)/g, (_m, hex?: string, ch?: string) => (hex ? String.fromCodePoint(parseInt(hex, 16)) : ch!));
}

const TRANSITIONS: Record<S, Tr> = {
  [S.Text]: tText, [S.Tag]: tTag, [S.AttrName]: tAttrName, [S.AfterName]: tAfterName, [S.BeforeValue]: tBeforeValue,
  [S.HTMLCmt]: tHTMLCmt, [S.RCDATA]: tWhole, [S.Attr]: tWhole, [S.URL]: tURL, [S.Srcset]: tWhole,
  [S.JS]: tJS, [S.JSDqStr]: tJSDelimited, [S.JSSqStr]: tJSDelimited, [S.JSTmplLit]: tJSDelimited, [S.JSRegexp]: tJSDelimited,
  [S.JSBlockCmt]: tBlockCmt, [S.JSLineCmt]: tLineCmt, [S.CSS]: tCSS, [S.CSSDqStr]: tCSSStr, [S.CSSSqStr]: tCSSStr,
  [S.CSSDqURL]: tCSSStr, [S.CSSSqURL]: tCSSStr, [S.CSSURL]: tCSSStr, [S.CSSBlockCmt]: tBlockCmt, [S.CSSLineCmt]: tLineCmt,
  [S.Dead]: tWhole,
};

function decodeEntities(s: string): string {
  return s.replace(/&(#[0-9]+|#[xX][0-9a-fA-F]+|amp|lt|gt|quot|apos|nbsp);?/g, (m, e: string) => {
    if (e[0] === '#') return String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1)));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' } as Record<string, string>)[e] ?? m;
  });
}

function indexTagEnd(s: string, tag: string): number {
  const lower = s.toLowerCase();
  let from = 0;
  for (;;) {
    const i = lower.indexOf(tag, from);
    if (i < 0) return -1;
    const after = lower[i + tag.length];
    if (after === undefined || after === '>' || after === '/' || isWS(after)) return i;
    from = i + tag.length;
  }
}

/** Go's contextAfterText: handles attribute value ends and special element ends. */
function contextAfterText(c: Ctx, s: string): [Ctx, number] {
  if (c.d === D.None) {
    if (c.e !== E.None) {
      const i = indexTagEnd(s, END_TAGS[c.e]);
      if (i === 0) return [TEXT, 0];
      if (i > 0) return TRANSITIONS[c.s](c, s.slice(0, i));
    }
    return TRANSITIONS[c.s](c, s);
  }
  const ends = c.d === D.Dq ? '"' : c.d === D.Sq ? "'" : '\t\n\f\r >';
  let i = -1;
  for (let x = 0; x < s.length; x++) if (ends.includes(s[x])) { i = x; break; }
  if (i < 0) i = s.length;
  if (c.d === D.Space) {
    const bad = /["'<=`]/.exec(s.slice(0, i));
    if (bad) throw new TemplateError(`html/template: ${JSON.stringify(bad[0])} in unquoted attr: ${JSON.stringify(s.slice(0, i))}`);
  }
  if (i === s.length) {
    let u = decodeEntities(s);
    while (u.length) {
      const [c1, i1] = TRANSITIONS[c.s](c, u);
      c = c1;
      u = u.slice(i1);
    }
    return [c, s.length];
  }
  let e = c.e;
  if (c.s === S.Attr && c.e === E.Script && c.a === A.ScriptType && !isJSType(s.slice(0, i))) e = E.None;
  return [ctx(S.Tag, e), c.d !== D.Space ? i + 1 : i];
}

function isJSType(mime: string): boolean {
  const m = mime.split(';')[0].trim().toLowerCase();
  return ['', 'application/ecmascript', 'application/javascript', 'application/json', 'application/ld+json', 'application/x-ecmascript',
    'application/x-javascript', 'module', 'text/ecmascript', 'text/javascript', 'text/javascript1.0', 'text/javascript1.1',
    'text/javascript1.2', 'text/javascript1.3', 'text/javascript1.4', 'text/javascript1.5', 'text/jscript', 'text/livescript',
    'text/x-ecmascript', 'text/x-javascript'].includes(m);
}

/** Escapes template text: strips comments, turns stray `<` into `&lt;`; returns the end context. */
function escapeText(c: Ctx, s: string): [Ctx, string] {
  let out = '';
  let written = 0;
  let i = 0;
  while (i < s.length) {
    const [c1, n] = contextAfterText(c, s.slice(i));
    const i1 = i + n;
    if (c.s === S.Text || c.s === S.RCDATA) {
      let end = i1;
      if (c1.s !== c.s) {
        for (let j = end - 1; j >= i; j--) if (s[j] === '<') { end = j; break; }
      }
      for (let j = i; j < end; j++) {
        if (s[j] === '<' && !s.slice(j, j + 9).toUpperCase().startsWith('<!DOCTYPE')) {
          out += s.slice(written, j) + '&lt;';
          written = j + 1;
        }
      }
    } else if (isComment(c.s) && c.d === D.None) {
      if (c.s === S.JSBlockCmt) out += s.slice(i, i1).includes('\n') ? '\n' : ' ';
      written = i1;
    }
    if (c.s !== c1.s && isComment(c1.s) && c1.d === D.None) {
      const cs = i1 - (c1.s === S.HTMLCmt ? 4 : 2);
      out += s.slice(written, cs);
      written = i1;
    }
    if (i === i1 && eq(c, c1)) throw new TemplateError(`html/template: infinite loop from ${show(c)} to ${show(c1)} on ${JSON.stringify(s.slice(i))}`);
    c = c1;
    i = i1;
  }
  if (isComment(c.s) && c.d === D.None) written = s.length;
  return [c, out + s.slice(written)];
}

// ---- escaper functions (Go's _html_template_* funcs) ----

const FAILSAFE = 'ZgotmplZ';

/** Go html/template stringify: untyped nil prints nothing; trusted HTML gives its markup. */
function stringify(v: unknown): string {
  if (typeof v === 'string') return v;
  if (v instanceof SafeHTML) return v.html;
  if (v === undefined || v === null) return '';
  return formatV(v);
}

/**
 * Replaces the characters of class `cls` by their `table` entries. Most values contain none,
 * so a non-global test (no lastIndex bookkeeping) returns them unchanged first.
 */
function charReplacer(cls: RegExp, table: Record<string, string>): (s: string) => string {
  const all = new RegExp(cls.source, 'g');
  const sub = (ch: string) => table[ch];
  return (s) => (cls.test(s) ? s.replace(all, sub) : s);
}

const HTML_TABLE: Record<string, string> = { '\0': '\uFFFD', '"': '&#34;', '&': '&amp;', "'": '&#39;', '+': '&#43;', '<': '&lt;', '>': '&gt;' };
const escapeHTML = charReplacer(/[\0"&'+<>]/, HTML_TABLE);
const normalizeHTML = charReplacer(/[\0"'+<>]/, HTML_TABLE);
const NOSPACE_TABLE: Record<string, string> = {
  ...HTML_TABLE, '\0': '&#xfffd;', '\t': '&#9;', '\n': '&#10;', '\v': '&#11;', '\f': '&#12;', '\r': '&#13;', ' ': '&#32;', '=': '&#61;', '`': '&#96;',
};
const escapeNospace = charReplacer(/[\0\t\n\v\f\r "&'+<=>`]/, NOSPACE_TABLE);
const normalizeNospace = charReplacer(/[\0\t\n\v\f\r "'+<=>`]/, NOSPACE_TABLE);

function stripTags(html: string): string {
  chargePerChar(html);
  // Text content of an HTML fragment: tags and comments removed, the rest kept.
  let out = '';
  let c: Ctx = TEXT;
  let i = 0;
  while (i < html.length) {
    // Element content (script, style) counts as text here, as in Go.
    if (c.d === D.None && c.e !== E.None && c.s !== S.Tag && c.s !== S.AttrName && c.s !== S.AfterName && c.s !== S.BeforeValue && c.s !== S.Attr) {
      c = { ...c, s: S.RCDATA };
    }
    const [c1, n] = contextAfterText(c, html.slice(i));
    if (c.s === S.Text || c.s === S.RCDATA) {
      let end = i + n;
      if (c1.s !== c.s) for (let j = end - 1; j >= i; j--) if (html[j] === '<') { end = j; break; }
      out += html.slice(i, end);
    }
    if (n === 0 && eq(c, c1)) break;
    c = c1;
    i += n;
  }
  return out;
}

export const htmlEscaper: Escaper = (v) => (v instanceof SafeHTML ? v.html : escapeHTML(stringify(v)));
const rcdataEscaper: Escaper = (v) => (v instanceof SafeHTML ? normalizeHTML(v.html) : escapeHTML(stringify(v)));
const attrEscaper: Escaper = (v) => (v instanceof SafeHTML ? normalizeHTML(stripTags(v.html)) : escapeHTML(stringify(v)));
const nospaceEscaper: Escaper = (v) => {
  const s = stringify(v);
  if (s === '') return FAILSAFE;
  return v instanceof SafeHTML ? normalizeNospace(stripTags(s)) : escapeNospace(s);
};
const commentEscaper: Escaper = () => '';
const htmlNameFilter: Escaper = (v) => {
  let s = stringify(v);
  if (s === '') return FAILSAFE;
  s = s.toLowerCase();
  if (attrKind(s) !== A.None || !/^[a-z0-9]+$/.test(s)) return FAILSAFE;
  return s;
};

/** A URL with scheme http, https or mailto, or without one (no `:` before the first `/`). */
const SAFE_URL = /^(?:(?:https?|mailto):|[^:/]*(?:\/|$))/i;

function isSafeURL(s: string): boolean {
  return SAFE_URL.test(s);
}

const urlFilter: Escaper = (v) => {
  const s = stringify(v);
  return isSafeURL(s) ? s : '#' + FAILSAFE;
};

// Byte classes for URL processing: 1 = unreserved (always kept), 2 = reserved (kept when normalising).
const URL_CLASS = new Uint8Array(128);
for (const c of 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~') URL_CLASS[c.charCodeAt(0)] = 1;
for (const c of "!#$&*+,/:;=?@[]") URL_CLASS[c.charCodeAt(0)] = 2;
// Strings made only of kept bytes (`%` aside: kept or not depends on what follows) come out
// unchanged; one native regex test settles the common case.
const URL_KEPT_NORM = /^[A-Za-z0-9\-._~!#$&*+,/:;=?@[\]]*$/;
const URL_KEPT = /^[A-Za-z0-9\-._~]*$/;

function isHex(b: number): boolean {
  return (b >= 48 && b <= 57) || (b >= 65 && b <= 70) || (b >= 97 && b <= 102);
}

/** Go's urlProcessor: percent-encodes bytes outside the kept set (lower-case hex). */
function keepURLByte(b: number, next1: number, next2: number, norm: boolean): boolean {
  if (b >= 128) return false;
  const k = URL_CLASS[b];
  if (k === 1 || (k === 2 && norm)) return true;
  return norm && b === 37 && isHex(next1) && isHex(next2);
}

function urlProcess(s: string, norm: boolean): string {
  if ((norm ? URL_KEPT_NORM : URL_KEPT).test(s)) return s;
  let i = 0;
  const n = s.length;
  while (i < n && keepURLByte(s.charCodeAt(i), s.charCodeAt(i + 1), s.charCodeAt(i + 2), norm)) i++;
  if (i === n) return s;
  chargePerChar(s);
  const bytes = Buffer.from(s, 'utf8');
  let out = s.slice(0, i);
  for (let j = i; j < bytes.length; j++) {
    const b = bytes[j];
    if (keepURLByte(b, bytes[j + 1] ?? 0, bytes[j + 2] ?? 0, norm) && !(b === 37 && j + 2 >= bytes.length)) out += String.fromCharCode(b);
    else out += '%' + (b < 16 ? '0' : '') + b.toString(16);
  }
  return out;
}
const urlNormalizer: Escaper = (v) => urlProcess(stringify(v), true);
const urlEscaper: Escaper = (v) => urlProcess(stringify(v), false);

// The chain of a whole quoted URL attribute value (href="{{ . }}"), the most common URL
// action: a safe string made only of bytes that neither the normaliser nor the attribute
// escaper changes (no `%`, `&`, `+`) is returned as is after one test of each kind.
const URL_ATTR_KEPT = /^[A-Za-z0-9\-._~!#$*,/:;=?@[\]]*$/;
const urlAttrEscaper: Escaper = (v) =>
  typeof v === 'string' && URL_ATTR_KEPT.test(v) && isSafeURL(v) ? v : attrEscaper(urlNormalizer(urlFilter(v)));

const JS_STR_TABLE: Record<string, string> = {
  '\0': '\\u0000', '\t': '\\t', '\n': '\\n', '\v': '\\u000b', '\f': '\\f', '\r': '\\r', '"': '\\u0022', '`': '\\u0060', '&': '\\u0026',
  "'": '\\u0027', '+': '\\u002b', '/': '\\/', '<': '\\u003c', '>': '\\u003e', '\\': '\\\\', '\u2028': '\\u2028', '\u2029': '\\u2029',
};
const escapeJSStr = charReplacer(/[\0\t\n\v\f\r"`&'+/<>\\\u2028\u2029]/, JS_STR_TABLE);
const escapeJSRegexp = charReplacer(/[\0\t\n\v\f\r"`&'+/<>\\\u2028\u2029$()*\-.?[\]^{|}]/, {
  ...JS_STR_TABLE, '$': '\\$', '(': '\\(', ')': '\\)', '*': '\\*', '-': '\\-', '.': '\\.', '?': '\\?', '[': '\\[', ']': '\\]', '^': '\\^', '{': '\\{', '|': '\\|', '}': '\\}',
});
const escapeJSTmpl = charReplacer(/[\0\t\n\v\f\r"`&'+/<>\\\u2028\u2029${}]/, { ...JS_STR_TABLE, '$': '\\u0024', '{': '\\u007b', '}': '\\u007d' });

const jsStrEscaper: Escaper = (v) => escapeJSStr(stringify(v));
const jsRegexpEscaper: Escaper = (v) => {
  const s = escapeJSRegexp(stringify(v));
  return s === '' ? '(?:)' : s;
};
const jsTmplLitEscaper: Escaper = (v) => escapeJSTmpl(stringify(v));

function jsonForJS(v: unknown): string {
  // A copy JSON.stringify can write, charged to the render per node and string (meter.ts).
  const plain = (x: unknown): unknown => {
    chargeWalk(2 * NODE);
    if (x === undefined) return null;
    // Strings are written escaped: a unit per character (what one full of `<` costs).
    if (typeof x === 'string') {
      chargePerChar(x);
      return x;
    }
    if (typeof x === 'bigint') return Number(x);
    if (x instanceof SafeHTML) {
      chargePerChar(x.html);
      return x.html;
    }
    if (Array.isArray(x)) return x.map(plain);
    if (x && typeof x === 'object') {
      const o: Record<string, unknown> = {};
      const keys = Object.keys(x);
      chargeWalk(keys.length * Math.ceil(Math.log2(keys.length + 1)));
      for (const k of keys.sort()) {
        chargeWalk(stringUnits(k.length));
        if (typeof (x as Record<string, unknown>)[k] !== 'function') o[k] = plain((x as Record<string, unknown>)[k]);
      }
      return o;
    }
    return x;
  };
  return (JSON.stringify(plain(v)) ?? 'null').replace(/[<>&\u2028\u2029]/g, (c) => '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0'));
}
const jsValEscaper: Escaper = (v) => {
  const b = jsonForJS(v === undefined ? null : v);
  const pad = /[\w$]/.test(b[0]) || /[\w$]/.test(b[b.length - 1]);
  return pad ? ` ${b} ` : b;
};

const cssValueFilter: Escaper = (v) => {
  const s = stringify(v);
  chargePerChar(s);
  const b = decodeCSS(s);
  let id = '';
  for (let i = 0; i < b.length; i++) {
    const c = b[i];
    if ('\0"\'()/;@[\\]`{}<>'.includes(c)) return FAILSAFE;
    if (c === '-' && i !== 0 && b[i - 1] === '-') return FAILSAFE;
    if (/[-\w]/.test(c)) id += c;
  }
  id = id.toLowerCase();
  if (id.includes('expression') || id.includes('mozbinding')) return FAILSAFE;
  return b;
};
const CSS_TABLE: Record<string, string> = {
  '\0': '\\0', '\t': '\\9', '\n': '\\a', '\f': '\\c', '\r': '\\d', '"': '\\22', '&': '\\26', "'": '\\27', '(': '\\28', ')': '\\29',
  '+': '\\2b', '/': '\\2f', ':': '\\3a', ';': '\\3b', '<': '\\3c', '>': '\\3e', '\\': '\\\\', '{': '\\7b', '}': '\\7d',
};
const cssEscaper: Escaper = (v) => {
  const s = stringify(v);
  chargePerChar(s);
  let out = '';
  for (let i = 0; i < s.length; i++) {
    const r = CSS_TABLE[s[i]];
    if (!r) { out += s[i]; continue; }
    out += r;
    if (r !== '\\\\' && i + 1 < s.length && /[0-9a-fA-F \t\n\f\r]/.test(s[i + 1])) out += ' ';
  }
  return out;
};
const srcsetEscaper: Escaper = (v) => {
  const s = stringify(v);
  return s.split(',').map((part) => {
    const m = /^(\s*)(\S*)(.*)$/s.exec(part)!;
    const url = isSafeURL(m[2]) ? urlProcess(m[2], true) : '#' + FAILSAFE;
    const metadata = /^[\s0-9.xw]*$/.test(m[3]) ? m[3] : FAILSAFE;
    return m[1] + url + metadata;
  }).join(',');
};

// ---- tree walk ----

function nudge(c: Ctx): Ctx {
  switch (c.s) {
    case S.Tag: return { ...c, s: S.AttrName };
    case S.BeforeValue: return { ...c, s: ATTR_START[c.a], d: D.Space, a: A.None };
    case S.AfterName: return { ...c, s: S.AttrName, a: A.None };
  }
  return c;
}

function join(a: Ctx, b: Ctx, what: string): Ctx {
  if (a.s === S.Dead) return b;
  if (b.s === S.Dead) return a;
  if (eq(a, b)) return a;
  if (eq({ ...a, u: b.u }, b)) return { ...a, u: U.Unknown };
  if (eq({ ...a, j: b.j }, b)) return { ...a, j: J.Unknown };
  const na = nudge(a), nb = nudge(b);
  if (!(eq(na, a) && eq(nb, b))) {
    try {
      return join(na, nb, what);
    } catch {
      // fall through to the error below
    }
  }
  throw new TemplateError(`html/template: {{${what}}} branches end in different contexts: ${show(a)}, ${show(b)}`);
}

export interface EscapedSet {
  /** Escaped trees to compile, by (possibly derived) name. */
  trees: Map<string, { tree: Tree; list: EscapedNode[] }>;
}

class Escaper_ {
  readonly out = new Map<string, { tree: Tree; list: EscapedNode[] }>();
  private readonly memo = new Map<string, { name: string; end: Ctx }>();

  constructor(private readonly source: ReadonlyMap<string, Tree>) {}

  /** Escapes template `name` starting in context c; returns its derived name and end context. */
  template(name: string, c: Ctx, where: string): { name: string; end: Ctx } {
    const k = name + '\u0000' + key(c);
    const hit = this.memo.get(k);
    if (hit) return hit;
    const tree = this.source.get(name);
    if (!tree) throw new TemplateError(`html/template:${where}: no such template ${JSON.stringify(name)}`);
    const derived = eq(c, TEXT) ? name : `${name}$htmltemplate_${key(c)}`;
    const entry = { name: derived, end: c };
    this.memo.set(k, entry);
    let [list, end] = this.list(tree, tree.list, c);
    if (!eq(end, entry.end)) {
      // Recursive templates: retry assuming the computed end context.
      entry.end = end;
      [list, end] = this.list(tree, tree.list, c);
      if (!eq(end, entry.end)) throw new TemplateError(`html/template:${name}: cannot compute output context for template ${name}`);
    }
    this.out.set(derived, { tree, list });
    return entry;
  }

  private list(tree: Tree, nodes: Node[], c: Ctx): [EscapedNode[], Ctx] {
    const out: EscapedNode[] = [];
    for (const n of nodes) {
      const [n2, c2] = this.node(tree, n, c);
      out.push(n2);
      c = c2;
    }
    return [out, c];
  }

  private node(tree: Tree, n: Node, c: Ctx): [EscapedNode, Ctx] {
    switch (n.t) {
      case 'text': {
        const [c1, text] = escapeText(c, n.text);
        return [{ ...n, text }, c1];
      }
      case 'action': {
        if (n.pipe.decl.length) return [n, c];
        const [chain, c1] = this.escapers(c, tree, n.pos);
        const [pipe, merged] = mergePredefined(n.pipe, chain, c1, tree);
        return [{ ...n, pipe, esc: compose(merged), trustedAsIs: merged.length === 1 && merged[0] === htmlEscaper }, c1];
      }
      case 'if':
      case 'with':
      case 'range': {
        const [list, c0] = this.list(tree, n.list, c);
        let end = c0;
        if (n.t === 'range' && !eq(c0, c) && c0.s !== S.Dead) {
          const [, c1] = this.list(tree, n.list, c0);
          try {
            end = join(c0, c1, 'range');
          } catch (e) {
            throw new TemplateError(`${(e as Error).message} (on range loop re-entry)`);
          }
        }
        const [elseList, c2] = n.elseList ? this.list(tree, n.elseList, c) : [null, c];
        return [{ ...n, list, elseList }, join(end, c2, n.t)];
      }
      case 'break':
      case 'continue':
        return [n, ctx(S.Dead)];
      case 'template': {
        const r = this.template(n.name, c, tree.name);
        return [{ ...n, name: r.name }, r.end];
      }
    }
  }

  private escapers(c0: Ctx, tree: Tree, pos: number): [Escaper[], Ctx] {
    let c = nudge(c0);
    const s: Escaper[] = [];
    switch (c.s) {
      case S.URL: case S.CSSDqStr: case S.CSSSqStr: case S.CSSDqURL: case S.CSSSqURL: case S.CSSURL:
        switch (c.u) {
          case U.None:
          case U.PreQuery:
            if (c.u === U.None) s.push(urlFilter);
            s.push(c.s === S.CSSDqStr || c.s === S.CSSSqStr ? cssEscaper : urlNormalizer);
            break;
          case U.QueryOrFrag:
            s.push(urlEscaper);
            break;
          default:
            throw new TemplateError(`html/template:${tree.name}: {{${tree.source.slice(pos).split('}}')[0].trim()}}} appears in an ambiguous context within a URL`);
        }
        break;
      case S.JS:
        s.push(jsValEscaper);
        c = { ...c, j: J.DivOp };
        break;
      case S.JSDqStr: case S.JSSqStr: s.push(jsStrEscaper); break;
      case S.JSTmplLit: s.push(jsTmplLitEscaper); break;
      case S.JSRegexp: s.push(jsRegexpEscaper); break;
      case S.CSS: s.push(cssValueFilter); break;
      case S.Text: s.push(htmlEscaper); break;
      case S.RCDATA: s.push(rcdataEscaper); break;
      case S.Attr: break;
      case S.AttrName: case S.Tag:
        c = { ...c, s: S.AttrName };
        s.push(htmlNameFilter);
        break;
      case S.Srcset: s.push(srcsetEscaper); break;
      default:
        if (isComment(c.s)) s.push(commentEscaper);
        else throw new TemplateError(`html/template:${tree.name}: action in unsupported context ${show(c)}`);
    }
    if (c.d === D.Space) s.push(nospaceEscaper);
    else if (c.d !== D.None && !s.includes(commentEscaper)) s.push(attrEscaper);
    return [s, c];
  }
}

/** Go's predefined escapers, as they run in an escaper chain (one argument: the pipeline's value). */
const PREDEFINED: Record<string, { fn: Escaper; equivalent: Escaper[] }> = {
  html: { fn: (v) => htmlEscapeString(evalArgs([v])), equivalent: [htmlEscaper, attrEscaper, rcdataEscaper] },
  urlquery: { fn: (v) => queryEscape(evalArgs([v])), equivalent: [urlEscaper, urlNormalizer] },
};

/**
 * A pipeline ending in `html` or `urlquery` (Go's ensurePipelineContains): that escaper
 * takes the place of the contextual escapers it is equivalent to, so `{{ html "<a>" }}` is
 * escaped once. `{{ html x y }}` becomes `{{ print x y }}` feeding it (Go's _eval_args_ is
 * fmt.Sprint too). Anywhere but last in a pipeline they are refused, as in Go.
 */
function mergePredefined(pipe: Pipe, chain: Escaper[], c: Ctx, tree: Tree): [Pipe, Escaper[]] {
  const identOf = (cmd: Cmd) => (cmd.args[0]?.t === 'ident' ? cmd.args[0].name : '');
  pipe.cmds.forEach((cmd, i) => {
    const name = identOf(cmd);
    if (!(name in PREDEFINED)) return;
    if (i < pipe.cmds.length - 1 || (name === 'html' && c.s === S.Attr && c.d === D.Space)) {
      throw new TemplateError(`html/template:${tree.name}: predefined escaper ${JSON.stringify(name)} disallowed in template`);
    }
  });
  const last = pipe.cmds[pipe.cmds.length - 1];
  const predefined = last && PREDEFINED[identOf(last)];
  if (!predefined || (pipe.cmds.length === 1 && last.args.length === 1) || !chain.some((e) => predefined.equivalent.includes(e))) return [pipe, chain];
  const merged = chain.map((e) => (predefined.equivalent.includes(e) ? predefined.fn : e));
  if (pipe.cmds.length === 1 && last.args.length > 1) {
    const print: Arg = { t: 'ident', pos: last.args[0].pos, end: last.args[0].end, name: 'print' };
    return [{ ...pipe, cmds: [{ ...last, args: [print, ...last.args.slice(1)] }] }, merged];
  }
  // A piped value reaches the escaper; arguments of a trailing `html` are dropped, as in Go.
  return [{ ...pipe, cmds: pipe.cmds.slice(0, -1) }, merged];
}

/** One function applying the chain in order (built once, not looped over per render). */
function compose(chain: Escaper[]): Escaper {
  if (chain.length === 3 && chain[0] === urlFilter && chain[1] === urlNormalizer && chain[2] === attrEscaper) return urlAttrEscaper;
  switch (chain.length) {
    case 0: return stringify;
    case 1: return chain[0];
    case 2: {
      const [f, g] = chain;
      return (v) => g(f(v));
    }
    default: {
      const [f, ...rest] = chain;
      const g = compose(rest);
      return (v) => g(f(v));
    }
  }
}

/** Escapes template `root` of the set and everything it calls; throws on escaping errors. */
export function escapeSet(trees: ReadonlyMap<string, Tree>, root: string): EscapedSet {
  const e = new Escaper_(trees);
  const r = e.template(root, TEXT, root);
  if (r.end.s !== S.Text && r.end.s !== S.Dead) {
    throw new TemplateError(`html/template:${root}: ends in a non-text context: ${show(r.end)}`);
  }
  return { trees: e.out };
}
