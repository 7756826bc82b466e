// Compiles parsed (and, in html mode, escaped) trees into closures and runs them with Go
// text/template semantics, under per-render limits (steps, output size, call depth, time).

import { errorPrefix, TemplateError } from './errors.ts';
import type { Arg, Cmd, Node, Pipe, Tree } from './parse.ts';
import { formatV, GoTime, hasMapPrototype, isMap, isStruct, isVariadic, SafeHTML, sortedKeys, structType, truth } from './value.ts';
import { stringUnits } from './meter.ts';
import type { RenderContext } from './context.ts';

/** Parameter kinds of a function: s string, i int, f float64, m map, a any. */
export type ParamKind = 's' | 'i' | 'f' | 'm' | 'a';

export interface FuncDef {
  /** Fixed parameter kinds. */
  params: string;
  /** Kind of the variadic tail, if any. */
  variadic?: ParamKind;
  fn: (args: unknown[], st: ExecState) => unknown;
  /** The result depends on the arguments only: a call with literal arguments is made once, at compile time. */
  pure?: boolean;
}

export type FuncMap = ReadonlyMap<string, FuncDef>;

export interface Limits {
  /**
   * Nodes executed + loop iterations + function calls + elements built by list functions +
   * containers and elements visited by functions that walk values (printing, JSON, deep
   * comparison and copy) + one per 32 characters of the strings functions take and return.
   */
  maxSteps: number;
  /** Output length in characters; also the longest string a function may return. */
  maxOutput: number;
  /** Nesting of {{template}} calls. */
  maxDepth: number;
  /** Wall time per render. */
  timeoutMs: number;
}

export const DEFAULT_LIMITS: Limits = { maxSteps: 500_000, maxOutput: 10 * 1024 * 1024, maxDepth: 100, timeoutMs: 2000 };

/** Thrown when a render exceeds a limit; never caught by template-level error handling. */
export class LimitError extends TemplateError {}

export class ExecState {
  out = '';
  steps = 0;
  depth = 0;
  readonly deadline: number;
  constructor(
    readonly ctx: RenderContext,
    readonly limits: Limits,
    readonly templates: ReadonlyMap<string, CompiledTree>,
    readonly html: boolean,
    readonly rootName: string,
  ) {
    this.deadline = Date.now() + limits.timeoutMs;
  }

  /** Counts `n` units of work; fails the render when a budget is exhausted. */
  charge(n = 1): void {
    const before = this.steps;
    this.steps += n;
    if (this.steps > this.limits.maxSteps) {
      throw new LimitError(`template: ${this.rootName}: render exceeded ${this.limits.maxSteps} steps`);
    }
    if ((before >>> 10) !== (this.steps >>> 10) && Date.now() > this.deadline) {
      throw new LimitError(`template: ${this.rootName}: render exceeded ${this.limits.timeoutMs} ms`);
    }
  }

  /** Charges a function's string argument or result of `len` characters (see Limits.maxSteps). */
  chargeString(len: number): void {
    if (len >= 32) this.charge(stringUnits(len));
  }

  /** Charges a string of `len` characters a function returned; fails the render when it is longer than the output budget. */
  chargeResult(len: number): void {
    this.checkValueSize(len);
    this.chargeString(len);
  }

  /** Fails the render when a value a function returns is a string longer than the output budget. */
  checkValueSize(len: number): void {
    if (len > this.limits.maxOutput) {
      throw new LimitError(`template: ${this.rootName}: a value exceeds ${this.limits.maxOutput} characters`);
    }
  }

  /** Fails the render when a string about to be produced would exceed the output budget. */
  checkSize(len: number): void {
    if (len > this.limits.maxOutput) {
      throw new LimitError(`template: ${this.rootName}: output exceeds ${this.limits.maxOutput} characters`);
    }
  }

  write(s: string): void {
    this.out += s;
    if (this.out.length > this.limits.maxOutput) {
      throw new LimitError(`template: ${this.rootName}: output exceeds ${this.limits.maxOutput} characters`);
    }
  }
}

export interface CompiledTree {
  name: string;
  slots: number;
  run: (st: ExecState, dot: unknown, vars: unknown[]) => void;
}

/** The printing escaper (chain, composed) installed by the html escaper on an action. */
export type Escaper = (v: unknown) => string;

