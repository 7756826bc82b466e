// The language of everything a subscriber reads (public pages, opt-in and data mails): the
// language pack the `app.lang` setting names, English when no such pack is installed.
import type { AppContext } from '../context.ts';
import { templateCatalog, translate, type LanguagePack } from '../i18n/index.ts';

export type Translate = (key: string, params?: Readonly<Record<string, string | number>>) => string;

export function subscriberLanguage(ctx: AppContext): LanguagePack {
  return templateCatalog(ctx.settings.str('app.lang')).messages;
}

/** `translate` in the subscriber language, read at each call so a settings change applies at once. */
export function subscriberTranslator(ctx: AppContext): Translate {
  return (key, params) => translate(subscriberLanguage(ctx), key, params);
}
