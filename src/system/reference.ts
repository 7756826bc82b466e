// The API's description of itself: /api/openapi.json (OpenAPI 3.1, generated from the route
// tables) and /api/docs, the same read as a page. Both for signed-in users.
import type { Context } from 'hono';
import { routesFor } from '../http/routes.ts';
import type { AppEnv } from '../http/types.ts';
import { sendReference } from './reference-page.tsx';

interface Deps {
  /** The OpenAPI document of every /api route (made once, on first use). */
  apiDocument(): Record<string, unknown>;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const REFERENCE_ROUTES = [
  route({ method: 'GET', path: '/openapi.json', access: 'signed-in', handler: openApi, raw: 'application/json', summary: 'This API described as OpenAPI 3.1' }),
  route({ method: 'GET', path: '/docs', access: 'signed-in', handler: docsPage, raw: 'text/html', summary: 'This API\'s reference as a page' }),
];

function openApi(c: C, s: Deps) {
  return c.json(s.apiDocument());
}

function docsPage(c: C, s: Deps) {
  return sendReference(c, s.apiDocument());
}