/** `trustedAsIs`: the escaper writes trusted HTML unchanged (HTML text), so it costs nothing. */
export type EscapedNode = Node & { esc?: Escaper; trustedAsIs?: boolean };

const OK = 0;
const BREAK = 1;
const CONTINUE = 2;
type NodeFn = (st: ExecState, dot: unknown, vars: unknown[]) => number;
type StaticOutput = { text: string; steps: number };
type ExprFn = (st: ExecState, dot: unknown, vars: unknown[], final: unknown) => unknown;

const NO_FINAL = Symbol('noFinal');

/**
 * Go-style error raised during execution; located by the enclosing command. Its message is
 * shown to whoever rendered (a tx caller, a previewing user), so it names kinds and types, never
 * a value of the data (docs/decisions.md §90).
 */
export class ExecError extends Error {}

/** Thrown by the template function `fail`: its text is the template's, perhaps computed from data. */
export class FailCalled extends Error {}

function typeErrorName(v: unknown): string {
  if (v === undefined || v === null) return 'interface {}';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'bigint') return 'int';
  if (typeof v === 'number') return 'float64';
  if (typeof v === 'boolean') return 'bool';
  if (Array.isArray(v)) return '[]interface {}';
  if (v instanceof SafeHTML) return 'template.HTML';
  if (v instanceof GoTime) return 'time.Time';
  if (isStruct(v)) return structType(v)!;
  return 'map[string]interface {}';
}

/**
 * What a function's failure shows: our functions' own errors (ExecError) name kinds and types
 * only; `fail`'s text only when the template spells it out; anything else is a library's or the
 * runtime's text, which may quote its input.
 */
function callFailure(e: unknown, failTextFromSource: boolean): string {
  if (e instanceof ExecError) return e.message;
  if (e instanceof FailCalled) return failTextFromSource ? e.message : 'called (its message is not shown: it is computed from data)';
  return 'failed';
}

/** Converts an argument to a parameter kind with Go's assignability errors. */
function convertArg(v: unknown, kind: ParamKind): unknown {
  switch (kind) {
    case 'a':
      return v === undefined ? null : v;
    case 's':
      if (typeof v === 'string') return v;
      if (v instanceof SafeHTML) return v.html;
      if (v === undefined) throw new ExecError('invalid value; expected string');
      throw new ExecError(`wrong type for value; expected string; got ${typeErrorName(v)}`);
    case 'i':
      if (typeof v === 'bigint') return v;
      if (v === undefined) throw new ExecError('invalid value; expected int');
      throw new ExecError(`wrong type for value; expected int; got ${typeErrorName(v)}`);
    case 'f':
      if (typeof v === 'number') return v;
      if (typeof v === 'bigint') return Number(v);
      if (v === undefined) throw new ExecError('invalid value; expected float64');
      throw new ExecError(`wrong type for value; expected float64; got ${typeErrorName(v)}`);
    case 'm':
      if (v === null || isMap(v)) return v;
      if (v === undefined) return null;
      throw new ExecError(`wrong type for value; expected map[string]interface {}; got ${typeErrorName(v)}`);
  }
}

/** Kind of parameter `i` of `def` (the variadic tail's kind past the fixed ones). */
function paramKind(def: FuncDef, i: number): ParamKind {
  return (i < def.params.length ? def.params[i] : def.variadic ?? 'a') as ParamKind;
}

