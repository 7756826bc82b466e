// The guides in docs/, rendered for the admin's help pages (/admin/help/<topic>). They are the
// repository's own Markdown files, read through readAppFile (the release executable carries
// them as assets), so the help pages and the repository never disagree.
//
// Rendering is safe by construction: HTML written in the Markdown is shown as text, links keep
// only http(s), mailto, fragments and paths inside docs/, and every value is escaped. Links
// between the guides become help pages (`import.md#modes` → `/admin/help/import#modes`), and
// files beside them (images, the example CSV) are served under /admin/help/<folder>/<file>.
import { Marked, type Token, type Tokens } from 'marked';
import { escapeHtml } from '../content/convert.ts';
import { appFileExists, listAppFiles, readAppFile } from '../paths.ts';

export const DOCS_DIR = 'docs';

/** The folders of docs/ whose files the help pages serve (images, example files). */
export const DOC_FILE_FOLDERS = ['images', 'examples'] as const;

/**
 * The help index's order and one line on each guide. A guide in docs/ without a line here is
 * listed after these, by name, with its title alone.
 */
const KNOWN_TOPICS: { topic: string; blurb: string }[] = [
  { topic: 'quickstart', blurb: 'From a fresh install to a sent newsletter, step by step.' },
  { topic: 'admin', blurb: 'What each page of the admin does.' },
  { topic: 'import', blurb: 'Importing subscribers from CSV or ZIP files: columns, modes, what is skipped and why.' },
  { topic: 'templating', blurb: 'The template language of campaigns and templates.' },
  { topic: 'segments', blurb: 'Segment expressions: choosing subscribers with a query.' },
  { topic: 'api', blurb: 'The HTTP API: authentication, limits, segments and the delivery guarantee.' },
  { topic: 'webhooks', blurb: 'Webhooks and the change log: the events, verifying signatures, retries, and the feed for scripts.' },
  { topic: 'operations', blurb: 'Running on a server: the executable, configuration, the command line, monitoring and logs.' },
  { topic: 'backup-and-upgrade', blurb: 'Backups, restoring, upgrading, and moving from listmonk.' },
  { topic: 'security', blurb: 'How listmgr protects its data and its readers.' },
  { topic: 'differences', blurb: 'Where listmgr differs from listmonk.' },
  { topic: 'decisions', blurb: 'Each departure from listmonk, with what listmonk does and why.' },
  { topic: 'performance', blurb: 'The benchmarks and what was measured.' },
  { topic: 'architecture', blurb: 'How listmgr is built, and how it is tested.' },
];

const TOPIC_NAME = /^[a-z0-9][a-z0-9-]*$/;

export interface HelpTopic {
  topic: string;
  title: string;
  blurb: string | null;
}

/** The guides, in the help index's order. */
export function helpTopics(): HelpTopic[] {
  const present = listAppFiles(DOCS_DIR).filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3)).filter((t) => TOPIC_NAME.test(t));
  const rank = (t: string) => {
    const i = KNOWN_TOPICS.findIndex((k) => k.topic === t);
    return i === -1 ? KNOWN_TOPICS.length : i;
  };
  return present
    .sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))
    .map((topic) => ({ topic, title: renderTopic(topic)?.title ?? topic, blurb: KNOWN_TOPICS.find((k) => k.topic === topic)?.blurb ?? null }));
}

export interface RenderedTopic {
  title: string;
  /** The guide's HTML below its title: made by renderDoc, safe to insert as markup. */
  html: string;
}

const rendered = new Map<string, RenderedTopic | null>();

/** A guide by its name (`import` for docs/import.md), rendered once; null when there is none. */
export function renderTopic(topic: string): RenderedTopic | null {
  if (!TOPIC_NAME.test(topic)) return null;
  if (!rendered.has(topic)) {
    const path = `${DOCS_DIR}/${topic}.md`;
    rendered.set(topic, appFileExists(path) ? renderDoc(readAppFile(path)) : null);
  }
  return rendered.get(topic) ?? null;
}

/** A file of docs/<folder>/ (an image, an example): its path from the repository's root, or null. */
export function docFilePath(folder: string, file: string): string | null {
  if (!(DOC_FILE_FOLDERS as readonly string[]).includes(folder) || !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(file)) return null;
  const path = `${DOCS_DIR}/${folder}/${file}`;
  return appFileExists(path) ? path : null;
}

/**
 * GitHub's anchor for a heading's text: lower case, punctuation dropped, spaces as hyphens, a
 * repeat numbered (`-1`, `-2`). The help pages use the same ids, so `file.md#anchor` links work
 * both on GitHub and here.
 */
