// The routes the app really registers (method and Hono path), read from a freshly built app.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp } from '../../src/app.ts';
import { loadConfig } from '../../src/config.ts';
import { install } from '../../src/install.ts';
import { Logger } from '../../src/log.ts';
import { buildServices } from '../../src/services.ts';

export interface AppRoute {
  method: string;
  path: string;
}

let cached: Promise<AppRoute[]> | null = null;

export function appRoutes(): Promise<AppRoute[]> {
  return (cached ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-routes-'));
    const dbPath = join(dir, 'listmgr.db');
    await install(dbPath, { adminUser: 'admin', adminPassword: 'admin-password-1' });
    const services = buildServices(loadConfig({ db: dbPath, address: '127.0.0.1:0', uploads: join(dir, 'uploads') }, {}), new Logger(true));
    try {
      const seen = new Set<string>();
      return createApp(services).routes
        .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
        .map((r) => ({ method: r.method, path: r.path }))
        .filter((r) => !seen.has(`${r.method} ${r.path}`) && seen.add(`${r.method} ${r.path}`));
    } finally {
      await services.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  })());
}
