// Process configuration: environment variables, overridden by command-line flags. One place.
import { resolve } from 'node:path';
import { parseDuration } from './duration.ts';
import { LOG_FORMATS, type LogFormat } from './log.ts';

export interface Config {
  /** SQLite database file. */
  dbPath: string;
  /** host:port the HTTP server listens on. */
  address: string;
  /** Public root URL; when set it overrides the app.root_url setting. */
  rootUrl: string | null;
  /** Folder for uploaded media. */
  uploadsPath: string;
  /** The webhook worker's schedule (tests shorten it). */
  webhooks: WebhookTiming;
}

export interface WebhookTiming {
  /** The waits before each retry of a failed delivery; after the last retry fails, the delivery has failed. */
  backoffMs: number[];
  /** An endpoint whose deliveries all failed for this long is disabled. */
  disableAfterMs: number;
  /** How long a delivery being sent is leased: a process killed mid-request leaves it due again after this. */
  leaseMs: number;
}

export interface ConfigFlags {
  db?: string;
  address?: string;
  rootUrl?: string;
  uploads?: string;
}

export const DEFAULT_ADDRESS = 'localhost:9000';

export function loadConfig(flags: ConfigFlags = {}, env: NodeJS.ProcessEnv = process.env): Config {
  const rootUrl = flags.rootUrl ?? env.LISTMGR_ROOT_URL ?? '';
  if (rootUrl.trim() && !/^https?:\/\/[^\s/]+/i.test(rootUrl.trim())) throw new Error(`invalid root URL "${rootUrl}": expected an http(s) URL such as https://lists.example.com`);
  return {
    dbPath: resolve(flags.db ?? env.LISTMGR_DB ?? './listmgr.db'),
    address: flags.address ?? env.LISTMGR_ADDRESS ?? DEFAULT_ADDRESS,
    rootUrl: rootUrl.trim() ? rootUrl.trim().replace(/\/+$/, '') : null,
    uploadsPath: resolve(flags.uploads ?? env.LISTMGR_UPLOADS ?? './uploads'),
    webhooks: webhookTiming(env),
  };
}

/**
 * About 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h: a delivery is given up on after about 28 hours,
 * past the 24 hours after which an endpoint that never answers is disabled. The lease outlasts
 * the sender's 10 s timeout with room to spare.
 */
const WEBHOOK_TIMING = { backoff: '5s,5m,30m,2h,5h,10h,10h', disableAfter: '24h', lease: '60s' };

/** LISTMGR_WEBHOOK_BACKOFF (durations, comma-separated), LISTMGR_WEBHOOK_DISABLE_AFTER and LISTMGR_WEBHOOK_LEASE. */
function webhookTiming(env: NodeJS.ProcessEnv): WebhookTiming {
  const duration = (name: string, text: string): number => {
    const ms = parseDuration(text);
    if (ms === null || ms <= 0) throw new Error(`invalid ${name} "${text}": expected a duration such as 30s, 5m or 2h`);
    return ms;
  };
  const backoff = env.LISTMGR_WEBHOOK_BACKOFF ?? WEBHOOK_TIMING.backoff;
  return {
    backoffMs: backoff.split(',').map((d) => duration('LISTMGR_WEBHOOK_BACKOFF', d)),
    disableAfterMs: duration('LISTMGR_WEBHOOK_DISABLE_AFTER', env.LISTMGR_WEBHOOK_DISABLE_AFTER ?? WEBHOOK_TIMING.disableAfter),
    leaseMs: duration('LISTMGR_WEBHOOK_LEASE', env.LISTMGR_WEBHOOK_LEASE ?? WEBHOOK_TIMING.lease),
  };
}

/** Splits "host:port" (or "[v6]:port", or ":port"); throws a readable error otherwise. */
export function parseAddress(address: string): { host: string; port: number } {
  const m = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(address.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || port > 65535) throw new Error(`invalid address "${address}": expected HOST:PORT, e.g. localhost:9000`);
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port };
}

declare const LISTMGR_VERSION: string | undefined;
/** Injected by the esbuild bundle; "dev" when running from source. */
export const VERSION: string = typeof LISTMGR_VERSION === 'string' ? LISTMGR_VERSION : 'dev';

/** How the log is written to stdout: LISTMGR_LOG_FORMAT, `text` (default) or `json`. */
export function logFormat(env: NodeJS.ProcessEnv = process.env): LogFormat {
  const value = (env.LISTMGR_LOG_FORMAT ?? '').trim().toLowerCase() || 'text';
  if (!(LOG_FORMATS as readonly string[]).includes(value)) throw new Error(`invalid LISTMGR_LOG_FORMAT "${env.LISTMGR_LOG_FORMAT}": expected ${LOG_FORMATS.join(' or ')}`);
  return value as LogFormat;
}