/** Converts an untyped constant at compile time, as Go does for literal arguments. */
function convertLiteral(v: unknown, kind: ParamKind): unknown {
  if (kind === 'i' && typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (kind === 'f' && typeof v === 'bigint') return Number(v);
  return v;
}

/** Go's complaint when `n` arguments do not fit a function or method taking `fixed` (at least, if variadic); null when they do. */
function argCountError(name: string, fixed: number, variadic: boolean, n: number): string | null {
  if (variadic ? n >= fixed : n === fixed) return null;
  return `wrong number of args for ${name}: want ${variadic ? 'at least ' : ''}${fixed} got ${n}`;
}

/** Field or method `name` of `recv` (Go evalField); `args` only for a final method call. */
function evalField(st: ExecState, recv: unknown, name: string, args: unknown[] | null): unknown {
  if (recv === undefined || recv === null) return undefined;
  if (typeof recv === 'object' && !Array.isArray(recv) && !(recv instanceof SafeHTML)) {
    // One struct test serves both questions: map or not, and own members only or not.
    const isStructRecv = isStruct(recv);
    if (!isStructRecv && hasMapPrototype(recv)) {
      if (args) throw new ExecError(`${name} is not a method but has arguments`);
      return Object.hasOwn(recv, name) ? (recv as Record<string, unknown>)[name] : undefined;
    }
    const member = (recv as Record<string, unknown>)[name];
    const exported = name.charCodeAt(0) >= 65 && name.charCodeAt(0) <= 90;
    if (typeof member === 'function' && exported) {
      st.charge();
      const bad = argCountError(name, member.length, isVariadic(member), args?.length ?? 0);
      if (bad) throw new ExecError(bad);
      // Methods (L.T, Time.Format, …) read their string arguments character by character.
      if (args) for (const x of args) if (typeof x === 'string') st.charge(x.length);
      try {
        return args ? member.apply(recv, args) : member.call(recv);
      } catch (e) {
        if (e instanceof TemplateError) throw e;
        throw new ExecError(`error calling ${name}: ${callFailure(e, false)}`);
      }
    }
    if (member !== undefined && exported && (!isStructRecv || Object.hasOwn(recv, name))) {
      if (args) throw new ExecError(`${name} is not a method but has arguments`);
      return member;
    }
  }
  throw new ExecError(`can't evaluate field ${name} in type ${typeErrorName(recv)}`);
}

export class Compiler {
  constructor(
    private readonly funcs: FuncMap,
    private readonly html: boolean,
  ) {}

  compileTree(tree: Tree, list: EscapedNode[]): CompiledTree {
    const body = this.list(tree, list);
    return {
      name: tree.name,
      slots: tree.slots,
      run: (st, dot, vars) => {
        body(st, dot, vars);
      },
    };
  }

  private locate(tree: Tree, pos: number, end: number, e: unknown): never {
    if (e instanceof TemplateError) throw e;
    // Only our own messages are shown: any other error's text may quote the data.
    const msg = e instanceof ExecError ? e.message : `internal error (${e instanceof Error ? e.name : typeof e})`;
    const at = tree.source.slice(pos, end);
    throw new TemplateError(`${errorPrefix(tree.parseName, tree.source, pos)}: executing "${tree.name}" at <${at}>: ${msg}`);
  }

  private list(tree: Tree, nodes: EscapedNode[]): NodeFn {
    // Runs of output known at compile time (text, actions on constant pipelines) become one write.
    const fns: NodeFn[] = [];
    let text = '';
    let steps = 0;
    const flush = () => {
      if (text === '' && steps === 0) return;
      const t = text, n = steps;
      fns.push(n ? (st) => (st.charge(n), st.write(t), OK) : (st) => (st.write(t), OK));
      text = '';
      steps = 0;
    };
    for (const n of nodes) {
      const r = this.node(tree, n);
      if (typeof r === 'function') {
        flush();
        fns.push(r);
      } else {
        text += r.text;
        steps += r.steps;
      }
    }
    flush();
    if (fns.length === 0) return () => OK;
    if (fns.length === 1) return fns[0];
    return (st, dot, vars) => {
      for (let i = 0; i < fns.length; i++) {
        const r = fns[i](st, dot, vars);
        if (r !== OK) return r;
      }
      return OK;
    };
  }

  /** A node's code, or its output and step count when these do not depend on the data. */
  private node(tree: Tree, n: EscapedNode): NodeFn | StaticOutput {
    switch (n.t) {
      case 'text':
        return { text: n.text, steps: 0 };
      case 'action': {
        const constant = n.pipe.decl.length ? null : this.constantPipe(n.pipe);
        if (constant) {
          const v = constant.value;
          const text = this.html && n.esc ? n.esc(v) : typeof v === 'string' ? v : v === undefined || v === null ? '<no value>' : formatV(v);
          return { text, steps: constant.steps + 1 };
        }
        const pipe = this.pipe(tree, n.pipe);
        if (n.pipe.decl.length) {
          return (st, dot, vars) => {
            st.charge();
            pipe(st, dot, vars);
            return OK;
          };
        }
        const esc = n.esc;
        const trustedAsIs = n.trustedAsIs === true;
        if (this.html && esc) {
          return (st, dot, vars) => {
            st.charge();
            const v = pipe(st, dot, vars);
            // Escapers read the whole string, and some write little of it (attribute names,
            // URLs): a unit per character, what text full of characters to escape costs.
            // Trusted HTML is the same, except where it is written as it is.
            if (typeof v === 'string') {
              if (v.length >= 16) st.charge(v.length);
            } else if (v instanceof SafeHTML) {
              if (trustedAsIs) st.chargeString(v.html.length);
              else st.charge(v.html.length);
            }
            st.write(esc(v));
            return OK;
          };
        }
        return (st, dot, vars) => {
          st.charge();
          const v = pipe(st, dot, vars);
          st.write(typeof v === 'string' ? v : v === undefined || v === null ? '<no value>' : formatV(v));
          return OK;
        };
      }
      case 'if':
      case 'with': {
        const pipe = this.pipe(tree, n.pipe);
        const body = this.list(tree, n.list);
        const alt = n.elseList ? this.list(tree, n.elseList) : null;
        const isWith = n.t === 'with';
        return (st, dot, vars) => {
          st.charge();
          const v = pipe(st, dot, vars);
          if (truth(v)) return body(st, isWith ? v : dot, vars);
          return alt ? alt(st, dot, vars) : OK;
        };
      }
      case 'range':
        return this.range(tree, n);
      case 'break':
        return () => BREAK;
      case 'continue':
        return () => CONTINUE;
      case 'template': {
        const pipe = n.pipe ? this.pipe(tree, n.pipe) : null;
        const name = n.name;
        const pos = n.pos;
        // The template set is fixed once compiled: look the callee up on the first call only.
        let callee: CompiledTree | undefined;
        return (st, dot, vars) => {
          st.charge();
          const arg = pipe ? pipe(st, dot, vars) : null;
          const t = (callee ??= st.templates.get(name));
          if (!t) this.locate(tree, pos, pos, new ExecError(`template "${name}" not defined`));
          if (st.depth >= st.limits.maxDepth) {
            throw new LimitError(`template: ${st.rootName}: template calls nested deeper than ${st.limits.maxDepth}`);
          }
          st.depth++;
          const frame = new Array(t!.slots);
          frame[0] = arg;
          t!.run(st, arg, frame);
          st.depth--;
          return OK;
        };
      }
    }
  }

  private range(tree: Tree, n: Extract<Node, { t: 'if' | 'with' | 'range' }>): NodeFn {
    const pipe = this.pipe(tree, n.pipe);
    const body = this.list(tree, n.list);
    const alt = n.elseList ? this.list(tree, n.elseList) : null;
    const decl = n.pipe.decl;
    const keySlot = decl.length === 2 ? decl[0] : -1;
    const valSlot = decl.length === 2 ? decl[1] : decl.length === 1 ? decl[0] : -1;
    const loc = (e: unknown) => this.locate(tree, n.pipe.pos, n.pipe.end, e);
    return (st, dot, vars) => {
      st.charge();
      const v = pipe(st, dot, vars);
      const step = (key: unknown, elem: unknown): number => {
        st.charge();
        if (keySlot >= 0) vars[keySlot] = key;
        if (valSlot >= 0) vars[valSlot] = elem;
        return body(st, elem, vars);
      };
      let ran = false;
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          ran = true;
          if (step(BigInt(i), v[i]) === BREAK) break;
        }
      } else if (typeof v === 'bigint') {
        if (keySlot >= 0) loc(new ExecError("can't use an int to iterate over more than one variable"));
        for (let i = 0n; i < v; i++) {
          ran = true;
          if (step(i, i) === BREAK) break;
        }
      } else if (v !== undefined && v !== null && isMap(v)) {
        for (const k of sortedKeys(v)) {
          ran = true;
          if (step(k, v[k]) === BREAK) break;
        }
      } else if (v !== undefined && v !== null) {
        loc(new ExecError(`range can't iterate over ${typeErrorName(v)}`));
      }
      if (!ran && alt) return alt(st, dot, vars);
      return OK;
    };
  }

  private pipe(tree: Tree, p: Pipe): (st: ExecState, dot: unknown, vars: unknown[]) => unknown {
    const cmds = p.cmds.map((c) => this.cmd(tree, c));
    const decl = p.decl;
    const declSlot = decl.length === 1 ? decl[0] : -1;
    const first = cmds[0];
    // Errors are located at the failing command; `at` tracks it without a wrapper per command.
    const fail = (at: number, e: unknown): never => this.locate(tree, p.cmds[at].pos, p.cmds[at].end, e);
    if (cmds.length === 1) {
      return (st, dot, vars) => {
        let v;
        try {
          v = first(st, dot, vars, NO_FINAL);
        } catch (e) {
          return fail(0, e);
        }
        if (declSlot >= 0) vars[declSlot] = v;
        return v;
      };
    }
    return (st, dot, vars) => {
      let at = 0;
      let v;
      try {
        v = first(st, dot, vars, NO_FINAL);
        for (at = 1; at < cmds.length; at++) v = cmds[at](st, dot, vars, v);
      } catch (e) {
        return fail(at, e);
      }
      if (declSlot >= 0) vars[declSlot] = v;
      return v;
    };
  }

  /**
   * The value of a pipeline that is one call of a pure function on literals, and the steps
   * running it would count; null when it must run per render (or fails: then it fails there).
   */
  private constantPipe(p: Pipe): { value: unknown; steps: number } | null {
    if (p.cmds.length !== 1) return null;
    const [first, ...rest] = p.cmds[0].args;
    const lits = rest.filter((a) => a.t === 'lit');
    if (first.t !== 'ident' || lits.length !== rest.length) return null;
    const def = this.funcs.get(first.name);
    if (!def?.pure || rest.length < def.params.length || (!def.variadic && rest.length > def.params.length)) return null;
    try {
      const args = lits.map((a, i) => convertArg(convertLiteral(a.value, paramKind(def, i)), paramKind(def, i)));
      return { value: def.fn(args, null as unknown as ExecState), steps: 1 };
    } catch {
      return null;
    }
  }

  private cmd(tree: Tree, c: Cmd): ExprFn {
    const first = c.args[0];
    const rest = c.args.slice(1);
    switch (first.t) {
      case 'ident':
        return this.call(tree, first.name, rest);
      case 'field':
        return this.chain(tree, (_st, dot) => dot, first.names, rest);
      case 'var': {
        const slot = first.slot;
        if (first.names.length === 0) return this.noArgs(tree, (_st, _dot, vars) => vars[slot], rest);
        return this.chain(tree, (_st, _dot, vars) => vars[slot], first.names, rest);
      }
      case 'chain': {
        const base = this.arg(tree, first.node);
        return this.chain(tree, (st, dot, vars) => base(st, dot, vars), first.names, rest);
      }
      case 'nil':
        // Go refuses it when run, not when parsed: {{ if false }}{{ nil }}{{ end }} is fine.
        return () => {
          throw new ExecError('nil is not a command');
        };
      default: {
        const v = this.arg(tree, first);
        return this.noArgs(tree, v, rest);
      }
    }
  }

  /** A value command: takes no arguments and no piped value. */
  private noArgs(_tree: Tree, v: (st: ExecState, dot: unknown, vars: unknown[]) => unknown, rest: Arg[]): ExprFn {
    if (rest.length) throw new TemplateError('internal: arguments to a value');
    return (st, dot, vars, final) => {
      if (final !== NO_FINAL) throw new ExecError(`can't give argument to non-function of type ${typeErrorName(v(st, dot, vars))}`);
      return v(st, dot, vars);
    };
  }

  private chain(tree: Tree, base: (st: ExecState, dot: unknown, vars: unknown[]) => unknown, names: string[], rest: Arg[]): ExprFn {
    const args = rest.map((a) => this.arg(tree, a));
    const last = names[names.length - 1];
    const head = names.slice(0, -1);
    return (st, dot, vars, final) => {
      let recv = base(st, dot, vars);
      for (let i = 0; i < head.length; i++) recv = evalField(st, recv, head[i], null);
      let callArgs: unknown[] | null = null;
      if (args.length || final !== NO_FINAL) {
        callArgs = args.map((a) => a(st, dot, vars));
        if (final !== NO_FINAL) callArgs.push(final);
      }
      return evalField(st, recv, last, callArgs);
    };
  }

  /** Compiles an operand evaluated as a function argument. */
  private arg(tree: Tree, a: Arg): (st: ExecState, dot: unknown, vars: unknown[]) => unknown {
    switch (a.t) {
      case 'lit': {
        const v = a.value;
        return () => v;
      }
      case 'nil':
        return () => null;
      case 'dot':
        return (_st, dot) => dot;
      case 'var': {
        const slot = a.slot;
        if (!a.names.length) return (_st, _dot, vars) => vars[slot];
        const f = this.chain(tree, (_st, _dot, vars) => vars[slot], a.names, []);
        return (st, dot, vars) => f(st, dot, vars, NO_FINAL);
      }
      case 'field': {
        const f = this.chain(tree, (_st, dot) => dot, a.names, []);
        return (st, dot, vars) => f(st, dot, vars, NO_FINAL);
      }
      case 'chain': {
        const base = this.arg(tree, a.node);
        const f = this.chain(tree, base, a.names, []);
        return (st, dot, vars) => f(st, dot, vars, NO_FINAL);
      }
      case 'ident': {
        const f = this.call(tree, a.name, []);
        return (st, dot, vars) => f(st, dot, vars, NO_FINAL);
      }
      case 'pipe': {
        const p = this.pipe(tree, a.pipe);
        return p;
      }
    }
  }

  private call(tree: Tree, name: string, rest: Arg[]): ExprFn {
    if ((name === 'and' || name === 'or') && !this.funcs.has(name)) return this.andOr(tree, name === 'and', rest);
    const def = this.funcs.get(name);
    if (!def) throw new TemplateError(`function "${name}" not defined`);
    const argFns = rest.map((a, i) => {
      if (a.t === 'lit') {
        const lit = convertLiteral(a.value, paramKind(def, i));
        return () => lit;
      }
      return this.arg(tree, a);
    });
    const kinds = rest.map((_a, i) => paramKind(def, i));
    const pipedKind = paramKind(def, rest.length);
    // The argument count of a call site is fixed: whether it fits is known now, failing stays at run time.
    const plainError = argCountError(name, def.params.length, !!def.variadic, argFns.length);
    const pipedError = argCountError(name, def.params.length, !!def.variadic, argFns.length + 1);
    const fn = def.fn;
    // `fail "text"` with the text written in the template shows it; computed text may hold data.
    const sourceText = name === 'fail' && rest.length === 1 && rest[0].t === 'lit';
    return (st, dot, vars, final) => {
      st.charge();
      const piped = final !== NO_FINAL;
      const bad = piped ? pipedError : plainError;
      if (bad) throw new ExecError(bad);
      const args = new Array(piped ? argFns.length + 1 : argFns.length);
      for (let i = 0; i < argFns.length; i++) args[i] = convertArg(argFns[i](st, dot, vars), kinds[i]);
      if (piped) args[argFns.length] = convertArg(final, pipedKind);
      // Functions take time in the length of the strings they are given and return (most are
      // short: nothing to charge).
      for (let i = 0; i < args.length; i++) {
        const x = args[i];
        if (typeof x === 'string') {
          if (x.length >= 32) st.chargeString(x.length);
        } else if (x instanceof SafeHTML) st.chargeString(x.html.length);
      }
      let r: unknown;
      try {
        r = fn(args, st);
      } catch (e) {
        if (e instanceof TemplateError) throw e;
        throw new ExecError(`error calling ${name}: ${callFailure(e, sourceText)}`);
      }
      if (typeof r === 'string') {
        if (r.length >= 32) st.chargeResult(r.length);
      } else if (r instanceof SafeHTML) st.chargeResult(r.html.length);
      return r;
    };
  }

  /** `and`/`or` evaluate lazily and return the deciding operand. */
  private andOr(tree: Tree, isAnd: boolean, rest: Arg[]): ExprFn {
    const argFns = rest.map((a) => this.arg(tree, a));
    const name = isAnd ? 'and' : 'or';
    return (st, dot, vars, final) => {
      st.charge();
      const n = argFns.length + (final !== NO_FINAL ? 1 : 0);
      const bad = argCountError(name, 1, true, n);
      if (bad) throw new ExecError(bad);
      let v: unknown;
      for (let i = 0; i < argFns.length; i++) {
        v = argFns[i](st, dot, vars);
        if (truth(v) !== isAnd) return v === undefined ? null : v;
      }
      if (final !== NO_FINAL) v = final;
      return v === undefined ? null : v;
    };
  }
}
