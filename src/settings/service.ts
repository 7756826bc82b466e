// Settings: stored one row per key (JSON), cached in memory, validated and normalised on save.
// PUT merges over the stored values (listmonk wipes keys left out), and secrets never leave in
// clear: they are masked on read, and a masked or empty secret on save keeps the stored one.
// Reading them through the API takes settings:get, changing or testing them settings:manage.
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { DB } from '../db/connection.ts';
import { param, preparedStatements } from '../db/index.ts';
import { NOW, parseJsonText, settings } from '../db/schema.ts';
import { invalid, denied, notFound } from '../core/errors.ts';
import { can, type Actor, type Permission } from '../core/authz.ts';
import { SmtpTestError, testSmtpServer, type SmtpServerSettings } from '../mail/smtp.ts';
import { BLOCK_SECRETS, DEFAULT_SETTINGS, OBJECT_SECRETS, STRING_SECRETS, SUPER_ADMIN_SETTINGS, type Settings } from './defaults.ts';
import { parseDuration } from '../duration.ts';
import { emailProblem } from '../mail/address.ts';
import { isValidFrom, readHeaderList } from '../mail/message.ts';
import type { CaptchaSettings } from '../public/captcha.ts';
import { backupFolder, folderProblem } from '../db/backup-files.ts';

const statements = (db: DB) => preparedStatements(db, {
  all: (orm) => orm.select({ key: settings.key, value: settings.value }).from(settings).prepare(),
  upsert: (orm) => orm.insert(settings).values({ key: param('key'), value: param('value'), updated_at: NOW })
    .onConflictDoUpdate({ target: settings.key, set: { value: sql`excluded.value`, updated_at: sql`excluded.updated_at` } }).prepare(),
});

/** Keys stored in the settings table that are not settings (never returned or accepted). */
const INTERNAL_KEYS = new Set(['app.installed_at', 'app.last_backup', 'app.smtp_test_sent']);

/** What `listmgr backup` records of the last backup it wrote (shown by `listmgr status`). */
export interface BackupRecord {
  at: string;
  file: string;
  bytes: number;
}

const MASK_CHAR = '•';
const mask = (s: unknown) => (typeof s === 'string' && s !== '' ? MASK_CHAR.repeat(s.length) : '');
/** Empty, or only bullets (a client echoing the masked value back): keep the stored secret. */
const keepsSecret = (s: unknown) => s === undefined || s === null || (typeof s === 'string' && (s === '' || /^•+$/.test(s)));

const clone = <T>(v: T): T => structuredClone(v);

type Block = Record<string, unknown>;

/** The keys of a settings change and their new values; keys that are not settings are ignored. */
export type SettingsChanges = Record<string, unknown>;

/**
 * POST /api/settings/smtp/test: the SMTP server block given (listmonk's body; its password
 * masked or empty means the saved one, for the same server only), or the saved servers (all
 * enabled ones, or the one with `uuid`). Without a recipient the servers are only connected and
 * authenticated to.
 */
export type SmtpTest =
  | { kind: 'given'; to: string; server: SmtpServerSettings }
  | { kind: 'saved'; to: string | null; uuid: string | null };

/**
 * What a block's saved password is bound to, by block setting: where it is sent and who to.
 * Change any of them and the password must be typed again, or whoever may change the settings
 * could point the block at their own host and receive it (SMTP AUTH, POP3 PASS, a postback's
 * basic auth). `uses`: whether the block sends a password at all (none to keep otherwise).
 */
const PASSWORD_BINDINGS: Record<string, { fields: string[]; what: string; uses: (b: Block) => boolean }> = {
  smtp: { fields: ['host', 'port', 'username', 'tls_type', 'tls_skip_verify'], what: 'host, port, user name or TLS settings', uses: (b) => b.auth_protocol !== 'none' },
  'bounce.mailboxes': { fields: ['host', 'port', 'username', 'tls_enabled', 'tls_skip_verify'], what: 'host, port, user name or TLS settings', uses: (b) => b.auth_protocol !== 'none' },
  messengers: { fields: ['root_url', 'username'], what: 'URL or user name', uses: (b) => !!b.username },
};
const bindingOf = (key: string, b: Block) => JSON.stringify(PASSWORD_BINDINGS[key].fields.map((k) => {
  const v = typeof b[k] === 'string' ? (b[k] as string).trim() : b[k];
  return k === 'host' ? String(v).toLowerCase() : v;
}));

