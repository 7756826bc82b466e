import { isLogical, type Node, type Select } from './ast.ts';
import { LIMITS } from '../core/limits.ts';
import { LIST_COLUMNS, SUBQUERY_TABLES, SUBSCRIBER_COLUMNS, TYPE_NAMES, type Columns, type SqlType } from './catalog.ts';
import { SegmentError, UnknownColumnError } from './errors.ts';
import { FN, compileRegexp, likePatternProblem } from './functions.ts';
import { parseSegment } from './parser.ts';
import { Sql, identifier, joinSql, param, renderSql, sql, type ParamValue } from './sql.ts';
import {
  BOOLEAN_WORDS,
  addInterval,
  formatTimestamp,
  parseBoolean,
  parseDate,
  parseInteger,
  parseInterval,
  parseNumeric,
  parseTimestamp,
  type Interval,
} from './values.ts';

export interface TranslateOptions {
  /** The moment NOW() and CURRENT_DATE stand for; the current time unless given. */
  now?: Date;
  /** What the caller may read besides subscribers; everything unless given. */
  access?: SegmentAccess;
}

/** The caller's other permissions, as they bound what its subqueries may read. */
export interface SegmentAccess {
  /** Tables the caller may not read through the API, each with the permission it lacks. */
  refusedTables: Readonly<Record<string, string>>;
  /** The lists whose rows (`lists`, `subscriber_lists`) the caller may read, or every list. */
  lists: 'all' | readonly number[];
}

const FULL_ACCESS: SegmentAccess = { refusedTables: {}, lists: 'all' };

export interface TranslatedSegment {
  /** A parenthesised boolean SQLite expression over a table aliased `subscribers`. */
  sql: string;
  params: ParamValue[];
  /**
   * Strings every selected subscriber holds as a string value somewhere in its attribs (from
   * top-level `attribs->>… = '…'` conditions), so a caller with a text index of the attribs
   * can narrow the rows before the expression runs. Never numbers, booleans or short strings.
   */
  attribStrings: string[];
}

/**
 * Translates a listmonk (Postgres-flavoured) subscriber expression into SQLite. Throws
 * SegmentError for anything outside the supported grammar or the allow-lists.
 */
export function translateSegment(expression: string, options: TranslateOptions = {}): TranslatedSegment {
  const tree = parseSegment(expression);
  const translator = new Translator(options.now ?? new Date(), options.access ?? FULL_ACCESS, expression);
  const root: Scope = { name: 'subscribers', columns: SUBSCRIBER_COLUMNS, sqlAlias: 'subscribers', parent: null, depth: 0 };
  const filter = translator.rowFilter(tree, root);
  // Nested function calls can cost much per row; a checkpoint on the rows lets a deadline stop them.
  const checked = translator.nestedCalls ? sql`${checkpoint(sql`subscribers.id`)} AND ${filter.sql}` : filter.sql;
  const result = renderSql(sql`(${checked})`);
  if (result.params.length > MAX_PARAMS) throw new SegmentError('the expression has too many values', 0);
  return { ...result, attribStrings: filter.attribStrings };
}

// SQLite refuses statements with more than 32766 parameters; stay clear of it.
const MAX_PARAMS = 30_000;

const TIMESTAMP_FORMAT = '%Y-%m-%dT%H:%M:%fZ';
const MIDNIGHT = 'T00:00:00.000Z';

interface Scope {
  /** The name the expression uses for the table: its alias if it has one. */
  name: string;
  columns: Columns;
  sqlAlias: string;
  parent: Scope | null;
  /** How many subqueries this scope is nested in (0: the subscribers row). */
  depth: number;
}

type Constant = string | number | boolean | Interval | null;

/** A translated expression: its Postgres type, its SQL, and its value when known now. */
interface Value {
  type: SqlType;
  sql: Sql | null;
  constant?: Constant;
  /** For JSON values reached with `->`: the document and the JSON path, so later steps extend the path. */
  json?: { doc: Sql; path: string; subscriberAttribs: boolean };
  /** The subscriber's own attribs column (not a subquery's). */
  subscriberAttribs?: boolean;
  /** For `->>` / `#>>` results: the JSON document they read (see textPrefilter). */
  jsonTextOf?: { doc: Sql; subscriberAttribs: boolean };
  /** For comparisons: a cheap condition every row where the comparison is true meets (see rowFilter). */
  prefilter?: Sql;
  /** For comparisons: a string value the subscriber's attribs must hold for it to be true. */
  attribString?: string;
  pos: number;
}

const TYPE_LABEL: Record<SqlType, string> = {
  int: 'integer',
  numeric: 'numeric',
  text: 'text',
  bool: 'boolean',
  json: 'jsonb',
  timestamp: 'timestamp',
  date: 'date',
  interval: 'interval',
  unknown: 'unknown',
  null: 'null',
};

const NUMERIC_TYPES = new Set<SqlType>(['int', 'numeric']);

const EXTRACT_FIELDS: Record<string, (ts: Sql) => Sql> = {
  year: (ts) => sql`CAST(strftime('%Y', ${ts}) AS INTEGER)`,
  month: (ts) => sql`CAST(strftime('%m', ${ts}) AS INTEGER)`,
  day: (ts) => sql`CAST(strftime('%d', ${ts}) AS INTEGER)`,
  hour: (ts) => sql`CAST(strftime('%H', ${ts}) AS INTEGER)`,
  minute: (ts) => sql`CAST(strftime('%M', ${ts}) AS INTEGER)`,
  second: (ts) => sql`CAST(strftime('%f', ${ts}) AS REAL)`,
  dow: (ts) => sql`CAST(strftime('%w', ${ts}) AS INTEGER)`,
  isodow: (ts) => sql`CAST(strftime('%u', ${ts}) AS INTEGER)`,
  doy: (ts) => sql`CAST(strftime('%j', ${ts}) AS INTEGER)`,
  week: (ts) => sql`CAST(strftime('%V', ${ts}) AS INTEGER)`,
  quarter: (ts) => sql`((CAST(strftime('%m', ${ts}) AS INTEGER) + 2) / 3)`,
  epoch: (ts) => sql`unixepoch(${ts}, 'subsec')`,
};

const TRUNCATE_FORMATS: Record<string, string> = {
  second: '%Y-%m-%dT%H:%M:%S.000Z',
  minute: '%Y-%m-%dT%H:%M:00.000Z',
  hour: '%Y-%m-%dT%H:00:00.000Z',
  day: '%Y-%m-%dT00:00:00.000Z',
  month: '%Y-%m-01T00:00:00.000Z',
  year: '%Y-01-01T00:00:00.000Z',
};

