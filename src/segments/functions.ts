import type { Database } from 'better-sqlite3';
import { runsInLinearTime } from '../linear-regexp.ts';
import { parseInteger, parseNumeric } from './values.ts';

// The SQL functions a translated segment may call, registered on each connection that runs
// segments. Users cannot name them: the translator emits them for operators SQLite lacks.

/** Names of the registered functions, as the translator emits them. */
export const FN = {
  regexp: 'segment_regexp',
  like: 'segment_like',
  jsonContains: 'segment_json_contains',
  toInteger: 'segment_to_int',
  toNumeric: 'segment_to_numeric',
  lower: 'segment_lower',
  upper: 'segment_upper',
  checkpoint: 'segment_checkpoint',
} as const;

interface Matcher {
  test(text: string): boolean;
}

const CACHE_LIMIT = 256;
const compiled = new Map<string, Matcher>();

function cached(key: string, build: () => Matcher): Matcher {
  let m = compiled.get(key);
  if (!m) {
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    m = build();
    compiled.set(key, m);
  }
  return m;
}

/** `re` tested on the text as it is, or lower-cased (the pattern was lower-cased to match). */
const matching = (re: RegExp, lowerCaseText: boolean): Matcher => (lowerCaseText ? { test: (text) => re.test(text.toLowerCase()) } : re);

const MAX_REGEXP_LENGTH = 500;

/**
 * A Postgres regular expression (`~`, `~*`) as a JavaScript one. Throws when the pattern is
 * not valid, or needs backtracking (backreferences, lookaround). Postgres' ARE and JavaScript
 * agree on the common constructs. V8's linear engine has no case-insensitive mode, so `~*`
 * matches the lower-cased pattern against the lower-cased text.
 */
export function compileRegexp(pattern: string, caseInsensitive: boolean): Matcher {
  if (pattern.length > MAX_REGEXP_LENGTH) throw new Error(`longer than ${MAX_REGEXP_LENGTH} characters`);
  return cached(`r${caseInsensitive ? 'i' : ''}:${pattern}`, () => {
    const source = caseInsensitive ? lowerCaseLiterals(pattern) : pattern;
    const re = new RegExp(source);
    if (!runsInLinearTime(source)) throw new Error('backreferences and lookaround are not supported (they can take exponential time)');
    return matching(re, caseInsensitive);
  });
}

/** The pattern lower-cased, but for the character after each backslash (\W, \S, \D and \B keep their meaning). */
function lowerCaseLiterals(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '\\' && i + 1 < pattern.length) out += pattern[i] + pattern[++i];
    else out += pattern[i].toLowerCase();
  }
  return out;
}

/** Why a LIKE pattern is invalid in Postgres, or null if it is valid. */
export function likePatternProblem(pattern: string): string | null {
  let escaped = false;
  for (const c of pattern) escaped = !escaped && c === '\\';
  return escaped ? 'a LIKE pattern must not end with the escape character "\\"' : null;
}

/** One character: a surrogate pair or a unit outside them (V8's linear engine has no `u` flag). */
const ANY_CHAR = '(?:[\\uD800-\\uDBFF][\\uDC00-\\uDFFF]|[^\\uD800-\\uDFFF])';

/**
 * A Postgres LIKE pattern (`%`, `_`, `\` escapes the next character) as an anchored RegExp
 * that V8 can run in linear time (see compileRegexp); ILIKE compares lower-cased.
 */
export function compileLike(pattern: string, caseInsensitive: boolean): Matcher {
  return cached(`l${caseInsensitive ? 'i' : ''}:${pattern}`, () => {
    let source = '';
    const chars = [...(caseInsensitive ? pattern.toLowerCase() : pattern)];
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      if (c === '\\' && i + 1 < chars.length) source += escapeRegExp(chars[++i]);
      else if (c === '%') source += '[\\s\\S]*';
      else if (c === '_') source += ANY_CHAR;
      else source += escapeRegExp(c);
    }
    return matching(new RegExp(`^${source}$`), caseInsensitive);
  });
}

function escapeRegExp(c: string): string {
  return /[\\^$.*+?()[\]{}|/]/.test(c) ? `\\${c}` : c;
}

/** Postgres jsonb containment (`a @> b`). */
export function jsonContains(container: unknown, contained: unknown, topLevel = true): boolean {
  if (Array.isArray(container)) {
    if (Array.isArray(contained)) return contained.every((want) => container.some((have) => jsonContains(have, want, false)));
    // A top-level array contains a bare scalar that is one of its elements.
    return topLevel && !isObject(contained) && container.some((have) => !isObject(have) && !Array.isArray(have) && have === contained);
  }
  if (isObject(container)) {
    if (!isObject(contained)) return false;
    return Object.entries(contained).every(([key, want]) => Object.hasOwn(container, key) && jsonContains(container[key], want, false));
  }
  return !isObject(contained) && !Array.isArray(contained) && container === contained;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function parseJson(text: unknown): { ok: true; value: unknown } | { ok: false } {
  if (typeof text !== 'string') return { ok: false };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

const bit = (b: boolean): number => (b ? 1 : 0);

/** Registers the functions translated segments call. Safe to call more than once per connection. */
export function registerSegmentFunctions(db: Database): void {
  const options = { deterministic: true, varargs: false } as const;

  // (text, pattern, case_insensitive) → 1/0; NULL in, NULL out; an invalid pattern matches nothing.
  db.function(FN.regexp, options, (text: unknown, pattern: unknown, caseInsensitive: unknown) => {
    if (text === null || pattern === null) return null;
    try {
      return bit(compileRegexp(String(pattern), caseInsensitive === 1).test(String(text)));
    } catch {
      return null;
    }
  });

  // Postgres LIKE / ILIKE for patterns that SQLite's LIKE cannot run with the same result.
  db.function(FN.like, options, (text: unknown, pattern: unknown, caseInsensitive: unknown) => {
    if (text === null || pattern === null) return null;
    if (likePatternProblem(String(pattern))) return null;
    return bit(compileLike(String(pattern), caseInsensitive === 1).test(String(text)));
  });

  db.function(FN.jsonContains, options, (container: unknown, contained: unknown) => {
    const a = parseJson(container);
    const b = parseJson(contained);
    return a.ok && b.ok ? bit(jsonContains(a.value, b.value)) : null;
  });

  // Postgres folds case for every script; SQLite's lower() and upper() only for ASCII.
  db.function(FN.lower, options, (text: unknown) => (text === null ? null : String(text).toLowerCase()));
  db.function(FN.upper, options, (text: unknown) => (text === null ? null : String(text).toUpperCase()));
  // (any row value) → 1. Not deterministic, so SQLite calls it for every row (see translate.ts checkpoint).
  db.function(FN.checkpoint, { deterministic: false, directOnly: true }, (_row: unknown) => 1);

  // Text to number by Postgres' input rules; where Postgres would fail the whole query, NULL.
  db.function(FN.toInteger, options, (value: unknown) => {
    if (typeof value === 'number' || typeof value === 'bigint') return Math.round(Number(value));
    return typeof value === 'string' ? parseInteger(value) : null;
  });
  db.function(FN.toNumeric, options, (value: unknown) => {
    if (typeof value === 'number' || typeof value === 'bigint') return Number(value);
    return typeof value === 'string' ? parseNumeric(value) : null;
  });
}