export class SettingsService {
  private current: Settings = clone(DEFAULT_SETTINGS);
  private readonly q: ReturnType<typeof statements>;
  private listeners: ((s: Settings) => void)[] = [];

  /** rootUrlOverride: LISTMGR_ROOT_URL, which wins over app.root_url. */
  constructor(private readonly db: DB, private readonly rootUrlOverride: string | null = null) {
    this.q = statements(db);
    this.reload();
  }

  /** Re-reads the table (on start and on POST /admin/reload). */
  reload(): void {
    const stored: Settings = {};
    for (const row of this.q.all.all()) {
      if (!INTERNAL_KEYS.has(row.key)) stored[row.key] = parseJsonText(row.value);
    }
    this.current = { ...clone(DEFAULT_SETTINGS), ...stored };
    for (const fn of this.listeners) fn(this.current);
  }

  onChange(fn: (s: Settings) => void): void {
    this.listeners.push(fn);
  }

  /** The full settings, secrets in clear (internal use only). */
  all(): Readonly<Settings> {
    return this.current;
  }

  get<T = unknown>(key: string): T {
    return this.current[key] as T;
  }

  str(key: string): string { return String(this.current[key] ?? ''); }
  num(key: string): number { return Number(this.current[key] ?? 0); }
  bool(key: string): boolean { return this.current[key] === true; }

  /** Public root URL without a trailing slash. */
  rootUrl(): string {
    return this.rootUrlOverride ?? this.str('app.root_url').replace(/\/+$/, '');
  }

  /** The settings as GET /api/settings shows them: every key, secrets masked. */
  masked(actor: Actor): Settings {
    assertCan(actor, 'settings:get');
    const out = clone(this.current);
    for (const key of STRING_SECRETS) {
      const v = mask(out[key]);
      if (v === '' && key === 'upload.s3.aws_secret_access_key') delete out[key];
      else out[key] = v;
    }
    for (const [key, path] of OBJECT_SECRETS) {
      const parent = dig(out[key], path.slice(0, -1));
      if (parent) parent[path[path.length - 1]] = mask(parent[path[path.length - 1]]);
    }
    for (const key of BLOCK_SECRETS) {
      for (const block of (out[key] as Block[]) ?? []) {
        if (block.password === '' || block.password === undefined) delete block.password;
        else block.password = mask(block.password);
      }
    }
    return out;
  }

  /**
   * The settings for the admin page's form: every secret blanked (not masked: a mask's length
   * would tell the secret's), with the paths of the secrets that are set (`smtp[0].password`,
   * `security.captcha.hcaptcha.secret`), so the page can say "saved" without showing anything.
   */
  forForm(actor: Actor): { values: Settings; secretsSet: string[] } {
    assertCan(actor, 'settings:get');
    const values = clone(this.current);
    const secretsSet: string[] = [];
    const blank = (holder: Record<string, unknown>, leaf: string, path: string) => {
      if (typeof holder[leaf] === 'string' && holder[leaf] !== '') secretsSet.push(path);
      holder[leaf] = '';
    };
    for (const key of STRING_SECRETS) blank(values, key, key);
    for (const [key, path] of OBJECT_SECRETS) {
      const parent = dig(values[key], path.slice(0, -1));
      if (parent) blank(parent, path[path.length - 1], [key, ...path].join('.'));
    }
    for (const key of BLOCK_SECRETS) ((values[key] as Block[]) ?? []).forEach((b, i) => blank(b, 'password', `${key}[${i}].password`));
    return { values, secretsSet };
  }

  /** PUT /api/settings: merges the given keys over the stored ones; answers the keys whose values changed. */
  update(actor: Actor, partial: SettingsChanges): string[] {
    assertCan(actor, 'settings:manage');
    const next = clone(this.current);
    for (const [key, value] of Object.entries(partial)) {
      if (!Object.hasOwn(DEFAULT_SETTINGS, key)) continue; // unknown keys are ignored, as listmonk
      next[key] = value;
    }
    this.assertMayChange(actor, next);
    return this.save(next, Object.keys(partial).filter((k) => Object.hasOwn(DEFAULT_SETTINGS, k)));
  }

