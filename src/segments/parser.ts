import { children, isLogical, type Node, type Select } from './ast.ts';
import { SegmentError } from './errors.ts';
import { tokenize, type Token } from './lexer.ts';

export const MAX_NESTING = 64;

// Words that cannot name a column: the grammar's own keywords.
const RESERVED = new Set([
  'all', 'and', 'any', 'array', 'as', 'asc', 'between', 'by', 'case', 'current_date', 'current_timestamp',
  'desc', 'distinct', 'else', 'end', 'escape', 'except', 'exists', 'false', 'from', 'group', 'having',
  'ilike', 'in', 'intersect', 'interval', 'is', 'isnull', 'join', 'like', 'limit', 'not', 'notnull',
  'null', 'offset', 'on', 'or', 'order', 'select', 'similar', 'symmetric', 'then', 'true', 'union',
  'when', 'where', 'window', 'with',
]);

// Statement words refused with a message of their own: they can only be an attempt to do
// something other than filter subscribers.
const STATEMENT_WORDS = new Set([
  'alter', 'analyze', 'attach', 'begin', 'call', 'commit', 'copy', 'create', 'delete', 'detach',
  'do', 'drop', 'execute', 'explain', 'grant', 'insert', 'merge', 'pragma', 'reindex', 'release',
  'replace', 'returning', 'revoke', 'rollback', 'savepoint', 'set', 'truncate', 'update', 'vacuum',
]);

const COMPARISON = new Set(['=', '<>', '<', '>', '<=', '>=']);
// Postgres puts every operator without a precedence of its own on one level, between the
// additive operators and LIKE/IN/BETWEEN, left-associative.
const OTHER_OPERATORS = new Set(['->', '->>', '#>', '#>>', '?', '?|', '?&', '@>', '<@', '~', '~*', '!~', '!~*', '||']);

/** Parses a segment expression into its syntax tree; throws SegmentError on anything else. */
export function parseSegment(input: string): Node {
  const parser = new Parser(tokenize(input));
  if (parser.peek().kind === 'end') throw new SegmentError('the expression is empty', 0);
  const node = parser.expression();
  const rest = parser.peek();
  if (rest.kind !== 'end') throw parser.unexpected(rest);
  checkDepth(node);
  return node;
}

/**
 * Long operator chains (`a + b + c …`) are deep trees without any parentheses; SQLite refuses
 * expressions deeper than 1000 when the statement is prepared, so the depth is bounded here.
 * A chain of ANDs or of ORs counts as one level: the translator balances it.
 */
function checkDepth(root: Node): void {
  const stack: [Node, number][] = [[root, 1]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [node, depth] = item;
    if (depth > MAX_NESTING) throw new SegmentError(`the expression is nested more than ${MAX_NESTING} levels deep`, node.pos);
    for (const child of children(node)) {
      const sameChain = (isLogical(node, 'and') && isLogical(child, 'and')) || (isLogical(node, 'or') && isLogical(child, 'or'));
      stack.push([child, sameChain ? depth : depth + 1]);
    }
  }
}

class Parser {
  private index = 0;
  private depth = 0;

  constructor(private readonly tokens: Token[]) {}

  peek(offset = 0): Token {
    return this.tokens[Math.min(this.index + offset, this.tokens.length - 1)];
  }

  private next(): Token {
    const token = this.peek();
    if (token.kind !== 'end') this.index++;
    return token;
  }

  private isWord(word: string, offset = 0): boolean {
    const t = this.peek(offset);
    return t.kind === 'ident' && t.value === word;
  }

  private acceptWord(word: string): Token | null {
    return this.isWord(word) ? this.next() : null;
  }

  private expectWord(word: string): Token {
    const t = this.peek();
    if (!this.isWord(word)) throw new SegmentError(`expected ${word.toUpperCase()} but found ${describe(t)}`, t.pos);
    return this.next();
  }

