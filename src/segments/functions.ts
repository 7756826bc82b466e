import type { Database } from 'better-sqlite3';
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
} as const;

const CACHE_LIMIT = 256;
const compiled = new Map<string, RegExp>();

function cached(key: string, build: () => RegExp): RegExp {
  let re = compiled.get(key);
  if (!re) {
    if (compiled.size >= CACHE_LIMIT) compiled.clear();
    re = build();
    compiled.set(key, re);
  }
  return re;
}

/**
 * A Postgres regular expression (`~`, `~*`) as a JavaScript one. Throws SyntaxError when the
 * pattern is not valid. Postgres' ARE and JavaScript agree on the common constructs.
 */
const MAX_REGEXP_LENGTH = 500;
// A repeated group that itself repeats or alternates ("(a+)+", "(a|aa)*") can make JavaScript's
// backtracking engine run for hours on one row; user-supplied patterns of that shape are refused.
const NESTED_REPEAT = /\((?:[^()\\]|\\.)*(?:[+*|]|\{\d+,?\d*\})(?:[^()\\]|\\.)*\)(?:[+*]|\{\d+,?\d*\})/;

export function compileRegexp(pattern: string, caseInsensitive: boolean): RegExp {
  if (pattern.length > MAX_REGEXP_LENGTH) throw new Error(`longer than ${MAX_REGEXP_LENGTH} characters`);
  if (NESTED_REPEAT.test(pattern)) throw new Error('a repeated group containing a repetition or alternation could take exponential time; simplify the pattern');
  return cached(`r${caseInsensitive ? 'i' : ''}:${pattern}`, () => new RegExp(pattern, caseInsensitive ? 'i' : ''));
}

/** Why a LIKE pattern is invalid in Postgres, or null if it is valid. */
export function likePatternProblem(pattern: string): string | null {
  let escaped = false;
  for (const c of pattern) escaped = !escaped && c === '\\';
  return escaped ? 'a LIKE pattern must not end with the escape character "\\"' : null;
}

/** A Postgres LIKE pattern (`%`, `_`, `\` escapes the next character) as an anchored RegExp. */
export function compileLike(pattern: string, caseInsensitive: boolean): RegExp {
  return cached(`l${caseInsensitive ? 'i' : ''}:${pattern}`, () => {
    let source = '';
    const chars = [...pattern];
    for (let i = 0; i < chars.length; i++) {
      const c = chars[i];
      if (c === '\\' && i + 1 < chars.length) source += escapeRegExp(chars[++i]);
      else if (c === '%') source += '[\\s\\S]*';
      else if (c === '_') source += '[\\s\\S]';
      else source += escapeRegExp(c);
    }
    return new RegExp(`^${source}$`, caseInsensitive ? 'iu' : 'u');
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
