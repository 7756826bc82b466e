// Builds the Hono app: the cross-cutting HTTP behaviour (request ids, CORS, errors, 404/405)
// and every module's routes, each with its body limit (set where its table is mounted).
import { Hono } from 'hono';
import { cors } from 'hono/cors';
import { randomUUID } from 'node:crypto';
import type { Services } from './services.ts';
import { isDatabaseBusy } from './db/connection.ts';
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import { SnsError } from './bounces/sns.ts';
import { RenderError } from './rendering/message.ts';
import { ContentConversionError } from './content/convert.ts';
import { isDiskFull } from './http/disk-full.ts';
import { DomainError, notFound } from './core/errors.ts';
import { httpStatus } from './http/errors.ts';
import { requestScope } from './http/request-scope.ts';
import { notFoundPage } from './http/layout.tsx';
import { LIMITS } from './core/limits.ts';
import { SegmentError } from './segments/index.ts';
import type { AppEnv } from './http/types.ts';
import { BOUNCE_ROUTES, BOUNCE_WEBHOOK_ROUTES, webhookGate } from './bounces/routes.ts';
import { CAMPAIGN_ROUTES } from './campaigns/routes.ts';
import { DASHBOARD_ROUTES } from './dashboard/routes.ts';
import { IMPORT_ROUTES } from './imports/routes.ts';
import { LIST_ROUTES } from './lists/routes.ts';
import { mount, type AnyRoute, type MountOptions } from './http/routes.ts';
import { openApiDocument } from './http/openapi.ts';
import { REFERENCE_ROUTES } from './system/reference.ts';
import { VERSION } from './config.ts';
import { MAINTENANCE_ROUTES } from './maintenance/routes.ts';
import { MEDIA_ROUTES, uploadedFiles } from './media/routes.ts';
import { PUBLIC_PAGES, PUBLIC_ROUTES } from './public/routes.ts';
import { SETTINGS_ROUTES } from './settings/routes.ts';
import { SUBSCRIBER_ROUTES } from './subscribers/routes.ts';
import { SYSTEM_PAGES, SYSTEM_ROUTES } from './system/routes.ts';
import { TEMPLATE_ROUTES } from './templates/routes.ts';
import { ARCHIVE_ROUTES, TRACKING_PAGES } from './tracking/routes.ts';
import { TX_ROUTES } from './tx/routes.ts';
import { LOGIN_PAGES, signInNoStore } from './users/login-routes.ts';
import { ADMIN_FILES, mountAdmin } from './admin/routes.ts';
import { DASHBOARD_ADMIN_PAGES } from './dashboard/admin.tsx';
import { LIST_ADMIN_PAGES } from './lists/admin.tsx';
import { SUBSCRIBERS_ADMIN_PAGES } from './subscribers/admin.tsx';
import { IMPORT_ADMIN_PAGES } from './imports/admin.tsx';
import { BOUNCE_ADMIN_PAGES } from './bounces/admin.tsx';
import { CAMPAIGN_ADMIN_PAGES } from './campaigns/admin.tsx';
import { CAMPAIGN_ANALYTICS_ADMIN_PAGES } from './campaigns/analytics-admin.tsx';
import { TEMPLATE_ADMIN_PAGES } from './templates/admin.tsx';
import { MEDIA_ADMIN_PAGES } from './media/admin.tsx';
import { USER_ADMIN_PAGES } from './users/admin.tsx';
import { SETTINGS_ADMIN_PAGES } from './settings/admin.tsx';
import { MAINTENANCE_ADMIN_PAGES } from './maintenance/admin.tsx';
import { SYSTEM_ADMIN_PAGES } from './system/admin.tsx';
import { HELP_ADMIN_PAGES } from './help/admin.tsx';
import { WEBHOOK_ADMIN_PAGES } from './webhooks/admin.tsx';
import { USER_ROUTES } from './users/routes.ts';
import { WEBHOOK_ROUTES } from './webhooks/routes.ts';
import { CHANGE_ROUTES } from './events/routes.ts';

/**
 * The API's route tables by section, mounted under /api in this order (where a static path and
 * a `:param` path overlap, the one mounted first wins). They also make the OpenAPI document.
 */