  /** PUT /api/settings/{key}; answers [key] when its value changed. */
  updateKey(actor: Actor, key: string, value: unknown): string[] {
    assertCan(actor, 'settings:manage');
    if (!Object.hasOwn(DEFAULT_SETTINGS, key)) throw invalid(`unknown setting "${key}"`);
    const next = clone(this.current);
    next[key] = value;
    this.assertMayChange(actor, next);
    return this.save(next, [key]);
  }

  /**
   * 403 when a change other than a Super Admin's would change a SUPER_ADMIN_SETTINGS key. The
   * value sent back unchanged is fine, also as a browser's text box gives it back (line endings
   * as \n, a leading newline dropped): then the stored value is kept as it is.
   */
  private assertMayChange(actor: Actor, next: Settings): void {
    if (actor.superAdmin) return;
    const text = (v: unknown) => (typeof v === 'string' ? v.replace(/\r\n?/g, '\n').trim() : JSON.stringify(v));
    for (const key of SUPER_ADMIN_SETTINGS) {
      if (text(next[key]) !== text(this.current[key])) {
        throw denied(`permission denied: only a Super Admin may change "${key}" (custom JavaScript runs in the browser of everyone who opens those pages)`);
      }
      next[key] = this.current[key];
    }
  }

  /** Tests SMTP servers (see SmtpTest); a failure is a 400 saying what failed, without the remote's own text. */
  async testSmtp(actor: Actor, test: SmtpTest): Promise<void> {
    assertCan(actor, 'settings:manage');
    const saved = this.get<SmtpServerSettings[]>('smtp');
    let servers: SmtpServerSettings[];
    // A server typed for the test, unless it is one saved (host and port), may only be where
    // postback messengers may connect: not a probe of the server's own network.
    let guard: { allowPrivate: boolean } | undefined;
    if (test.kind === 'given') {
      servers = [withSavedPassword(test.server, saved)];
      const host = test.server.host.trim().toLowerCase();
      const isSaved = saved.some((b) => b.host.trim().toLowerCase() === host && b.port === test.server.port);
      if (!isSaved) guard = { allowPrivate: this.bool('security.allow_private_outbound') };
    } else if (test.uuid) {
      const one = saved.find((b) => b.uuid === test.uuid);
      if (!one) throw notFound(`no saved SMTP server has uuid "${test.uuid.slice(0, 100)}"`);
      servers = [one];
    } else {
      servers = saved.filter((b) => b.enabled);
      if (!servers.length) throw invalid('no SMTP server is enabled in the saved settings');
    }
    for (const server of servers) {
      try {
        await testSmtpServer(server, this.str('app.from_email'), test.to, this.str('app.site_name'), guard);
      } catch (e) {
        if (e instanceof SmtpTestError) throw invalid(`SMTP test failed: ${e.message}`);
        throw e;
      }
    }    // The first-run checklist's "send a test" step: a message went out through a relay.
    if (test.to) this.q.upsert.run({ key: 'app.smtp_test_sent', value: JSON.stringify({ at: new Date().toISOString() }) });
  }

  /** When a test message last went out successfully (POST /api/settings/smtp/test with an address); null if never. */
  smtpTestSent(): { at: string } | null {
    const row = this.q.all.all().find((r) => r.key === 'app.smtp_test_sent');
    return row ? (parseJsonText(row.value) as { at: string }) : null;
  }

  /** Validates and stores; answers the keys whose values changed (for the log: keys only, never values). */
  private save(next: Settings, changed: string[]): string[] {
    for (const key of changed) checkShape(key, next[key], DEFAULT_SETTINGS[key]);
    const retype = keepSecrets(next, this.current);
    normalise(next);
    validate(next);
    if (retype) throw invalid(retype);
    if (next['backup.enabled'] && changed.some((k) => k.startsWith('backup.'))) {
      const problem = folderProblem(backupFolder(next['backup.dir'] as string, this.db.name));
      if (problem) throw invalid(`invalid setting "backup.dir": ${problem}`);
    }
    const differ = Object.keys(DEFAULT_SETTINGS).filter((key) => JSON.stringify(next[key]) !== JSON.stringify(this.current[key]));
    this.db.transaction(() => {
      for (const key of Object.keys(DEFAULT_SETTINGS)) {
        if (differ.includes(key) || changed.includes(key)) this.q.upsert.run({ key, value: JSON.stringify(next[key]) });
      }
    }).immediate();
    this.reload();
    return differ;
  }

