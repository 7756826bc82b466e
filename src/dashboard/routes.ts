// GET /api/dashboard/counts and /charts (any authenticated user, as listmonk).
import type { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { ok } from '../http/envelope.ts';
import type { AppEnv } from '../http/types.ts';
import { DashboardStore } from './store.ts';

export function registerDashboardRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const store = new DashboardStore(ctx.db);
  api.get('/dashboard/counts', ctx.auth(), (c) => ok(c, store.counts()));
  api.get('/dashboard/charts', ctx.auth(), (c) => ok(c, store.charts()));
}