const API_TABLES: Record<string, readonly AnyRoute<Services>[]> = {
  system: SYSTEM_ROUTES,
  settings: SETTINGS_ROUTES,
  lists: LIST_ROUTES,
  subscribers: SUBSCRIBER_ROUTES,
  public: PUBLIC_ROUTES,
  campaigns: CAMPAIGN_ROUTES,
  archive: ARCHIVE_ROUTES,
  tx: TX_ROUTES,
  imports: IMPORT_ROUTES,
  dashboard: DASHBOARD_ROUTES,
  maintenance: MAINTENANCE_ROUTES,
  bounces: BOUNCE_ROUTES,
  media: MEDIA_ROUTES,
  templates: TEMPLATE_ROUTES,
  users: USER_ROUTES,
  webhooks: WEBHOOK_ROUTES,
  changes: CHANGE_ROUTES,
};

/** The admin's pages, by domain; mounted after the sign-in pages. */
// Templates, media and analytics before campaigns: /admin/campaigns/:id would take their paths first.
const ADMIN_PAGES = [DASHBOARD_ADMIN_PAGES, LIST_ADMIN_PAGES, SUBSCRIBERS_ADMIN_PAGES, IMPORT_ADMIN_PAGES, BOUNCE_ADMIN_PAGES, TEMPLATE_ADMIN_PAGES, MEDIA_ADMIN_PAGES, CAMPAIGN_ANALYTICS_ADMIN_PAGES, CAMPAIGN_ADMIN_PAGES, USER_ADMIN_PAGES, SETTINGS_ADMIN_PAGES, WEBHOOK_ADMIN_PAGES, SYSTEM_ADMIN_PAGES, MAINTENANCE_ADMIN_PAGES, HELP_ADMIN_PAGES];
const READ_METHODS = ['GET', 'HEAD', 'OPTIONS'];

export function createApp(ctx: Services): Hono<AppEnv> {
  const app = new Hono<AppEnv>();

  app.use('*', async (c, next) => {
    const id = randomUUID().slice(0, 8);
    c.set('requestId', id);
    await requestScope.run({ id, method: c.req.method, path: c.req.path }, next);
  });

  // Counted by route pattern and status while GET /metrics is switched on.
  app.use('*', ctx.metrics.middleware());

  // CORS only for the origins in security.trusted_urls (none by default). Unlike listmonk we
  // allow the Authorization header, so browser clients can use tokens cross-origin.
  const corsFor = cors({
    origin: (origin) => {
      const trusted = ctx.settings.get<string[]>('security.trusted_urls');
      if (trusted.includes('*')) return origin;
      return trusted.some((u) => originOf(u) === origin) ? origin : null;
    },
    allowHeaders: ['Origin', 'Content-Type', 'Accept', 'Authorization'],
    allowMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
  });
  app.use('*', async (c, next) => (ctx.settings.get<string[]>('security.trusted_urls').length ? corsFor(c, next) : next()));

  // Any method but GET/HEAD/OPTIONS may write; the GETs that write (tracking) say so themselves.
  const { track } = ctx.foregroundWrites;
  app.use('*', async (c, next) => (READ_METHODS.includes(c.req.method) ? next() : track(c, next)));

  // After a request: the host signed-in browsers reach the server at, to compare with the root
  // URL (scripts with API tokens may well use an internal address); an API user's last use
  // (only of a request that succeeded: a refused one changes nothing).
  app.use('*', async (c, next) => {
    await next();
    const user = c.get('user');
    const host = c.req.header('x-forwarded-host')?.split(',')[0] ?? c.req.header('host');
    if (user?.via === 'session' && host) ctx.rootUrlCheck.sawHost(host);
    if (user?.via === 'token' && c.res.status < 400) ctx.users.noteTokenUse(user.id);
  });

  const api = new Hono<AppEnv>();
  // An answer to an authenticated caller holds their data (subscribers, users, settings, logs):
  // no browser or proxy keeps it. Registered before the routes, so it wraps them all.
  api.use('*', async (c, next) => {
    await next();
    if (c.get('user')) c.header('Cache-Control', 'no-store');
  });
  // Bodies: the API's JSON up to apiBodyBytes, the pages' forms (open to anyone) a few KB; the
  // uploads, tx and the public subscription API set their own (route `bodyBytes`).
  const tables: MountOptions = { guard: ctx.guard, trackWrites: track, bodyBytes: LIMITS.apiBodyBytes };
  const pages: MountOptions = { ...tables, bodyBytes: LIMITS.formBodyBytes };
  // What subscribers do from the form and the links in our mails is the public's doing in the change log.
  const bySubscribers = { actor: { type: 'public' } } as const;
  for (const table of Object.values(API_TABLES)) mount(api, table, ctx, table === PUBLIC_ROUTES ? { ...tables, ...bySubscribers } : tables);
  // Who may call which route: the admin's menu and controls ask before they offer one.
  for (const table of Object.values(API_TABLES)) ctx.routes.add(table, ctx, '/api');
  for (const table of ADMIN_PAGES) ctx.routes.add(table, ctx);
  let document: Record<string, unknown> | null = null;
  const apiDocument = () => (document ??= openApiDocument({ ...API_TABLES, reference: REFERENCE_ROUTES }, { version: VERSION, basePath: '/api' }));
  mount(api, REFERENCE_ROUTES, { apiDocument }, tables);
  mount(app, SYSTEM_PAGES, ctx, pages);
  mount(app, PUBLIC_PAGES, ctx, { ...pages, ...bySubscribers });
  mount(app, TRACKING_PAGES, ctx, { ...pages, ...bySubscribers });
  app.use('/webhooks/*', webhookGate(ctx.settings));
  mount(app, BOUNCE_WEBHOOK_ROUTES, ctx, { ...tables, bodyBytes: LIMITS.webhookBodyBytes });
  app.use('*', uploadedFiles(ctx.media));
  for (const path of new Set(LOGIN_PAGES.map((r) => r.path))) app.use(path, signInNoStore);
  mount(app, LOGIN_PAGES, ctx, pages);
  mount(app, ADMIN_FILES, ctx, pages);
  mountAdmin(app, ADMIN_PAGES, ctx, pages);
  app.route('/api', api);

  app.onError((err, c) => {
    const known = knownError(err);
    if (known) {
      if (err instanceof DomainError && err.retryAfter !== undefined) c.header('Retry-After', String(err.retryAfter));
      return c.json({ message: known.message }, known.status);
    }
    const id = c.get('requestId');
    if (isDatabaseBusy(err)) {
      ctx.log.warn(`request ${id} ${c.req.method} ${c.req.path}: the database stayed locked past the busy timeout`);
      c.header('Retry-After', '1');
      return c.json({ message: 'the database is busy with a long write (such as an index rebuild after an import); try again in a moment' }, 503);
    }
    if (isDiskFull(err)) {
      ctx.log.error(`request ${id} ${c.req.method} ${c.req.path}: no space left: ${err.message}`);
      return c.json({ message: 'the server has no disk space left to store this; try again once space has been freed' }, 507);
    }
    ctx.log.error(`request ${id} ${c.req.method} ${c.req.path} failed: ${err.stack ?? err.message}`);
    return c.json({ message: `Internal Server Error (request ${id})` }, 500);
  });

  app.notFound((c) => {
    if (allowedMethods(app, c.req.path).length) return c.json({ message: 'method not allowed' }, 405);
    if (c.req.path.startsWith('/api/')) return c.json({ message: '404 unknown endpoint' }, 404);
    return c.html(notFoundPage(), 404);
  });

  return app;
}

