// The settings schema: each setting's type, normalisation and rules, written once. A setting
// whose default says it all (a name, a flag, a list of strings, an object of those) takes its
// schema from the default (`like`); RULES adds the rest. PUT /api/settings and PUT
// /api/settings/{key} read their changes with it, and the OpenAPI document describes them from
// it. Rules that read several settings, or a secret the service keeps from the stored value,
// stay in the service (service.ts `crossCheck`).
import { z } from 'zod';
import { f } from '../http/schema.ts';
import { parseDuration } from '../duration.ts';
import { isValidFrom } from '../mail/message.ts';
import { emailProblem } from '../mail/address.ts';
import { DEFAULT_SETTINGS } from './defaults.ts';
import { keepsSecret } from './service.ts';

/** SMTP sign-in methods and TLS modes (the SMTP test's body takes the same). */
export const AUTH_PROTOCOLS = ['none', 'plain', 'login', 'cram'] as const;
export const TLS_TYPES = ['none', 'STARTTLS', 'TLS'] as const;

// Messages name the setting through `{key}`, which parseInput fills with its path (`smtp[0].port`).
const rule = (text: string) => `invalid setting "{key}": ${text}`;

const text = () => z.string({ error: rule('expected a string') });
const bool = () => z.boolean({ error: rule('expected a boolean') });
const texts = () => z.array(text(), { error: rule('expected an array') });
const int = () => z.int({ error: rule('expected an integer') });
const count = (min: number) => int().min(min, { error: rule(`must be at least ${min}`) });
const range = (min: number, max: number, why = '') => {
  const error = rule(`must be ${min}-${max}${why}`);
  return int().min(min, { error }).max(max, { error });
};
const oneOf = <T extends string>(allowed: readonly [T, ...T[]]) =>
  z.enum(allowed, { error: (issue) => rule(`"${String(issue.input)}" is not one of ${allowed.join(', ')}`) });
const HTTP_URL_RE = /^https?:\/\/[^\s/]+/i;

/** A Go duration (10s, 5m, 1h), at least `minMs` long. */
function duration(minMs = 0) {
  return text().superRefine((v, ctx) => {
    const ms = parseDuration(v);
    if (ms === null) ctx.addIssue({ code: 'custom', message: rule(`"${v}" is not a duration like 10s, 5m or 1h`) });
    else if (ms < minMs) ctx.addIssue({ code: 'custom', message: rule(`must be at least ${minMs / 60000} minute(s)`) });
  });
}

/** Trimmed, lower-cased, without empties or repeats (domains, file extensions, From addresses). */
const lowerTrimList = (v: string[]) => [...new Set(v.map((s) => s.trim().toLowerCase()).filter(Boolean))];
const trimList = (v: string[]) => v.map((s) => s.trim()).filter(Boolean);

/** Block fields a new block starts without, whatever the default block holds (its identity and secret). */
const BLANK_IN_BLOCKS = new Set(['uuid', 'name', 'password']);

type Shape = Record<string, z.ZodType>;

/**
 * The schema a default implies: its JSON type, and for an object its fields (a field left out
 * takes its default, as listmonk's settings always carry every field). `fields` gives the
 * fields that have rules of their own; other keys of an object are kept as sent. A list whose
 * default holds a block (an object) takes blocks like it (`asBlock`: uuid, name and password
 * start empty).
 */
function like(def: unknown, fields: Shape = {}, asBlock = false): z.ZodType {
  if (typeof def === 'string') return text();
  if (typeof def === 'boolean') return bool();
  if (typeof def === 'number') return Number.isInteger(def) ? int() : z.number({ error: rule('expected a number') });
  if (Array.isArray(def)) {
    const template = def[0] as unknown;
    return template !== null && typeof template === 'object' ? z.array(like(template, fields, true), { error: rule('expected an array') }) : texts();
  }
  if (def !== null && typeof def === 'object') {
    const shape: Shape = {};
    for (const [k, d] of Object.entries(def)) {
      const start = asBlock && BLANK_IN_BLOCKS.has(k) ? '' : d;
      shape[k] = (fields[k] ?? like(d)).default(() => structuredClone(start));
    }
    return z.looseObject(shape, { error: rule('expected an object') });
  }
  // A null default says nothing of the type.
  return z.unknown();
}

/** A saved password or key: a masked or empty one keeps the stored one (the service does). */
const secret = () => text().nullish().transform((v) => v ?? '');

