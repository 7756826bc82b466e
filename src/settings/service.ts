// Settings: stored one row per key (JSON), cached in memory. A change comes read by the
// settings schema (schema.ts: each setting typed, normalised and checked); saving it checks
// what spans settings. PUT merges over the stored values (listmonk wipes keys left out), and
// secrets never leave in clear: they are masked on read, and a masked or empty secret on save
// keeps the stored one.
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
export const keepsSecret = (s: unknown) => s === undefined || s === null || (typeof s === 'string' && (s === '' || /^•+$/.test(s)));

const clone = <T>(v: T): T => structuredClone(v);

type Block = Record<string, unknown>;

/**
 * The keys of a settings change and their new values, as the settings schema reads them
 * (schema.ts: typed, normalised, each checked on its own); keys that are not settings are ignored.
 */
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

  /** PUT /api/settings and /api/settings/{key}: merges the given keys over the stored ones; answers the keys whose values changed. */
  update(actor: Actor, changes: SettingsChanges): string[] {
    assertCan(actor, 'settings:manage');
    const next = clone(this.current);
    const keys = Object.keys(changes).filter((k) => Object.hasOwn(DEFAULT_SETTINGS, k)); // unknown keys are ignored, as listmonk
    for (const key of keys) next[key] = changes[key];
    this.assertMayChange(actor, next);
    return this.save(next, keys);
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
    const retype = keepSecrets(next, this.current);
    assignUuids(next);
    crossCheck(next);
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

/** Every block gets a uuid on its first save (what a block's saved password is matched by). */
function assignUuids(s: Settings): void {
  for (const key of BLOCK_SECRETS) for (const b of s[key] as Block[]) b.uuid ||= randomUUID();
}

const CRON_RE = /^(\S+\s+){4}\S+$/;

/**
 * The rules that read more than one setting, or a secret kept from the stored value; each
 * setting's own rules are in its schema (schema.ts).
 */
function crossCheck(s: Settings): void {
  const captcha = s['security.captcha'] as CaptchaSettings;
  if (captcha.hcaptcha.enabled && !(captcha.hcaptcha.key.trim() && captcha.hcaptcha.secret)) {
    throw invalid('invalid setting "security.captcha.hcaptcha": enabling hCaptcha needs its site key and secret');
  }
  if (s['app.cache_slow_queries'] && !CRON_RE.test(String(s['app.cache_slow_queries_interval']).trim())) {
    throw invalid('invalid setting "app.cache_slow_queries_interval": expected a 5-field cron expression');
  }
  // SMTP servers and messengers share one list of messenger names (a campaign's `messenger`).
  const names = new Set<string>();
  (s.smtp as Block[]).forEach((b, i) => {
    if (!b.name) return;
    if (names.has(b.name as string)) throw invalid(`invalid setting "smtp[${i}].name": "${b.name}" is used twice`);
    names.add(b.name as string);
  });
  (s.messengers as Block[]).forEach((b, i) => {
    if (b.name === 'email' || names.has(b.name as string)) throw invalid(`invalid setting "messengers[${i}].name": "${b.name}" is reserved or used twice`);
    names.add(b.name as string);
  });
}