  private isSymbol(symbol: string, offset = 0): boolean {
    const t = this.peek(offset);
    return (t.kind === 'punct' || t.kind === 'op') && t.value === symbol;
  }

  private acceptSymbol(symbol: string): Token | null {
    return this.isSymbol(symbol) ? this.next() : null;
  }

  private expectSymbol(symbol: string): Token {
    const t = this.peek();
    if (!this.isSymbol(symbol)) throw new SegmentError(`expected "${symbol}" but found ${describe(t)}`, t.pos);
    return this.next();
  }

  unexpected(t: Token): SegmentError {
    if (t.kind === 'ident' && STATEMENT_WORDS.has(t.value)) {
      return new SegmentError(`"${t.value}" is not allowed in a segment expression`, t.pos);
    }
    if (t.kind === 'punct' && t.value === ')') return new SegmentError('unbalanced ")"', t.pos);
    return new SegmentError(`unexpected ${describe(t)}`, t.pos);
  }

  private nested<T>(pos: number, parse: () => T): T {
    if (++this.depth > MAX_NESTING) throw new SegmentError(`the expression is nested more than ${MAX_NESTING} levels deep`, pos);
    try {
      return parse();
    } finally {
      this.depth--;
    }
  }

  expression(): Node {
    return this.nested(this.peek().pos, () => this.or());
  }

  private or(): Node {
    let left = this.and();
    for (let op = this.acceptWord('or'); op; op = this.acceptWord('or')) {
      left = { kind: 'binary', op: 'or', left, right: this.and(), pos: op.pos };
    }
    return left;
  }

  private and(): Node {
    let left = this.not();
    for (let op = this.acceptWord('and'); op; op = this.acceptWord('and')) {
      left = { kind: 'binary', op: 'and', left, right: this.not(), pos: op.pos };
    }
    return left;
  }

  private not(): Node {
    const op = this.acceptWord('not');
    if (op) return this.nested(op.pos, () => ({ kind: 'unary', op: 'not', expr: this.not(), pos: op.pos }));
    return this.is();
  }

  private is(): Node {
    let expr = this.comparison();
    for (;;) {
      const t = this.peek();
      if (this.acceptWord('isnull')) expr = { kind: 'is', expr, test: 'null', negated: false, pos: t.pos };
      else if (this.acceptWord('notnull')) expr = { kind: 'is', expr, test: 'null', negated: true, pos: t.pos };
      else if (this.acceptWord('is')) {
        const negated = this.acceptWord('not') !== null;
        if (this.acceptWord('distinct')) {
          this.expectWord('from');
          expr = { kind: 'distinct_from', left: expr, right: this.comparison(), negated, pos: t.pos };
        } else {
          const what = this.next();
          if (what.kind !== 'ident' || !['null', 'true', 'false'].includes(what.value)) {
            throw new SegmentError(`expected NULL, TRUE, FALSE or DISTINCT FROM after IS but found ${describe(what)}`, what.pos);
          }
          expr = { kind: 'is', expr, test: what.value as 'null' | 'true' | 'false', negated, pos: t.pos };
        }
      } else return expr;
    }
  }

  private comparison(): Node {
    const left = this.predicate();
    const t = this.peek();
    if (t.kind !== 'op' || !COMPARISON.has(t.value)) return left;
    this.next();
    const node: Node = { kind: 'binary', op: t.value, left, right: this.predicate(), pos: t.pos };
    const after = this.peek();
    if (after.kind === 'op' && COMPARISON.has(after.value)) {
      throw new SegmentError(`comparison operators cannot be chained ("${after.value}")`, after.pos);
    }
    return node;
  }

