// Language packs: flat JSON maps of message keys to strings (listmonk's format, including its
// `_.code` / `_.name` keys, `{param}` placeholders and `singular | plural` values).
// Packs are files named <code>.json beside this module; other languages fall back to English
// key by key.
import type { I18nCatalog } from '../templating/index.ts';
import { appFileExists, listAppFiles, readAppFile } from '../paths.ts';

export type LanguagePack = Readonly<Record<string, string>>;

const LANGUAGE_CODE = /^[a-zA-Z0-9_-]{1,6}$/;
const FALLBACK_CODE = 'en';
const packDir = 'src/i18n';
const cache = new Map<string, LanguagePack>();

/** True when `code` has the shape of a language code (the API answers 400 otherwise). */
export function isLanguageCode(code: string): boolean {
  return LANGUAGE_CODE.test(code);
}

function readPack(code: string): Record<string, string> {
  const file = `${packDir}/${code}.json`;
  const parsed: unknown = JSON.parse(readAppFile(file));
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file}: not a JSON object`);
  const entries = Object.entries(parsed);
  for (const [key, value] of entries) {
    if (typeof value !== 'string') throw new Error(`${file}: value of "${key}" is not a string`);
  }
  const pack = Object.fromEntries(entries) as Record<string, string>;
  if (!pack['_.code'] || !pack['_.name']) throw new Error(`${file}: missing _.code or _.name`);
  return pack;
}

/**
 * The pack for `code` (English underneath, so keys it lacks read in English), or null when
 * the code is malformed or no such pack exists.
 */
export function loadLanguage(code: string): LanguagePack | null {
  if (!isLanguageCode(code)) return null;
  const cached = cache.get(code);
  if (cached) return cached;
  if (!appFileExists(`${packDir}/${code}.json`)) return null;
  const own = readPack(code);
  const pack = Object.freeze(code === FALLBACK_CODE ? own : { ...readPack(FALLBACK_CODE), ...own });
  cache.set(code, pack);
  return pack;
}

const catalogs = new Map<string, I18nCatalog>();

/**
 * The catalogue behind templates' `L` for `code` (English when there is no such pack). One
 * object per language, so the engine's per-catalogue cache of `L` is reused across renders.
 */
export function templateCatalog(code: string): I18nCatalog {
  let cat = catalogs.get(code);
  if (cat) return cat;
  const pack = loadLanguage(code) ?? loadLanguage(FALLBACK_CODE)!;
  cat = { code: pack['_.code'], name: pack['_.name'], messages: pack };
  catalogs.set(code, cat);
  return cat;
}

/** Every installed pack, as `{code, name}`, sorted by code. */
export function availableLanguages(): Array<{ code: string; name: string }> {
  return listAppFiles(packDir)
    .filter((file) => file.endsWith('.json') && isLanguageCode(file.slice(0, -5)))
    .map((file) => {
      const pack = readPack(file.slice(0, -5));
      return { code: pack['_.code'], name: pack['_.name'] };
    })
    .sort((a, b) => a.code.localeCompare(b.code));
}

function pluralForms(value: string): [singular: string, plural: string] {
  const parts = value.split('|');
  if (parts.length === 1) return [value, value];
  const singular = parts[0].trim();
  return [singular, parts.length === 2 ? parts[1].trim() : singular];
}

// A parameter value may itself name messages as {key}; they are translated (listmonk
// allows e.g. `name: "{globals.terms.campaign}"`). The depth bound stops cycles.
function resolveKeyReferences(pack: LanguagePack, value: string, depth = 0): string {
  if (depth > 4 || !value.includes('{')) return value;
  const resolved = value.replace(/\{([a-zA-Z0-9.-]+)\}/g, (whole, key: string) =>
    Object.hasOwn(pack, key) ? pluralForms(pack[key])[0] : whole,
  );
  return resolved === value ? value : resolveKeyReferences(pack, resolved, depth + 1);
}

function substitute(pack: LanguagePack, text: string, params: Readonly<Record<string, string | number>>): string {
  let out = text;
  for (const [name, value] of Object.entries(params)) {
    out = out.split(`{${name}}`).join(resolveKeyReferences(pack, String(value)));
  }
  return out;
}

/**
 * The message for `key` (its singular form for `singular | plural` values), with `{name}`
 * placeholders filled from `params`. A missing key yields the key itself, as in listmonk.
 */
export function translate(pack: LanguagePack, key: string, params?: Readonly<Record<string, string | number>>): string {
  if (!Object.hasOwn(pack, key)) return key;
  const text = pluralForms(pack[key])[0];
  return params ? substitute(pack, text, params) : text;
}

/** The plural form of `key` when `count` > 1, else the singular (listmonk's `L.Tc`). */
export function translateCount(pack: LanguagePack, key: string, count: number): string {
  if (!Object.hasOwn(pack, key)) return key;
  const [singular, plural] = pluralForms(pack[key]);
  return count > 1 ? plural : singular;
}

/** The `L` object templates see: `L.T "key"`, `L.Ts "key" "param" "value" …`, `L.Tc "key" n`, `L.Code`, `L.Name`. */
export interface TemplateI18n {
  Code: string;
  Name: string;
  T(key: string): string;
  Ts(key: string, ...pairs: string[]): string;
  Tc(key: string, count: number): string;
}

export function templateI18n(pack: LanguagePack): TemplateI18n {
  return {
    Code: pack['_.code'],
    Name: pack['_.name'],
    T: (key) => translate(pack, key),
    Ts(key, ...pairs) {
      if (pairs.length % 2 !== 0) return `${key}: Invalid arguments`;
      const params: Record<string, string> = {};
      for (let i = 0; i < pairs.length; i += 2) params[pairs[i]] = pairs[i + 1];
      return translate(pack, key, params);
    },
    Tc: (key, count) => translateCount(pack, key, count),
  };
}
