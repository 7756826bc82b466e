// JSON text from callers. Nesting is bounded: a value thousands of levels deep parses, but then
// overflows the stack of whatever walks it (String(), JSON.stringify, a template), a 500.
import { LIMITS } from '../core/limits.ts';

/** Parses JSON a caller sent; a SyntaxError (saying why) for invalid or too deeply nested text. */
export function parseJson(text: string): unknown {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // a backslash escapes the next character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > LIMITS.jsonDepth) throw new SyntaxError(`nested deeper than ${LIMITS.jsonDepth} levels`);
    } else if (ch === 0x5d || ch === 0x7d) depth--;
  }
  return JSON.parse(text);
}