  static recordBackup(db: DB, backup: BackupRecord): void {
    statements(db).upsert.run({ key: 'app.last_backup', value: JSON.stringify(backup) });
  }

  static lastBackup(db: DB): BackupRecord | null {
    const row = statements(db).all.all().find((r) => r.key === 'app.last_backup');
    return row ? (parseJsonText(row.value) as BackupRecord) : null;
  }

  /** Writes every default, or the given value instead (install). */
  static writeDefaults(db: DB, over: Settings = {}): void {
    const { upsert } = statements(db);
    for (const [key, value] of Object.entries({ ...DEFAULT_SETTINGS, ...over })) upsert.run({ key, value: JSON.stringify(value) });
  }
}

/**
 * A given SMTP block whose password is masked or empty takes the saved password of the block
 * with its uuid, only if it still names the same server: the saved password is never sent to
 * another host, port, user name or TLS setting.
 */
function withSavedPassword(server: SmtpServerSettings, saved: SmtpServerSettings[]): SmtpServerSettings {
  if (!keepsSecret(server.password)) return server;
  if (server.auth_protocol === 'none') return { ...server, password: '' };
  const stored = saved.find((b) => b.uuid && b.uuid === server.uuid);
  const masked = !!server.password;
  if (!stored) {
    if (masked) throw invalid('the password is masked and no saved SMTP server has this uuid: type the password');
    return { ...server, password: '' };
  }
  if (bindingOf('smtp', stored as unknown as Block) !== bindingOf('smtp', server as unknown as Block)) {
    if (!stored.password) return { ...server, password: '' };
    throw invalid('the host, port, user name or TLS settings differ from the saved server\'s: type the password again to test them (the saved one is only sent to the server it was saved for)');
  }
  return { ...server, password: stored.password ?? '' };
}

function assertCan(actor: Actor, permission: Permission): void {
  if (!can(actor, permission)) throw denied(`permission denied: ${permission}`);
}

