// GET /metrics in Prometheus's text format (beyond listmonk). Off by default: while the setting
// `metrics.enabled` is off the path does not exist (404), and nothing is counted or loaded.
// When on, it needs `Authorization: Bearer <metrics.token>` (for a Prometheus scraper) or a
// signed-in user or API user with settings:get. prom-client is loaded when metrics are first
// switched on, not at start-up.
//
// What it counts: HTTP requests by route pattern (never the raw URL: ids and tokens stay out of
// the labels) and status, with their latency; messages sent, failed and deferred by messenger
// (since the start); the running campaigns' progress; the import in progress; the database and
// WAL file sizes; and Node's own (event loop lag, memory, CPU, GC) from prom-client's default
// metrics.
import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { AppContext } from '../context.ts';
import { databaseFiles } from '../db/files.ts';
import { denied, notFound, unauthenticated } from '../core/errors.ts';
import { hasPerm, type AuthUser } from '../core/authz.ts';
import type { AppEnv } from '../http/types.ts';
import type { CampaignStore } from '../campaigns/store.ts';
import type { Importer } from '../imports/importer.ts';
import { sameDigest } from '../users/secrets.ts';

type PromClient = typeof import('prom-client');

/** How the caller of GET /metrics identified itself. */
export type MetricsCaller = { bearer: string } | { user: AuthUser } | null;

interface Collectors {
  registry: InstanceType<PromClient['Registry']>;
  requests: InstanceType<PromClient['Counter']>;
  latency: InstanceType<PromClient['Histogram']>;
}

export class Metrics {
  private loading: Promise<Collectors> | null = null;

  constructor(private readonly ctx: AppContext, private readonly campaigns: CampaignStore, private readonly importer: Importer) {
    // Switching metrics on loads the collectors at once, so the requests that follow are counted.
    const loadWhenOn = () => {
      if (this.enabled()) void this.collectors();
    };
    ctx.settings.onChange(loadWhenOn);
    loadWhenOn();
  }

  enabled(): boolean {
    return this.ctx.settings.get<boolean>('metrics.enabled') === true;
  }

  /** Counts every request while metrics are on (mounted before the routes). */
  middleware(): MiddlewareHandler<AppEnv> {
    return async (c, next) => {
      if (!this.enabled()) return next();
      const t0 = performance.now();
      await next();
      const { requests, latency } = await this.collectors();
      const path = routePath(c);
      // A request no route answered (a 404, or the 405 for a known path) is not a route.
      const route = path.includes('*') ? 'unmatched' : path;
      requests.inc({ method: c.req.method, route, status: String(c.res.status) });
      latency.observe({ method: c.req.method, route }, (performance.now() - t0) / 1000);
    };
  }

  /** The metrics as Prometheus text, for a caller allowed to read them. */
  async scrape(identify: () => MetricsCaller): Promise<{ contentType: string; body: string }> {
    if (!this.enabled()) throw notFound('404 unknown endpoint');
    const caller = identify();
    if (!caller) throw unauthenticated('metrics need "Authorization: Bearer <metrics.token>" or a signed-in user with settings:get');
    if ('bearer' in caller) {
      const token = this.ctx.settings.get<string>('metrics.token');
      if (!token || !sameDigest(caller.bearer, token)) throw unauthenticated('invalid metrics token');
    } else if (!hasPerm(caller.user, 'settings:get')) throw denied('permission denied: settings:get');
    const { registry } = await this.collectors();
    return { contentType: registry.contentType, body: await registry.metrics() };
  }

  private collectors(): Promise<Collectors> {
    return (this.loading ??= import('prom-client').then((mod) => this.build((mod as { default?: PromClient }).default ?? mod)));
  }

  private build(prom: PromClient): Collectors {
    const { ctx, campaigns, importer } = this;
    const registry = new prom.Registry();
    prom.collectDefaultMetrics({ register: registry });
    const requests = new prom.Counter({ name: 'listmgr_http_requests_total', help: 'HTTP requests answered, by route pattern and status', labelNames: ['method', 'route', 'status'], registers: [registry] });
    const latency = new prom.Histogram({
      name: 'listmgr_http_request_duration_seconds', help: 'Time to answer an HTTP request, by route pattern', labelNames: ['method', 'route'],
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10], registers: [registry],
    });
    const outcomes = (name: string, help: string, kind: 'sent' | 'failed' | 'deferred') => new prom.Counter({
      name, help, labelNames: ['messenger'], registers: [registry],
      collect() {
        this.reset();
        for (const [messenger, n] of ctx.mailer.outcomes()) if (n[kind]) this.inc({ messenger }, n[kind]);
      },
    });
    outcomes('listmgr_messages_sent_total', 'Messages handed to a messenger successfully since the start, by messenger', 'sent');
    outcomes('listmgr_messages_failed_total', 'Messages a messenger failed to send since the start, by messenger', 'failed');
    outcomes('listmgr_messages_deferred_total', 'Sends the mail server deferred (4xx, dropped connection, timeout; tried again) since the start, by messenger', 'deferred');
    const progress = (name: string, help: string, field: 'sent' | 'to_send') => new prom.Gauge({
      name, help, labelNames: ['campaign'], registers: [registry],
      collect() {
        this.reset();
        for (const c of campaigns.running(null)) this.set({ campaign: String(c.id) }, c[field]);
      },
    });
    progress('listmgr_campaign_sent', 'Messages sent so far by each running campaign (label: campaign id)', 'sent');
    progress('listmgr_campaign_to_send', 'Messages each running campaign is to send (label: campaign id)', 'to_send');
    new prom.Gauge({
      name: 'listmgr_import_rows', help: 'Rows of the current or last import: imported so far and in all', labelNames: ['state'], registers: [registry],
      collect() {
        const s = importer.status();
        this.set({ state: 'imported' }, s.imported);
        this.set({ state: 'total' }, s.total);
      },
    });
    new prom.Gauge({
      name: 'listmgr_database_bytes', help: 'Size of the database file', registers: [registry],
      collect() {
        this.set(databaseFiles(ctx.config.dbPath).bytes);
      },
    });
    new prom.Gauge({
      name: 'listmgr_database_wal_bytes', help: 'Size of the database\'s write-ahead log', registers: [registry],
      collect() {
        this.set(databaseFiles(ctx.config.dbPath).walBytes);
      },
    });
    return { registry, requests, latency };
  }
}