  // LIKE, ILIKE, BETWEEN, IN: one level above the comparisons, as in Postgres.
  private predicate(): Node {
    const expr = this.otherOperators();
    const start = this.peek();
    const negated = this.isWord('not') && ['like', 'ilike', 'between', 'in', 'similar'].some((w) => this.isWord(w, 1));
    if (negated) this.next();
    const t = this.peek();
    if (this.acceptWord('like') || this.acceptWord('ilike')) {
      const pattern = this.otherOperators();
      if (this.isWord('escape')) throw new SegmentError('ESCAPE is not supported; the escape character is "\\"', this.peek().pos);
      return { kind: 'like', expr, pattern, caseInsensitive: t.value === 'ilike', negated, pos: t.pos };
    }
    if (this.acceptWord('between')) {
      const symmetric = this.acceptWord('symmetric') !== null;
      const low = this.otherOperators();
      this.expectWord('and');
      return { kind: 'between', expr, low, high: this.otherOperators(), symmetric, negated, pos: t.pos };
    }
    if (this.acceptWord('in')) {
      const open = this.expectSymbol('(');
      if (this.isWord('select')) {
        const query = this.nested(open.pos, () => this.select());
        this.expectSymbol(')');
        return { kind: 'in_query', expr, query, negated, pos: t.pos };
      }
      const items = this.list(')');
      return { kind: 'in_list', expr, items, negated, pos: t.pos };
    }
    if (this.isWord('similar')) throw new SegmentError('SIMILAR TO is not supported; use "~"', t.pos);
    if (negated) throw this.unexpected(start);
    return expr;
  }

