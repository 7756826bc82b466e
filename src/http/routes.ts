// Route tables. Each domain's routes.ts starts with one: method, path, who may call it, the
// named handler, and the typed inputs. `mount` registers a table on a Hono app: it checks the
// access, reads and validates the inputs, and calls the handler with the services it needs.
// The same tables describe the API (openapi.ts) and drive the route tests.
import type { Context, Hono, MiddlewareHandler } from 'hono';
import { limitBody, readBody, readBodyOrText, readJson } from './body.ts';
import { hasPerm, type AuthUser, type Permission } from '../core/authz.ts';
import { actingAs, type EventActor } from '../core/actor.ts';
import { parseInput, queryValues, type z } from './schema.ts';
import type { AppEnv } from './types.ts';

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

/**
 * Who may call a route: anyone ('public'), any signed-in user or API user ('signed-in'), a
 * Super Admin only ('super-admin': what hands out every secret), or a caller holding any one of
 * the named permissions.
 */
export type Access = 'public' | 'signed-in' | 'super-admin' | Permission | readonly Permission[];

/** Why `user` may not pass `access` (the message of the 403), or null when it may. A denial names the last permission, as listmonk does. */
export function accessDenied(access: Exclude<Access, 'public'>, user: AuthUser): string | null {
  if (access === 'signed-in') return null;
  if (access === 'super-admin') return user.superAdmin ? null : 'permission denied: only a Super Admin may do this';
  const anyOf: readonly Permission[] = typeof access === 'string' ? [access] : access;
  return anyOf.some((p) => hasPerm(user, p)) ? null : `permission denied: ${anyOf[anyOf.length - 1]}`;
}

/**
 * How the body is read before validation: a JSON object; JSON or a form; JSON, a form, or a
 * text/plain body taken as one field (`text:query`); or not at all (the handler streams it).
 */
export type BodyKind = 'json' | 'json-or-form' | `text:${string}` | 'stream';

type Schema = z.ZodType;
type Out<S> = S extends Schema ? z.output<S> : undefined;

export interface Input<B, Q> {
  body: Out<B>;
  query: Out<Q>;
}

export type Handler<S, B = undefined, Q = undefined> = (c: Context<AppEnv>, services: S, input: Input<B, Q>) => Response | Promise<Response>;

export interface Route<S, B = undefined, Q = undefined> {
  method: Method;
  /** Hono path (`:id` parameters), relative to where the table is mounted. */
  path: string;
  access: Access;
  handler: Handler<S, B, Q>;
  /** One line for the API reference. */
  summary: string;
  /**
   * The body's and the query's schemas, made on first use: about 1,800 zod objects that an
   * idle server (and one serving a handful of routes) never needs in memory.
   */
  body?: () => B;
  /** Default 'json' when a body schema is given. */
  bodyKind?: BodyKind;
  query?: () => Q;
  /** The body a route takes that it validates itself (uploads): described, not parsed here. */
  describedBody?: { contentType: string; schema?: () => Schema };
  /** A GET that writes (the tracking pixel and link) and so is counted like a write request. */
  writes?: boolean;
  /**
   * The largest body the route reads, in bytes (a function: read per request, from settings);
   * default the table's (MountOptions.bodyBytes). Counted as it is read, chunked bodies too.
   */
  bodyBytes?: number | ((services: S) => number);
  /** The rate limit the route counts against, made from the services when mounted; checked first. */
  limit?: (services: S) => MiddlewareHandler<AppEnv>;
  /** The response is not listmonk's {"data": …} envelope (CSV, HTML, an image, a redirect). */
  raw?: string;
  /**
   * The check beyond `access` that the route's service makes on what a call names (a list the
   * caller must manage, a campaign they must own), by the path's parameters: pages ask it
   * (RouteAccess) before they offer a control that calls the route. An API route's service makes
   * it again on the call and answers the refusal; an admin page is refused when it fails.
   */
  may?: (deps: S, actor: AuthUser, params: Readonly<Record<string, string>>) => boolean;
}

// Routes of one table share S but each has its own B and Q; the table erases them.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyRoute<S> = Route<S, any, any>;

/**
 * Who may call one route of an API table: the access of a page that shows what that route
 * reads (or offers what it does), so the two are stated once, in the API's table.
 */
export function accessOf<S>(table: readonly AnyRoute<S>[], method: Method, path: string): Access {
  const r = table.find((x) => x.method === method && x.path === path);
  if (!r) throw new Error(`no route ${method} ${path} in the table`);
  return r.access;
}

/** A table's route builder: `const route = routesFor<Deps>()`, then `route({...})` per row. */
export function routesFor<S>() {
  return <B extends Schema | undefined = undefined, Q extends Schema | undefined = undefined>(r: Route<S, B, Q>): AnyRoute<S> => r;
}

export interface MountOptions {
  /** Authenticates the caller and checks the access (auth.ts). */
  guard: (access: Exclude<Access, 'public'>) => MiddlewareHandler<AppEnv>;
  /** Counts a request that may write, so background writers give way (foreground-writes.ts). */
  trackWrites: MiddlewareHandler<AppEnv>;
  /** The largest body of the table's routes that do not set their own (`bodyBytes`). */
  bodyBytes: number;
  /**
   * Whom the change log names for what the table's 'public' routes change (the guard names the
   * user of the others); without it, the system.
   */
  actor?: EventActor;
}

async function readInputBody(c: Context<AppEnv>, kind: BodyKind): Promise<unknown> {
  if (kind === 'json') return readJson(c);
  if (kind === 'json-or-form') return readBody(c);
  if (kind.startsWith('text:')) return readBodyOrText(c, kind.slice(5));
  return undefined;
}

/** Registers every route of a table, in table order (a static path before a `:param` one). */
export function mount<S>(app: Hono<AppEnv>, table: readonly AnyRoute<S>[], services: S, o: MountOptions): void {
  for (const r of table) {
    const before: MiddlewareHandler<AppEnv>[] = [];
    if (r.limit) before.push(r.limit(services));
    const bodyBytes = r.bodyBytes ?? o.bodyBytes;
    before.push(limitBody(typeof bodyBytes === 'number' ? () => bodyBytes : () => bodyBytes(services)));
    if (r.writes) before.push(o.trackWrites);
    if (r.access !== 'public') before.push(o.guard(r.access));
    else if (o.actor) before.push(actAs(o.actor));
    const bodySchema = r.body && once(r.body);
    const querySchema = r.query && once(r.query);
    const handle: MiddlewareHandler<AppEnv> = async (c) => {
      const body = bodySchema ? parseInput(bodySchema(), await readInputBody(c, r.bodyKind ?? 'json')) : undefined;
      const query = querySchema ? parseInput(querySchema(), queryValues(c.req.url)) : undefined;
      return r.handler(c, services, { body, query });
    };
    app.on(r.method, [r.path], ...before, handle);
  }
}

function actAs(actor: EventActor): MiddlewareHandler<AppEnv> {
  return (_c, next) => actingAs(actor, next);
}

function once<T>(make: () => T): () => T {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
}
