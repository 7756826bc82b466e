// Lexer and parser for Go text/template syntax. Produces a tree per template name; variables
// are resolved to frame slots here (Go scoping: a variable lives until the {{end}} of the
// control structure that declared it).

import { TemplateError, errorPrefix } from './errors.ts';

export type Arg =
  | { t: 'field'; pos: number; end: number; names: string[] }
  | { t: 'var'; pos: number; end: number; name: string; slot: number; names: string[] }
  | { t: 'dot'; pos: number; end: number }
  | { t: 'nil'; pos: number; end: number }
  | { t: 'ident'; pos: number; end: number; name: string }
  | { t: 'chain'; pos: number; end: number; node: Arg; names: string[] }
  | { t: 'pipe'; pos: number; end: number; pipe: Pipe }
  | { t: 'lit'; pos: number; end: number; value: string | bigint | number | boolean };

export interface Cmd {
  pos: number;
  end: number;
  args: Arg[];
}

export interface Pipe {
  pos: number;
  end: number;
  /** Slots of declared (`:=`) or assigned (`=`) variables. */
  decl: number[];
  isAssign: boolean;
  cmds: Cmd[];
}

export type Node =
  | { t: 'text'; pos: number; text: string }
  | { t: 'action'; pos: number; pipe: Pipe }
  | { t: 'if' | 'with' | 'range'; pos: number; pipe: Pipe; list: Node[]; elseList: Node[] | null }
  | { t: 'template'; pos: number; name: string; pipe: Pipe | null }
  | { t: 'break' | 'continue'; pos: number };

export interface Tree {
  name: string;
  /** Name under which errors are reported (the top-level template that was parsed). */
  parseName: string;
  source: string;
  list: Node[];
  /** Number of variable slots (slot 0 is `$`). */
  slots: number;
}

type TokKind =
  | 'text' | 'left' | 'right' | 'ident' | 'field' | 'var' | 'dot' | 'string' | 'char' | 'number'
  | 'bool' | 'nil' | 'pipe' | 'lparen' | 'rparen' | 'assign' | 'declare' | 'comma' | 'charOther'
  | 'keyword' | 'comment' | 'eof';

interface Tok {
  k: TokKind;
  v: string;
  pos: number;
  end: number;
  /** Preceded by white space inside an action. */
  sp: boolean;
  /** For 'left'/'right': trim marker present. */
  trim?: boolean;
}

const KEYWORDS = new Set(['if', 'else', 'end', 'range', 'with', 'define', 'template', 'block', 'break', 'continue']);

function isSpace(c: string): boolean {
  return c === ' ' || c === '\t' || c === '\r' || c === '\n';
}

function isAlnum(c: string | undefined): boolean {
  if (c === undefined) return false;
  return /[\p{L}\p{Nd}_]/u.test(c);
}

class Lexer {
  readonly toks: Tok[] = [];
  constructor(private readonly src: string, private readonly fail: (pos: number, msg: string) => never) {
    this.run();
  }

  private run(): void {
    const src = this.src;
    let i = 0;
    while (i < src.length) {
      const open = src.indexOf('{{', i);
      if (open < 0) {
        this.toks.push({ k: 'text', v: src.slice(i), pos: i, end: src.length, sp: false });
        i = src.length;
        break;
      }
      const trimLeft = src[open + 2] === '-' && isSpace(src[open + 3] ?? '');
      let textEnd = open;
      if (trimLeft) while (textEnd > i && isSpace(src[textEnd - 1])) textEnd--;
      if (textEnd > i) this.toks.push({ k: 'text', v: src.slice(i, textEnd), pos: i, end: textEnd, sp: false });
      let p = open + 2 + (trimLeft ? 2 : 0);
      // Comment: must start right after the delimiter (and trim marker).
      if (src.startsWith('/*', p)) {
        const close = src.indexOf('*/', p + 2);
        if (close < 0) this.fail(open, 'unclosed comment');
        let q = close + 2;
        let trimRight = false;
        if (src[q] !== undefined && isSpace(src[q]) && src.startsWith('-}}', q + 1)) {
          trimRight = true;
          q += 1;
        }
        if (trimRight) q += 3;
        else if (src.startsWith('}}', q)) q += 2;
        else this.fail(close, 'comment ends before closing delimiter');
        i = q;
        if (trimRight) while (i < src.length && isSpace(src[i])) i++;
        continue;
      }
      this.toks.push({ k: 'left', v: '{{', pos: open, end: p, sp: false, trim: trimLeft });
      i = this.lexAction(p);
    }
    this.toks.push({ k: 'eof', v: '', pos: src.length, end: src.length, sp: false });
  }

