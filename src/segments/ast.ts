// The syntax tree of a segment expression. Every node carries the 1-based position of the
// token it starts at (or of its operator), for error messages.

export type Node =
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'number'; text: string; pos: number }
  | { kind: 'bool'; value: boolean; pos: number }
  | { kind: 'null'; pos: number }
  | { kind: 'interval'; text: string; pos: number }
  | { kind: 'typed_literal'; type: string; value: string; pos: number }
  | { kind: 'array'; items: Node[]; pos: number }
  | { kind: 'column'; table: string | null; name: string; pos: number }
  | { kind: 'call'; name: string; args: Node[]; star: boolean; pos: number }
  | { kind: 'extract'; field: string; source: Node; pos: number }
  | { kind: 'cast'; expr: Node; type: string; pos: number }
  | { kind: 'unary'; op: '-' | '+' | 'not'; expr: Node; pos: number }
  | { kind: 'binary'; op: string; left: Node; right: Node; pos: number }
  | { kind: 'is'; expr: Node; test: 'null' | 'true' | 'false'; negated: boolean; pos: number }
  | { kind: 'distinct_from'; left: Node; right: Node; negated: boolean; pos: number }
  | { kind: 'like'; expr: Node; pattern: Node; caseInsensitive: boolean; negated: boolean; pos: number }
  | { kind: 'between'; expr: Node; low: Node; high: Node; symmetric: boolean; negated: boolean; pos: number }
  | { kind: 'in_list'; expr: Node; items: Node[]; negated: boolean; pos: number }
  | { kind: 'in_query'; expr: Node; query: Select; negated: boolean; pos: number }
  | { kind: 'exists'; query: Select; pos: number }
  | { kind: 'case'; operand: Node | null; whens: { when: Node; then: Node }[]; otherwise: Node | null; pos: number };

/** `SELECT [DISTINCT] <expr> FROM <table> [[AS] alias] [WHERE <expr>]` */
export interface Select {
  distinct: boolean;
  /** null for `SELECT *` (only inside EXISTS). */
  output: Node | null;
  table: string;
  tablePos: number;
  alias: string | null;
  where: Node | null;
  pos: number;
}

/** The nodes directly below a node, subqueries included. */
export function children(node: Node): Node[] {
  switch (node.kind) {
    case 'array':
      return node.items;
    case 'call':
      return node.args;
    case 'extract':
      return [node.source];
    case 'cast':
    case 'unary':
    case 'is':
      return [node.expr];
    case 'binary':
    case 'distinct_from':
      return [node.left, node.right];
    case 'like':
      return [node.expr, node.pattern];
    case 'between':
      return [node.expr, node.low, node.high];
    case 'in_list':
      return [node.expr, ...node.items];
    case 'in_query':
      return [node.expr, ...selectChildren(node.query)];
    case 'exists':
      return selectChildren(node.query);
    case 'case':
      return [...(node.operand ? [node.operand] : []), ...node.whens.flatMap((w) => [w.when, w.then]), ...(node.otherwise ? [node.otherwise] : [])];
    default:
      return [];
  }
}

function selectChildren(query: Select): Node[] {
  return [...(query.output ? [query.output] : []), ...(query.where ? [query.where] : [])];
}

/** AND and OR chains are associative; the translator emits them as balanced trees. */
export function isLogical(node: Node, op: 'and' | 'or'): boolean {
  return node.kind === 'binary' && node.op === op;
}
