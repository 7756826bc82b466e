// Who may call which route, asked by pages before they offer a control (#30: controls are named
// by the route they call, and shown by the same checks the route makes).
import type { AuthUser } from '../core/authz.ts';
import { accessDenied, type AnyRoute, type Method } from './routes.ts';

/** A route by what a control calls: "DELETE /api/lists/:id" (the path as its table declares it, with the mount prefix). */
export type RouteKey = `${Method} /${string}`;

/** What a page passes for a route's path parameters. */
export type RouteParams = Readonly<Record<string, string | number>>;

/**
 * Who may call which route, from the mounted tables: a page offers a control (a button, a form,
 * a link, a menu entry) only when the signed-in user may call the route it names, by the same
 * checks the route makes (`access`, then `may`). One index for the whole app, built where the
 * tables are mounted.
 */
export class RouteAccess {
  private readonly checks = new Map<string, (actor: AuthUser, params: Readonly<Record<string, string>>) => boolean>();

  add<S>(table: readonly AnyRoute<S>[], deps: S, prefix = ''): void {
    for (const r of table) {
      const key = `${r.method} ${prefix}${r.path}`;
      this.checks.set(key, (actor, params) => (r.access === 'public' || accessDenied(r.access, actor) === null) && (r.may?.(deps, actor, params) ?? true));
    }
  }

  has(key: string): boolean {
    return this.checks.has(key);
  }

  /** Whether the actor may call the route with these parameters; a key no table has is a bug in the page. */
  may(actor: AuthUser, key: RouteKey, params: RouteParams = {}): boolean {
    const check = this.checks.get(key);
    if (!check) throw new Error(`no route "${key}" is mounted`);
    return check(actor, Object.fromEntries(Object.entries(params).map(([k, v]) => [k, String(v)])));
  }
}
