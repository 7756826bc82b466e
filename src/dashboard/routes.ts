// GET /api/dashboard/counts and /charts (any authenticated user, as listmonk).
import type { Hono } from 'hono';
import type { Services } from '../services.ts';
import { ok } from '../http/envelope.ts';
import type { AppEnv } from '../http/types.ts';
import { DashboardStore } from './store.ts';

export function registerDashboardRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const store = new DashboardStore(ctx.db);
  api.get('/dashboard/counts', ctx.guard('signed-in'), (c) => ok(c, store.counts()));
  api.get('/dashboard/charts', ctx.guard('signed-in'), (c) => ok(c, store.charts()));
}
