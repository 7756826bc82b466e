// WCAG AA contrast of the public pages' stylesheet, light and dark: the palettes are read from
// the layout module's CSS, so changing a colour to a failing one fails here.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PAGE_STYLE } from '../../src/http/layout.tsx';

type Palette = Record<string, string>;

/** The custom properties of the first `:root{…}` in `css`. */
function palette(css: string): Palette {
  const block = /:root\{([^}]*)\}/.exec(css);
  assert.ok(block, 'no :root block');
  const out: Palette = {};
  for (const [, name, value] of block[1].matchAll(/--([\w-]+):\s*([^;]+)/g)) out[name] = value.trim();
  return out;
}

const light = palette(PAGE_STYLE);
const darkBlock = /@media \(prefers-color-scheme:dark\)\{(:root\{[^}]*\})\}/.exec(PAGE_STYLE);
assert.ok(darkBlock, 'no dark palette');
const dark = { ...light, ...palette(darkBlock[1]) };

function rgb(hex: string): [number, number, number] {
  const m = /^#([0-9a-f]{3}|[0-9a-f]{6})$/i.exec(hex);
  assert.ok(m, `not a hex colour: ${hex}`);
  const h = m[1].length === 3 ? [...m[1]].map((c) => c + c).join('') : m[1];
  return [0, 2, 4].map((i) => parseInt(h.slice(i, i + 2), 16)) as [number, number, number];
}

/** WCAG 2.x relative luminance. */
function luminance(hex: string): number {
  const [r, g, b] = rgb(hex).map((v) => {
    const c = v / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * Every foreground/background pair the stylesheet puts together, by variable name, with where
 * it occurs; 4.5:1 for text, 3:1 for the outlines that show a control (WCAG 1.4.11).
 */
const TEXT: [fg: string, bg: string, where: string][] = [
  ['fg', 'bg', 'body text, field text (fields have the page background)'],
  ['fg', 'card', 'text in <main>, the site name in the header'],
  ['muted', 'card', '.muted (list descriptions, dates, hints)'],
  ['muted', 'bg', '.muted outside the card'],
  ['accent', 'card', 'links, the secondary button'],
  ['accent', 'bg', 'links outside the card'],
  ['danger', 'bg', '.error (the error box has the page background)'],
  ['danger', 'card', 'error text in the card'],
  ['on-accent', 'accent', 'the primary button'],
  ['on-danger', 'danger', 'the danger button'],
];
const OUTLINES: [fg: string, bg: string, where: string][] = [
  ['field-border', 'card', 'text fields, the secondary button'],
  ['field-border', 'bg', 'text fields against their own background'],
  ['accent', 'card', 'focus outline, the primary button'],
  ['danger', 'card', 'the danger button'],
];

for (const [name, p] of [['light', light], ['dark', dark]] as const) {
  test(`${name} palette: every text/background pair meets WCAG AA (4.5:1)`, () => {
    for (const [fg, bg, where] of TEXT) {
      const r = contrast(p[fg], p[bg]);
      assert.ok(r >= 4.5, `${name}: --${fg} ${p[fg]} on --${bg} ${p[bg]} (${where}) is ${r.toFixed(2)}:1`);
    }
  });
  test(`${name} palette: control outlines meet 3:1`, () => {
    for (const [fg, bg, where] of OUTLINES) {
      const r = contrast(p[fg], p[bg]);
      assert.ok(r >= 3, `${name}: --${fg} ${p[fg]} against --${bg} ${p[bg]} (${where}) is ${r.toFixed(2)}:1`);
    }
  });
}

test('the stylesheet uses only palette colours, and every text colour it sets is checked above', () => {
  const rules = PAGE_STYLE.replace(/:root\{[^}]*\}/g, '');
  assert.doesNotMatch(rules, /#[0-9a-f]{3,6}\b|rgb\(|hsl\(/i, 'a colour outside the palettes');
  const checked = new Set(TEXT.map(([fg]) => fg));
  for (const [, v] of rules.matchAll(/(?:^|[;{])color:var\(--([\w-]+)\)/g)) assert.ok(checked.has(v), `color:var(--${v}) is not checked`);
  const backgrounds = new Set(TEXT.map(([, bg]) => bg));
  for (const [, v] of rules.matchAll(/background:var\(--([\w-]+)\)/g)) assert.ok(backgrounds.has(v), `background:var(--${v}) is not checked`);
});

test('the formula: black on white is 21:1, the old dark primary button failed', () => {
  assert.equal(contrast('#000', '#fff').toFixed(0), '21');
  assert.ok(contrast('#fff', '#7ea2ff') < 3, 'white on #7ea2ff, the dark button before');
});
