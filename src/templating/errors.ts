// Errors raised while compiling or rendering a template.

/** A template syntax error (thrown at compile time) or a render error (thrown by render()). */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

/** Go's "template: NAME:LINE:COL" prefix; COL is the 0-based byte offset within the line. */
export function errorPrefix(name: string, src: string, pos: number): string {
  const before = src.slice(0, pos);
  const nl = before.lastIndexOf('\n');
  const line = 1 + (before.match(/\n/g)?.length ?? 0);
  const col = Buffer.byteLength(before.slice(nl + 1), 'utf8');
  return `template: ${name}:${line}:${col}`;
}
