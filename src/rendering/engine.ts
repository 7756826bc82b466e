// The adapter between campaign/tx rendering and the template engine (src/templating/):
// compile once (layout + body, subject, altbody, header values), render per subscriber.
import { htmlToPlainText, markdownToHtml } from '../content/convert.ts';
import {
  applyShorthands, campaignData, campaignMessageData, compileCampaignLayout, compileTemplate, containsTemplateExpression, hasContentPlaceholder,
  subscriberData, TemplateError, trackBodyLinks, txMessageData, type CompiledTemplate, type RenderContext,
} from '../templating/index.ts';
import { RenderError, type CompiledCampaign, type CompiledTx, type RenderCampaign, type RenderEnv } from './contract.ts';

function wrap<T>(what: string, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof TemplateError) throw new RenderError(`${what}: ${e.message}`);
    throw e;
  }
}

const context = (env: RenderEnv): RenderContext => ({
  rootURL: env.rootUrl, trackLink: env.trackLink, disableTracking: env.disableTracking, individualTracking: env.individualTracking,
  i18n: env.i18n, subscribeURL: env.subscribeUrl, publicPageURL: env.publicPageUrl, brand: env.brand, archivePage: env.archivePage,
});

/** A string field: compiled when it holds an expression, else used verbatim. */
function textPart(src: string, what: string, funcs: 'campaign' | 'generic', mode: 'text' | 'html' = 'text', name?: string): (data: unknown, ctx: RenderContext) => string {
  if (!containsTemplateExpression(src)) return () => src;
  const t: CompiledTemplate = wrap(what, () => compileTemplate(src, { mode, funcs, shorthands: funcs === 'campaign' && what !== 'header', name }));
  return (data, ctx) => wrap(what, () => t.render(data, ctx));
}

// ---------------------------------------------------------------- the plain-text alternative
//
// Converting every rendered message from HTML to text costs more than rendering it. So the
// campaign's HTML *source* is converted once (template actions pass through untouched), the
// result compiled as a text-mode template, and that is rendered per subscriber. Sources whose
// text cannot be derived safely fall back to converting each rendered message.

/** `{{ Safe "literal" }}`: markup written into the source (the default template's Outlook comments). */
const SAFE_LITERAL = /\{\{-?\s*Safe\s+("(?:[^"\\\n]|\\.)*")\s*-?\}\}/g;
/** The tracking pixel (after the shorthand rewrite): an image, nothing in text. */
const TRACK_VIEW = /\{\{-?\s*TrackView\s+\.\s*-?\}\}/g;
const ACTION = /\{\{[\s\S]*?\}\}/g;
/** Actions that shape the template: losing one in the conversion would change what renders. */
const CONTROL = /^\{\{-?\s*(?:(?:if|else|end|range|with|define|block|template|break|continue)\b|\$\w*\s*:?=)/;

const occurrences = (s: string, sub: string) => s.split(sub).length - 1;

/** The text-mode template source for an HTML template source, or null when it cannot be derived. */
function textSource(html: string): string | null {
  const src = applyShorthands(html).replace(TRACK_VIEW, '').replace(SAFE_LITERAL, (whole, literal: string) => {
    try {
      return JSON.parse(literal) as string;
    } catch {
      return whole;
    }
  });
  const actions = src.match(ACTION) ?? [];
  // Markup produced at render time would land in the text verbatim.
  if (actions.some((a) => /\b(?:Safe|TrackView)\b/.test(a))) return null;
  const text = htmlToPlainText(src);
  // html-to-text drops what is in <head>, <style> or between table rows; that is fine for
  // output actions, not for a lost {{ if }} / {{ end }}.
  for (const a of new Set(actions.filter((x) => CONTROL.test(x)))) if (occurrences(text, a) !== occurrences(src, a)) return null;
  return text;
}

type TextRenderer = (data: unknown, ctx: RenderContext, html: string) => string;

const convertRendered: TextRenderer = (_data, _ctx, html) => htmlToPlainText(html);

function compileTextAlternative(layout: string, body: string): TextRenderer {
  const layoutText = layout ? textSource(layout) : '';
  const bodyText = textSource(body);
  if (layoutText === null || bodyText === null) return convertRendered;
  let t: CompiledTemplate;
  try {
    t = compileCampaignLayout(layoutText, bodyText, { mode: 'text' });
  } catch (e) {
    if (e instanceof TemplateError) return convertRendered;
    throw e;
  }
  return (data, ctx, html) => {
    try {
      // Blocks left empty by false conditions leave runs of blank lines.
      return t.render(data, ctx).replace(/\n{3,}/g, '\n\n').trim();
    } catch (e) {
      if (e instanceof TemplateError) return htmlToPlainText(html);
      throw e;
    }
  };
}

export function compileCampaign(c: RenderCampaign, layout: string | null, env: RenderEnv): CompiledCampaign {
  const body = trackBodyLinks(c.content_type === 'markdown' ? markdownToHtml(c.body) : c.body, { track: c.track_links === true, plain: c.content_type === 'plain' });
  const base = c.content_type === 'visual' || !layout ? '' : layout;
  if (base && !hasContentPlaceholder(base)) throw new RenderError('template: the {{ template "content" . }} placeholder is missing');
  const main = wrap('body', () => compileCampaignLayout(base, body));
  const subject = textPart(c.subject, 'subject', 'campaign');
  const altbody = c.altbody ? textPart(c.altbody, 'altbody', 'campaign', 'html') : null;
  const headers = c.headers.map((h) => Object.entries(h).map(([k, v]) => [k, textPart(String(v), 'header', 'campaign')] as const));
  const campaign = campaignData({ ...c, alt_body: c.altbody });
  const ctx = context(env);
  // Compiled on first use: previews and web views never need it.
  let derivedText: TextRenderer | null = null;
  const textOf = (data: unknown, html: string) => (derivedText ??= compileTextAlternative(base, body))(data, ctx, html);
  return {
    render(sub, withText = false) {
      const s = subscriberData(sub);
      const rendered: { subject?: string; body?: string } = {};
      const data = campaignMessageData(campaign, s, rendered);
      rendered.subject = subject(data, ctx);
      const html = wrap('body', () => main.render(data, ctx));
      return {
        subject: rendered.subject,
        html,
        altbody: altbody ? altbody(data, ctx) : withText && c.content_type !== 'plain' ? textOf(data, html) : null,
        headers: headers.map((h) => Object.fromEntries(h.map(([k, f]) => [k, f(data, ctx)]))),
      };
    },
  };
}

export function compileTx(subject: string, body: string, altbody: string | null, env: RenderEnv): CompiledTx {
  // Named "base" as listmonk names them, so a template may define and call its own "content".
  const main = wrap('body', () => compileTemplate(body, { mode: 'html', funcs: 'generic', name: 'base' }));
  const subj = textPart(subject, 'subject', 'generic', 'text', 'base');
  const alt = altbody ? textPart(altbody, 'altbody', 'generic') : null;
  const ctx = context(env);
  return {
    render(sub, tx) {
      const data = txMessageData(subscriberData(sub), tx);
      return { subject: subj(data, ctx), body: wrap('body', () => main.render(data, ctx)), altbody: alt ? alt(data, ctx) : null };
    },
  };
}
