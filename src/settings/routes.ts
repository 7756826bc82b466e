// GET/PUT /api/settings, PUT /api/settings/{key}, POST /api/settings/smtp/test.
import type { Context } from 'hono';
import { readJsonValue } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { invalid } from '../core/errors.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, parseInput, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import type { Logger } from '../log.ts';
import type { SmtpServerSettings } from '../mail/smtp.ts';
import { DEFAULT_SETTINGS, smtpDefaults } from './defaults.ts';
import { AUTH_PROTOCOLS, settingsSchema, TLS_TYPES } from './schema.ts';
import type { SettingsService, SmtpTest } from './service.ts';

interface Deps {
  settings: SettingsService;
  /** Re-reads the settings and rebuilds the messengers, so a change applies at once. */
  reload(): void;
  log: Logger;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const SETTINGS_ROUTES = [
  route({ method: 'GET', path: '/settings', access: 'settings:get', handler: getSettings, summary: 'Every setting, secrets masked' }),
  route({ method: 'PUT', path: '/settings', access: 'settings:manage', handler: updateSettings, body: settingsSchema, summary: 'Changes the settings given (the others keep their value); a masked or empty secret keeps the stored one' }),
  route({
    method: 'PUT', path: '/settings/:key', access: 'settings:manage', handler: updateSetting, summary: 'Changes one setting',
    describedBody: { contentType: 'application/json', schema: () => z.unknown().meta({ description: 'The new value, as `SettingsChanges` describes the setting' }) },
  }),
  route({ method: 'POST', path: '/settings/smtp/test', access: 'settings:manage', handler: testSmtp, body: smtpTestInput, summary: 'Sends a test message to `email` through the SMTP server described; without a `host`, tests the saved servers (all enabled ones, or the one with `uuid`), sending a message only when `email` is given' }),
];

/**
 * listmonk's body: an SMTP server block as the settings hold one (`smtp[i]`; absent fields take
 * the defaults) and the recipient `email`. Without `host` (an empty body, or only `uuid` and/or
 * `email`), the saved servers are tested instead, a message sent only if `email` is given.
 */
function smtpTestInput() {
  return z.looseObject({ email: f.optString(), uuid: f.optString() }).meta({ id: 'SmtpTestInput' }).transform(({ email, ...block }): SmtpTest => {
    if (block.host === undefined) return { kind: 'saved', to: email || null, uuid: block.uuid || null };
    if (!email) throw invalid('"email" is required');
    const server = { ...smtpDefaults({}), ...block } as unknown as SmtpServerSettings;
    if (!server.host || typeof server.host !== 'string' || typeof server.port !== 'number') throw invalid('"host" and "port" are required');
    if (!(AUTH_PROTOCOLS as readonly string[]).includes(server.auth_protocol)) throw invalid(`invalid "auth_protocol": ${server.auth_protocol}`);
    if (!(TLS_TYPES as readonly string[]).includes(server.tls_type)) throw invalid(`invalid "tls_type": ${server.tls_type}`);
    return { kind: 'given', to: email, server };
  });
}

function getSettings(c: C, s: Deps) {
  return ok(c, s.settings.masked(c.get('user')));
}

/** The keys a change changed, never their values (some are secrets). */
function logChange(s: Deps, username: string, keys: string[]): void {
  s.log.info(keys.length ? `settings changed by ${username}: ${keys.join(', ')}` : `settings saved by ${username}, none changed`);
}

function updateSettings(c: C, s: Deps, { body }: Input<ReturnType<typeof settingsSchema>, undefined>) {
  const changed = s.settings.update(c.get('user'), body);
  s.reload();
  logChange(s, c.get('user').username, changed);
  return ok(c, true);
}

/** The body is any JSON value (a string, a number, an object…), read by the setting's schema. */
async function updateSetting(c: C, s: Deps) {
  const key = c.req.param('key') ?? '';
  if (!Object.hasOwn(DEFAULT_SETTINGS, key)) throw invalid(`unknown setting "${key}"`);
  const changed = s.settings.update(c.get('user'), parseInput(settingsSchema(), { [key]: await readJsonValue(c) }));
  s.reload();
  logChange(s, c.get('user').username, changed);
  return ok(c, true);
}

async function testSmtp(c: C, s: Deps, { body }: Input<ReturnType<typeof smtpTestInput>, undefined>) {
  const by = c.get('user').username;
  try {
    await s.settings.testSmtp(c.get('user'), body);
  } catch (e) {
    s.log.warn(`SMTP test by ${by} failed: ${(e as Error).message}`);
    throw e;
  }
  const what = body.kind === 'given' ? `${body.server.host}:${body.server.port}` : body.uuid ? `the saved server ${body.uuid}` : 'the saved servers';
  s.log.info(body.to ? `SMTP test message sent through ${what} to ${body.to} by ${by}` : `SMTP connection test of ${what} passed (by ${by})`);
  return ok(c, true);
}