/** The function allow-list: Postgres name → translation. */
type FunctionRule = (t: Translator, args: Value[], pos: number) => Value;

const FUNCTIONS: Record<string, FunctionRule> = {
  now: (t, args, pos) => t.niladic(args, pos, () => t.constant('timestamp', t.now.getTime(), pos)),
  current_timestamp: (t, args, pos) => t.niladic(args, pos, () => t.constant('timestamp', t.now.getTime(), pos)),
  current_date: (t, args, pos) => t.niladic(args, pos, () => t.constant('date', formatTimestamp(t.now.getTime()).slice(0, 10), pos)),
  lower: (t, args, pos) => t.textFunction(FN.lower, args, pos),
  upper: (t, args, pos) => t.textFunction(FN.upper, args, pos),
  length: (t, args, pos) => t.textLength(args, pos),
  char_length: (t, args, pos) => t.textLength(args, pos),
  character_length: (t, args, pos) => t.textLength(args, pos),
  trim: (t, args, pos) => t.trim('trim', args, pos),
  btrim: (t, args, pos) => t.trim('trim', args, pos),
  ltrim: (t, args, pos) => t.trim('ltrim', args, pos),
  rtrim: (t, args, pos) => t.trim('rtrim', args, pos),
  substr: (t, args, pos) => t.substring(args, pos),
  substring: (t, args, pos) => t.substring(args, pos),
  replace: (t, args, pos) => {
    t.arity('replace', args, 3, 3, pos);
    const [s, from, to] = args.map((a) => t.sqlOf(t.toText(a)));
    return { type: 'text', sql: sql`replace(${s}, ${from}, ${to})`, pos };
  },
  strpos: (t, args, pos) => {
    t.arity('strpos', args, 2, 2, pos);
    const [s, sub] = args.map((a) => t.sqlOf(t.toText(a)));
    return { type: 'int', sql: sql`instr(${s}, ${sub})`, pos };
  },
  concat: (t, args, pos) => {
    if (args.length === 0) throw new SegmentError('concat() needs at least one argument', pos);
    return { type: 'text', sql: sql`concat(${joinSql(args.map((a) => t.sqlOf(t.toText(a))), ', ')})`, pos };
  },
  coalesce: (t, args, pos) => t.variadicSameType('coalesce', 'coalesce', args, pos),
  nullif: (t, args, pos) => {
    t.arity('nullif', args, 2, 2, pos);
    const [a, b] = t.unify(args, 'nullif', pos);
    return { type: a.type, sql: sql`nullif(${t.sqlOf(a)}, ${t.sqlOf(b)})`, pos };
  },
  abs: (t, args, pos) => t.numericFunction('abs', args, pos, true),
  ceil: (t, args, pos) => t.numericFunction('ceil', args, pos, false),
  ceiling: (t, args, pos) => t.numericFunction('ceil', args, pos, false),
  floor: (t, args, pos) => t.numericFunction('floor', args, pos, false),
  round: (t, args, pos) => {
    t.arity('round', args, 1, 2, pos);
    const x = t.sqlOf(t.toNumber(args[0], 'numeric'));
    if (args.length === 1) return { type: 'numeric', sql: sql`round(${x})`, pos };
    return { type: 'numeric', sql: sql`round(${x}, ${t.sqlOf(t.coerce(args[1], 'int', 'round'))})`, pos };
  },
  jsonb_array_length: (t, args, pos) => t.jsonArrayLength(args, pos),
  json_array_length: (t, args, pos) => t.jsonArrayLength(args, pos),
  jsonb_typeof: (t, args, pos) => t.jsonTypeof(args, pos),
  json_typeof: (t, args, pos) => t.jsonTypeof(args, pos),
  date_trunc: (t, args, pos) => t.dateTrunc(args, pos),
  date_part: (t, args, pos) => {
    t.arity('date_part', args, 2, 2, pos);
    return t.extract(t.constantText(args[0], 'date_part'), args[1], pos);
  },
};

export const ALLOWED_FUNCTIONS = Object.keys(FUNCTIONS);

class Translator {
  private aliasCount = 0;
  private callDepth = 0;
  /** Whether a function call's argument calls a function. */
  nestedCalls = false;

  /** `source`: the expression as written, for hints that quote a name in its own case. */
  constructor(readonly now: Date, private readonly access: SegmentAccess, private readonly source: string) {}

  // ---- entry points --------------------------------------------------------------------

  /** An expression that must be boolean (WHERE, AND/OR/NOT operands, CASE WHEN). */
  /**
   * The whole expression as a row filter. It selects the same rows as `condition`; top-level
   * conjuncts that carry a prefilter test it first, so SQLite skips their costly part (parsing
   * the attribs JSON) on rows that cannot match. Only at the top: there a NULL and a false
   * comparison both drop the row, while under NOT or OR they would differ.
   */
  rowFilter(node: Node, scope: Scope): { sql: Sql; attribStrings: string[] } {
    const attribStrings: string[] = [];
    const conjuncts = flattenLogical(node, 'and').map((n) => {
      const value = this.coerce(this.expr(n, scope), 'bool', n === node ? 'the expression' : 'AND');
      if (value.attribString !== undefined) attribStrings.push(value.attribString);
      return value.prefilter ? sql`(${value.prefilter} AND ${this.sqlOf(value)})` : this.sqlOf(value);
    });
    return { sql: balanced(conjuncts, 'AND'), attribStrings };
  }

  condition(node: Node, scope: Scope, where: string): Sql {
    const value = this.coerce(this.expr(node, scope), 'bool', where);
    return this.sqlOf(value);
  }

