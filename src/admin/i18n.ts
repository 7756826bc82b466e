// The admin's strings come from the language pack (listmonk's keys where it has one), in the
// language of the app.lang setting; English fills keys a pack lacks.
import { loadLanguage } from '../i18n/index.ts';

export type Translate = (key: string, params?: Record<string, string | number>) => string;

/**
 * `t(key, params)`: the pack's text with `{name}` placeholders filled; a key no pack has comes
 * back as itself (test/admin/shell.test.ts checks that every key the admin uses exists). Of a
 * "singular | plural" value, the singular (listmonk's $t; the admin never needs $tc's plural).
 */
export function translator(lang: string): Translate {
  const pack = loadLanguage(lang) ?? loadLanguage('en')!;
  return (key, params) => {
    const text = (pack[key] ?? key).split('|')[0].trim();
    return params ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m)) : text;
  };
}