function smtpServer() {
  return like((DEFAULT_SETTINGS.smtp as unknown[])[0], {
    host: text().transform((v) => v.trim()),
    // Named as listmonk's messenger list names SMTP servers: email-<name>.
    name: text().transform((v) => {
      const name = v.toLowerCase().replace(/[^a-z0-9-]/g, '-').replace(/^email-/, '');
      return name ? `email-${name}` : '';
    }),
    port: range(1, 65535),
    auth_protocol: oneOf(AUTH_PROTOCOLS),
    tls_type: oneOf(TLS_TYPES),
    password: secret(),
    max_conns: count(1),
    max_msg_retries: count(0),
    msg_retry_delay: duration(),
    idle_timeout: duration(),
    wait_timeout: duration(),
    email_headers: f.optHeaderList(),
  }, true).superRefine((v, ctx) => {
    const b = v as { enabled: boolean; host: string };
    if (b.enabled && !b.host) ctx.addIssue({ code: 'custom', path: ['host'], message: rule('required') });
  }).transform((v) => {
    const b = v as { enabled: boolean; from_addresses: string[] };
    return b.enabled ? { ...b, from_addresses: lowerTrimList(b.from_addresses) } : b;
  });
}

/** A postback messenger: listmonk's fields, none required but a name (no default block). */
function messenger() {
  const optInt = () => int().nullish();
  return z.looseObject({
    uuid: text().optional(),
    enabled: bool().optional(),
    name: text().transform((v) => v.toLowerCase().replace(/[^a-z0-9-]/g, '')).refine(Boolean, { error: rule('required') }),
    root_url: text().optional(),
    username: text().optional(),
    password: secret(),
    max_conns: optInt(),
    max_msg_retries: optInt(),
    timeout: duration().optional(),
  }, { error: rule('expected an object') }).superRefine((b, ctx) => {
    const url = URL.parse(b.root_url ?? '');
    if (b.enabled && !(url && /^https?:$/.test(url.protocol))) ctx.addIssue({ code: 'custom', path: ['root_url'], message: rule('expected an http(s) URL') });
  });
}

const SNS_TOPIC_ARN_RE = /^arn:aws[a-z-]*:sns:[a-z0-9-]+:\d{12}:[A-Za-z0-9_-]{1,256}(\.fifo)?$/;
const EXPORTABLE = ['profile', 'subscriptions', 'campaign_views', 'link_clicks'] as const;
const BOUNCE_ACTIONS = ['none', 'unsubscribe', 'blocklist', 'delete'] as const;
const DAY_MS = 86_400_000;

