// Process configuration: environment variables, overridden by command-line flags. One place.
import { resolve } from 'node:path';
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
