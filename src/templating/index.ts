/**
 * listmonk-compatible template engine (Go text/template + html/template semantics).
 *
 *   compileTemplate(source: string, opts?: CompileOptions): CompiledTemplate
 *     Parses (and in html mode contextually escapes) `source` once; throws TemplateError with
 *     "template: NAME:LINE:COL: ..." on syntax errors, unknown functions (outside the chosen
 *     function set) and html escaping errors.
 *   compileCampaignLayout(layout: string, body: string, opts?: CompileOptions): CompiledTemplate
 *     listmonk's composition: `layout` is template "base", `body` becomes template "content"
 *     (templates {{define}}d inside the body are dropped, as in listmonk; a "content" the
 *     layout defines is replaced by the body unless the body is empty). Empty layout = just
 *     the placeholder.
 *   Names follow Go: a source that defines its own name ({{ define "content" }}…{{ end }} in
 *   a template named "content") is a "multiple definition" error unless its top level is
 *   empty; listmonk names transactional templates "base", so they can define "content".
 *   CompiledTemplate.render(data: unknown, ctx?: RenderContext): string
 *     Executes for one recipient; throws TemplateError on render errors or exceeded limits.
 *   hasContentPlaceholder(layout: string): boolean — campaign templates must contain
 *     {{ template "content" . }} (whitespace tolerated, no trim markers).
 *   containsTemplateExpression(s: string): boolean — `{{` followed later by `}}`; strings
 *     without it are used verbatim.
 *   applyShorthands(src: string): string — listmonk's three pre-parse rewrites
 *     (TrackLink "url" → TrackLink "url" ., url@TrackLink, bare TrackView/UnsubscribeURL/…).
 *   trackBodyLinks(src, {track, plain}): string — a campaign's "track links": literal links
 *     become TrackLink calls, except `url@NoTrack` (the marker is dropped).
 *   safe(html: string): SafeHTML — trusted markup, not escaped in HTML text.
 *   Data builders (subscriberData, campaignData, campaignMessageData, txMessageData) give
 *   templates listmonk's data model: Go structs, int IDs, nullable times, FirstName/LastName.
 *
 * Values: JS number = Go float64 (JSON attribs), bigint = Go int, plain object = map,
 * array = slice, null = nil, missing key = "no value". See value.ts.
 *
 * Options: mode 'html' (default; html/template escaping) or 'text' (no escaping);
 * funcs 'generic' (tx templates), 'campaign' (campaign template/body/subject/headers) or
 * 'system' (system e-mails); shorthands applies applyShorthands first; limits bound each
 * render (steps, output size, template call depth, wall time).
 */

import { type RenderContext } from './context.ts';
import { TemplateError } from './errors.ts';
import { escapeSet } from './escape.ts';
import { Compiler, type CompiledTree, DEFAULT_LIMITS, ExecState, type FuncDef, type Limits, type FuncMap } from './exec.ts';
import { BUILTINS } from './funcs/builtins.ts';
import { CAMPAIGN_LISTMONK, GENERIC_LISTMONK, SYSTEM_LISTMONK } from './funcs/listmonk.ts';
import { SPRIG } from './funcs/sprig.ts';
import { isEmptyList, parseTemplate, type Tree } from './parse.ts';
import { setMeter } from './meter.ts';

export type { ArchivePageInfo, BrandInfo, RenderContext, I18nCatalog } from './context.ts';
export type { Limits } from './exec.ts';
export { TemplateError } from './errors.ts';
export { safe, SafeHTML, struct } from './value.ts';
export { GoTime } from './gotime.ts';
export { subscriberData, campaignData, campaignMessageData, txMessageData, nullTime, firstName, lastName } from './data.ts';
export { DUMMY_UUID } from './funcs/listmonk.ts';

export type FuncSet = 'generic' | 'campaign' | 'system';

export interface CompileOptions {
  mode?: 'html' | 'text';
  funcs?: FuncSet;
  /**
   * Template name, in error messages and for {{define}} clashes (listmonk: "base" for campaign
   * layouts and for transactional bodies and subjects, "content" for campaign bodies and
   * subjects). Default "content".
   */
  name?: string;
  shorthands?: boolean;
  limits?: Partial<Limits>;
}

