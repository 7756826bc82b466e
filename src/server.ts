// Running the server: open and migrate the database, build the context and the app, listen,
// and shut down gracefully (stop accepting, finish in-flight requests, stop background work,
// checkpoint the WAL, close the database).
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { parseAddress, type Config } from './config.ts';
import type { AppContext } from './context.ts';
import { closeDatabase, openDatabase } from './db/connection.ts';
import { ForegroundWrites } from './db/foreground-writes.ts';
import { ormFor } from './db/index.ts';
import { acquireServeLock } from './db/lock.ts';
import { isInstalled, migrate } from './db/migrate.ts';
import { makeAuth } from './http/auth.ts';
import { announceAdmin, install } from './install.ts';
import { Logger } from './log.ts';
import { Mailer } from './mail/mailer.ts';
import { SettingsService } from './settings/service.ts';
import { UserStore } from './users/store.ts';

export interface RunningServer {
  url: string;
  port: number;
  ctx: AppContext;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Keep the log off stdout (tests). */
  quiet?: boolean;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const log = new Logger(opts.quiet);
  const { host, port } = parseAddress(config.address);
  const releaseLock = acquireServeLock(config.dbPath);
  try {
    const fresh = (() => {
      const probe = openDatabase(config.dbPath);
      try {
        return !isInstalled(probe);
      } finally {
        closeDatabase(probe);
      }
    })();
    if (fresh) {
      const r = install(config.dbPath, { adminUser: process.env.LISTMGR_ADMIN_USER, adminPassword: process.env.LISTMGR_ADMIN_PASSWORD });
      log.info(`installed a new database at ${config.dbPath}`);
      announceAdmin(r.adminUser, r.generatedPassword);
    }

    const db = openDatabase(config.dbPath);
    for (const m of migrate(db)) log.info(`applied migration ${String(m.version).padStart(4, '0')}_${m.name}`);

    const settings = new SettingsService(db, config.rootUrl);
    const users = new UserStore(db);
    const mailer = new Mailer(log);
    const shutdownHooks: (() => Promise<void> | void)[] = [];
    const ctx: AppContext = {
      config, db, foregroundWrites: new ForegroundWrites(), orm: ormFor(db), log, settings, mailer, users,
      auth: makeAuth(users.authenticator()),
      startedAt: new Date(),
      reload() {
        settings.reload();
        mailer.rebuild(settings.all());
      },
      onShutdown(fn) {
        shutdownHooks.push(fn);
      },
    };
    // Modules register their messenger kinds while the app is built; the first build follows.
    const app = createApp(ctx);
    mailer.rebuild(settings.all());

    const server = await new Promise<Server>((resolve, reject) => {
      const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s as Server));
      (s as Server).once('error', reject);
    });
    // Keep idle connections longer than clients and proxies usually do, so a client never
    // reuses a socket the server is closing at that moment.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    const actualPort = (server.address() as AddressInfo).port;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
    log.info(`listmgr listening on ${url} (database ${config.dbPath})`);

    let stopping: Promise<void> | null = null;
    const stop = () => (stopping ??= (async () => {
      log.info('shutting down: finishing in-flight requests');
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), 10_000);
        server.close(() => {
          clearTimeout(force);
          resolve();
        });
        server.closeIdleConnections();
      });
      for (const fn of shutdownHooks) await fn();
      await mailer.close();
      closeDatabase(db);
      releaseLock();
      log.info('stopped');
    })());
    return { url, port: actualPort, ctx, stop };
  } catch (e) {
    releaseLock();
    throw e;
  }
}
