// Shields Go template actions ({{ … }}) from the markdown/HTML converters.
// Each action is swapped for an inert alphanumeric token before conversion and put back,
// byte for byte, afterwards: converters then never escape its quotes, turn them into
// typographic quotes, break it across lines or read its `"` as the end of an attribute.

// A comment may span lines; any other action stays on one line, and `}}` inside a quoted
// or raw string literal does not end it.
const ACTION = /\{\{-?\s*\/\*[\s\S]*?\*\/\s*-?\}\}|\{\{(?:"(?:[^"\\\n]|\\.)*"|`[^`]*`|'(?:[^'\\\n]|\\.)*'|[^"`'\n}]|\}(?!\}))*\}\}/g;

export interface ShieldedText {
  /** The input with every action replaced by a token. */
  text: string;
  /** Puts the original actions back into a converter's output. */
  restore(output: string): string;
}

export function shieldActions(input: string): ShieldedText {
  const actions: string[] = [];
  // The prefix must not already occur in the input, or restoring would touch user text.
  let prefix = 'Lmtpl';
  while (input.includes(prefix)) prefix += 'q';
  const text = input.replace(ACTION, (action) => {
    actions.push(action);
    // The closing 'Z' keeps token 1 from matching the start of token 10.
    return `${prefix}${actions.length - 1}Z`;
  });
  if (actions.length === 0) return { text, restore: (output) => output };
  const token = new RegExp(`${prefix}(\\d+)Z`, 'g');
  return {
    text,
    restore: (output) => output.replace(token, (whole, index: string) => actions[Number(index)] ?? whole),
  };
}
