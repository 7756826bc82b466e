// /api/maintenance/*: listmonk's garbage collection and analytics export (settings:maintain), and
// the scheduled VACUUM (setting maintenance.db).
import type { Context, Hono } from 'hono';
import type { Services } from '../services.ts';
import { readBody } from '../http/body.ts';
import { sendCsv } from '../http/csv.ts';
import { ok } from '../http/envelope.ts';
import { badRequest } from '../http/errors.ts';
import type { AppEnv } from '../http/types.ts';
import { ANALYTICS_EXPORT_COLUMNS, ANALYTICS_EXPORT_TYPES, ANALYTICS_GC_TYPES, SUBSCRIBER_GC_TYPES } from './store.ts';

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A required RFC 3339 date-time parameter, as our ISO timestamp. */
function dateTime(raw: unknown, name: string): string {
  if (raw === undefined || raw === null || raw === '') throw badRequest(`"${name}" is required (RFC 3339, e.g. 2025-01-01T00:00:00Z)`);
  const text = String(raw).trim();
  const d = new Date(text);
  if (typeof raw !== 'string' || !RFC3339.test(text) || Number.isNaN(d.getTime())) {
    throw badRequest(`invalid "${name}" "${String(raw).slice(0, 40)}": expected an RFC 3339 date-time, e.g. 2025-01-01T00:00:00Z`);
  }
  return d.toISOString();
}

/** `before_date` from the query or the (form or JSON) body. */
async function beforeDate(c: Context): Promise<string> {
  return dateTime(c.req.query('before_date') ?? (await readBody(c)).before_date, 'before_date');
}

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!allowed.includes(value as T)) throw badRequest(`invalid ${what} "${value}": one of ${allowed.join(', ')}`);
  return value as T;
}

export function registerMaintenanceRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const store = ctx.maintenance;
  const guard = ctx.guard('settings:maintain');

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

  // Views or clicks since a date as CSV, streamed in batches of app.batch_size.
  api.get('/maintenance/analytics/:type/export', guard, (c) => {
    const type = oneOf(c.req.param('type'), ANALYTICS_EXPORT_TYPES, 'analytics type');
    const since = dateTime(c.req.query('since'), 'since');
    const columns = ANALYTICS_EXPORT_COLUMNS[type];
    const batch = Math.max(1, ctx.settings.num('app.batch_size'));
    let afterId = 0;
    return sendCsv(c, `campaign_${type}.csv`, columns, () => {
      const rows = store.analyticsBatch(type, since, afterId, batch);
      if (!rows.length) return null;
      afterId = rows[rows.length - 1].id;
      return rows.map((r) => columns.map((k) => r[k]));
    });
  });
}