  /** Lexes inside an action starting at p; returns the index after the closing delimiter. */
  private lexAction(p: number): number {
    const src = this.src;
    let sp = false;
    let parens = 0;
    for (;;) {
      if (p >= src.length) this.fail(p, 'unclosed action');
      const c = src[p];
      // Right delimiter with optional trim marker.
      if (isSpace(c) && src.startsWith('-}}', p + 1)) {
        this.toks.push({ k: 'right', v: '}}', pos: p + 1, end: p + 4, sp: true, trim: true });
        p += 4;
        while (p < src.length && isSpace(src[p])) p++;
        return p;
      }
      if (src.startsWith('}}', p)) {
        if (parens > 0) this.fail(p, 'unclosed left paren');
        this.toks.push({ k: 'right', v: '}}', pos: p, end: p + 2, sp, trim: false });
        return p + 2;
      }
      if (isSpace(c)) {
        sp = true;
        p++;
        continue;
      }
      const start = p;
      const push = (k: TokKind, end: number, v = src.slice(start, end)) => {
        this.toks.push({ k, v, pos: start, end, sp });
        sp = false;
        p = end;
      };
      if (c === '|') { push('pipe', p + 1); continue; }
      if (c === '(') { parens++; push('lparen', p + 1); continue; }
      if (c === ')') {
        parens--;
        if (parens < 0) this.fail(p, `unexpected right paren`);
        push('rparen', p + 1);
        continue;
      }
      if (c === ',') { push('comma', p + 1); continue; }
      if (c === ':' ) {
        if (src[p + 1] !== '=') this.fail(p, 'expected :=');
        push('declare', p + 2);
        continue;
      }
      if (c === '=') { push('assign', p + 1); continue; }
      if (c === '"') {
        let q = p + 1;
        for (;;) {
          const d = src[q];
          if (d === undefined || d === '\n') this.fail(start, 'unterminated quoted string');
          if (d === '\\') { q += 2; continue; }
          if (d === '"') break;
          q++;
        }
        push('string', q + 1);
        continue;
      }
      if (c === '`') {
        const q = src.indexOf('`', p + 1);
        if (q < 0) this.fail(start, 'unterminated raw quoted string');
        push('string', q + 1);
        continue;
      }
      if (c === "'") {
        let q = p + 1;
        for (;;) {
          const d = src[q];
          if (d === undefined || d === '\n') this.fail(start, 'unterminated character constant');
          if (d === '\\') { q += 2; continue; }
          if (d === "'") break;
          q++;
        }
        push('char', q + 1);
        continue;
      }
      if (c === '$') {
        let q = p + 1;
        while (isAlnum(src[q])) q++;
        push('var', q);
        continue;
      }
      if (c === '.') {
        const n = src[p + 1];
        if (n !== undefined && n >= '0' && n <= '9') {
          push('number', this.scanNumber(p));
          continue;
        }
        if (isAlnum(n)) {
          let q = p + 1;
          while (isAlnum(src[q])) q++;
          push('field', q);
          continue;
        }
        push('dot', p + 1);
        continue;
      }
      if ((c >= '0' && c <= '9') || ((c === '-' || c === '+') && /[0-9.]/.test(src[p + 1] ?? ''))) {
        push('number', this.scanNumber(p));
        continue;
      }
      if (isAlnum(c)) {
        let q = p;
        while (isAlnum(src[q])) q++;
        const word = src.slice(p, q);
        if (word === 'true' || word === 'false') push('bool', q);
        else if (word === 'nil') push('nil', q);
        else if (KEYWORDS.has(word)) push('keyword', q);
        else push('ident', q);
        continue;
      }
      push('charOther', p + String.fromCodePoint(src.codePointAt(p)!).length);
    }
  }