  expr(node: Node, scope: Scope): Value {
    switch (node.kind) {
      case 'string':
        return this.constant('unknown', node.value, node.pos);
      case 'number':
        return this.number(node.text, node.pos);
      case 'bool':
        return this.constant('bool', node.value, node.pos);
      case 'null':
        return { type: 'null', sql: sql`NULL`, constant: null, pos: node.pos };
      case 'interval':
        return this.castConstant(node.text, 'interval', node.pos);
      case 'typed_literal':
        return this.castConstant(node.value, this.typeNamed(node.type, node.pos), node.pos);
      case 'array':
        throw new SegmentError('ARRAY[…] is only supported on the right of ?| and ?&', node.pos);
      case 'column':
        return this.column(node.table, node.name, node.pos, scope);
      case 'call': {
        const rule = Object.hasOwn(FUNCTIONS, node.name) ? FUNCTIONS[node.name] : undefined;
        if (!rule) throw new SegmentError(`unknown function "${node.name}"`, node.pos);
        if (node.star) throw new SegmentError(`"${node.name}(*)" is not supported`, node.pos);
        if (this.callDepth > 0) this.nestedCalls = true;
        this.callDepth++;
        try {
          return rule(this, node.args.map((a) => this.expr(a, scope)), node.pos);
        } finally {
          this.callDepth--;
        }
      }
      case 'extract':
        return this.extract(node.field, this.expr(node.source, scope), node.pos);
      case 'cast':
        return this.cast(this.expr(node.expr, scope), this.typeNamed(node.type, node.pos), node.pos);
      case 'unary':
        return this.unary(node.op, this.expr(node.expr, scope), node.pos);
      case 'binary':
        return this.binary(node, scope);
      case 'is': {
        const v = this.expr(node.expr, scope);
        const not = node.negated ? 'NOT ' : '';
        if (node.test === 'null') return this.bool(sql`(${this.sqlOf(v)} IS ${raw(not)}NULL)`, node.pos);
        const b = this.sqlOf(this.coerce(v, 'bool', 'IS ' + node.test.toUpperCase()));
        return this.bool(sql`(${b} IS ${raw(not)}${raw(node.test === 'true' ? 'TRUE' : 'FALSE')})`, node.pos);
      }
      case 'distinct_from': {
        const [a, b] = this.unify([this.expr(node.left, scope), this.expr(node.right, scope)], 'IS DISTINCT FROM', node.pos);
        return this.bool(sql`(${this.sqlOf(a)} IS ${raw(node.negated ? '' : 'NOT ')}${this.sqlOf(b)})`, node.pos);
      }
      case 'like':
        return this.like(node.expr, node.pattern, node.caseInsensitive, node.negated, node.pos, scope);
      case 'between': {
        const [x, low, high] = this.unify(
          [this.expr(node.expr, scope), this.expr(node.low, scope), this.expr(node.high, scope)],
          'BETWEEN',
          node.pos,
        ).map((v) => this.sqlOf(v));
        const range = node.symmetric
          ? sql`(${x} BETWEEN ${low} AND ${high} OR ${x} BETWEEN ${high} AND ${low})`
          : sql`(${x} BETWEEN ${low} AND ${high})`;
        return this.bool(node.negated ? sql`(NOT ${range})` : range, node.pos);
      }
      case 'in_list': {
        if (node.items.length === 0) throw new SegmentError('IN () needs at least one value', node.pos);
        const [x, ...items] = this.unify([this.expr(node.expr, scope), ...node.items.map((i) => this.expr(i, scope))], 'IN', node.pos).map((v) =>
          this.sqlOf(v),
        );
        return this.bool(sql`(${x} ${raw(node.negated ? 'NOT IN' : 'IN')} (${joinSql(items, ', ')}))`, node.pos);
      }
      case 'in_query': {
        const left = this.expr(node.expr, scope);
        const { sql: query, output } = this.select(node.query, scope, false);
        const [x] = this.unify([left, output], 'IN', node.pos);
        return this.bool(sql`(${this.sqlOf(x)} ${raw(node.negated ? 'NOT IN' : 'IN')} (${query}))`, node.pos);
      }
      case 'exists':
        return this.bool(sql`EXISTS (${this.select(node.query, scope, true).sql})`, node.pos);
      case 'case':
        return this.caseExpression(node, scope);
    }
  }

  // ---- building blocks -----------------------------------------------------------------

  sqlOf(v: Value): Sql {
    if (v.sql === null) {
      throw new SegmentError(`an ${TYPE_LABEL[v.type]} value can only be added to or subtracted from a timestamp or date`, v.pos);
    }
    return v.sql;
  }

  bool(fragment: Sql, pos: number): Value {
    return { type: 'bool', sql: fragment, pos };
  }

  constant(type: SqlType, value: Constant, pos: number): Value {
    let fragment: Sql | null;
    if (type === 'interval') fragment = null;
    else if (type === 'timestamp') fragment = sql`${param(formatTimestamp(value as number))}`;
    // better-sqlite3 binds every JavaScript number as REAL; integer division and text
    // conversion need a true INTEGER.
    else if (type === 'int') fragment = sql`CAST(${param(value as number)} AS INTEGER)`;
    else fragment = sql`${param(value as ParamValue | boolean)}`;
    return { type, sql: fragment, constant: value, pos };
  }

  private number(text: string, pos: number): Value {
    if (/^\d+$/.test(text)) {
      const n = parseInteger(text);
      if (n === null) throw new SegmentError(`the number ${text} is out of range`, pos);
      return this.constant('int', n, pos);
    }
    return this.constant('numeric', Number(text), pos);
  }

  private typeNamed(name: string, pos: number): SqlType {
    const type = Object.hasOwn(TYPE_NAMES, name) ? TYPE_NAMES[name] : undefined;
    if (!type) throw new SegmentError(`unknown or unsupported type "${name}"`, pos);
    return type;
  }

  private column(table: string | null, name: string, pos: number, scope: Scope): Value {
    for (let s: Scope | null = scope; s; s = s.parent) {
      if (table !== null && table !== s.name) continue;
      if (Object.hasOwn(s.columns, name)) {
        const type = s.columns[name];
        const own = s.parent === null && name === 'attribs' ? { subscriberAttribs: true } : {};
        return { type, sql: sql`${identifier(s.sqlAlias)}.${identifier(name)}`, pos, ...own };
      }
      if (table !== null) throw new SegmentError(`unknown column "${table}.${name}"`, pos);
    }
    if (table !== null) {
      const allowed = Object.hasOwn(SUBQUERY_TABLES, table)
        ? `; read "${table}" in a subquery such as subscribers.id IN (SELECT subscriber_id FROM ${table} WHERE …)`
        : '';
      throw new SegmentError(`unknown table "${table}"${allowed}`, pos);
    }
    throw new UnknownColumnError(name, pos, scope.parent === null ? columnHint(name, this.written(pos)) : '');
  }

  /** The name at 1-based `pos` of the expression as written (the lexer lowercases names). */
  private written(pos: number): string {
    return /^[A-Za-z_][A-Za-z0-9_$]*/.exec(this.source.slice(pos - 1))?.[0] ?? '';
  }

  /** Gives an `unknown` literal or NULL the type it is used as, and widens int→numeric, date→timestamp. */
  coerce(v: Value, target: SqlType, context: string): Value {
    if (v.type === target) return v;
    if (v.type === 'null') return { ...v, type: target };
    if (v.type === 'unknown') return this.castConstant(v.constant as string, target, v.pos);
    if (v.type === 'int' && target === 'numeric') return { ...v, type: 'numeric' };
    if (v.type === 'date' && target === 'timestamp') return this.cast(v, 'timestamp', v.pos);
    throw new SegmentError(`${context} needs a ${TYPE_LABEL[target]} value, not ${TYPE_LABEL[v.type]}`, v.pos);
  }

