import { SegmentError } from './errors.ts';

export type TokenKind = 'ident' | 'quoted_ident' | 'string' | 'number' | 'op' | 'punct' | 'end';

export interface Token {
  kind: TokenKind;
  /** Identifiers lower-cased (unquoted), string contents unescaped, numbers and operators as written. */
  value: string;
  /** 1-based character position of the token's first character in the original expression. */
  pos: number;
}

export const MAX_EXPRESSION_LENGTH = 50_000;

// Longest first, so that `->>` wins over `->` and `!~*` over `!~`.
const OPERATORS = [
  '->>', '#>>', '!~*',
  '->', '#>', '?|', '?&', '@>', '<@', '~*', '!~', '||', '::', '<=', '>=', '<>', '!=',
  '=', '<', '>', '+', '-', '*', '/', '%', '~', '?', '^',
];
const PUNCTUATION = new Set(['(', ')', ',', '.', '[', ']']);

const IDENT_START = /[A-Za-z_\u0080-\uffff]/;
const IDENT_PART = /[A-Za-z0-9_$\u0080-\uffff]/;
const WORD = /[A-Za-z_\u0080-\uffff][A-Za-z0-9_$\u0080-\uffff]*/y;
const NUMBER = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;

/**
 * Splits a segment expression into tokens. Comments, parameters, dollar quoting and any `;`
 * other than one trailing `;` are refused here, before anything is parsed.
 */
export function tokenize(input: string): Token[] {
  if (input.length > MAX_EXPRESSION_LENGTH) {
    throw new SegmentError(`the expression is longer than ${MAX_EXPRESSION_LENGTH} characters`, 0);
  }
  const tokens: Token[] = [];
  let i = 0;
  while (i < input.length) {
    const c = input[i];
    const pos = i + 1;
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    const two = input.slice(i, i + 2);
    if (two === '--' || two === '/*') {
      throw new SegmentError(`comments ("${two}") are not allowed`, pos);
    }
    if (c === ';') {
      if (input.slice(i + 1).trim() !== '') {
        throw new SegmentError('only one expression is allowed (";" starts a second statement)', pos);
      }
      break; // one trailing `;` is dropped, as listmonk does
    }
    if (c === '$') {
      throw new SegmentError('parameters and dollar-quoted strings ("$") are not allowed', pos);
    }
    if (c === "'") {
      const [text, next] = readQuoted(input, i, "'", 'string');
      tokens.push({ kind: 'string', value: text, pos });
      i = next;
      continue;
    }
    if (c === '"') {
      const [text, next] = readQuoted(input, i, '"', 'quoted identifier');
      if (text === '') throw new SegmentError('empty quoted identifier', pos);
      tokens.push({ kind: 'quoted_ident', value: text, pos });
      i = next;
      continue;
    }
    NUMBER.lastIndex = i;
    const number = /\d/.test(c) || (c === '.' && /\d/.test(input[i + 1] ?? '')) ? NUMBER.exec(input) : null;
    if (number) {
      const end = i + number[0].length;
      if (end < input.length && IDENT_PART.test(input[end])) {
        throw new SegmentError(`malformed number "${input.slice(i, end + 1)}"`, pos);
      }
      tokens.push({ kind: 'number', value: number[0], pos });
      i = end;
      continue;
    }
    if (IDENT_START.test(c)) {
      WORD.lastIndex = i;
      const word = (WORD.exec(input) as RegExpExecArray)[0];
      const end = i + word.length;
      if (word.includes('$')) throw new SegmentError(`"$" is not allowed in the name "${word}"`, pos);
      tokens.push({ kind: 'ident', value: word.toLowerCase(), pos });
      i = end;
      continue;
    }
    if (PUNCTUATION.has(c)) {
      tokens.push({ kind: 'punct', value: c, pos });
      i++;
      continue;
    }
    const op = OPERATORS.find((o) => input.startsWith(o, i));
    if (!op) throw new SegmentError(`unexpected character "${c}"`, pos);
    tokens.push({ kind: 'op', value: op === '!=' ? '<>' : op, pos });
    i += op.length;
  }
  tokens.push({ kind: 'end', value: '', pos: input.length + 1 });
  return tokens;
}

function readQuoted(input: string, start: number, quote: string, what: string): [string, number] {
  let text = '';
  let i = start + 1;
  for (;;) {
    const next = input.indexOf(quote, i);
    if (next < 0) throw new SegmentError(`unterminated ${what}`, start + 1);
    text += input.slice(i, next);
    if (input[next + 1] === quote) {
      text += quote;
      i = next + 2;
      continue;
    }
    return [text, next + 1];
  }
}