  private otherOperators(): Node {
    let left = this.additive();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !OTHER_OPERATORS.has(t.value)) return left;
      this.next();
      left = { kind: 'binary', op: t.value, left, right: this.additive(), pos: t.pos };
    }
  }

  private additive(): Node {
    let left = this.multiplicative();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || (t.value !== '+' && t.value !== '-')) return left;
      this.next();
      left = { kind: 'binary', op: t.value, left, right: this.multiplicative(), pos: t.pos };
    }
  }

  private multiplicative(): Node {
    let left = this.power();
    for (;;) {
      const t = this.peek();
      if (t.kind !== 'op' || !['*', '/', '%'].includes(t.value)) return left;
      this.next();
      left = { kind: 'binary', op: t.value, left, right: this.power(), pos: t.pos };
    }
  }

  private power(): Node {
    let left = this.unary();
    for (let t = this.acceptSymbol('^'); t; t = this.acceptSymbol('^')) {
      left = { kind: 'binary', op: '^', left, right: this.unary(), pos: t.pos };
    }
    return left;
  }

  private unary(): Node {
    const t = this.peek();
    if (t.kind === 'op' && (t.value === '-' || t.value === '+')) {
      this.next();
      return this.nested(t.pos, () => ({ kind: 'unary', op: t.value as '-' | '+', expr: this.unary(), pos: t.pos }));
    }
    return this.cast();
  }

  private cast(): Node {
    let expr = this.primary();
    for (let t = this.acceptSymbol('::'); t; t = this.acceptSymbol('::')) {
      expr = { kind: 'cast', expr, type: this.typeName(), pos: t.pos };
    }
    return expr;
  }

  /** A type name as Postgres spells it, normalised: `double precision`, `timestamptz`, `varchar`… */
  private typeName(): string {
    const t = this.next();
    if (t.kind !== 'ident' && t.kind !== 'quoted_ident') throw new SegmentError(`expected a type name but found ${describe(t)}`, t.pos);
    let name = t.value.toLowerCase();
    if (name === 'double') {
      this.expectWord('precision');
      name = 'double precision';
    } else if (name === 'character' && this.acceptWord('varying')) {
      name = 'varchar';
    } else if (name === 'timestamp' || name === 'time') {
      if (this.isWord('with') || this.isWord('without')) {
        const withZone = this.next().value === 'with';
        this.expectWord('time');
        this.expectWord('zone');
        if (withZone && name === 'timestamp') name = 'timestamptz';
      }
    }
    if (this.acceptSymbol('(')) {
      // Length / precision modifiers (`varchar(255)`, `numeric(10,2)`) do not change the result here.
      do {
        const n = this.next();
        if (n.kind !== 'number') throw new SegmentError(`expected a number but found ${describe(n)}`, n.pos);
      } while (this.acceptSymbol(','));
      this.expectSymbol(')');
    }
    if (this.isSymbol('[')) throw new SegmentError('array types are not supported', this.peek().pos);
    return name;
  }

  private list(close: string): Node[] {
    const items: Node[] = [];
    if (this.acceptSymbol(close)) return items;
    do items.push(this.expression());
    while (this.acceptSymbol(','));
    this.expectSymbol(close);
    return items;
  }

  private primary(): Node {
    const t = this.peek();
    switch (t.kind) {
      case 'string':
        this.next();
        return { kind: 'string', value: t.value, pos: t.pos };
      case 'number':
        this.next();
        return { kind: 'number', text: t.value, pos: t.pos };
      case 'quoted_ident':
        return this.columnOrCall();
      case 'punct':
        if (t.value === '(') {
          this.next();
          if (this.isWord('select')) {
            throw new SegmentError('a subquery is only allowed after IN or EXISTS', this.peek().pos);
          }
          const inner = this.expression();
          this.expectSymbol(')');
          return inner;
        }
        throw this.unexpected(t);
      case 'ident':
        return this.word(t);
      default:
        throw this.unexpected(t);
    }
  }

  private word(t: Token): Node {
    switch (t.value) {
      case 'null':
        this.next();
        return { kind: 'null', pos: t.pos };
      case 'true':
      case 'false':
        this.next();
        return { kind: 'bool', value: t.value === 'true', pos: t.pos };
      case 'current_date':
      case 'current_timestamp':
        this.next();
        return { kind: 'call', name: t.value, args: [], star: false, pos: t.pos };
      case 'interval': {
        this.next();
        const text = this.next();
        if (text.kind !== 'string') throw new SegmentError(`expected a quoted interval such as '30 days' but found ${describe(text)}`, text.pos);
        return { kind: 'interval', text: text.value, pos: t.pos };
      }
      case 'array': {
        this.next();
        this.expectSymbol('[');
        return { kind: 'array', items: this.list(']'), pos: t.pos };
      }
      case 'exists': {
        this.next();
        const open = this.expectSymbol('(');
        if (!this.isWord('select')) throw new SegmentError(`expected SELECT but found ${describe(this.peek())}`, this.peek().pos);
        const query = this.nested(open.pos, () => this.select());
        this.expectSymbol(')');
        return { kind: 'exists', query, pos: t.pos };
      }
      case 'case':
        return this.caseExpression();
    }
    // `DATE '2024-01-01'`, `TIMESTAMP '…'`, `JSONB '…'`: a literal of a named type.
    if (this.peek(1).kind === 'string') {
      this.next();
      return { kind: 'typed_literal', type: t.value, value: this.next().value, pos: t.pos };
    }
    if (RESERVED.has(t.value) || (STATEMENT_WORDS.has(t.value) && !this.isSymbol('(', 1))) throw this.unexpected(t);
    return this.columnOrCall();
  }

  private caseExpression(): Node {
    const start = this.next();
    return this.nested(start.pos, () => {
      const operand = this.isWord('when') ? null : this.expression();
      const whens: { when: Node; then: Node }[] = [];
      while (this.acceptWord('when')) {
        const when = this.expression();
        this.expectWord('then');
        whens.push({ when, then: this.expression() });
      }
      if (whens.length === 0) throw new SegmentError(`expected WHEN but found ${describe(this.peek())}`, this.peek().pos);
      const otherwise = this.acceptWord('else') ? this.expression() : null;
      this.expectWord('end');
      return { kind: 'case', operand, whens, otherwise, pos: start.pos };
    });
  }

  private columnOrCall(): Node {
    const first = this.next();
    if (first.kind === 'ident' && this.isSymbol('(')) return this.call(first);
    if (this.acceptSymbol('.')) {
      const second = this.next();
      if (second.kind !== 'ident' && second.kind !== 'quoted_ident') {
        throw new SegmentError(`expected a column name after "${first.value}." but found ${describe(second)}`, second.pos);
      }
      if (this.isSymbol('(')) throw new SegmentError(`unknown function "${first.value}.${second.value}"`, first.pos);
      if (this.isSymbol('.')) throw new SegmentError('names with more than two parts are not allowed', this.peek().pos);
      return { kind: 'column', table: first.value, name: second.value, pos: first.pos };
    }
    return { kind: 'column', table: null, name: first.value, pos: first.pos };
  }

  private call(name: Token): Node {
    const open = this.expectSymbol('(');
    return this.nested(open.pos, (): Node => {
      if (name.value === 'extract') {
        const field = this.next();
        if (field.kind !== 'ident' && field.kind !== 'string') throw new SegmentError(`expected a field name but found ${describe(field)}`, field.pos);
        this.expectWord('from');
        const source = this.expression();
        this.expectSymbol(')');
        return { kind: 'extract', field: field.value.toLowerCase(), source, pos: name.pos };
      }
      if (this.isSymbol('*') && this.isSymbol(')', 1)) {
        this.next();
        this.next();
        return { kind: 'call', name: name.value, args: [], star: true, pos: name.pos };
      }
      if (this.isWord('distinct')) throw new SegmentError('DISTINCT inside a function call is not supported', this.peek().pos);
      return { kind: 'call', name: name.value, args: this.list(')'), star: false, pos: name.pos };
    });
  }

  private select(): Select {
    const start = this.expectWord('select');
    const distinct = this.acceptWord('distinct') !== null;
    let output: Node | null = null;
    if (!this.acceptSymbol('*')) output = this.expression();
    if (this.isSymbol(',')) throw new SegmentError('a subquery must select exactly one column', this.peek().pos);
    this.expectWord('from');
    const table = this.next();
    if (table.kind !== 'ident' && table.kind !== 'quoted_ident') throw new SegmentError(`expected a table name but found ${describe(table)}`, table.pos);
    if (this.isSymbol('.')) throw new SegmentError('schema-qualified table names are not allowed', this.peek().pos);
    if (this.isSymbol('(')) throw new SegmentError(`table functions ("${table.value}") are not allowed`, table.pos);
    let alias: string | null = null;
    if (this.acceptWord('as')) alias = this.aliasName();
    else if (this.peek().kind === 'quoted_ident' || (this.peek().kind === 'ident' && !RESERVED.has(this.peek().value) && !STATEMENT_WORDS.has(this.peek().value))) alias = this.aliasName();
    if (this.isSymbol(',') || this.isWord('join')) throw new SegmentError('joins are not allowed in a subquery; nest another IN (SELECT …) instead', this.peek().pos);
    const where = this.acceptWord('where') ? this.expression() : null;
    const after = this.peek();
    if (!this.isSymbol(')')) {
      if (after.kind === 'ident' && ['group', 'order', 'limit', 'offset', 'union', 'except', 'intersect', 'having'].includes(after.value)) {
        throw new SegmentError(`${after.value.toUpperCase()} is not supported in a subquery`, after.pos);
      }
      throw this.unexpected(after);
    }
    return { distinct, output, table: table.value, tablePos: table.pos, alias, where, pos: start.pos };
  }

  private aliasName(): string {
    const t = this.next();
    if ((t.kind !== 'ident' && t.kind !== 'quoted_ident') || RESERVED.has(t.value)) {
      throw new SegmentError(`expected an alias but found ${describe(t)}`, t.pos);
    }
    return t.value;
  }
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'end':
      return 'the end of the expression';
    case 'string':
      return `'${t.value.length > 30 ? `${t.value.slice(0, 30)}…` : t.value}'`;
    default:
      return `"${t.value}"`;
  }
}
