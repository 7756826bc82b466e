// The admin shell: every /admin page is this layout around its own content. Server-rendered
// with hono/jsx (everything shown is escaped by construction), under a strict CSP whose nonce
// is new on every response: only our scripts run, and they come from /admin/assets.
import type { Context } from 'hono';
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { randomBytes } from 'node:crypto';
import { renderHtml } from '../rendering/markup.ts';
import type { Actor } from '../core/authz.ts';
import type { RouteAccess, RouteKey, RouteParams } from '../http/route-access.ts';
import type { AppEnv } from '../http/types.ts';
import { assetUrls, type AssetEntry } from './assets.ts';
import { bind } from './bind.ts';
import type { shell } from './client/shell.ts';
import { translator, type Translate } from './i18n.ts';
import { navFor, navHref } from './nav.ts';
import { ADMIN_STYLE } from './style.ts';

export type AdminContext = Context<AppEnv>;

/** What the shell needs of the app; every page's dependencies include it. */
export interface AdminDeps {
  /** The settings the shell reads: the language, the site's name, custom CSS and JS. */
  settings: { str(key: string): string };
  /** Who may call which route: the menu and the controls a user sees. */
  routes: RouteAccess;
}

/** What a page needs to render: who is looking, the language pack's strings, and what they may do. */
export interface AdminView {
  actor: Actor;
  t: Translate;
  /**
   * Whether the user may call the route (with these path parameters), by the route's own
   * checks: a page shows the control that calls it (button, form, link) only then.
   */
  may(route: RouteKey, params?: RouteParams): boolean;
}

export function adminView(c: AdminContext, deps: AdminDeps): AdminView {
  const actor = c.get('user');
  return { actor, t: translator(deps.settings.str('app.lang')), may: (route, params) => deps.routes.may(actor, route, params) };
}

export interface AdminPageOptions {
  /** The document title (the page's <h1> is part of its body). */
  title: string;
  body: Child;
  /** Islands the page loads besides the admin bundle (charts). */
  islands?: AssetEntry[];
  status?: 200 | 400 | 403 | 404;
}

/** `<style>`/`<script>` text: `</` cannot end the element early (custom CSS is the admin's own text). */
function elementText(text: string): string {
  return text.replace(/<\//g, '<\\/');
}

const ui = bind<typeof shell>('shell');

function Shell({ o, view, path, nonce, siteName, customCss, customJs }: {
  o: AdminPageOptions; view: AdminView; path: string; nonce: string; siteName: string; customCss: string; customJs: boolean;
}): JSX.Element {
  const { t, actor } = view;
  const notice = ui.list('notices', 'n');
  const entries: AssetEntry[] = ['admin', ...(o.islands ?? [])];
  const assets = entries.map(assetUrls);
  const nav = navFor((route) => view.may(route));
  // The page's own link is the current page; on a page the menu has no link for (a campaign,
  // a user, a new list...) the link of its section (the longest one the path starts with).
  const hrefs = nav.flatMap((g) => g.links.map(navHref));
  const section = hrefs.includes(path) ? undefined : hrefs.filter((h) => h !== '/admin' && path.startsWith(`${h}/`)).sort((a, b) => b.length - a.length)[0];
  const current = (href: string) => (href === path ? 'page' : href === section ? 'true' : undefined);
  return (
    <html lang={t('_.code')}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{o.title} · {siteName || 'listmgr'}</title>
        <style nonce={nonce}>{raw(elementText(ADMIN_STYLE + customCss))}</style>
        {assets.map((a) => (a.css ? <link rel="stylesheet" href={a.css} /> : null))}
        {assets.map((a) => <script type="module" src={a.js} nonce={nonce}></script>)}
        {customJs ? <script src="/admin/custom.js" nonce={nonce} defer></script> : null}
      </head>
      <body data-events={view.may('GET /api/events') ? '/api/events?type=error' : undefined}>
        <a class="skip" href="#main">{t('admin.skipToContent')}</a>
        <div class="shell" {...ui.root()}>
          <header class="topbar">
            <button type="button" class="secondary small menu-toggle" aria-controls="sidebar" {...ui.attr('aria-expanded', 'menuOpen')} {...ui.on('click', 'toggleMenu')}>{t('admin.menu')}</button>
            <a class="brand" href="/admin">{siteName || 'listmgr'}</a>
            <span class="who">{t('admin.signedInAs')} <strong>{actor.name || actor.username}</strong></span>
            <a class="button secondary small" href="/admin/profile" aria-current={current('/admin/profile')}>{t('admin.profile.link')}</a>
            <form method="post" action="/admin/logout">
              <button type="submit" class="secondary small">{t('users.logout')}</button>
            </form>
          </header>
          <nav class="sidebar" id="sidebar" aria-label={t('admin.mainMenu')} {...ui.attr('class', 'menuClass()')}>
            <ul>
              {nav.map((g) =>
                g.links.length === 1 && g.links[0].label === g.label ? (
                  <li><a href={navHref(g.links[0])} aria-current={current(navHref(g.links[0]))}>{t(g.label)}</a></li>
                ) : (
                  <li>
                    <div class="group">{t(g.label)}</div>
                    <ul>
                      {g.links.map((l) => <li><a href={navHref(l)} aria-current={current(navHref(l))}>{t(l.label)}</a></li>)}
                    </ul>
                  </li>
                ),
              )}
            </ul>
          </nav>
          <main class="content" id="main">
            {o.body}
          </main>
          <div class="notices" role="status" aria-live="polite">
            <template {...notice.each('id')}>
              <div class="notice" {...notice.attr('class', 'kind')} {...notice.attr('role', 'role')}>
                <p {...notice.text('text')}></p>
                <button type="button" class="link" {...notice.on('click', 'dismiss', 'id')} aria-label={t('globals.buttons.close')}>×</button>
              </div>
            </template>
          </div>
        </div>
      </body>
    </html>
  );
}

/**
 * Answers an admin page. The CSP allows scripts only with this response's nonce (and what
 * they load), styles from us, and no framing; the page is never cached or indexed.
 */
export function adminPage(c: AdminContext, s: AdminDeps, o: AdminPageOptions): Response {
  const nonce = randomBytes(16).toString('base64');
  const view = adminView(c, s);
  const html = renderHtml(
    <Shell
      o={o} view={view} path={c.req.path} nonce={nonce}
      siteName={s.settings.str('app.site_name')}
      customCss={s.settings.str('appearance.admin.custom_css')}
      customJs={s.settings.str('appearance.admin.custom_js').trim() !== ''}
    />,
  );
  c.header('Content-Security-Policy', [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    `style-src 'self' 'nonce-${nonce}'`,
    "img-src 'self' data: https: http:",
    "connect-src 'self'",
    "frame-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; '));
  c.header('Cache-Control', 'no-store');
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
  c.header('X-Robots-Tag', 'noindex');
  c.header('X-Content-Type-Options', 'nosniff');
  return c.html(`<!doctype html>\n${html}`, o.status ?? 200);
}