function dig(v: unknown, path: string[]): Record<string, unknown> | null {
  let cur = v;
  for (const p of path) {
    if (!cur || typeof cur !== 'object') return null;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur && typeof cur === 'object' ? (cur as Record<string, unknown>) : null;
}

function kind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

/** The value must have the default's JSON shape (objects recursively; null allowed where the default is null). */
function checkShape(field: string, value: unknown, def: unknown): void {
  const want = kind(def);
  const got = kind(value);
  if (want === 'null') return;
  if (want === 'integer' ? got !== 'integer' : got !== want) {
    throw invalid(`invalid setting "${field}": expected ${want === 'integer' ? 'an integer' : `a${want === 'array' || want === 'object' ? 'n' : ''} ${want}`}`);
  }
  if (want === 'object') {
    for (const [k, d] of Object.entries(def as Record<string, unknown>)) {
      const v = (value as Record<string, unknown>)[k];
      if (v === undefined) (value as Record<string, unknown>)[k] = clone(d);
      else checkShape(`${field}.${k}`, v, d);
    }
  }
  if (want === 'array' && Array.isArray(def) && def.length && kind(def[0]) === 'object') {
    (value as unknown[]).forEach((item, i) => {
      if (kind(item) !== 'object') throw invalid(`invalid setting "${field}[${i}]": expected an object`);
      const template = def[0] as Record<string, unknown>;
      for (const [k, d] of Object.entries(template)) {
        const v = (item as Record<string, unknown>)[k];
        if (v === undefined || (v === null && k === 'password')) (item as Record<string, unknown>)[k] = k === 'password' || k === 'uuid' || k === 'name' ? '' : clone(d);
        else checkShape(`${field}[${i}].${k}`, v, d);
      }
    });
  }
  if (want === 'array' && field.endsWith('.email_headers')) {
    readHeaderList(value, (rule) => invalid(`invalid "${field}": ${rule}`));
  } else if (want === 'array' && Array.isArray(def) && (def.length === 0 || kind(def[0]) === 'string') && field !== 'messengers') {
    (value as unknown[]).forEach((item, i) => {
      if (typeof item !== 'string') throw invalid(`invalid setting "${field}[${i}]": expected a string`);
    });
  }
}

/**
 * A masked or empty secret takes the stored one (for a block, only while it is bound to the same
 * place: PASSWORD_BINDINGS); answers why a password must be typed again, or null.
 */
function keepSecrets(next: Settings, prev: Settings): string | null {
  let retype: string | null = null;
  for (const key of STRING_SECRETS) if (keepsSecret(next[key])) next[key] = prev[key];
  for (const [key, path] of OBJECT_SECRETS) {
    const leaf = path[path.length - 1];
    const n = dig(next[key], path.slice(0, -1));
    const p = dig(prev[key], path.slice(0, -1));
    if (n && keepsSecret(n[leaf])) n[leaf] = p?.[leaf] ?? '';
  }
  for (const key of BLOCK_SECRETS) {
    const prevBlocks = (prev[key] as Block[]) ?? [];
    for (const [i, block] of ((next[key] as Block[]) ?? []).entries()) {
      if (!keepsSecret(block.password)) continue;
      // Matched by uuid; blocks saved before they had one are matched by position.
      const old = block.uuid ? prevBlocks.find((b) => b.uuid === block.uuid) : prevBlocks[i]?.uuid ? undefined : prevBlocks[i];
      block.password = old?.password ?? '';
      if (!old || !block.password || bindingOf(key, old) === bindingOf(key, block)) continue;
      const binding = PASSWORD_BINDINGS[key];
      if (!binding.uses(block)) block.password = '';
      else {
        const name = block.name ? ` ("${String(block.name).slice(0, 100)}")` : '';
        retype ??= `invalid setting "${key}[${i}].password": the ${binding.what} of ${key}[${i}]${name} changed: type the password again (a saved password is only sent where it was saved for)`;
      }
    }
  }
  return retype;
}

const lowerTrimList = (v: unknown) => [...new Set((v as string[]).map((s) => s.trim().toLowerCase()).filter(Boolean))];

function normalise(s: Settings): void {
  s['app.root_url'] = String(s['app.root_url']).trim().replace(/\/+$/, '');
  s['app.site_url'] = String(s['app.site_url']).trim();
  s['upload.extensions'] = lowerTrimList(s['upload.extensions']).map((e) => e.replace(/^\.+/, ''));
  s['privacy.domain_blocklist'] = lowerTrimList(s['privacy.domain_blocklist']);
  s['privacy.domain_allowlist'] = lowerTrimList(s['privacy.domain_allowlist']);
  s['security.trusted_urls'] = (s['security.trusted_urls'] as string[]).map((u) => u.trim()).filter(Boolean);
  s['app.notify_emails'] = (s['app.notify_emails'] as string[]).map((u) => u.trim()).filter(Boolean);
  s['bounce.ses_topic_arns'] = [...new Set((s['bounce.ses_topic_arns'] as string[]).map((u) => u.trim()).filter(Boolean))];
  s['privacy.unsubscribe_mailto'] = String(s['privacy.unsubscribe_mailto'] ?? '').trim().toLowerCase();
  s['backup.dir'] = String(s['backup.dir']).trim() || 'backups';
  s['app.accent_color'] = String(s['app.accent_color']).trim().toLowerCase();
  s['app.postal_address'] = String(s['app.postal_address']).replace(/\r\n?/g, '\n').trim();
  for (const b of s.smtp as Block[]) {
    b.uuid ||= randomUUID();
    b.host = String(b.host).trim();
    const name = String(b.name ?? '').toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/^email-/, '');
    b.name = name ? `email-${name}` : '';
    if (b.enabled) b.from_addresses = lowerTrimList(b.from_addresses);
  }
  for (const b of s.messengers as Block[]) {
    b.uuid ||= randomUUID();
    b.name = String(b.name ?? '').toLowerCase().replace(/[^a-z0-9-]/g, '');
  }
  for (const b of s['bounce.mailboxes'] as Block[]) {
    b.uuid ||= randomUUID();
    b.host = String(b.host).trim();
  }
}