  /** The common type of several values (Postgres' rule for operands, IN lists, COALESCE…). */
  unify(values: Value[], context: string, pos: number): Value[] {
    const known = values.filter((v) => v.type !== 'unknown' && v.type !== 'null').map((v) => v.type);
    let target: SqlType = known[0] ?? (values.some((v) => v.type === 'unknown') ? 'text' : 'null');
    for (const type of known.slice(1)) {
      if (type === target) continue;
      if (NUMERIC_TYPES.has(type) && NUMERIC_TYPES.has(target)) target = 'numeric';
      else if ((type === 'date' || type === 'timestamp') && (target === 'date' || target === 'timestamp')) target = 'timestamp';
      else throw new SegmentError(`${context}: cannot compare ${TYPE_LABEL[target]} with ${TYPE_LABEL[type]}`, pos);
    }
    if (target === 'interval') throw new SegmentError(`${context}: interval values cannot be compared`, pos);
    return values.map((v) => this.coerce(v, target, context));
  }

  /** A quoted literal read as a value of the given type, checked now. */
  castConstant(text: string, type: SqlType, pos: number): Value {
    const invalid = (): never => {
      throw new SegmentError(`invalid input syntax for type ${TYPE_LABEL[type]}: "${text}"`, pos);
    };
    switch (type) {
      case 'text':
      case 'unknown':
        return this.constant(type, text, pos);
      case 'int':
        return this.constant(type, parseInteger(text) ?? invalid(), pos);
      case 'numeric':
        return this.constant(type, parseNumeric(text) ?? invalid(), pos);
      case 'bool':
        return this.constant(type, parseBoolean(text) ?? invalid(), pos);
      case 'timestamp':
        return this.constant(type, parseTimestamp(text, this.now) ?? invalid(), pos);
      case 'date':
        return this.constant(type, parseDate(text, this.now) ?? invalid(), pos);
      case 'interval':
        return this.constant(type, parseInterval(text) ?? invalid(), pos);
      case 'json': {
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          invalid();
        }
        return this.constant(type, JSON.stringify(parsed), pos);
      }
      case 'null':
        return invalid();
    }
  }

  /** `expr::type` */
  cast(v: Value, type: SqlType, pos: number): Value {
    if (v.type === type) return v;
    if (v.type === 'null') return { ...v, type };
    if ((v.type === 'unknown' || v.type === 'text') && typeof v.constant === 'string') return this.castConstant(v.constant, type, pos);
    const x = this.sqlOf(v);
    const out = (fragment: Sql): Value => ({ type, sql: fragment, pos });
    const unsupported = (): never => {
      throw new SegmentError(`cannot cast ${TYPE_LABEL[v.type]} to ${TYPE_LABEL[type]}`, pos);
    };
    switch (v.type) {
      case 'text':
      case 'unknown':
        switch (type) {
          case 'text':
            return out(x);
          case 'int':
            return out(sql`${raw(FN.toInteger)}(${x})`);
          case 'numeric':
            return out(sql`${raw(FN.toNumeric)}(${x})`);
          case 'bool':
            return out(
              sql`(CASE WHEN lower(trim(${x})) IN (${joinSql(BOOLEAN_WORDS.true.map((w) => sql`${param(w)}`), ', ')}) THEN 1 WHEN lower(trim(${x})) IN (${joinSql(BOOLEAN_WORDS.false.map((w) => sql`${param(w)}`), ', ')}) THEN 0 END)`,
            );
          case 'timestamp':
            return out(sql`strftime(${param(TIMESTAMP_FORMAT)}, ${x})`);
          case 'date':
            return out(sql`date(${x})`);
          case 'json':
            return out(sql`(CASE WHEN json_valid(${x}) THEN json(${x}) END)`);
          default:
            return unsupported();
        }
      case 'int':
        if (type === 'numeric') return out(sql`CAST(${x} AS REAL)`);
        if (type === 'text') return out(sql`CAST(${x} AS TEXT)`);
        if (type === 'bool') return out(sql`(${x} <> 0)`);
        return unsupported();
      case 'numeric':
        if (type === 'int') return out(sql`CAST(round(${x}) AS INTEGER)`);
        if (type === 'text') return out(sql`CAST(${x} AS TEXT)`);
        return unsupported();
      case 'bool':
        if (type === 'int') return out(x);
        if (type === 'text') return out(sql`(CASE ${x} WHEN 1 THEN 'true' WHEN 0 THEN 'false' END)`);
        return unsupported();
      case 'timestamp':
        if (typeof v.constant === 'number' && type === 'date') return this.constant('date', formatTimestamp(v.constant).slice(0, 10), pos);
        if (type === 'date') return out(sql`substr(${x}, 1, 10)`);
        if (type === 'text') return out(x);
        return unsupported();
      case 'date':
        if (typeof v.constant === 'string' && type === 'timestamp') return this.constant('timestamp', Date.parse(v.constant + MIDNIGHT), pos);
        if (type === 'timestamp') return out(sql`(${x} || ${param(MIDNIGHT)})`);
        if (type === 'text') return out(x);
        return unsupported();
      case 'json':
        switch (type) {
          case 'text':
            return out(x);
          case 'numeric':
            return out(this.jsonNumber(v));
          case 'int':
            return out(sql`CAST(round(${this.jsonNumber(v)}) AS INTEGER)`);
          case 'bool': {
            const [doc, path] = this.jsonParts(v);
            return out(sql`(CASE json_type(${doc}, ${path}) WHEN 'true' THEN 1 WHEN 'false' THEN 0 END)`);
          }
          default:
            return unsupported();
        }
      default:
        return unsupported();
    }
  }

  private jsonNumber(v: Value): Sql {
    const [doc, path] = this.jsonParts(v);
    return sql`(CASE WHEN json_type(${doc}, ${path}) IN ('integer', 'real') THEN ${doc} ->> ${path} END)`;
  }

  /** A JSON value as (document, path) for SQLite's json_* functions. */
  private jsonParts(v: Value): [Sql, Sql] {
    if (v.json) return [v.json.doc, sql`${param(v.json.path)}`];
    return [this.sqlOf(v), sql`${param('$')}`];
  }

  toText(v: Value): Value {
    if (v.type === 'text' || v.type === 'unknown' || v.type === 'null') return this.coerce(v, 'text', 'text');
    return this.cast(v, 'text', v.pos);
  }

  toNumber(v: Value, context: string): Value {
    if (NUMERIC_TYPES.has(v.type)) return v;
    return this.coerce(v, 'numeric', context);
  }

  private unary(op: '-' | '+' | 'not', v: Value, pos: number): Value {
    if (op === 'not') return this.bool(sql`(NOT ${this.sqlOf(this.coerce(v, 'bool', 'NOT'))})`, pos);
    const n = this.toNumber(v, `unary ${op}`);
    if (op === '+') return n;
    if (typeof n.constant === 'number') return this.constant(n.type, -n.constant, pos);
    return { type: n.type, sql: sql`(- ${this.sqlOf(n)})`, pos };
  }

  /**
   * The right side of a binary operator. A bare unknown name compared with something is most
   * likely a value written without quotes (`city = Berlin`): the error says so.
   */
  private operand(node: Node, scope: Scope, op: string): Value {
    try {
      return this.expr(node, scope);
    } catch (e) {
      if (!(e instanceof UnknownColumnError) || node.kind !== 'column' || node.table !== null || !COMPARISONS.has(op) || e.position !== node.pos) throw e;
      const word = this.written(node.pos);
      throw new UnknownColumnError(e.column, node.pos, `did you mean the text '${word}'? Text values go in single quotes`);
    }
  }

  private binary(node: Extract<Node, { kind: 'binary' }>, scope: Scope): Value {
    const { op, pos } = node;
    if (op === 'and' || op === 'or') {
      const operands = flattenLogical(node, op).map((n) => this.condition(n, scope, op.toUpperCase()));
      return this.bool(balanced(operands, op.toUpperCase()), pos);
    }
    const left = this.expr(node.left, scope);
    if (op === '->' || op === '->>' || op === '#>' || op === '#>>') return this.jsonGet(left, node.right, op, scope, pos);
    if (op === '?|' || op === '?&') return this.jsonHasAny(left, node.right, op, scope, pos);
    const right = this.operand(node.right, scope, op);
    switch (op) {
      case '=':
      case '<>':
      case '<':
      case '>':
      case '<=':
      case '>=': {
        const [a, b] = this.unify([left, right], `"${op}"`, pos);
        if (a.type === 'json' && op !== '=' && op !== '<>') throw new SegmentError(`jsonb values can only be compared with = and <>`, pos);
        const compared = this.bool(sql`(${this.sqlOf(a)} ${raw(op)} ${this.sqlOf(b)})`, pos);
        if (op !== '=' || a.type !== 'text') return compared;
        const [json, other] = left.jsonTextOf ? [left, right] : [right, left];
        const prefilter = textPrefilter(json, other);
        if (!prefilter) return compared;
        const c = other.constant as string;
        const indexable = json.jsonTextOf!.subscriberAttribs && [...c].length >= 3 && !/^[-\d]/.test(c) && c !== 'true' && c !== 'false';
        return { ...compared, prefilter, ...(indexable ? { attribString: c } : {}) };
      }
      case '+':
      case '-':
        return this.addSubtract(left, right, op, pos);
      case '*':
      case '/':
      case '%':
      case '^': {
        const [a, b] = this.unify([this.toNumber(left, `"${op}"`), this.toNumber(right, `"${op}"`)], `"${op}"`, pos);
        if (op === '^') return { type: 'numeric', sql: sql`pow(${this.sqlOf(a)}, ${this.sqlOf(b)})`, pos };
        return { type: a.type, sql: sql`(${this.sqlOf(a)} ${raw(op)} ${this.sqlOf(b)})`, pos };
      }
      case '||': {
        if (left.type === 'json' || right.type === 'json') throw new SegmentError('"||" on jsonb values is not supported', pos);
        return { type: 'text', sql: sql`(${this.sqlOf(this.toText(left))} || ${this.sqlOf(this.toText(right))})`, pos };
      }
      case '~':
      case '~*':
      case '!~':
      case '!~*':
        return this.regexp(left, right, op, pos);
      case '?':
        return this.jsonHas(left, [this.toText(right)], 'any', pos);
      case '@>':
      case '<@': {
        const [a, b] = [this.coerce(left, 'json', `"${op}"`), this.coerce(right, 'json', `"${op}"`)];
        const [container, contained] = op === '@>' ? [a, b] : [b, a];
        return this.bool(sql`${raw(FN.jsonContains)}(${this.sqlOf(container)}, ${this.sqlOf(contained)})`, pos);
      }
      default:
        throw new SegmentError(`unsupported operator "${op}"`, pos);
    }
  }

  private addSubtract(left: Value, right: Value, op: '+' | '-', pos: number): Value {
    const sign = op === '+' ? 1 : -1;
    const isTime = (v: Value) => v.type === 'timestamp' || v.type === 'date';
    // interval + timestamp is timestamp + interval
    if (op === '+' && left.type === 'interval' && (isTime(right) || right.type === 'unknown')) [left, right] = [right, left];
    if (right.type === 'interval' && left.type === 'interval') {
      const a = left.constant as Interval;
      const b = right.constant as Interval;
      return this.constant('interval', { months: a.months + sign * b.months, days: a.days + sign * b.days, ms: a.ms + sign * b.ms }, pos);
    }
    if (right.type === 'interval') {
      const ts = this.coerce(left, 'timestamp', `"${op}" with an interval`);
      return this.shiftTimestamp(ts, right.constant as Interval, sign, pos);
    }
    if (left.type === 'date' && (NUMERIC_TYPES.has(right.type) || right.type === 'unknown')) {
      const days = this.coerce(right, 'int', `date ${op} days`);
      if (typeof days.constant !== 'number') throw new SegmentError(`only a constant number of days can be added to a date`, right.pos);
      if (typeof left.constant === 'string') {
        return this.constant('date', formatTimestamp(Date.parse(left.constant + MIDNIGHT) + sign * days.constant * 86_400_000).slice(0, 10), pos);
      }
      return { type: 'date', sql: sql`date(${this.sqlOf(left)}, ${param(`${sign * days.constant} days`)})`, pos };
    }
    if (isTime(left) && isTime(right)) {
      throw new SegmentError(`subtracting timestamps is not supported; compare with NOW() - INTERVAL '…' instead`, pos);
    }
    const [a, b] = this.unify([this.toNumber(left, `"${op}"`), this.toNumber(right, `"${op}"`)], `"${op}"`, pos);
    return { type: a.type, sql: sql`(${this.sqlOf(a)} ${raw(op)} ${this.sqlOf(b)})`, pos };
  }

  private shiftTimestamp(ts: Value, interval: Interval, sign: 1 | -1, pos: number): Value {
    if (typeof ts.constant === 'number') return this.constant('timestamp', addInterval(ts.constant, interval, sign), pos);
    // SQLite's date modifiers apply in order, as Postgres does: months (clamped to the
    // month's last day by 'floor'), then days, then the time part.
    const modifiers: Sql[] = [];
    if (interval.months) modifiers.push(sql`${param(`${sign * interval.months} months`)}`, sql`'floor'`);
    if (interval.days) modifiers.push(sql`${param(`${sign * interval.days} days`)}`);
    if (interval.ms) modifiers.push(sql`${param(`${(sign * interval.ms) / 1000} seconds`)}`);
    if (modifiers.length === 0) return { ...ts, pos };
    return { type: 'timestamp', sql: sql`strftime(${param(TIMESTAMP_FORMAT)}, ${this.sqlOf(ts)}, ${joinSql(modifiers, ', ')})`, pos };
  }

  // ---- JSON ----------------------------------------------------------------------------

  private jsonGet(left: Value, keyNode: Node, op: string, scope: Scope, pos: number): Value {
    if (left.type !== 'json') throw new SegmentError(`"${op}" needs a jsonb value on its left, not ${TYPE_LABEL[left.type]}`, pos);
    const steps = op === '#>' || op === '#>>' ? this.textArray(keyNode, scope, op) : [this.expr(keyNode, scope)];
    let path = left.json?.path ?? '$';
    for (const step of steps) {
      if (step.type === 'int' && typeof step.constant === 'number') {
        path += step.constant >= 0 ? `[${step.constant}]` : `[#${step.constant}]`;
      } else if ((step.type === 'unknown' || step.type === 'text') && typeof step.constant === 'string') {
        path += op.startsWith('#') && /^-?\d+$/.test(step.constant) ? `[${step.constant.startsWith('-') ? '#' : ''}${step.constant}]` : jsonKey(step.constant);
      } else {
        throw new SegmentError(`the key after "${op}" must be a quoted string or an integer`, step.pos);
      }
    }
    const doc = left.json?.doc ?? this.sqlOf(left);
    const subscriberAttribs = left.json?.subscriberAttribs ?? left.subscriberAttribs === true;
    const p = sql`${param(path)}`;
    if (op === '->' || op === '#>') return { type: 'json', sql: sql`(${doc} -> ${p})`, json: { doc, path, subscriberAttribs }, pos };
    // Postgres' ->> gives text for every JSON type; SQLite's gives numbers and 1/0 for true/false.
    return {
      type: 'text',
      jsonTextOf: { doc, subscriberAttribs },
      sql: sql`(CASE json_type(${doc}, ${p}) WHEN 'text' THEN ${doc} ->> ${p} WHEN 'null' THEN NULL ELSE ${doc} -> ${p} END)`,
      pos,
    };
  }

  /** `'{a,b}'` or `ARRAY['a', 'b']`: the right side of #>, ?| and ?&. */
  private textArray(node: Node, scope: Scope, op: string): Value[] {
    if (node.kind === 'array') return node.items.map((item) => this.toText(this.expr(item, scope)));
    if (node.kind === 'string') {
      const m = /^\s*\{(.*)\}\s*$/s.exec(node.value);
      if (!m) throw new SegmentError(`the right side of "${op}" must be an array such as '{a,b}' or ARRAY['a','b']`, node.pos);
      const items = m[1].trim() === '' ? [] : m[1].split(',').map((s) => s.trim().replace(/^"(.*)"$/s, '$1'));
      return items.map((item) => this.constant('text', item, node.pos));
    }
    throw new SegmentError(`the right side of "${op}" must be an array such as '{a,b}' or ARRAY['a','b']`, node.pos);
  }

  private jsonHasAny(left: Value, keysNode: Node, op: string, scope: Scope, pos: number): Value {
    const keys = this.textArray(keysNode, scope, op);
    if (keys.length === 0) return this.constant('bool', op === '?&', pos);
    return this.jsonHas(left, keys, op === '?|' ? 'any' : 'all', pos);
  }

  /** Postgres `?`: a top-level key of an object, a string element of an array, or the string itself. */
  private jsonHas(left: Value, keys: Value[], mode: 'any' | 'all', pos: number): Value {
    const json = this.coerce(left, 'json', '"?"');
    const [doc, path] = this.jsonParts(json);
    const alias = identifier(`j${++this.aliasCount}`);
    const one = (list: Sql) =>
      sql`EXISTS (SELECT 1 FROM json_each(${doc}, ${path}) AS ${alias} WHERE CASE WHEN typeof(${alias}.key) = 'text' THEN ${alias}.key IN (${list}) ELSE ${alias}.type = 'text' AND ${alias}.value IN (${list}) END)`;
    const keySql = keys.map((k) => this.sqlOf(k));
    if (mode === 'any') return this.bool(one(joinSql(keySql, ', ')), pos);
    return this.bool(sql`(${joinSql(keySql.map((k) => one(k)), ' AND ')})`, pos);
  }

  jsonArrayLength(args: Value[], pos: number): Value {
    this.arity('jsonb_array_length', args, 1, 1, pos);
    const [doc, path] = this.jsonParts(this.coerce(args[0], 'json', 'jsonb_array_length'));
    return { type: 'int', sql: sql`(CASE json_type(${doc}, ${path}) WHEN 'array' THEN json_array_length(${doc}, ${path}) END)`, pos };
  }

  jsonTypeof(args: Value[], pos: number): Value {
    this.arity('jsonb_typeof', args, 1, 1, pos);
    const [doc, path] = this.jsonParts(this.coerce(args[0], 'json', 'jsonb_typeof'));
    return {
      type: 'text',
      sql: sql`(CASE json_type(${doc}, ${path}) WHEN 'integer' THEN 'number' WHEN 'real' THEN 'number' WHEN 'text' THEN 'string' WHEN 'true' THEN 'boolean' WHEN 'false' THEN 'boolean' ELSE json_type(${doc}, ${path}) END)`,
      pos,
    };
  }

  // ---- text ----------------------------------------------------------------------------

  private like(exprNode: Node, patternNode: Node, caseInsensitive: boolean, negated: boolean, pos: number, scope: Scope): Value {
    const name = caseInsensitive ? 'ILIKE' : 'LIKE';
    const text = this.sqlOf(this.coerce(this.expr(exprNode, scope), 'text', name));
    const pattern = this.coerce(this.expr(patternNode, scope), 'text', name);
    let match: Sql;
    if (typeof pattern.constant === 'string') {
      const problem = likePatternProblem(pattern.constant);
      if (problem) throw new SegmentError(problem, pattern.pos);
      if (!caseInsensitive) match = sql`(${text} GLOB ${param(likeToGlob(pattern.constant))})`;
      // SQLite's LIKE folds ASCII letters only; with an ASCII pattern that gives ILIKE's result.
      else if (/^[\x00-\x7f]*$/.test(pattern.constant)) match = sql`(${text} LIKE ${param(pattern.constant)} ESCAPE '\\')`;
      else match = sql`${raw(FN.like)}(${text}, ${param(pattern.constant)}, 1)`;
    } else {
      match = sql`${raw(FN.like)}(${text}, ${this.sqlOf(pattern)}, ${param(caseInsensitive ? 1 : 0)})`;
    }
    return this.bool(negated ? sql`(NOT ${match})` : match, pos);
  }

  private regexp(left: Value, right: Value, op: string, pos: number): Value {
    const caseInsensitive = op.endsWith('*');
    const text = this.sqlOf(this.coerce(left, 'text', `"${op}"`));
    const pattern = this.coerce(right, 'text', `"${op}"`);
    if (typeof pattern.constant === 'string') {
      try {
        compileRegexp(pattern.constant, caseInsensitive);
      } catch (e) {
        throw new SegmentError(`invalid regular expression: ${(e as Error).message}`, pattern.pos);
      }
    }
    const match = sql`${raw(FN.regexp)}(${text}, ${this.sqlOf(pattern)}, ${param(caseInsensitive ? 1 : 0)})`;
    return this.bool(op.startsWith('!') ? sql`(NOT ${match})` : match, pos);
  }

  textFunction(fn: string, args: Value[], pos: number): Value {
    this.arity(fn, args, 1, 1, pos);
    return { type: 'text', sql: sql`${raw(fn)}(${this.sqlOf(this.toText(args[0]))})`, pos };
  }

  textLength(args: Value[], pos: number): Value {
    this.arity('length', args, 1, 1, pos);
    return { type: 'int', sql: sql`length(${this.sqlOf(this.toText(args[0]))})`, pos };
  }

  trim(fn: 'trim' | 'ltrim' | 'rtrim', args: Value[], pos: number): Value {
    this.arity(fn, args, 1, 2, pos);
    return { type: 'text', sql: sql`${raw(fn)}(${joinSql(args.map((a) => this.sqlOf(this.toText(a))), ', ')})`, pos };
  }

  substring(args: Value[], pos: number): Value {
    this.arity('substring', args, 2, 3, pos);
    const [s, ...rest] = args;
    const numbers = rest.map((a) => this.sqlOf(this.coerce(a, 'int', 'substring')));
    return { type: 'text', sql: sql`substr(${joinSql([this.sqlOf(this.toText(s)), ...numbers], ', ')})`, pos };
  }

  // ---- other functions -----------------------------------------------------------------

  arity(name: string, args: Value[], min: number, max: number, pos: number): void {
    if (args.length < min || args.length > max) {
      const expected = min === max ? `${min}` : `${min} to ${max}`;
      throw new SegmentError(`${name}() takes ${expected} argument${max === 1 ? '' : 's'}, not ${args.length}`, pos);
    }
  }

  niladic(args: Value[], pos: number, make: () => Value): Value {
    if (args.length > 0) throw new SegmentError('this function takes no arguments', pos);
    return make();
  }

  variadicSameType(name: string, fn: string, args: Value[], pos: number): Value {
    if (args.length === 0) throw new SegmentError(`${name}() needs at least one argument`, pos);
    const values = this.unify(args, name, pos);
    // SQLite's coalesce() wants two or more arguments; with one it is the value itself.
    if (values.length === 1) return { ...values[0], pos };
    return { type: values[0].type, sql: sql`${raw(fn)}(${joinSql(values.map((v) => this.sqlOf(v)), ', ')})`, pos };
  }

  numericFunction(fn: string, args: Value[], pos: number, keepType: boolean): Value {
    this.arity(fn, args, 1, 1, pos);
    const n = this.toNumber(args[0], fn);
    return { type: keepType ? n.type : 'numeric', sql: sql`${raw(fn)}(${this.sqlOf(n)})`, pos };
  }

  constantText(v: Value, context: string): string {
    if (typeof v.constant !== 'string') throw new SegmentError(`${context}() needs a quoted field name as its first argument`, v.pos);
    return v.constant.toLowerCase();
  }

  extract(field: string, source: Value, pos: number): Value {
    const rule = Object.hasOwn(EXTRACT_FIELDS, field) ? EXTRACT_FIELDS[field] : undefined;
    if (!rule) throw new SegmentError(`unsupported date field "${field}" (supported: ${Object.keys(EXTRACT_FIELDS).join(', ')})`, pos);
    const ts = this.coerce(source, 'timestamp', 'EXTRACT');
    return { type: 'numeric', sql: rule(this.sqlOf(ts)), pos };
  }

  dateTrunc(args: Value[], pos: number): Value {
    this.arity('date_trunc', args, 2, 2, pos);
    const unit = this.constantText(args[0], 'date_trunc');
    const ts = this.sqlOf(this.coerce(args[1], 'timestamp', 'date_trunc'));
    if (unit === 'week') {
      // The Monday on or before the day.
      return { type: 'timestamp', sql: sql`strftime('%Y-%m-%dT00:00:00.000Z', ${ts}, '-6 days', 'weekday 1')`, pos };
    }
    const format = Object.hasOwn(TRUNCATE_FORMATS, unit) ? TRUNCATE_FORMATS[unit] : undefined;
    if (!format) throw new SegmentError(`unsupported date_trunc unit "${unit}" (supported: week, ${Object.keys(TRUNCATE_FORMATS).join(', ')})`, args[0].pos);
    return { type: 'timestamp', sql: sql`strftime(${param(format)}, ${ts})`, pos };
  }

  private caseExpression(node: Extract<Node, { kind: 'case' }>, scope: Scope): Value {
    let conditions: Sql[];
    if (node.operand) {
      const values = this.unify([this.expr(node.operand, scope), ...node.whens.map((w) => this.expr(w.when, scope))], 'CASE', node.pos);
      const [operand, ...whens] = values.map((v) => this.sqlOf(v));
      conditions = whens.map((w) => sql`${operand} = ${w}`);
    } else {
      conditions = node.whens.map((w) => this.condition(w.when, scope, 'CASE WHEN'));
    }
    const values = this.unify(
      [...node.whens.map((w) => this.expr(w.then, scope)), ...(node.otherwise ? [this.expr(node.otherwise, scope)] : [])],
      'CASE',
      node.pos,
    );
    const results = values.map((v) => this.sqlOf(v));
    const type = values[0].type;
    const branches = conditions.map((c, i) => sql`WHEN ${c} THEN ${results[i]}`);
    const otherwise = node.otherwise ? sql` ELSE ${results[results.length - 1]}` : sql``;
    return { type, sql: sql`(CASE ${joinSql(branches, ' ')}${otherwise} END)`, pos: node.pos };
  }

  // ---- subqueries ----------------------------------------------------------------------

  private select(query: Select, outer: Scope, forExists: boolean): { sql: Sql; output: Value } {
    const columns = Object.hasOwn(SUBQUERY_TABLES, query.table) ? SUBQUERY_TABLES[query.table] : undefined;
    if (!columns) {
      throw new SegmentError(
        `table "${query.table}" is not allowed in a segment (allowed: ${Object.keys(SUBQUERY_TABLES).join(', ')})`,
        query.tablePos,
      );
    }
    const missing = Object.hasOwn(this.access.refusedTables, query.table) ? this.access.refusedTables[query.table] : undefined;
    if (missing) throw new SegmentError(`table "${query.table}" needs the ${missing} permission`, query.tablePos);
    const depth = outer.depth + 1;
    if (depth > LIMITS.segmentSubqueryDepth) {
      throw new SegmentError(`subqueries are nested more than ${LIMITS.segmentSubqueryDepth} levels deep (the segment nesting limit)`, query.pos);
    }
    const scope: Scope = { name: query.alias ?? query.table, columns, sqlAlias: `t${++this.aliasCount}`, parent: outer, depth };
    let output: Value;
    if (query.output === null) {
      if (!forExists) throw new SegmentError('SELECT * is only allowed inside EXISTS', query.pos);
      output = this.constant('int', 1, query.pos);
    } else {
      output = this.expr(query.output, scope);
    }
    // Each row a subquery reads passes a checkpoint first: subqueries multiply the rows read,
    // and checkpoints are where a deadline can stop the statement.
    const conditions = [checkpoint(sql`${identifier(scope.sqlAlias)}.${identifier(Object.keys(columns)[0])}`)];
    const listColumn = Object.hasOwn(LIST_COLUMNS, query.table) ? LIST_COLUMNS[query.table] : undefined;
    if (listColumn && this.access.lists !== 'all') {
      conditions.push(sql`${identifier(scope.sqlAlias)}.${identifier(listColumn)} IN (SELECT value FROM json_each(${param(JSON.stringify(this.access.lists))}))`);
    }
    if (query.where) conditions.push(sql`(${this.condition(query.where, scope, 'WHERE')})`);
    const distinct = query.distinct ? 'DISTINCT ' : '';
    return {
      sql: sql`SELECT ${raw(distinct)}${this.sqlOf(output)} FROM ${identifier(query.table)} AS ${identifier(scope.sqlAlias)} WHERE ${joinSql(conditions, ' AND ')}`,
      output,
    };
  }
}

