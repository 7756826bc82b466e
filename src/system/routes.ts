// Health, server configuration, about, logs and reload (/api); the liveness probe, the landing
// page, robots.txt and the public pages' custom CSS and JS (site root).
import type { Context } from 'hono';
import { stream } from 'hono/streaming';
import { hostname, arch, platform, cpus } from 'node:os';
import { VERSION } from '../config.ts';
import type { AppContext } from '../context.ts';
import { ok } from '../http/envelope.ts';
import { invalid, notFound } from '../core/errors.ts';
import { sendPage } from '../http/layout.tsx';
import { routesFor } from '../http/routes.ts';
import { captchaProvider, type CaptchaSettings } from '../public/captcha.ts';
import { publicLook } from '../public/look.ts';
import { availableLanguages, isLanguageCode, loadLanguage } from '../i18n/index.ts';
import { hasPerm, PERMISSION_GROUPS, type Authenticator } from '../core/authz.ts';
import type { AppEnv } from '../http/types.ts';
import { databaseFiles } from '../db/files.ts';
import { Landing } from './pages.tsx';
import { authenticate, readSessionCookie } from '../http/auth.ts';
import type { Metrics } from './metrics.ts';
import type { DatabaseService } from '../maintenance/service.ts';

interface Deps extends AppContext {
  /** Re-reads settings and rebuilds the messengers. */
  reload(): void;
  metrics: Metrics;
  database: DatabaseService;
  users: { authenticator(): Authenticator };
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const SYSTEM_ROUTES = [
  // The /api probe checks credentials, as listmonk's; the public one is /health.
  route({ method: 'GET', path: '/health', access: 'signed-in', handler: health, summary: 'Whether the server is up (for signed-in callers)' }),
  route({ method: 'GET', path: '/config', access: 'signed-in', handler: serverConfig, summary: 'The server configuration the admin needs: root URL, public subscription and captcha, privacy, messengers, languages, permissions, version' }),
  // Not enveloped, as listmonk. Host details only for those who may read settings.
  route({ method: 'GET', path: '/about', access: 'settings:get', handler: about, raw: 'application/json', summary: 'Version, database, memory and host details' }),
  route({ method: 'GET', path: '/lang/:lang', access: 'signed-in', handler: language, summary: 'A language pack by its code' }),
  route({ method: 'GET', path: '/logs', access: 'settings:get', handler: logs, summary: 'The most recent server log lines' }),
  route({ method: 'GET', path: '/events', access: 'settings:get', handler: events, raw: 'text/event-stream', summary: 'Server-sent events: each server log line that mentions an error, as it is written' }),
  route({ method: 'POST', path: '/admin/reload', access: 'settings:manage', handler: reload, summary: 'Re-reads the settings and rebuilds the messengers' }),
];

/** Served from the site root. */
export const SYSTEM_PAGES = [
  route({ method: 'GET', path: '/health', access: 'public', handler: health, summary: 'Liveness probe (load balancers)' }),
  route({ method: 'GET', path: '/', access: 'public', handler: landing, raw: 'text/html', summary: 'The landing page: sign-in, and the public features that are switched on' }),
  route({ method: 'GET', path: '/metrics', access: 'public', handler: metrics, raw: 'text/plain', summary: 'Prometheus metrics, when the setting metrics.enabled is on: needs "Authorization: Bearer <metrics.token>" or a user with settings:get' }),
  route({ method: 'GET', path: '/robots.txt', access: 'public', handler: robots, raw: 'text/plain', summary: 'Crawlers may index the subscription form, never per-subscriber links' }),
  route({ method: 'GET', path: '/public/custom.css', access: 'public', handler: customCss, raw: 'text/css', summary: 'The appearance settings\' custom CSS for the public pages' }),
  route({ method: 'GET', path: '/public/custom.js', access: 'public', handler: customJs, raw: 'application/javascript', summary: 'The appearance settings\' custom JavaScript for the public pages' }),
];

/** The caller decides nothing here: Metrics.scrape checks the setting, then who may read. */
async function metrics(c: C, s: Deps) {
  const { contentType, body } = await s.metrics.scrape(() => {
    const authorization = c.req.header('authorization')?.trim() ?? '';
    const bearer = /^Bearer\s+(\S+)$/i.exec(authorization);
    if (bearer) return { bearer: bearer[1] };
    const session = readSessionCookie(c, s.users.authenticator());
    return authorization || session ? { user: authenticate(s.users.authenticator(), authorization, session) } : null;
  });
  return c.body(body, 200, { 'content-type': contentType, 'cache-control': 'no-store' });
}

function health(c: C) {
  return ok(c, true);
}

function serverConfig(c: C, s: Deps) {
  const { settings } = s;
  const captcha = settings.get<CaptchaSettings>('security.captcha');
  const provider = captchaProvider(captcha);
  const redirects = settings.get<string[]>('security.trusted_urls').filter((u) => u !== '*');
  return ok(c, {
    root_url: settings.rootUrl(),
    // listmgr: why the root URL looks wrong and where to set it (null when it looks right).
    root_url_warning: s.rootUrlCheck.warning(),
    from_email: settings.str('app.from_email'),
    public_subscription: {
      enabled: settings.bool('app.enable_public_subscription_page'),
      captcha_enabled: provider !== null,
      captcha_provider: provider,
      captcha_key: provider === 'hcaptcha' ? captcha.hcaptcha.key : null,
      altcha_complexity: provider === 'altcha' ? captcha.altcha.complexity : 0,
      redirect_urls: redirects.length ? redirects : null,
    },
    privacy: {
      disable_tracking: settings.bool('privacy.disable_tracking'),
      individual_tracking: settings.bool('privacy.individual_tracking'),
    },
    media_provider: settings.str('upload.provider'),
    messengers: s.mailer.names(),
    // listmgr: false while no SMTP server is enabled (campaigns cannot start, opt-in mails are not sent; §96).
    mail_configured: s.mailer.has('email'),
    langs: availableLanguages(),
    lang: settings.str('app.lang'),
    permissions: PERMISSION_GROUPS,
    update: null,
    needs_restart: false,
    has_legacy_user: false,
    version: VERSION,
  });
}

function about(c: C, s: Deps) {
  const mem = process.memoryUsage();
  return c.json({
    version: VERSION,
    build: VERSION,
    go_version: process.version,
    go_arch: arch(),
    database: { version: `SQLite ${s.database.sqliteVersion()}`, size_mb: databaseSizeMb(s.config.dbPath) },
    system: { num_cpu: cpus().length, memory_alloc_mb: Math.round(mem.heapUsed / 1048576), memory_from_os_mb: Math.round(mem.rss / 1048576) },
    host: { os: platform(), arch: arch(), hostname: hostname() },
  });
}

/** The database file's size in MB (two decimals); 0 for an in-memory or unreadable one. */
function databaseSizeMb(path: string): number {
  return Math.round((databaseFiles(path).bytes / 1048576) * 100) / 100;
}

function language(c: C) {
  const code = c.req.param('lang') ?? '';
  if (!isLanguageCode(code)) throw invalid('invalid language code');
  const pack = loadLanguage(code);
  if (!pack) throw notFound(`unknown language "${code}"`);
  return ok(c, pack);
}

/** Keeps idle connections from being closed by proxies, and finds clients that went away. */
const EVENT_PING_MS = 20_000;

/**
 * listmonk's event stream: `retry: 3000` and `data: {"id":"","type":"error","message":…,
 * "data":null}` per log line containing "error". It runs until the client closes it, or until
 * its caller may no longer read the log: the credentials it was opened with are checked again
 * before each line and ping, so a session that ended (signed out, idle, disabled) or a role
 * that lost settings:get gets no more lines.
 */
function events(c: C, s: Deps) {
  const authn = s.users.authenticator();
  const authorization = c.req.header('authorization');
  const session = readSessionCookie(c, authn);
  const mayRead = () => {
    try {
      return hasPerm(authenticate(authn, authorization, session), 'settings:get');
    } catch {
      return false;
    }
  };
  c.header('Cache-Control', 'no-store');
  c.header('Content-Type', 'text/event-stream');
  return stream(c, async (out) => {
    const queue: string[] = [];
    let wake: (() => void) | null = null;
    const stop = s.log.follow((line) => {
      if (!line.toLowerCase().includes('error')) return;
      queue.push(`retry: 3000\ndata: ${JSON.stringify({ id: '', type: 'error', message: line, data: null })}\n\n`);
      wake?.();
    });
    const ping = setInterval(() => {
      queue.push(':\n\n');
      wake?.();
    }, EVENT_PING_MS);
    out.onAbort(() => wake?.());
    try {
      await out.write(':\n\n');
      while (!out.aborted) {
        // Checked here, not in the log's callback, which may run inside another write.
        if (queue.length && !mayRead()) break;
        while (queue.length) await out.write(queue.shift()!);
        await new Promise<void>((resolve) => (wake = resolve));
        wake = null;
      }
    } finally {
      clearInterval(ping);
      stop();
    }
  });
}

function logs(c: C, s: Deps) {
  return ok(c, s.log.recent());
}

function reload(c: C, s: Deps) {
  s.reload();
  s.log.info(`settings reloaded by ${c.get('user').username}`);
  return ok(c, true);
}

function landing(c: C, { settings }: Deps) {
  const site = settings.str('app.site_name');
  const body = Landing({ site, subscribe: settings.bool('app.enable_public_subscription_page'), archive: settings.bool('app.enable_public_archive') });
  return sendPage(c, { ...publicLook(settings), title: site, body });
}

function robots(c: C) {
  return c.text('User-agent: *\nAllow: /subscription/form\nDisallow: /subscription/\nDisallow: /campaign/\nDisallow: /link/\n');
}

function customCss(c: C, { settings }: Deps) {
  return c.body(settings.str('appearance.public.custom_css'), 200, { 'Content-Type': 'text/css; charset=utf-8' });
}

function customJs(c: C, { settings }: Deps) {
  return c.body(settings.str('appearance.public.custom_js'), 200, { 'Content-Type': 'application/javascript; charset=utf-8' });
}
