// listmonk's settings in the shapes older versions stored, brought to the shapes listmonk v6.2
// (and listmgr) use. listmonk converts them in its own upgrade steps (internal/migrations);
// a database that was never upgraded still holds the old shapes, so the migration converts
// them here, the same way.
import { DEFAULT_SETTINGS } from '../settings/defaults.ts';

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** app.lang codes listmonk corrected in v6.2. */
const LANGUAGE_CODES: Record<string, string> = { 'cs-cz': 'cs', jp: 'ja', se: 'sv' };

/**
 * Converts `settings` (key → parsed value, as read from listmonk) in place; answers what was
 * converted, for the summary. Keys that listmonk later renamed or folded into another key are
 * removed and their value moved.
 */
export function convertOldSettings(settings: Map<string, unknown>): string[] {
  const done: string[] = [];
  const take = (key: string): unknown => {
    const v = settings.get(key);
    settings.delete(key);
    return v;
  };

  // v2.1: an SMTP server's tls_enabled (true/false) became tls_type (STARTTLS/none); v6.2 added
  // msg_retry_delay and from_addresses to each server.
  const smtp = settings.get('smtp');
  if (Array.isArray(smtp)) {
    let tls = 0;
    settings.set('smtp', smtp.map((server: unknown) => {
      if (!isObject(server)) return server;
      const { tls_enabled: tlsEnabled, ...rest } = server;
      if (tlsEnabled !== undefined && rest.tls_type === undefined) {
        tls++;
        rest.tls_type = tlsEnabled === true || tlsEnabled === 'true' ? 'STARTTLS' : 'none';
      }
      return { msg_retry_delay: '10ms', from_addresses: [], ...rest };
    }));
    if (tls) done.push(`${tls} SMTP server(s): tls_enabled became tls_type`);
  }

  // v2.5: bounce.count and bounce.action (one rule for every bounce) became bounce.actions,
  // per bounce type. The old rule goes to hard bounces and complaints; soft ones are counted
  // but not acted on, as listmonk's default.
  if (settings.has('bounce.count') || settings.has('bounce.action')) {
    const count = Number(take('bounce.count') ?? 2);
    const action = String(take('bounce.action') ?? 'blocklist');
    if (!settings.has('bounce.actions')) {
      settings.set('bounce.actions', { soft: { count, action: 'none' }, hard: { count, action }, complaint: { count, action } });
      done.push('bounce.count and bounce.action became bounce.actions (hard bounces and complaints)');
    }
  }

  // v3.0: an S3 expiry of "14d" (a unit Go does not parse) became "167h".
  if (settings.get('upload.s3.expiry') === '14d') {
    settings.set('upload.s3.expiry', '167h');
    done.push('upload.s3.expiry "14d" became "167h"');
  }

  // v5.1: security.enable_captcha, captcha_key and captcha_secret became security.captcha.
  if (['security.enable_captcha', 'security.captcha_key', 'security.captcha_secret'].some((k) => settings.has(k))) {
    const enabled = take('security.enable_captcha');
    const key = take('security.captcha_key');
    const secret = take('security.captcha_secret');
    if (!settings.has('security.captcha')) {
      settings.set('security.captcha', {
        altcha: { enabled: false, complexity: 300000 },
        hcaptcha: { enabled: enabled === true || enabled === 'true', key: String(key ?? ''), secret: String(secret ?? '') },
      });
      done.push('security.enable_captcha, captcha_key and captcha_secret became security.captcha (hCaptcha)');
    }
  }

  // v6.1 kept the OpenID provider's name in a key of its own; listmgr keeps it in security.oidc.
  if (settings.has('security.oidc.provider_name')) {
    const name = take('security.oidc.provider_name');
    const oidc = settings.get('security.oidc');
    if (isObject(oidc) && oidc.provider_name === undefined) settings.set('security.oidc', { ...oidc, provider_name: String(name ?? '') });
  }

  // v6.2 corrected three language codes.
  const lang = settings.get('app.lang');
  if (typeof lang === 'string' && LANGUAGE_CODES[lang]) {
    settings.set('app.lang', LANGUAGE_CODES[lang]);
    done.push(`app.lang "${lang}" became "${LANGUAGE_CODES[lang]}"`);
  }

  // Fields later versions added to an object setting (v5.1's OpenID auto_create_users and
  // default roles, …) take their defaults.
  for (const [key, value] of settings) {
    const defaults = DEFAULT_SETTINGS[key];
    if (isObject(value) && isObject(defaults)) settings.set(key, { ...defaults, ...value });
  }
  return done;
}