export interface CompiledTemplate {
  render(data: unknown, ctx?: RenderContext): string;
}

function funcMap(entries: ReadonlyMap<string, FuncDef>[]): FuncMap {
  const m = new Map<string, FuncDef>();
  for (const e of entries) for (const [k, v] of e) m.set(k, v);
  return m;
}

// Template-level functions shadow the built-ins (Sprig's slice replaces Go's).
const FUNC_SETS: Record<FuncSet, FuncMap> = {
  generic: funcMap([BUILTINS, SPRIG, GENERIC_LISTMONK]),
  campaign: funcMap([BUILTINS, SPRIG, GENERIC_LISTMONK, CAMPAIGN_LISTMONK]),
  system: funcMap([BUILTINS, SPRIG, GENERIC_LISTMONK, SYSTEM_LISTMONK]),
};

const SHORTHAND_TRACKLINK = /\{\{[\t\n\f\r ]*TrackLink[\t\n\f\r ]+"([^"]+)"[\t\n\f\r ]*\}\}/g;
const SHORTHAND_AT_TRACKLINK = /(https?:\/\/[\p{L}\p{N}_\-.~!#$&'()*+,/:;=?@[\]%]*)@TrackLink/gu;
const SHORTHAND_BARE = /\{\{([\t\n\f\r ]+)?(TrackView|UnsubscribeURL|ManageURL|OptinURL|MessageURL)([\t\n\f\r ]+)?\}\}/g;

export function applyShorthands(src: string): string {
  return src
    .replace(SHORTHAND_TRACKLINK, '{{ TrackLink "$1" . }}')
    .replace(SHORTHAND_AT_TRACKLINK, '{{ TrackLink "$1" . }}')
    .replace(SHORTHAND_BARE, '{{ $2 . }}');
}

/** A link's `href` in an `<a>` or `<area>` tag: the text before the URL, its quote, the URL. */
const LINK_HREF = /(<(?:a|area)\b[^>]*?\shref[\t\n\f\r ]*=[\t\n\f\r ]*)(["'])(https?:\/\/[^"'<>\s]*)\2/gi;
/** A bare URL in plain text, after the start, a space or an opening bracket. */
const BARE_URL = /(^|[\s(<\[])(https?:\/\/[^\s<>"']+)/g;
/** Punctuation that ends a sentence rather than a URL written in plain text. */
const TRAILING_PUNCTUATION = /[.,;:!?)\]]+$/;
const NO_TRACK = /(https?:\/\/[^\s"'<>]*?)@NoTrack\b/g;

/** `{{ TrackLink "url" . }}` for a literal URL, or the URL itself where it must stay as written. */
function trackedLink(url: string): string {
  if (url.endsWith('@NoTrack')) return url.slice(0, -'@NoTrack'.length);
  // A link with template actions in it is per subscriber (one tracked link each); `@TrackLink` is tracked already.
  if (url.includes('{{') || url.endsWith('@TrackLink')) return url;
  return `{{ TrackLink "${url.replace(/["\\]/g, (ch) => `\\${ch}`)}" . }}`;
}

/**
 * A campaign body with every literal http(s) link tracked (a campaign's "track links"): the
 * `href` of each `<a>` and `<area>` in HTML, each bare URL in plain text. Links marked
 * `@NoTrack` lose the marker and stay as written, as do links built by template actions
 * (UnsubscribeURL, MessageURL, OptinURL, ManageURL, per-subscriber URLs) and those already
 * tracked with `@TrackLink` or `{{ TrackLink }}`. With `track` false only the markers go.
 */
export function trackBodyLinks(src: string, opts: { track: boolean; plain: boolean }): string {
  let out = src;
  if (opts.track && opts.plain) {
    out = out.replace(BARE_URL, (_whole, before: string, raw: string) => {
      const trail = TRAILING_PUNCTUATION.exec(raw)?.[0] ?? '';
      return before + trackedLink(raw.slice(0, raw.length - trail.length)) + trail;
    });
  } else if (opts.track) {
    out = out.replace(LINK_HREF, (_whole, tag: string, quote: string, url: string) => `${tag}${quote}${trackedLink(url)}${quote}`);
  }
  return out.replace(NO_TRACK, '$1');
}

const PLACEHOLDER = /\{\{[\t\n\f\r ]*template[\t\n\f\r ]+"content"[\t\n\f\r ]*\.[\t\n\f\r ]*\}\}/;

export function hasContentPlaceholder(layout: string): boolean {
  return PLACEHOLDER.test(layout);
}

export function containsTemplateExpression(s: string): boolean {
  const i = s.indexOf('{{');
  return i >= 0 && s.indexOf('}}', i + 2) >= 0;
}

class Template implements CompiledTemplate {
  private readonly compiled: Map<string, CompiledTree>;
  private readonly root: CompiledTree;
  private readonly limits: Limits;

  constructor(
    private readonly name: string,
    trees: ReadonlyMap<string, Tree>,
    private readonly html: boolean,
    funcs: FuncMap,
    limits: Partial<Limits> | undefined,
  ) {
    this.limits = { ...DEFAULT_LIMITS, ...limits };
    const compiler = new Compiler(funcs, html);
    this.compiled = new Map();
    if (html) {
      for (const [n, { tree, list }] of escapeSet(trees, name).trees) this.compiled.set(n, compiler.compileTree(tree, list));
    } else {
      for (const [n, tree] of trees) this.compiled.set(n, compiler.compileTree(tree, tree.list));
    }
    this.root = this.compiled.get(name)!;
  }

  render(data: unknown, ctx: RenderContext = {}): string {
    const st = new ExecState(ctx, this.limits, this.compiled, this.html, this.name);
    const frame = new Array(this.root.slots);
    frame[0] = data;
    // Functions charge this render for the work they do inside a call (meter.ts).
    const outer = setMeter(st);
    try {
      this.root.run(st, data, frame);
    } catch (e) {
      if (e instanceof TemplateError) throw e;
      // Anything else (e.g. a JS stack overflow) still fails only this render; its text is not
      // shown, as it may quote the data.
      throw new TemplateError(`template: ${this.name}: render failed (${e instanceof Error ? e.name : typeof e})`);
    } finally {
      setMeter(outer);
    }
    return st.out;
  }
}

function parse(name: string, source: string, funcs: FuncMap): Map<string, Tree> {
  return parseTemplate(name, source, (n) => funcs.has(n) || n === 'and' || n === 'or').trees;
}

export function compileTemplate(source: string, opts: CompileOptions = {}): CompiledTemplate {
  const name = opts.name ?? 'content';
  const funcs = FUNC_SETS[opts.funcs ?? 'generic'];
  const src = opts.shorthands ? applyShorthands(source) : source;
  return new Template(name, parse(name, src, funcs), (opts.mode ?? 'html') === 'html', funcs, opts.limits);
}

/**
 * Compiles a campaign template (layout, named "base") around a campaign body (named
 * "content"), as listmonk does. Options default to html mode, campaign functions and
 * shorthand rewriting.
 */
export function compileCampaignLayout(layout: string, body: string, opts: Omit<CompileOptions, 'name'> = {}): CompiledTemplate {
  const funcs = FUNC_SETS[opts.funcs ?? 'campaign'];
  const rewrite = opts.shorthands ?? true;
  const base = layout.trim() === '' ? '{{ template "content" . }}' : layout;
  const trees = parse('base', rewrite ? applyShorthands(base) : base, funcs);
  const content = parse('content', rewrite ? applyShorthands(body) : body, funcs).get('content')!;
  // listmonk adds the body with AddParseTree("content", …): it replaces a "content" the layout
  // defines ({{ define "content" }}…{{ end }} or a block), unless the body is empty (only
  // white space), which never replaces a template in Go.
  if (!(trees.has('content') && isEmptyList(content.list))) trees.set('content', content);
  return new Template('base', trees, (opts.mode ?? 'html') === 'html', funcs, opts.limits);
}