  private scanNumber(p: number): number {
    const src = this.src;
    let q = p;
    if (src[q] === '+' || src[q] === '-') q++;
    while (q < src.length && /[0-9a-zA-Z_.+\-]/.test(src[q])) {
      // Signs are part of a number only right after an exponent marker.
      if ((src[q] === '+' || src[q] === '-') && !/[eEpP]/.test(src[q - 1])) break;
      q++;
    }
    return q;
  }
}

/** strconv.Unquote for Go double-quoted, raw and character literals. */
export function unquote(lit: string): string {
  if (lit[0] === '`') return lit.slice(1, -1).replace(/\r/g, '');
  const body = lit.slice(1, -1);
  let out = '';
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c !== '\\') { out += c; continue; }
    const e = body[++i];
    switch (e) {
      case 'a': out += '\x07'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '\\': out += '\\'; break;
      case '"': case "'": out += e; break;
      case 'x': out += String.fromCharCode(parseInt(body.slice(i + 1, i + 3), 16)); i += 2; break;
      case 'u': out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 5), 16)); i += 4; break;
      case 'U': out += String.fromCodePoint(parseInt(body.slice(i + 1, i + 9), 16)); i += 8; break;
      default:
        if (e >= '0' && e <= '7') {
          out += String.fromCharCode(parseInt(body.slice(i, i + 3), 8));
          i += 2;
        } else {
          throw new Error('invalid syntax');
        }
    }
  }
  return out;
}

