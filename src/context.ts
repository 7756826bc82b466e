// What every module gets: configuration, the database, settings, mail, auth and the log.
import type { MiddlewareHandler } from 'hono';
import type { Config } from './config.ts';
import type { DB } from './db/connection.ts';
import type { ForegroundWrites } from './db/foreground-writes.ts';
import type { Orm } from './db/index.ts';
import type { AppEnv } from './http/types.ts';
import type { Logger } from './log.ts';
import type { Mailer } from './mail/mailer.ts';
import type { SettingsService } from './settings/service.ts';
import type { UserStore } from './users/store.ts';

export interface AppContext {
  config: Config;
  db: DB;
  /** Requests in progress that may write; background writer threads give way to them. */
  foregroundWrites: ForegroundWrites;
  orm: Orm;
  log: Logger;
  settings: SettingsService;
  mailer: Mailer;
  users: UserStore;
  /** Route guard: authenticate, then require any one of the named permissions. */
  auth: (...anyOf: string[]) => MiddlewareHandler<AppEnv>;
  startedAt: Date;
  /** Re-reads settings and rebuilds messengers and everything that depends on settings. */
  reload(): void;
  /** Work to stop before the database closes (schedulers, importers), in registration order. */
  onShutdown(fn: () => Promise<void> | void): void;
}

/** A per-app singleton: `make` runs on the first call for an app, later calls answer the same object. */
export function perContext<T>(make: (ctx: AppContext) => T): (ctx: AppContext) => T {
  const made = new WeakMap<AppContext, T>();
  return (ctx) => {
    let v = made.get(ctx);
    if (v === undefined) made.set(ctx, (v = make(ctx)));
    return v;
  };
}
