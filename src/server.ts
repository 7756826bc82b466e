// Running the server: open and migrate the database, build the context and the app, listen,
// and shut down gracefully (stop accepting, finish in-flight requests, stop background work,
// checkpoint the WAL, close the database).
import { serve } from '@hono/node-server';
import type { Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { createApp } from './app.ts';
import { logFormat, parseAddress, type Config } from './config.ts';
import { closeDatabase, openDatabase } from './db/connection.ts';
import { acquireServeLock } from './db/lock.ts';
import { isInstalled } from './db/migrate.ts';
import { announceAdmin, install, type InstallResult } from './install.ts';
import { Logger } from './log.ts';
import { buildServices, type Services } from './services.ts';

export interface RunningServer {
  url: string;
  port: number;
  /** Everything the server is made of (services.ts). */
  ctx: Services;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** Keep the log off stdout (tests). */
  quiet?: boolean;
}

export async function startServer(config: Config, opts: StartOptions = {}): Promise<RunningServer> {
  const log = new Logger(opts.quiet, logFormat());
  const { host, port } = parseAddress(config.address);
  const releaseLock = acquireServeLock(config.dbPath);
  try {
    // A taken port is refused before anything else, above all before a first install (whose
    // admin password would be printed for a server that never ran).
    await assertPortFree(host, port);
    const fresh = (() => {
      const probe = openDatabase(config.dbPath);
      try {
        return !isInstalled(probe);
      } finally {
        closeDatabase(probe);
      }
    })();
    let installed: InstallResult | null = null;
    if (fresh) {
      installed = await install(config.dbPath, { adminUser: process.env.LISTMGR_ADMIN_USER, adminPassword: process.env.LISTMGR_ADMIN_PASSWORD, adminEmail: process.env.LISTMGR_ADMIN_EMAIL, rootUrl: config.rootUrl });
      log.info(`installed a new database at ${config.dbPath}`);
    }

    const services = buildServices(config, log);
    let server: Server;
    try {
      const app = createApp(services);
      server = await new Promise<Server>((resolve, reject) => {
        const s = serve({ fetch: app.fetch, hostname: host, port }, () => resolve(s as Server));
        (s as Server).once('error', reject);
      });
    } catch (e) {
      await services.stop();
      throw e;
    }
    // Keep idle connections longer than clients and proxies usually do, so a client never
    // reuses a socket the server is closing at that moment.
    server.keepAliveTimeout = 65_000;
    server.headersTimeout = 66_000;
    const actualPort = (server.address() as AddressInfo).port;
    const url = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
    log.info(`listmgr listening on ${url} (database ${config.dbPath})`);
    services.rootUrlCheck.listeningOn(host, actualPort);
    services.rootUrlCheck.logWarning('start-up');
    if (installed) announceAdmin(installed.adminUser, installed.generatedPassword);
    services.start();

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
      await services.stop();
      releaseLock();
      log.info('stopped');
    })());
    return { url, port: actualPort, ctx: services, stop };
  } catch (e) {
    releaseLock();
    throw e;
  }
}

/** Throws (EADDRINUSE, EACCES…) when nothing could listen on host:port now. */
function assertPortFree(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ host, port, exclusive: true }, () => probe.close(() => resolve()));
  });
}
