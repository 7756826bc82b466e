// Conversions between campaign content types (richtext, html, markdown, plain, visual).
// Markdown → HTML follows listmonk's goldmark set-up (CommonMark + GFM tables, strikethrough
// and task lists, automatic heading ids, raw HTML, XHTML tags, typographer with straight
// double quotes). The other directions use turndown and html-to-text. Template actions
// ({{ … }}) pass through every conversion untouched (see template-actions.ts).
import { Marked, type Tokens } from 'marked';
import type TurndownService from 'turndown';
import { compile as compileHtmlToText, type HtmlToTextOptions } from 'html-to-text';
import { shieldActions } from './template-actions.ts';

export const CONTENT_TYPES = ['richtext', 'html', 'markdown', 'plain', 'visual'] as const;
export type ContentType = (typeof CONTENT_TYPES)[number];

/** An unknown content type or a pair we cannot convert; the route answers 400 with the message. */
export class ContentConversionError extends Error {
  override name = 'ContentConversionError';
}

// ---------------------------------------------------------------- markdown → HTML

export function escapeHtml(text: string, quotes: boolean): string {
  const out = text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return quotes ? out.replace(/"/g, '&quot;') : out;
}

const isWordChar = (ch: string | undefined): boolean => ch !== undefined && /[\p{L}\p{N}]/u.test(ch);
const isLetter = (ch: string | undefined): boolean => ch !== undefined && /\p{L}/u.test(ch);
const isBlankOrPunct = (ch: string | undefined): boolean => ch === undefined || /[\s\p{P}\p{S}]/u.test(ch);

// The single quote rules follow goldmark's typographer in simplified form: apostrophes and
// closing quotes become &rsquo;, opening quotes &lsquo;. Double quotes stay straight, as
// listmonk configures goldmark, so template string literals in running text survive.
function singleQuote(text: string, i: number): string {
  const before = text[i - 1];
  const next = text[i + 1];
  const rest = text.slice(i + 1);
  if (isWordChar(before) && isLetter(next)) return '&rsquo;';
  if (isBlankOrPunct(before) && next !== undefined && !/\s/.test(next)) {
    // 'twas, 'em, '90s and contractions written after a space read as apostrophes.
    if (/^(?:[tenl]|\d\ds(?![\p{L}\p{N}]))/u.test(rest)) return '&rsquo;';
    return '&lsquo;';
  }
  if (isWordChar(before) || /[\p{P}]/u.test(before ?? ' ')) return '&rsquo;';
  return "'";
}

function typographic(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (text.startsWith('---', i)) { out += '&mdash;'; i += 2; }
    else if (text.startsWith('--', i)) { out += '&ndash;'; i += 1; }
    else if (text.startsWith('...', i)) { out += '&hellip;'; i += 2; }
    else if (text.startsWith('<<', i)) { out += '&laquo;'; i += 1; }
    else if (text.startsWith('>>', i)) { out += '&raquo;'; i += 1; }
    else if (ch === "'") out += singleQuote(text, i);
    // An entity or character reference in the source is kept, as CommonMark does.
    else if (ch === '&') out += /^&(?:#\d{1,7}|#[xX][\da-fA-F]{1,6}|[A-Za-z][A-Za-z\d]{1,31});/.test(text.slice(i)) ? '&' : '&amp;';
    else if (ch === '<') out += '&lt;';
    else if (ch === '>') out += '&gt;';
    else out += ch;
  }
  return out;
}

/** goldmark's automatic heading id: ASCII letters and digits lower-cased, space/-/_ → '-', all else dropped. */
function headingId(rawLine: string, taken: Set<string>): string {
  let id = '';
  for (const ch of rawLine.trim()) {
    if (/^[A-Za-z0-9]$/.test(ch)) id += ch.toLowerCase();
    else if (ch === ' ' || ch === '\t' || ch === '\n' || ch === '-' || ch === '_') id += '-';
  }
  if (id === '') id = 'heading';
  let unique = id;
  for (let n = 1; taken.has(unique); n++) unique = `${id}-${n}`;
  taken.add(unique);
  return unique;
}

function markdownRenderer(restore: (s: string) => string) {
  const headingIds = new Set<string>();
  const marked = new Marked({ gfm: true, breaks: false });
  marked.use({
    // goldmark's Linkify extension is off in listmonk: bare URLs stay text (and
    // `https://x@TrackLink` must not become a link).
    tokenizer: { url: () => undefined },
    renderer: {
      heading(token: Tokens.Heading) {
        // goldmark derives the id from the heading's last raw source line.
        const lines = restore(token.text).split('\n');
        const id = headingId(lines[lines.length - 1] ?? '', headingIds);
        return `<h${token.depth} id="${id}">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
      hr: () => '<hr />\n',
      br: () => '<br />\n',
      checkbox: ({ checked }: Tokens.Checkbox) => `<input ${checked ? 'checked="" ' : ''}disabled="" type="checkbox" /> `,
      image({ href, title, text }: Tokens.Image) {
        const titleAttr = title ? ` title="${escapeHtml(title, true)}"` : '';
        return `<img src="${escapeHtml(href, true)}" alt="${escapeHtml(text, true)}"${titleAttr} />`;
      },
      html: ({ text, block }: Tokens.HTML | Tokens.Tag) => (block && !text.endsWith('\n') ? `${text}\n` : text),
      table(token: Tokens.Table) {
        const cell = (c: Tokens.TableCell) => {
          const tag = c.header ? 'th' : 'td';
          const align = c.align ? ` align="${c.align}"` : '';
          return `<${tag}${align}>${this.parser.parseInline(c.tokens)}</${tag}>\n`;
        };
        const row = (cells: Tokens.TableCell[]) => `<tr>\n${cells.map(cell).join('')}</tr>\n`;
        const body = token.rows.length ? `<tbody>\n${token.rows.map(row).join('')}</tbody>\n` : '';
        return `<table>\n<thead>\n${row(token.header)}</thead>\n${body}</table>\n`;
      },
      text(token: Tokens.Text | Tokens.Escape) {
        if ('tokens' in token && token.tokens) return this.parser.parseInline(token.tokens);
        if (token.type === 'escape') return escapeHtml(token.text, false);
        return typographic(token.text);
      },
    },
  });
  return marked;
}

/** Markdown → HTML the way listmonk renders markdown campaigns (goldmark options, see header). */
export function markdownToHtml(md: string): string {
  const shielded = shieldActions(md);
  const html = markdownRenderer(shielded.restore).parse(shielded.text, { async: false });
  return shielded.restore(html);
}

// ---------------------------------------------------------------- HTML → markdown

// turndown (with its DOM implementation) is loaded on the first conversion to markdown, not at
// start-up: idle RSS 82.3 -> 80.2 MB (npm run bench:footprint).
let turndown: Promise<typeof TurndownService> | null = null;

async function turndownService(): Promise<TurndownService> {
  const Turndown = await (turndown ??= import('turndown').then((m) => m.default));
  const service: TurndownService = new Turndown({
    headingStyle: 'atx',
    hr: '---',
    bulletListMarker: '-',
    codeBlockStyle: 'fenced',
    emDelimiter: '_',
    strongDelimiter: '**',
  });
  // Markdown has no syntax for these; raw HTML is valid markdown and survives the way back.
  service.keep(['table']);
  service.remove(['script', 'style', 'title']);
  service.addRule('strikethrough', {
    filter: ['del', 's'],
    replacement: (content) => `~~${content}~~`,
  });
  service.addRule('taskListItemCheckbox', {
    filter: (node) => node.nodeName === 'INPUT' && node.getAttribute('type') === 'checkbox',
    replacement: (_content, node) => (node.hasAttribute('checked') ? '[x] ' : '[ ] '),
  });
  // turndown's own rule pads markers to four columns (`-   item`); one space reads better and
  // continuation lines are indented to the marker's width so nested blocks stay inside.
  service.addRule('listItem', {
    filter: 'li',
    replacement(content, node) {
      const parent = node.parentNode as Element | null;
      let marker = '- ';
      if (parent?.nodeName === 'OL') {
        const start = Number(parent.getAttribute('start') ?? 1) || 1;
        marker = `${start + Array.prototype.indexOf.call(parent.children, node)}. `;
      }
      const endsWithBlock = content.endsWith('\n');
      const body = (content.replace(/^\n+|\n+$/g, '') + (endsWithBlock ? '\n' : ''))
        .replace(/^\[([ x])\]\s+/, '[$1] ')
        .replace(/\n/g, `\n${' '.repeat(marker.length)}`);
      return marker + body + (node.nextSibling ? '\n' : '');
    },
  });
  return service;
}

/** HTML → markdown (turndown; ATX headings, `-` bullets, fenced code, tables kept as HTML). */
export async function htmlToMarkdown(html: string): Promise<string> {
  const shielded = shieldActions(html);
  const md = (await turndownService()).turndown(shielded.text);
  // As listmonk's editor does: runs of blank lines collapse into one.
  return shielded.restore(md).replace(/\n(?:[ \t]*\n){2,}/g, '\n\n');
}

// ---------------------------------------------------------------- HTML → plain text

const PLAIN_TEXT_OPTIONS: HtmlToTextOptions = {
  wordwrap: 78,
  formatters: {
    // Only the alt text of an image means something to a reader; tracking pixels and
    // spacer images (empty alt) leave nothing behind.
    imageAltOnly(elem, _walk, builder) {
      const alt = (elem as { attribs?: Record<string, string> }).attribs?.alt?.trim();
      if (alt) builder.addInline(alt);
    },
  },
  selectors: [
    // `<url>` (RFC 3986, appendix C), not `(url)`: some mail clients' linkifiers take a closing
    // parenthesis into the URL. The subscriber-facing routes forgive trailing punctuation too.
    { selector: 'a', options: { linkBrackets: ['<', '>'], hideLinkHrefIfSameAsText: true } },
    { selector: 'img', format: 'imageAltOnly' },
    ...['h1', 'h2', 'h3', 'h4', 'h5', 'h6'].map((selector) => ({
      selector,
      options: { uppercase: false, leadingLineBreaks: 2, trailingLineBreaks: 2 },
    })),
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false } },
    { selector: 'head', format: 'skip' },
    { selector: 'style', format: 'skip' },
    { selector: 'script', format: 'skip' },
  ],
};

// Compiling the options (selectors, formatters) costs more than converting a typical mail,
// and this runs once per campaign message when no text part can be derived in advance.
// Compiled on first use, not at start-up.
let htmlToTextCompiled: ((html: string) => string) | null = null;

/**
 * HTML → readable plain text (the text/plain alternative of HTML mails): links as
 * `text <url>`, images as their alt text, lines wrapped at 78 columns. Template actions
 * are never split across lines.
 */
export function htmlToPlainText(html: string): string {
  const shielded = shieldActions(html);
  htmlToTextCompiled ??= compileHtmlToText(PLAIN_TEXT_OPTIONS);
  return shielded.restore(htmlToTextCompiled(shielded.text)).trim();
}

// ---------------------------------------------------------------- plain text → HTML

/**
 * Plain text → HTML: text escaped (template actions left intact), blank-line separated
 * blocks become paragraphs, single newlines `<br />`.
 */
export function plainToHtml(text: string): string {
  const shielded = shieldActions(text.replace(/\r\n?/g, '\n'));
  const paragraphs = shielded.text
    .split(/\n[ \t]*\n+/)
    .map((p) => p.replace(/^\n+|\n+$/g, ''))
    .filter((p) => p.trim() !== '')
    .map((p) => `<p>${escapeHtml(p, true).replace(/\n/g, '<br />\n')}</p>`);
  return shielded.restore(paragraphs.join('\n'));
}

// ---------------------------------------------------------------- POST /campaigns/{id}/content

const isHtmlType = (t: ContentType) => t === 'html' || t === 'richtext';

function asContentType(value: unknown, field: 'from' | 'to'): ContentType {
  if (typeof value === 'string' && (CONTENT_TYPES as readonly string[]).includes(value)) return value as ContentType;
  throw new ContentConversionError(`'${field}' must be one of ${CONTENT_TYPES.join(', ')}`);
}

/**
 * Converts a campaign body between content types (`POST /api/campaigns/{id}/content`).
 * listmonk supports markdown → html|richtext only; we also convert:
 * html|richtext → markdown|plain, plain → html|richtext|markdown, markdown → plain,
 * html ↔ richtext and any type to itself (unchanged).
 * `visual` needs the block editor's JSON and converts only to itself.
 * Throws ContentConversionError for an unknown type or an unsupported pair.
 */
export async function convertContent(from: unknown, to: unknown, body: unknown): Promise<string> {
  const source = asContentType(from, 'from');
  const target = asContentType(to, 'to');
  if (typeof body !== 'string') throw new ContentConversionError("'body' must be a string");
  if (source === target) return body;
  if (source === 'markdown' && isHtmlType(target)) return markdownToHtml(body);
  if (source === 'markdown' && target === 'plain') return htmlToPlainText(markdownToHtml(body));
  if (isHtmlType(source) && isHtmlType(target)) return body;
  if (isHtmlType(source) && target === 'markdown') return htmlToMarkdown(body);
  if (isHtmlType(source) && target === 'plain') return htmlToPlainText(body);
  if (source === 'plain' && isHtmlType(target)) return plainToHtml(body);
  // Going through HTML makes turndown escape whatever would read as markdown syntax.
  if (source === 'plain' && target === 'markdown') return htmlToMarkdown(plainToHtml(body));
  throw new ContentConversionError(`Converting ${source} content to ${target} is not supported`);
}