const oneOf = (field: string, v: unknown, allowed: string[]) => {
  if (!allowed.includes(v as string)) throw invalid(`invalid setting "${field}": "${String(v)}" is not one of ${allowed.join(', ')}`);
};
const duration = (field: string, v: unknown, minMs = 0) => {
  const ms = parseDuration(String(v));
  if (ms === null) throw invalid(`invalid setting "${field}": "${String(v)}" is not a duration like 10s, 5m or 1h`);
  if (ms < minMs) throw invalid(`invalid setting "${field}": must be at least ${minMs / 60000} minute(s)`);
};
const positive = (field: string, v: unknown, min = 1) => {
  if (typeof v !== 'number' || v < min) throw invalid(`invalid setting "${field}": must be at least ${min}`);
};
const CRON_RE = /^(\S+\s+){4}\S+$/;
const SNS_TOPIC_ARN_RE = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;

function validate(s: Settings): void {
  const root = s['app.root_url'] as string;
  if (!/^https?:\/\/[^\s/]+/i.test(root)) throw invalid('invalid setting "app.root_url": expected an http(s) URL');
  const site = s['app.site_url'] as string;
  if (site && !/^https?:\/\/[^\s/]+\S*$/i.test(site)) throw invalid('invalid setting "app.site_url": expected an http(s) URL, or "" for the root URL');
  if (!/^#[0-9a-f]{6}$/.test(s['app.accent_color'] as string)) throw invalid(`invalid setting "app.accent_color": "${String(s['app.accent_color']).slice(0, 50)}" is not a colour like #0b57d0`);
  if ((s['app.postal_address'] as string).length > 500) throw invalid('invalid setting "app.postal_address": at most 500 characters');
  const from = String(s['app.from_email']).trim();
  if (!from) throw invalid('invalid setting "app.from_email": required');
  if (!isValidFrom(from)) throw invalid(`invalid setting "app.from_email": "${from.slice(0, 200)}" is not an e-mail address or "Name <address>"`);
  positive('app.batch_size', s['app.batch_size']);
  positive('app.concurrency', s['app.concurrency']);
  positive('app.message_rate', s['app.message_rate']);
  positive('app.max_send_errors', s['app.max_send_errors'], 0);
  positive('app.message_sliding_window_rate', s['app.message_sliding_window_rate']);
  positive('security.public_rate_limit', s['security.public_rate_limit'], 0);
  positive('upload.max_file_size', s['upload.max_file_size']);
  duration('app.message_sliding_window_duration', s['app.message_sliding_window_duration']);
  duration('app.defer_limit', s['app.defer_limit']);
  if (parseDuration(String(s['app.defer_limit'])) === 0) throw invalid('invalid setting "app.defer_limit": must be longer than 0');
  duration('security.session_idle_timeout', s['security.session_idle_timeout'], 60_000);
  if (parseDuration(String(s['security.session_idle_timeout']))! > 86_400_000) throw invalid('invalid setting "security.session_idle_timeout": at most 24h (the lifetime of a session)');
  const captcha = s['security.captcha'] as CaptchaSettings;
  positive('security.captcha.altcha.complexity', captcha.altcha.complexity);
  if (captcha.hcaptcha.enabled && !(captcha.hcaptcha.key.trim() && captcha.hcaptcha.secret)) {
    throw invalid('invalid setting "security.captcha.hcaptcha": enabling hCaptcha needs its site key and secret');
  }
  if (s['app.cache_slow_queries'] && !CRON_RE.test(String(s['app.cache_slow_queries_interval']).trim())) {
    throw invalid('invalid setting "app.cache_slow_queries_interval": expected a 5-field cron expression');
  }
  oneOf('upload.provider', s['upload.provider'], ['filesystem', 's3']);
  for (const u of s['security.trusted_urls'] as string[]) {
    if (u !== '*' && !/^https?:\/\/[^\s/]+/i.test(u)) throw invalid(`invalid setting "security.trusted_urls": "${u}" is not * or an http(s) URL`);
  }
  const mailto = s['privacy.unsubscribe_mailto'] as string;
  if (mailto && emailProblem(mailto, { allow: [], block: [] })) throw invalid(`invalid setting "privacy.unsubscribe_mailto": "${mailto}" is not an e-mail address`);
  for (const e of s['privacy.exportable'] as string[]) oneOf('privacy.exportable', e, ['profile', 'subscriptions', 'campaign_views', 'link_clicks']);

  const smtp = s.smtp as Block[];
  // None enabled is allowed (listmonk refuses it): it is how a new install ships (§96).
  if (!smtp.length) throw invalid('invalid setting "smtp": at least one SMTP server is required (it may be disabled)');
  const names = new Set<string>();
  smtp.forEach((b, i) => {
    const f = `smtp[${i}]`;
    if (b.enabled && !b.host) throw invalid(`invalid setting "${f}.host": required`);
    if (typeof b.port !== 'number' || b.port < 1 || b.port > 65535) throw invalid(`invalid setting "${f}.port": must be 1-65535`);
    oneOf(`${f}.auth_protocol`, b.auth_protocol, ['none', 'plain', 'login', 'cram']);
    oneOf(`${f}.tls_type`, b.tls_type, ['none', 'STARTTLS', 'TLS']);
    positive(`${f}.max_conns`, b.max_conns);
    positive(`${f}.max_msg_retries`, b.max_msg_retries, 0);
    for (const k of ['msg_retry_delay', 'idle_timeout', 'wait_timeout']) duration(`${f}.${k}`, b[k]);
    if (b.name) {
      if (names.has(b.name as string)) throw invalid(`invalid setting "${f}.name": "${b.name}" is used twice`);
      names.add(b.name as string);
    }
  });
  (s.messengers as Block[]).forEach((b, i) => {
    const f = `messengers[${i}]`;
    if (!b.name) throw invalid(`invalid setting "${f}.name": required`);
    if (b.name === 'email' || names.has(b.name as string)) throw invalid(`invalid setting "${f}.name": "${b.name}" is reserved or used twice`);
    names.add(b.name as string);
    const url = URL.parse(String(b.root_url ?? ''));
    if (b.enabled && !(url && /^https?:$/.test(url.protocol))) throw invalid(`invalid setting "${f}.root_url": expected an http(s) URL`);
    if (b.timeout !== undefined) duration(`${f}.timeout`, b.timeout);
  });
  for (const arn of s['bounce.ses_topic_arns'] as string[]) {
    if (!SNS_TOPIC_ARN_RE.test(arn)) throw invalid(`invalid setting "bounce.ses_topic_arns": "${arn.slice(0, 300)}" is not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)`);
  }
  (s['bounce.mailboxes'] as Block[]).forEach((b, i) => {
    duration(`bounce.mailboxes[${i}].scan_interval`, b.scan_interval, 60_000);
    oneOf(`bounce.mailboxes[${i}].type`, b.type, ['pop', 'imap']);
  });
  for (const [type, a] of Object.entries(s['bounce.actions'] as Record<string, Block>)) {
    oneOf(`bounce.actions.${type}.action`, a.action, ['none', 'unsubscribe', 'blocklist', 'delete']);
    positive(`bounce.actions.${type}.count`, a.count);
  }
  duration('backup.interval', s['backup.interval'], 60_000);
  const keep = s['backup.keep'] as number;
  if (keep < 1 || keep > 1000) throw invalid('invalid setting "backup.keep": must be 1-1000 (the number of backups kept)');
  if ((s['backup.dir'] as string).includes('\0') || (s['backup.dir'] as string).length > 1000) throw invalid('invalid setting "backup.dir": expected a folder path');
  const metricsToken = s['metrics.token'] as string;
  if (metricsToken && !/^[\x21-\x7e]{16,500}$/.test(metricsToken)) throw invalid('invalid setting "metrics.token": 16 to 500 visible ASCII characters without spaces, or "" for none');
  const oidc = s['security.oidc'] as Block;
  if (oidc.enabled && oidc.auto_create_users && !(Number(oidc.default_user_role_id) >= 1)) {
    throw invalid('invalid setting "security.oidc.default_user_role_id": required when auto_create_users is on');
  }
}
