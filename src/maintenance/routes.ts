// /api/maintenance/*: listmonk's garbage collection (settings:maintain), and the scheduled
// VACUUM (setting maintenance.db).
import type { Context, Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { readBody } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { badRequest } from '../http/errors.ts';
import type { AppEnv } from '../http/types.ts';
import { startVacuumSchedule } from './schedule.ts';
import { ANALYTICS_GC_TYPES, MaintenanceStore, SUBSCRIBER_GC_TYPES } from './store.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** `before_date` from the query or the (form or JSON) body, as RFC 3339; returned as our ISO timestamp. */
async function beforeDate(c: Context): Promise<string> {
  const raw = c.req.query('before_date') ?? (await readBody(c)).before_date;
  if (raw === undefined || raw === null || raw === '') throw badRequest('"before_date" is required (RFC 3339, e.g. 2025-01-01T00:00:00Z)');
  const text = String(raw).trim();
  const d = new Date(text);
  if (typeof raw !== 'string' || !RFC3339.test(text) || Number.isNaN(d.getTime())) {
    throw badRequest(`invalid "before_date" "${String(raw).slice(0, 40)}": expected an RFC 3339 date-time, e.g. 2025-01-01T00:00:00Z`);
  }
  return d.toISOString();
}

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!allowed.includes(value as T)) throw badRequest(`invalid ${what} "${value}": one of ${allowed.join(', ')}`);
  return value as T;
}

export function registerMaintenanceRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const store = new MaintenanceStore(ctx.db);
  const guard = ctx.auth('settings:maintain');

  api.delete('/maintenance/subscribers/:type', guard, (c) => {
    const type = oneOf(c.req.param('type'), SUBSCRIBER_GC_TYPES, 'subscriber type');
    return ok(c, { count: store.deleteSubscribers(type) });
  });
  api.delete('/maintenance/subscriptions/unconfirmed', guard, async (c) => {
    return ok(c, { count: store.deleteUnconfirmedSubscriptions(await beforeDate(c)) });
  });
  api.delete('/maintenance/analytics/:type', guard, async (c) => {
    const type = oneOf(c.req.param('type'), ANALYTICS_GC_TYPES, 'analytics type');
    store.deleteAnalytics(type, await beforeDate(c));
    return ok(c, true);
  });

  const schedule = startVacuumSchedule(ctx, store);
  ctx.onShutdown(() => schedule.stop());
}
