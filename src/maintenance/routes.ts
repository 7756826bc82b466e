// /api/maintenance/*: listmonk's garbage collection and analytics export (settings:maintain), and
// the scheduled VACUUM (setting maintenance.db). listmgr adds read-only counts of what each
// deletion or export would touch (the admin asks first with them), the database's sizes, VACUUM
// on demand, and the backup download (a Super Admin's only: the copy holds every user's password
// hash and TOTP secret and the settings' saved passwords).
import type { Context } from 'hono';
import { sendCsv } from '../http/csv.ts';
import { ok } from '../http/envelope.ts';
import { invalid } from '../core/errors.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { SettingsService } from '../settings/service.ts';
import type { AppContext } from '../context.ts';
import { databaseFiles } from '../db/files.ts';
import { subscriberReadScope } from '../subscribers/service.ts';
import { backupForDownload } from './backup.ts';
import type { DatabaseService } from './service.ts';
import { ANALYTICS_EXPORT_COLUMNS, ANALYTICS_EXPORT_TYPES, ANALYTICS_GC_TYPES, SUBSCRIBER_GC_TYPES, type MaintenanceStore } from './store.ts';

interface Deps extends Pick<AppContext, 'config' | 'db' | 'log'> {
  maintenance: MaintenanceStore;
  database: DatabaseService;
  settings: SettingsService;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const MAINTENANCE_ROUTES = [
  route({ method: 'DELETE', path: '/maintenance/subscribers/:type', access: 'settings:maintain', handler: deleteSubscribers, summary: 'Deletes the orphan (on no list) or the blocklisted subscribers; answers how many' }),
  route({ method: 'DELETE', path: '/maintenance/subscriptions/unconfirmed', access: 'settings:maintain', handler: deleteUnconfirmed, query: beforeDateQuery, body: beforeDateBody, bodyKind: 'json-or-form', summary: 'Deletes unconfirmed double opt-in subscriptions made before a date; answers how many' }),
  route({ method: 'DELETE', path: '/maintenance/analytics/:type', access: 'settings:maintain', handler: deleteAnalytics, query: beforeDateQuery, body: beforeDateBody, bodyKind: 'json-or-form', summary: 'Deletes the views, clicks or both recorded before a date' }),
  // listmgr: what the operations above would touch, asked before them (read-only).
  route({ method: 'GET', path: '/maintenance/subscribers/:type/count', access: 'settings:maintain', handler: countSubscribers, summary: 'How many orphan or blocklisted subscribers there are (what the DELETE would delete)' }),
  route({ method: 'GET', path: '/maintenance/subscriptions/unconfirmed/count', access: 'settings:maintain', handler: countUnconfirmed, query: beforeDateQuery, summary: 'How many unconfirmed double opt-in subscriptions were made before before_date' }),
  route({ method: 'GET', path: '/maintenance/analytics/:type/count', access: 'settings:maintain', handler: countAnalytics, query: countAnalyticsQuery, summary: 'How many views and clicks were recorded before before_date (what the DELETE would delete), or since since (what the export holds)' }),
  route({ method: 'GET', path: '/maintenance/database', access: 'settings:maintain', handler: databaseInfo, summary: 'The database file\'s size, its WAL\'s, the space VACUUM would return, and the last backup' }),
  route({ method: 'POST', path: '/maintenance/vacuum', access: 'settings:maintain', handler: vacuum, summary: 'Compacts the database now (VACUUM); answers its size before and after' }),
  route({ method: 'GET', path: '/maintenance/backup', access: 'super-admin', handler: backup, raw: 'application/vnd.sqlite3', summary: 'A consistent copy of the whole database, as a SQLite file (recorded as the last backup); a Super Admin\'s only: it holds every password hash, TOTP secret and saved password' }),
  route({ method: 'GET', path: '/maintenance/analytics/:type/export', access: 'settings:maintain', handler: exportAnalytics, query: sinceQuery, raw: 'text/csv', summary: 'The views or clicks recorded since a date, as CSV' }),
];

// `before_date` comes in the query string or, when it is not there, in the body (JSON or form).
function beforeDateQuery() {
  return z.object({ before_date: q.str() });
}

function beforeDateBody() {
  return z.object({ before_date: f.any().meta({ type: 'string', format: 'date-time' }) });
}

function sinceQuery() {
  return z.object({ since: q.str() });
}

function countAnalyticsQuery() {
  return z.object({ before_date: q.str(), since: q.str() });
}

type BeforeDate = Input<ReturnType<typeof beforeDateBody>, ReturnType<typeof beforeDateQuery>>;

function deleteSubscribers(c: C, s: Deps) {
  const type = oneOf(c.req.param('type') ?? '', SUBSCRIBER_GC_TYPES, 'subscriber type');
  return ok(c, { count: s.maintenance.deleteSubscribers(type) });
}

function deleteUnconfirmed(c: C, s: Deps, { query, body }: BeforeDate) {
  return ok(c, { count: s.maintenance.deleteUnconfirmedSubscriptions(dateTime(query.before_date ?? body.before_date, 'before_date')) });
}

function deleteAnalytics(c: C, s: Deps, { query, body }: BeforeDate) {
  const type = oneOf(c.req.param('type') ?? '', ANALYTICS_GC_TYPES, 'analytics type');
  s.maintenance.deleteAnalytics(type, dateTime(query.before_date ?? body.before_date, 'before_date'));
  return ok(c, true);
}

function countSubscribers(c: C, s: Deps) {
  const type = oneOf(c.req.param('type') ?? '', SUBSCRIBER_GC_TYPES, 'subscriber type');
  return ok(c, { count: s.maintenance.countSubscribers(type) });
}

function countUnconfirmed(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof beforeDateQuery>>) {
  return ok(c, { count: s.maintenance.countUnconfirmedSubscriptions(dateTime(query.before_date, 'before_date')) });
}

/** `before_date` or `since`, one of them. */
function countAnalytics(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof countAnalyticsQuery>>) {
  const type = oneOf(c.req.param('type') ?? '', ANALYTICS_GC_TYPES, 'analytics type');
  if ((query.before_date === undefined) === (query.since === undefined)) throw invalid('give either "before_date" or "since" (RFC 3339, e.g. 2025-01-01T00:00:00Z)');
  const at = query.since !== undefined ? { since: dateTime(query.since, 'since') } : { before: dateTime(query.before_date, 'before_date') };
  const { views, clicks } = s.maintenance.countAnalytics(type, at);
  return ok(c, { count: views + clicks, views, clicks });
}

function databaseInfo(c: C, s: Deps) {
  const db = s.database.status();
  return ok(c, { size: db.bytes, wal_size: db.walBytes, used: db.used, free: db.free, last_backup: db.lastBackup });
}

/** Holds the database (and the server) for as long as it runs, as the scheduled VACUUM does. */
function vacuum(c: C, s: Deps) {
  const before = databaseFiles(s.config.dbPath).bytes;
  const t0 = Date.now();
  s.maintenance.vacuum();
  const after = databaseFiles(s.config.dbPath).bytes;
  s.log.info(`maintenance: VACUUM by ${c.get('user').username} done in ${Date.now() - t0} ms (${before} → ${after} bytes)`);
  return ok(c, { size_before: before, size_after: after });
}

/** Streams a fresh copy; recorded as the last backup once the whole file has been handed over. */
async function backup(c: C, s: Deps) {
  const by = c.get('user').username;
  const at = new Date();
  const name = `listmgr-backup-${at.toISOString().slice(0, 19).replace(/:/g, '-')}Z.db`;
  const { body, bytes } = await backupForDownload(s.config.dbPath, (n) => {
    SettingsService.recordBackup(s.db, { at: new Date().toISOString(), file: `${name} (downloaded by ${by})`, bytes: n });
    s.log.info(`backup ${name} (${n} bytes) downloaded by ${by}`);
  });
  return c.body(body, 200, {
    'Content-Type': 'application/vnd.sqlite3',
    'Content-Disposition': `attachment; filename="${name}"`,
    'Content-Length': String(bytes),
    'Cache-Control': 'no-store',
  });
}

/**
 * Views or clicks since a date, streamed in batches of app.batch_size. Subscribers' UUID, e-mail
 * and name only of those the caller may read through the subscriber API; ids for the others.
 */
function exportAnalytics(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof sinceQuery>>) {
  const type = oneOf(c.req.param('type') ?? '', ANALYTICS_EXPORT_TYPES, 'analytics type');
  const since = dateTime(query.since, 'since');
  const columns = ANALYTICS_EXPORT_COLUMNS[type];
  const batch = Math.max(1, s.settings.num('app.batch_size'));
  const readable = subscriberReadScope(c.get('user'));
  let afterId = 0;
  return sendCsv(c, `campaign_${type}.csv`, columns, () => {
    const rows = s.maintenance.analyticsBatch(type, since, afterId, batch, readable);
    if (!rows.length) return null;
    afterId = rows[rows.length - 1].id;
    return rows.map((r) => columns.map((k) => r[k]));
  }, { escapeFormulas: s.settings.bool('security.csv_escape_formulas') });
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** A required RFC 3339 date-time parameter, as our ISO timestamp. */
function dateTime(raw: unknown, name: string): string {
  if (raw === undefined || raw === null || raw === '') throw invalid(`"${name}" is required (RFC 3339, e.g. 2025-01-01T00:00:00Z)`);
  const text = String(raw).trim();
  const d = new Date(text);
  if (typeof raw !== 'string' || !RFC3339.test(text) || Number.isNaN(d.getTime())) {
    throw invalid(`invalid "${name}" "${String(raw).slice(0, 40)}": expected an RFC 3339 date-time, e.g. 2025-01-01T00:00:00Z`);
  }
  return d.toISOString();
}

function oneOf<T extends string>(value: string, allowed: readonly T[], what: string): T {
  if (!allowed.includes(value as T)) throw invalid(`invalid ${what} "${value}": one of ${allowed.join(', ')}`);
  return value as T;
}
