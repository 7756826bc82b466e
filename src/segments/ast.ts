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