function parseNumber(text: string): bigint | number | null {
  const clean = text.replace(/_/g, '');
  const neg = clean[0] === '-';
  const body = clean.replace(/^[+-]/, '');
  if (/^0[xX][0-9a-fA-F]+$/.test(body) || /^0[bB][01]+$/.test(body) || /^0[oO][0-7]+$/.test(body)) {
    const v = BigInt(body.toLowerCase().replace(/^0o/, '0o'));
    return neg ? -v : v;
  }
  if (/^0[0-7]+$/.test(body)) {
    const v = BigInt('0o' + body.slice(1));
    return neg ? -v : v;
  }
  if (/^[0-9]+$/.test(body)) {
    const v = BigInt(body);
    if (v > 9223372036854775807n) return Number(clean);
    return neg ? -v : v;
  }
  if (/^([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?$/.test(body)) return Number(clean);
  return null;
}

function describe(tok: Tok): string {
  switch (tok.k) {
    case 'eof': return 'EOF';
    case 'keyword': return `<${tok.v}>`;
    case 'right': return '"}}"';
    case 'left': return '"{{"';
    default: return tok.v.length > 10 ? JSON.stringify(tok.v.slice(0, 10)) + '...' : JSON.stringify(tok.v);
  }
}

export interface ParseResult {
  /** The main tree and every {{define}}/{{block}} found, by name. */
  trees: Map<string, Tree>;
}

/**
 * Parses `src` as template `name`. `isFunc` says whether an identifier is a known function
 * (unknown functions are parse errors, as in Go).
 */
export function parseTemplate(name: string, src: string, isFunc: (name: string) => boolean): ParseResult {
  return new Parser(name, src, isFunc).parse();
}

/** Go's parse.IsEmptyTree: only white space (comments are dropped by the lexer). */
export function isEmptyList(list: Node[]): boolean {
  return list.every((n) => n.t === 'text' && n.text.trim() === '');
}

class Parser {
  private toks: Tok[] = [];
  private i = 0;
  private vars: { name: string; slot: number }[] = [];
  private slotCount = 1;
  private rangeDepth = 0;
  private readonly trees = new Map<string, Tree>();

  constructor(private readonly name: string, private readonly src: string, private readonly isFunc: (n: string) => boolean) {}

  fail(pos: number, msg: string): never {
    throw new TemplateError(`${errorPrefix(this.name, this.src, pos)}: ${msg}`);
  }

  parse(): ParseResult {
    this.toks = new Lexer(this.src, (p, m) => this.fail(p, m)).toks;
    const list = this.withFrame(() => this.itemList(true));
    // Go adds the top-level tree last, under the same rule as a {{define}} (Tree.add): a
    // definition of its name that is not empty stays when the top level is empty (only white
    // space and definitions), and clashes with it otherwise; an empty definition is replaced.
    const defined = this.trees.get(this.name);
    if (defined && !isEmptyList(defined.list)) {
      if (!isEmptyList(list.list)) this.fail(this.src.length, `template: multiple definition of template "${this.name}"`);
      return { trees: this.trees };
    }
    this.trees.set(this.name, { ...list, name: this.name, parseName: this.name, source: this.src });
    return { trees: this.trees };
  }

  private withFrame(fn: () => Node[]): { list: Node[]; slots: number } {
    const saved = { vars: this.vars, slotCount: this.slotCount };
    this.vars = [{ name: '$', slot: 0 }];
    this.slotCount = 1;
    const list = fn();
    const slots = this.slotCount;
    this.vars = saved.vars;
    this.slotCount = saved.slotCount;
    return { list, slots };
  }

  private peek(): Tok { return this.toks[this.i]; }
  private next(): Tok { return this.toks[this.i++]; }
  private expect(k: TokKind, context: string): Tok {
    const t = this.next();
    if (t.k !== k) this.unexpected(t, context);
    return t;
  }
  private unexpected(t: Tok, context: string): never {
    if (t.k === 'eof') this.fail(t.pos, `unexpected EOF`);
    return this.fail(t.pos, `unexpected ${describe(t)} in ${context}`);
  }

  /**
   * Parses nodes until {{end}}/{{else}} (returned to the caller through `stop`) or EOF at top
   * level.
   */
  private stop: Tok | null = null;

  private itemList(top: boolean): Node[] {
    const out: Node[] = [];
    for (;;) {
      const t = this.peek();
      if (t.k === 'eof') {
        if (!top) this.fail(t.pos, 'unexpected EOF');
        return out;
      }
      if (t.k === 'text') {
        this.next();
        out.push({ t: 'text', pos: t.pos, text: t.v });
        continue;
      }
      // Left delimiter.
      this.next();
      const kw = this.peek();
      if (kw.k === 'keyword') {
        switch (kw.v) {
          case 'end':
          case 'else':
            if (top) this.fail(kw.pos, `unexpected {{${kw.v}}}`);
            this.next();
            this.stop = kw;
            return out;
          case 'if': case 'with': case 'range':
            this.next();
            out.push(this.control(kw.v as 'if' | 'with' | 'range', kw.pos));
            continue;
          case 'template':
            this.next();
            out.push(this.templateCall(kw.pos));
            continue;
          case 'block':
            this.next();
            out.push(this.block(kw.pos));
            continue;
          case 'define':
            if (!top) this.fail(kw.pos, 'unexpected <define> in command');
            this.next();
            this.define();
            continue;
          case 'break': case 'continue':
            this.next();
            if (this.rangeDepth === 0) this.fail(kw.pos, `{{${kw.v}}} outside {{range}}`);
            this.expect('right', kw.v);
            out.push({ t: kw.v as 'break' | 'continue', pos: kw.pos });
            continue;
        }
      }
      const pipe = this.pipeline('command', true);
      out.push({ t: 'action', pos: pipe.pos, pipe });
    }
  }

  private control(kind: 'if' | 'with' | 'range', pos: number): Node {
    const mark = this.vars.length;
    const pipe = this.pipeline(kind, kind === 'range' ? 'range' : true);
    if (kind === 'range') this.rangeDepth++;
    const list = this.itemList(false);
    if (kind === 'range') this.rangeDepth--;
    let elseList: Node[] | null = null;
    const stop = this.stop!;
    if (stop.v === 'else') {
      const nxt = this.peek();
      // {{else if ...}} / {{else with ...}} share the closing {{end}}.
      if ((kind === 'if' && nxt.k === 'keyword' && nxt.v === 'if') || (kind === 'with' && nxt.k === 'keyword' && nxt.v === 'with')) {
        this.next();
        elseList = [this.control(kind, nxt.pos)];
      } else {
        this.expect('right', 'else');
        elseList = this.itemList(false);
        if (this.stop!.v !== 'end') this.fail(this.stop!.pos, 'expected end; found {{else}}');
        this.expect('right', 'end');
      }
    } else {
      this.expect('right', 'end');
    }
    this.vars.length = mark;
    return { t: kind, pos, pipe, list, elseList };
  }

  private templateName(context: string): string {
    const t = this.next();
    if (t.k !== 'string') this.unexpected(t, context);
    try {
      return unquote(t.v);
    } catch {
      return this.fail(t.pos, `invalid quoted string ${t.v}`);
    }
  }

  private templateCall(pos: number): Node {
    const name = this.templateName('template clause');
    let pipe: Pipe | null = null;
    if (this.peek().k !== 'right') pipe = this.pipeline('template clause', false);
    else this.next();
    return { t: 'template', pos, name, pipe };
  }

  private block(pos: number): Node {
    const name = this.templateName('block clause');
    const pipe = this.pipeline('block clause', false);
    this.defineBody(name, pos);
    return { t: 'template', pos, name, pipe };
  }

  private define(): void {
    const t = this.peek();
    const name = this.templateName('define clause');
    this.expect('right', 'define clause');
    this.defineBody(name, t.pos);
  }

  private defineBody(name: string, pos: number): void {
    const savedRange = this.rangeDepth;
    this.rangeDepth = 0;
    const body = this.withFrame(() => {
      const l = this.itemList(false);
      if (this.stop!.v !== 'end') this.fail(this.stop!.pos, 'unexpected {{else}} in define');
      this.expect('right', 'end');
      return l;
    });
    this.rangeDepth = savedRange;
    const existing = this.trees.get(name);
    // Go: within one parse, an empty definition never replaces, and two non-empty ones clash.
    if (existing && isEmptyList(body.list)) return;
    if (existing && !isEmptyList(existing.list)) this.fail(pos, `template: multiple definition of template "${name}"`);
    this.trees.set(name, { name, parseName: this.name, source: this.src, list: body.list, slots: body.slots });
  }

  /** Parses a pipeline up to the closing delimiter (or right paren when `end` is false). */
  private pipeline(context: string, allowDecl: boolean | 'range', untilParen = false): Pipe {
    const start = this.peek().pos;
    const decl: number[] = [];
    let isAssign = false;
    // Declarations: $x := / $x = / $i, $v :=
    if (allowDecl && this.peek().k === 'var') {
      const save = this.i;
      const v1 = this.next();
      const op = this.peek();
      if (op.k === 'declare' || op.k === 'assign') {
        this.next();
        isAssign = op.k === 'assign';
        decl.push(isAssign ? this.lookupVar(v1) : this.declareVar(v1.v));
      } else if (op.k === 'comma' && allowDecl === 'range') {
        this.next();
        const v2 = this.expect('var', 'range');
        const op2 = this.next();
        if (op2.k !== 'declare' && op2.k !== 'assign') this.unexpected(op2, 'range');
        isAssign = op2.k === 'assign';
        if (isAssign) decl.push(this.lookupVar(v1), this.lookupVar(v2));
        else decl.push(this.declareVar(v1.v), this.declareVar(v2.v));
      } else {
        this.i = save;
      }
    }
    const cmds: Cmd[] = [];
    for (;;) {
      const t = this.peek();
      if (!untilParen && t.k === 'right') {
        this.next();
        break;
      }
      if (untilParen && t.k === 'rparen') {
        this.next();
        break;
      }
      if (t.k === 'right' || t.k === 'rparen' || t.k === 'eof') this.unexpected(t, context);
      cmds.push(this.command(untilParen));
      const after = this.peek();
      if (after.k === 'pipe') {
        this.next();
        const n = this.peek();
        if (n.k === 'right' || n.k === 'rparen') this.fail(n.pos, 'missing command after pipe');
      }
    }
    const endTok = this.toks[this.i - 1];
    if (cmds.length === 0) {
      if (decl.length) this.fail(start, `missing value for ${context}`);
      this.fail(start, `missing value for ${context}`);
    }
    // Only the first command may be a non-executable value when piping.
    for (let k = 1; k < cmds.length; k++) {
      const a = cmds[k].args[0];
      if (a.t === 'lit' || a.t === 'nil' || a.t === 'dot' && cmds[k].args.length === 1) {
        this.fail(a.pos, `non executable command in pipeline stage ${k + 1}`);
      }
    }
    return { pos: start, end: endTok.pos, decl, isAssign, cmds };
  }

  private declareVar(name: string): number {
    const slot = this.slotCount++;
    this.vars.push({ name, slot });
    return slot;
  }

  private lookupVar(t: Tok): number {
    for (let k = this.vars.length - 1; k >= 0; k--) if (this.vars[k].name === t.v) return this.vars[k].slot;
    return this.fail(t.pos, `undefined variable "${t.v}"`);
  }

  private command(inParen: boolean): Cmd {
    const args: Arg[] = [];
    const pos = this.peek().pos;
    for (;;) {
      const t = this.peek();
      if (t.k === 'right' || t.k === 'pipe' || (t.k === 'rparen' && inParen)) break;
      if (args.length > 0 && !t.sp && t.k !== 'lparen') {
        // Operands must be separated by space.
        this.fail(t.pos, `unexpected ${describe(t)} in operand`);
      }
      const op = this.operand();
      if (!op) this.unexpected(this.peek(), 'operand');
      args.push(op);
    }
    if (args.length === 0) this.fail(this.peek().pos, 'empty command');
    const first = args[0];
    if (args.length > 1 && (first.t === 'lit' || first.t === 'nil')) {
      this.fail(first.pos, `can't give argument to non-function ${this.src.slice(first.pos, first.end)}`);
    }
    if (args.length > 1 && first.t === 'dot') this.fail(first.pos, `can't give argument to non-function .`);
    return { pos, end: args[args.length - 1].end, args };
  }

  private operand(): Arg | null {
    const node = this.term();
    if (!node) return null;
    const fields: string[] = [];
    let end = node.end;
    while (this.peek().k === 'field' && !this.peek().sp) {
      const f = this.next();
      fields.push(f.v.slice(1));
      end = f.end;
    }
    if (!fields.length) return node;
    switch (node.t) {
      case 'field': return { ...node, names: [...node.names, ...fields], end };
      case 'var': return { ...node, names: [...node.names, ...fields], end };
      case 'lit': case 'nil': case 'dot':
        return this.fail(node.pos, `unexpected . after term ${JSON.stringify(this.src.slice(node.pos, node.end))}`);
      default: return { t: 'chain', pos: node.pos, end, node, names: fields };
    }
  }

  private term(): Arg | null {
    const t = this.next();
    switch (t.k) {
      case 'ident':
        if (!this.isFunc(t.v)) this.fail(t.pos, `function "${t.v}" not defined`);
        return { t: 'ident', pos: t.pos, end: t.end, name: t.v };
      case 'dot': return { t: 'dot', pos: t.pos, end: t.end };
      case 'nil': return { t: 'nil', pos: t.pos, end: t.end };
      case 'var': return { t: 'var', pos: t.pos, end: t.end, name: t.v, slot: this.lookupVar(t), names: [] };
      case 'field': return { t: 'field', pos: t.pos, end: t.end, names: [t.v.slice(1)] };
      case 'bool': return { t: 'lit', pos: t.pos, end: t.end, value: t.v === 'true' };
      case 'char': {
        let s: string;
        try { s = unquote(t.v); } catch { return this.fail(t.pos, `malformed character constant: ${t.v}`); }
        return { t: 'lit', pos: t.pos, end: t.end, value: BigInt(s.codePointAt(0) ?? 0) };
      }
      case 'number': {
        const v = parseNumber(t.v);
        if (v === null) this.fail(t.pos, `bad number syntax: "${t.v}"`);
        return { t: 'lit', pos: t.pos, end: t.end, value: v! };
      }
      case 'string': {
        try {
          return { t: 'lit', pos: t.pos, end: t.end, value: unquote(t.v) };
        } catch {
          return this.fail(t.pos, `invalid syntax: ${t.v}`);
        }
      }
      case 'lparen': {
        const pipe = this.pipeline('parenthesized pipeline', false, true);
        return { t: 'pipe', pos: t.pos, end: this.toks[this.i - 1].end, pipe };
      }
    }
    this.i--;
    return null;
  }
}
