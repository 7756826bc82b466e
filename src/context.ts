// The core every part of the app is built on: configuration, the database, settings, the
// messengers and the log. The composition root (services.ts) builds it and the rest on top.
import type { Config } from './config.ts';
import type { DB } from './db/connection.ts';
import type { ForegroundWrites } from './db/foreground-writes.ts';
import type { Logger } from './log.ts';
import type { Mailer } from './mail/mailer.ts';
import type { RootUrlCheck } from './settings/root-url.ts';
import type { SettingsService } from './settings/service.ts';

export interface AppContext {
  config: Config;
  db: DB;
  /** Requests in progress that may write; background writer threads give way to them. */
  foregroundWrites: ForegroundWrites;
  log: Logger;
  settings: SettingsService;
  /** Whether the root URL looks right (warnings for the log and GET /api/config). */
  rootUrlCheck: RootUrlCheck;
  mailer: Mailer;
  startedAt: Date;
}