export function headingAnchor(text: string, taken: Set<string>): string {
  const base = text.trim().toLowerCase().replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '').replace(/\s/g, '-');
  let id = base;
  for (let n = 1; taken.has(id); n++) id = `${base}-${n}`;
  taken.add(id);
  return id;
}

/** A heading's text as GitHub reads it for its anchor: the inline markup's text, without the markup. */
function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? []).map((t) => ('tokens' in t && t.tokens ? plainText(t.tokens) : 'text' in t ? t.text : '')).join('');
}

/** Where a link of a guide leads in the admin: a help page, a served file, or itself (outside links); null to drop it. */
export function helpHref(href: string): string | null {
  if (/^(https?:|mailto:)/i.test(href)) return href;
  if (href.startsWith('#')) return href;
  if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('/') || href.startsWith('\\')) return null;
  const [path, fragment] = splitFragment(href);
  const guide = /^(?:\.\/)?([a-z0-9][a-z0-9-]*)\.md$/.exec(path);
  if (guide) return `/admin/help/${guide[1]}${fragment}`;
  const file = /^(?:\.\/)?([a-z]+)\/([^/]+)$/.exec(path);
  if (file && docFilePath(file[1], file[2])) return `/admin/help/${file[1]}/${file[2]}`;
  return null;
}

function splitFragment(href: string): [string, string] {
  const i = href.indexOf('#');
  return i === -1 ? [href, ''] : [href.slice(0, i), href.slice(i)];
}

/** A guide's Markdown as the help page's HTML (see the header), with its first `#` heading as the title. */
export function renderDoc(markdown: string): RenderedTopic {
  const anchors = new Set<string>();
  let title = '';
  const marked = new Marked({ gfm: true });
  marked.use({
    renderer: {
      heading(token: Tokens.Heading) {
        const id = headingAnchor(plainText(token.tokens), anchors);
        if (token.depth === 1 && !title) {
          title = plainText(token.tokens);
          return '';
        }
        return `<h${token.depth} id="${escapeHtml(id, true)}">${this.parser.parseInline(token.tokens)}</h${token.depth}>\n`;
      },
      html: ({ text }: Tokens.HTML | Tokens.Tag) => escapeHtml(text, false),
      link(token: Tokens.Link) {
        const inner = this.parser.parseInline(token.tokens);
        const href = helpHref(token.href);
        if (href === null) return inner;
        const outside = /^https?:/i.test(href) ? ' rel="noopener noreferrer"' : '';
        const title = token.title ? ` title="${escapeHtml(token.title, true)}"` : '';
        return `<a href="${escapeHtml(href, true)}"${title}${outside}>${inner}</a>`;
      },
      image(token: Tokens.Image) {
        const src = helpHref(token.href);
        if (src === null || src.startsWith('#') || src.startsWith('mailto:')) return escapeHtml(token.text, false);
        return `<img src="${escapeHtml(src, true)}" alt="${escapeHtml(token.text, true)}" />`;
      },
      table(token: Tokens.Table) {
        const cell = (c: Tokens.TableCell) => {
          const tag = c.header ? 'th' : 'td';
          return `<${tag}>${this.parser.parseInline(c.tokens)}</${tag}>`;
        };
        const row = (cells: Tokens.TableCell[]) => `<tr>${cells.map(cell).join('')}</tr>\n`;
        return `<div class="doc-table"><table>\n<thead>${row(token.header)}</thead>\n<tbody>\n${token.rows.map(row).join('')}</tbody></table></div>\n`;
      },
    },
  });
  const html = marked.parse(markdown, { async: false });
  return { title, html };
}

/** Every link and image address of a Markdown text (outside code), for the docs' link check. */
export function docLinks(markdown: string): string[] {
  const hrefs: string[] = [];
  new Marked({ gfm: true }).lexer(markdown).forEach(function walk(t: Token) {
    if ((t.type === 'link' || t.type === 'image') && 'href' in t) hrefs.push(String(t.href));
    if ('tokens' in t && t.tokens) t.tokens.forEach(walk);
    if (t.type === 'list') (t as Tokens.List).items.forEach(walk);
    if (t.type === 'table') {
      const table = t as Tokens.Table;
      [table.header, ...table.rows].flat().forEach((c) => c.tokens.forEach(walk));
    }
  });
  return hrefs;
}

/** The anchors of a Markdown text's headings, as the help pages and GitHub make them. */
export function docAnchors(markdown: string): Set<string> {
  const taken = new Set<string>();
  for (const t of new Marked({ gfm: true }).lexer(markdown)) {
    if (t.type === 'heading') headingAnchor(plainText((t as Tokens.Heading).tokens), taken);
  }
  return taken;
}
