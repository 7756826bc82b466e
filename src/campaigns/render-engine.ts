// The adapter between campaign/tx rendering and the template engine (src/templating/):
// compile once (layout + body, subject, altbody, header values), render per subscriber.
import { markdownToHtml } from '../content/convert.ts';
import {
  campaignData, campaignMessageData, compileCampaignLayout, compileTemplate, containsTemplateExpression, hasContentPlaceholder,
  subscriberData, TemplateError, txMessageData, type CompiledTemplate, type RenderContext,
} from '../templating/index.ts';
import { RenderError, type CompiledCampaign, type CompiledTx, type RenderCampaign, type RenderEnv } from './render.ts';

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
  i18n: env.i18n,
});

/** A string field: compiled when it holds an expression, else used verbatim. */
function textPart(src: string, what: string, funcs: 'campaign' | 'generic', mode: 'text' | 'html' = 'text'): (data: unknown, ctx: RenderContext) => string {
  if (!containsTemplateExpression(src)) return () => src;
  const t: CompiledTemplate = wrap(what, () => compileTemplate(src, { mode, funcs, shorthands: funcs === 'campaign' && what !== 'header' }));
  return (data, ctx) => wrap(what, () => t.render(data, ctx));
}

export function compileCampaign(c: RenderCampaign, layout: string | null, env: RenderEnv): CompiledCampaign {
  const body = c.content_type === 'markdown' ? markdownToHtml(c.body) : c.body;
  const base = c.content_type === 'visual' || !layout ? '' : layout;
  if (base && !hasContentPlaceholder(base)) throw new RenderError('template: the {{ template "content" . }} placeholder is missing');
  const main = wrap('body', () => compileCampaignLayout(base, body));
  const subject = textPart(c.subject, 'subject', 'campaign');
  const altbody = c.altbody ? textPart(c.altbody, 'altbody', 'campaign', 'html') : null;
  const headers = c.headers.map((h) => Object.entries(h).map(([k, v]) => [k, textPart(String(v), 'header', 'campaign')] as const));
  const campaign = campaignData({ ...c, alt_body: c.altbody });
  const ctx = context(env);
  return {
    render(sub) {
      const s = subscriberData(sub);
      const rendered: { subject?: string; body?: string } = {};
      const data = campaignMessageData(campaign, s, rendered);
      rendered.subject = subject(data, ctx);
      const html = wrap('body', () => main.render(data, ctx));
      return {
        subject: rendered.subject,
        html,
        altbody: altbody ? altbody(data, ctx) : null,
        headers: headers.map((h) => Object.fromEntries(h.map(([k, f]) => [k, f(data, ctx)]))),
      };
    },
  };
}

export function compileTx(subject: string, body: string, altbody: string | null, env: RenderEnv): CompiledTx {
  const main = wrap('body', () => compileTemplate(body, { mode: 'html', funcs: 'generic' }));
  const subj = textPart(subject, 'subject', 'generic');
  const alt = altbody ? textPart(altbody, 'altbody', 'generic') : null;
  const ctx = context(env);
  return {
    render(sub, tx) {
      const data = txMessageData(subscriberData(sub), tx);
      return { subject: subj(data, ctx), body: wrap('body', () => main.render(data, ctx)), altbody: alt ? alt(data, ctx) : null };
    },
  };
}
