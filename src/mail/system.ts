// Rendering the system e-mails (src/mail/templates/: opt-in confirmation, campaign and import
// notices, password reset) through the template engine with the system function set, in the
// language of `app.lang` (English for keys a pack lacks, or when the pack is missing).
import { htmlToPlainText } from '../content/convert.ts';
import type { AppContext } from '../context.ts';
import { templateCatalog } from '../i18n/index.ts';
import { brandOf } from './brand.ts';
import { compileTemplate, type CompiledTemplate } from '../templating/index.ts';
import { loadSystemMailTemplates, type SystemMailData } from './templates/index.ts';
import type { OutgoingMessage } from './types.ts';

export type SystemMailName = keyof SystemMailData;

const compiled = new Map<SystemMailName, CompiledTemplate>();

/** The template `name` with base.html's "header" and "footer"; compiled once per process. */
function template(name: SystemMailName): CompiledTemplate {
  let t = compiled.get(name);
  if (!t) {
    const sources = loadSystemMailTemplates();
    // The files only {{ define }} templates; the top level calls the one wanted (and is
    // otherwise the blank lines between the definitions, trimmed on render).
    t = compileTemplate(`{{ template "${name}" . }}${sources.base}${sources[name]}`, { name: 'system-mail', funcs: 'system' });
    compiled.set(name, t);
  }
  return t;
}

/**
 * The HTML of system mail `name` for `data` (the fields SystemMailData lists for it), with
 * RootURL/LogoURL from the settings and `L` in the `app.lang` language. Send it through
 * buildTxMessage (altbody null), which derives the text part. Throws the engine's
 * TemplateError if a template is broken.
 */
export function renderSystemMail<N extends SystemMailName>(name: N, data: SystemMailData[N], ctx: AppContext): string {
  const brand = brandOf(ctx.settings);
  return template(name).render(data, {
    rootURL: ctx.settings.rootUrl(),
    logoURL: brand.logoURL,
    brand,
    i18n: templateCatalog(ctx.settings.str('app.lang')),
  }).trim();
}

/** System mail `name` as a message from `app.from_email`: the rendered HTML and its text part. */
export function systemMessage<N extends SystemMailName>(ctx: AppContext, name: N, data: SystemMailData[N], to: string[], subject: string): OutgoingMessage {
  const html = renderSystemMail(name, data, ctx);
  return { from: ctx.settings.str('app.from_email'), to, subject, html, text: htmlToPlainText(html) };
}