/**
 * The error kinds that are the caller's doing, with the status each is answered with: the one
 * place where they become HTTP answers (services throw them without knowing about HTTP).
 */
function knownError(err: Error): { status: ContentfulStatusCode; message: string } | null {
  if (err instanceof DomainError) return { status: httpStatus(err), message: err.message };
  if (err instanceof SegmentError) return { status: 400, message: `invalid query expression: ${err.message}` };
  if (err instanceof RenderError || err instanceof ContentConversionError || err instanceof SnsError) return { status: 400, message: err.message };
  return null;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return '';
  }
}

/** A route path as a RegExp: `:name` is one segment, `:name{re}` a segment matching `re`. */
function pathPattern(path: string): RegExp {
  const segments = path.split('/').map((seg) => {
    const param = /^:\w+(?:\{(.+)\})?$/.exec(seg);
    if (param) return param[1] ? `(?:${param[1]})` : '[^/]+';
    return seg.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
  });
  return new RegExp(`^${segments.join('/')}/?$`);
}

const routeTables = new WeakMap<Hono<AppEnv>, { method: string; re: RegExp }[]>();

/** Methods registered for a path (for 405 on a known path with another method). */
function allowedMethods(app: Hono<AppEnv>, path: string): string[] {
  let table = routeTables.get(app);
  if (!table) {
    table = app.routes
    .filter((r) => r.method !== 'ALL' && !r.path.includes('*'))
    .map((r) => ({ method: r.method, re: pathPattern(r.path) }));
    routeTables.set(app, table);
  }
  return table.filter((r) => r.re.test(path)).map((r) => r.method);
}
