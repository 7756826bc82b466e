// A small builder for SQL text with positional parameters. A fragment keeps its parameters
// beside the text they belong to, so fragments can be nested and repeated freely and the
// `?` placeholders always line up with the parameter list when it is rendered.

export type ParamValue = string | number | null;

// Fragments nest instead of being copied, so building a large expression stays linear.
type Chunk = string | Sql | { readonly param: ParamValue };

export class Sql {
  constructor(readonly chunks: readonly Chunk[]) {}
}

/** SQL text written by the translator itself (never user text) with fragments or parameters spliced in. */
export function sql(strings: TemplateStringsArray, ...parts: (Sql | Param)[]): Sql {
  const chunks: Chunk[] = [];
  strings.forEach((text, i) => {
    if (text) chunks.push(text);
    if (i < parts.length) {
      const part = parts[i];
      chunks.push(part instanceof Sql ? part : { param: part.value });
    }
  });
  return new Sql(chunks);
}

export class Param {
  constructor(readonly value: ParamValue) {}
}

/** A value bound as a parameter. */
export function param(value: ParamValue | boolean): Param {
  return new Param(typeof value === 'boolean' ? (value ? 1 : 0) : value);
}

export function joinSql(items: Sql[], separator: string): Sql {
  const chunks: Chunk[] = [];
  items.forEach((item, i) => {
    if (i > 0) chunks.push(separator);
    chunks.push(item);
  });
  return new Sql(chunks);
}

export function renderSql(fragment: Sql): { sql: string; params: ParamValue[] } {
  const text: string[] = [];
  const params: ParamValue[] = [];
  const walk = (f: Sql): void => {
    for (const chunk of f.chunks) {
      if (typeof chunk === 'string') text.push(chunk);
      else if (chunk instanceof Sql) walk(chunk);
      else {
        text.push('?');
        params.push(chunk.param);
      }
    }
  };
  walk(fragment);
  return { sql: text.join(''), params };
}

/** A table, column or alias name from the translator's allow-lists, double-quoted. */
export function identifier(name: string): Sql {
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not an identifier from the allow-list: ${name}`);
  return new Sql([`"${name}"`]);
}