/** The settings with rules beyond their default's type, by key. */
const RULES: Record<string, () => z.ZodType> = {
  'app.root_url': () => text().transform((v) => v.trim().replace(/\/+$/, '')).refine((v) => HTTP_URL_RE.test(v), { error: rule('expected an http(s) URL') }),
  'app.site_url': () => text().transform((v) => v.trim())
    .refine((v) => v === '' || /^https?:\/\/[^\s/]+\S*$/i.test(v), { error: rule('expected an http(s) URL, or "" for the root URL') }),
  'app.accent_color': () => text().transform((v) => v.trim().toLowerCase())
    .refine((v) => /^#[0-9a-f]{6}$/.test(v), { error: (issue) => rule(`"${String(issue.input).slice(0, 50)}" is not a colour like #0b57d0`) }),
  'app.postal_address': () => text().transform((v) => v.replace(/\r\n?/g, '\n').trim()).refine((v) => v.length <= 500, { error: rule('at most 500 characters') }),
  'app.from_email': () => text().superRefine((v, ctx) => {
    const from = v.trim();
    if (!from) ctx.addIssue({ code: 'custom', message: rule('required') });
    else if (!isValidFrom(from)) ctx.addIssue({ code: 'custom', message: rule(`"${from.slice(0, 200)}" is not an e-mail address or "Name <address>"`) });
  }),
  'app.notify_emails': () => texts().transform(trimList),
  'app.batch_size': () => count(1),
  'app.concurrency': () => count(1),
  'app.message_rate': () => count(1),
  'app.max_send_errors': () => count(0),
  'app.message_sliding_window_duration': () => duration(),
  'app.message_sliding_window_rate': () => count(1),
  // Deferred mail is retried for this long: 0 would give up at once.
  'app.defer_limit': () => duration().refine((v) => parseDuration(v) !== 0, { error: rule('must be longer than 0') }),

  'privacy.unsubscribe_mailto': () => text().transform((v) => v.trim().toLowerCase())
    .refine((v) => !v || !emailProblem(v, { allow: [], block: [] }), { error: (issue) => rule(`"${String(issue.input)}" is not an e-mail address`) }),
  'privacy.exportable': () => z.array(oneOf(EXPORTABLE), { error: rule('expected an array') }),
  'privacy.domain_blocklist': () => texts().transform(lowerTrimList),
  'privacy.domain_allowlist': () => texts().transform(lowerTrimList),

  'security.captcha': () => {
    const def = DEFAULT_SETTINGS['security.captcha'] as Record<string, unknown>;
    return like(def, { altcha: like(def.altcha, { complexity: count(1) }) });
  },
  'security.oidc': () => like(DEFAULT_SETTINGS['security.oidc'], {
    default_user_role_id: int().nullable(),
    default_list_role_id: int().nullable(),
  }).superRefine((v, ctx) => {
    const o = v as { enabled: boolean; auto_create_users: boolean; default_user_role_id: number | null };
    if (o.enabled && o.auto_create_users && !((o.default_user_role_id ?? 0) >= 1)) {
      ctx.addIssue({ code: 'custom', path: ['default_user_role_id'], message: rule('required when auto_create_users is on') });
    }
  }),
  'security.trusted_urls': () => texts().transform(trimList).superRefine((urls, ctx) => {
    const bad = urls.find((u) => u !== '*' && !HTTP_URL_RE.test(u));
    if (bad !== undefined) ctx.addIssue({ code: 'custom', message: rule(`"${bad}" is not * or an http(s) URL`) });
  }),
  'security.public_rate_limit': () => count(0),
  'security.session_idle_timeout': () => duration(60_000)
    .refine((v) => parseDuration(v)! <= DAY_MS, { error: rule('at most 24h (the lifetime of a session)') }),

  'upload.provider': () => oneOf(['filesystem', 's3']),
  'upload.extensions': () => texts().transform((v) => lowerTrimList(v).map((e) => e.replace(/^\.+/, ''))),
  'upload.max_file_size': () => count(1),

  // None enabled is allowed (listmonk refuses it): it is how a new install ships (§96).
  smtp: () => z.array(smtpServer(), { error: rule('expected an array') })
    .min(1, { error: rule('at least one SMTP server is required (it may be disabled)') }),
  messengers: () => z.array(messenger(), { error: rule('expected an array') }),

  'bounce.ses_topic_arns': () => texts().transform((v) => [...new Set(trimList(v))]).superRefine((arns, ctx) => {
    const bad = arns.find((arn) => !SNS_TOPIC_ARN_RE.test(arn));
    if (bad !== undefined) ctx.addIssue({ code: 'custom', message: rule(`"${bad.slice(0, 300)}" is not an SNS topic ARN (arn:aws:sns:REGION:ACCOUNT:NAME)`) });
  }),
  'bounce.actions': () => {
    const def = DEFAULT_SETTINGS['bounce.actions'] as Record<string, unknown>;
    const rules = () => ({ count: count(1), action: oneOf(BOUNCE_ACTIONS) });
    // Each bounce type has its own default; a type listmgr does not know is checked all the same.
    const types = Object.fromEntries(Object.entries(def).map(([type, d]) => [type, like(d, rules())]));
    return (like(def, types) as z.ZodObject).catchall(z.looseObject(rules(), { error: rule('expected an object') }));
  },
  'bounce.mailboxes': () => like(DEFAULT_SETTINGS['bounce.mailboxes'], {
    host: text().transform((v) => v.trim()),
    type: oneOf(['pop', 'imap']),
    password: secret(),
    scan_interval: duration(60_000),
  }),

  // Two days at least: a receiver down over a weekend night still finds its retries' events.
  'events.retention_days': () => range(2, 3650, ' (days)'),
  'backup.interval': () => duration(60_000),
  'backup.keep': () => range(1, 1000, ' (the number of backups kept)'),
  'backup.dir': () => text().transform((v) => v.trim() || 'backups')
    .refine((v) => !v.includes('\0') && v.length <= 1000, { error: rule('expected a folder path') }),
  // Sent back masked by a client that read it: the service keeps the stored token then.
  'metrics.token': () => text().refine((v) => keepsSecret(v) || /^[\x21-\x7e]{16,500}$/.test(v), {
    error: rule('16 to 500 visible ASCII characters without spaces, or "" for none'),
  }),
};

let made: z.ZodType<Record<string, unknown>> | undefined;

/**
 * PUT /api/settings' body: any settings, each read by its schema; keys that are not settings
 * are dropped (ignored, as listmonk does). Made on first use and kept (see `Route.body`).
 */
export function settingsSchema(): z.ZodType<Record<string, unknown>> {
  made ??= z.object(Object.fromEntries(Object.entries(DEFAULT_SETTINGS).map(([key, def]) => [key, (RULES[key]?.() ?? like(def)).optional()])))
    .meta({ id: 'SettingsChanges', description: 'Setting keys and their new values (the others keep theirs); keys that are not settings are ignored' });
  return made;
}