/** About one row in this many passes through a checkpoint's call into JavaScript. */
const CHECKPOINT_EVERY = 16;

/**
 * Always true; on a random one of about CHECKPOINT_EVERY rows it calls into JavaScript. A
 * worker thread's termination stops a running statement only when the statement calls
 * JavaScript, so these calls are where a deadline takes effect. Random, so that no choice of
 * rows avoids them; rare, so that they cost next to nothing. `rowColumn`, a column of the
 * table whose rows are counted, makes SQLite evaluate it for each row (without one, it does
 * so once per run of a subquery).
 */
function checkpoint(rowColumn: Sql): Sql {
  return sql`(random() % ${raw(String(CHECKPOINT_EVERY))} <> 0 OR ${raw(FN.checkpoint)}(${rowColumn}))`;
}

/** SQL text written in this file (keywords, registered function names), never user input. */
function raw(text: string): Sql {
  return new Sql([text]);
}

/** A JSON path step for an object key, quoted so that any key is read literally. */
function jsonKey(key: string): string {
  return `."${key.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

/** A Postgres LIKE pattern as an equivalent case-sensitive GLOB pattern. */
function likeToGlob(pattern: string): string {
  let glob = '';
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (c === '\\') glob += globLiteral(chars[++i]);
    else if (c === '%') glob += '*';
    else if (c === '_') glob += '?';
    else glob += globLiteral(c);
  }
  return glob;
}

function globLiteral(c: string): string {
  return c === '*' || c === '?' || c === '[' ? `[${c}]` : c;
}

/** The operands of a chain of one logical operator, in order: `a OR b OR c` → [a, b, c]. */
// Characters JSON writes escaped, or that only occur in the text of objects and arrays.
const NOT_VERBATIM_IN_JSON = /[\u0000-\u001f"\\[\]{}:,]/;

/**
 * For `doc ->> path = 'c'`: `c` or a backslash occurs in the document text. The JSON text of a
 * value whose ->> text is c holds c itself (a string, a number, true/false) unless the string
 * is written with escapes, which need a backslash; so no matching row fails this. Only for
 * constants without characters JSON escapes or uses for structure.
 */
function textPrefilter(v: Value, other: Value): Sql | null {
  if (!v.jsonTextOf || typeof other.constant !== 'string') return null;
  const c = other.constant;
  if (c === '' || NOT_VERBATIM_IN_JSON.test(c)) return null;
  const { doc } = v.jsonTextOf;
  return sql`(instr(${doc}, ${param(c)}) > 0 OR instr(${doc}, ${param('\\')}) > 0)`;
}

function flattenLogical(node: Node, op: 'and' | 'or'): Node[] {
  const operands: Node[] = [];
  const pending: Node[] = [node];
  for (let n = pending.pop(); n; n = pending.pop()) {
    if (n.kind === 'binary' && isLogical(n, op)) pending.push(n.right, n.left);
    else operands.push(n);
  }
  return operands;
}

/** `(a OR b) OR (c OR d)`: the same truth value as a flat chain, with a depth of log2(n). */
function balanced(operands: Sql[], keyword: string): Sql {
  if (operands.length === 1) return operands[0];
  const middle = Math.ceil(operands.length / 2);
  return sql`(${balanced(operands.slice(0, middle), keyword)} ${raw(keyword)} ${balanced(operands.slice(middle), keyword)})`;
}

const COMPARISONS = new Set(['=', '<>', '<', '>', '<=', '>=']);

/**
 * The form an unknown name of the subscribers row probably meant: a column of a table about
 * subscribers (list_id, campaign_id…) read through a subquery, else an attribute.
 */
function columnHint(name: string, written: string): string {
  for (const [table, columns] of Object.entries(SUBQUERY_TABLES)) {
    if (Object.hasOwn(columns, name) && Object.hasOwn(columns, 'subscriber_id') && name !== 'subscriber_id') {
      return `did you mean subscribers.id IN (SELECT subscriber_id FROM ${table} WHERE ${name} = …)?`;
    }
  }
  return `did you mean subscribers.attribs->>'${written || name}'?`;
}
