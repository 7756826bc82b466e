// Health, server configuration, about, logs and reload.
import type { Hono } from 'hono';
import { statSync } from 'node:fs';
import { hostname, arch, platform, cpus } from 'node:os';
import { VERSION } from '../config.ts';
import type { Services } from '../services.ts';
import { ok } from '../http/envelope.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { sendPage } from '../http/layout.tsx';
import { captchaProvider, type CaptchaSettings } from '../public/captcha.ts';
import { publicLook } from '../public/look.ts';
import { availableLanguages, isLanguageCode, loadLanguage } from '../i18n/index.ts';
import { PERMISSION_GROUPS } from '../http/permissions.ts';
import type { AppEnv } from '../http/types.ts';
import { Landing } from './pages.tsx';

export function registerSystemRoutes(app: Hono<AppEnv>, api: Hono<AppEnv>, ctx: Services): void {
  const { guard, settings } = ctx;

  // Public liveness probe (load balancers); the /api variant checks credentials, as listmonk.
  app.get('/health', (c) => ok(c, true));

  // The landing page: sign-in, and the public features that are switched on.
  app.get('/', (c) => {
    const site = settings.str('app.site_name');
    const body = Landing({ site, subscribe: settings.bool('app.enable_public_subscription_page'), archive: settings.bool('app.enable_public_archive') });
    return sendPage(c, { ...publicLook(settings), title: site, body });
  });

  // Crawlers may index the subscription form, never per-subscriber links.
  app.get('/robots.txt', (c) => c.text('User-agent: *\nAllow: /subscription/form\nDisallow: /subscription/\nDisallow: /campaign/\nDisallow: /link/\n'));

  // The appearance settings' custom CSS and JS for the public pages.
  app.get('/public/custom.css', (c) => c.body(settings.str('appearance.public.custom_css'), 200, { 'Content-Type': 'text/css; charset=utf-8' }));
  app.get('/public/custom.js', (c) => c.body(settings.str('appearance.public.custom_js'), 200, { 'Content-Type': 'application/javascript; charset=utf-8' }));
  api.get('/health', guard('signed-in'), (c) => ok(c, true));

  api.get('/config', guard('signed-in'), (c) => {
    const captcha = settings.get<CaptchaSettings>('security.captcha');
    const provider = captchaProvider(captcha);
    const redirects = settings.get<string[]>('security.trusted_urls').filter((u) => u !== '*');
    return ok(c, {
      root_url: settings.rootUrl(),
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
      messengers: ctx.mailer.names(),
      langs: availableLanguages(),
      lang: settings.str('app.lang'),
      permissions: PERMISSION_GROUPS,
      update: null,
      needs_restart: false,
      has_legacy_user: false,
      version: VERSION,
    });
  });

  // Not enveloped, as listmonk. Host details only for those who may read settings.
  api.get('/about', guard('settings:get'), (c) => {
    const mem = process.memoryUsage();
    let sizeMb = 0;
    try {
      sizeMb = Math.round((statSync(ctx.config.dbPath).size / 1048576) * 100) / 100;
    } catch {
      // in-memory or unreadable: report 0
    }
    return c.json({
      version: VERSION,
      build: VERSION,
      go_version: process.version,
      go_arch: arch(),
      database: { version: `SQLite ${ctx.db.prepare('SELECT sqlite_version()').pluck().get()}`, size_mb: sizeMb },
      system: { num_cpu: cpus().length, memory_alloc_mb: Math.round(mem.heapUsed / 1048576), memory_from_os_mb: Math.round(mem.rss / 1048576) },
      host: { os: platform(), arch: arch(), hostname: hostname() },
    });
  });

  api.get('/lang/:lang', guard('signed-in'), (c) => {
    const code = c.req.param('lang');
    if (!isLanguageCode(code)) throw badRequest('invalid language code');
    const pack = loadLanguage(code);
    if (!pack) throw notFound(`unknown language "${code}"`);
    return ok(c, pack);
  });

  api.get('/logs', guard('settings:get'), (c) => ok(c, ctx.log.recent()));

  api.post('/admin/reload', guard('settings:manage'), (c) => {
    ctx.reload();
    ctx.log.info(`settings reloaded by ${c.get('user').username}`);
    return ok(c, true);
  });
}
