// /api/dashboard: the counts and charts of the dashboard (any signed-in user, as listmonk).
import type { Context } from 'hono';
import { ok } from '../http/envelope.ts';
import { routesFor } from '../http/routes.ts';
import type { AppEnv } from '../http/types.ts';
import type { DashboardService } from './service.ts';

interface Deps {
  dashboard: DashboardService;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const DASHBOARD_ROUTES = [
  route({ method: 'GET', path: '/dashboard/counts', access: 'signed-in', handler: counts, summary: 'Subscriber, list, campaign and message counts' }),
  route({ method: 'GET', path: '/dashboard/charts', access: 'signed-in', handler: charts, summary: 'Campaign views and link clicks per day, over the 31 days up to the latest' }),
];

function counts(c: C, s: Deps) {
  return ok(c, s.dashboard.counts());
}

function charts(c: C, s: Deps) {
  return ok(c, s.dashboard.charts());
}
