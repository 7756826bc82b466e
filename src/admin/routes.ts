// Mounting the admin pages. Each domain's admin.tsx has a table of pages (the same route
// tables as the API's); here they get the page guard — a signed-in browser session, else the
// sign-in form and back — and refusals become pages rather than JSON. The shell's own files
// (scripts, custom JS) are served here too.
import type { Hono, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { readSessionCookie } from '../http/auth.ts';
import type { Authenticator } from '../core/authz.ts';
import { denied, DomainError, notFound } from '../core/errors.ts';
import { accessDenied, mount, routesFor, type Access, type AnyRoute, type MountOptions } from '../http/routes.ts';
import type { AppEnv } from '../http/types.ts';
import type { Services } from '../services.ts';
import { serveAsset } from './assets.ts';
import { adminPage, adminView } from './page.tsx';
import { ErrorPanel } from './components.tsx';

const route = routesFor<Services>();

/** The shell's files: public, since they hold no data (the pages that use them are guarded). */
export const ADMIN_FILES = [
  route({ method: 'GET', path: '/admin/assets/:file', access: 'public', handler: serveAsset, raw: 'text/javascript', summary: 'The admin UI\'s scripts and styles (content-hashed names)' }),
  route({ method: 'GET', path: '/admin/custom.js', access: 'public', handler: customJs, raw: 'text/javascript', summary: 'The appearance settings\' custom JavaScript for the admin pages' }),
];

function customJs(c: Parameters<typeof serveAsset>[0], s: Services) {
  return c.body(s.settings.str('appearance.admin.custom_js'), 200, { 'Content-Type': 'text/javascript; charset=utf-8', 'X-Content-Type-Options': 'nosniff' });
}

/**
 * The guard of a page: the browser's session (API tokens are for the API), else a redirect to
 * the sign-in form that comes back here; a role without the page's permission gets a 403 page.
 */
function pageGuard(authn: Authenticator, s: Services) {
  return (access: Exclude<Access, 'public'>): MiddlewareHandler<AppEnv> => {
    return createMiddleware<AppEnv>(async (c, next) => {
      const session = readSessionCookie(c, authn);
      const user = session ? authn.bySession(session) : null;
      if (!session || !user) {
        const url = new URL(c.req.url);
        return c.redirect(`/admin/login?next=${encodeURIComponent(url.pathname + url.search)}`, 307);
      }
      c.set('user', user);
      c.set('session', session);
      const refused = accessDenied(access, user);
      if (refused) return refusal(c, s, denied(refused));
      await next();
    });
  };
}

function refusal(c: Parameters<typeof adminPage>[0], s: Services, err: DomainError): Response {
  const { t } = adminView(c, s);
  const status = err.kind === 'not-found' ? 404 : err.kind === 'invalid' ? 400 : 403;
  const title = { 400: t('globals.messages.invalidData'), 403: t('admin.refused'), 404: t('admin.notFound') }[status];
  return adminPage(c, s, { title, status, body: ErrorPanel({ title, message: err.message }) });
}

/** Any other /admin path: the sign-in form first (as for every page), then "not found". */
const UNKNOWN_PAGE = [
  route({ method: 'GET', path: '/admin/*', access: 'signed-in', handler: unknownPage, raw: 'text/html', summary: 'No such admin page' }),
];

function unknownPage(): never {
  throw notFound('There is no such page in the admin.');
}

/**
 * Mounts page tables, then the catch-all for unknown pages: guarded, and a refusal from a
 * service (400, 403, 404) shown as a page.
 */
export function mountAdmin(app: Hono<AppEnv>, tables: readonly (readonly AnyRoute<Services>[])[], s: Services, o: MountOptions): void {
  const guard = pageGuard(s.users.authenticator(), s);
  for (const table of [...tables, UNKNOWN_PAGE]) {
    const pages = table.map((r): AnyRoute<Services> => ({
      ...r,
      handler: async (c, deps, input) => {
        try {
          if (r.may && !r.may(deps, c.get('user'), c.req.param())) throw denied('permission denied');
          return await r.handler(c, deps, input);
        } catch (err) {
          if (err instanceof DomainError && (err.kind === 'denied' || err.kind === 'not-found' || err.kind === 'invalid')) return refusal(c, s, err);
          throw err;
        }
      },
    }));
    mount(app, pages, s, { ...o, guard });
  }
}
