// Every route the app registers has a row in the permission table and a line in the robustness
// list, so a new route cannot go untested for access or for malformed input.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PERMISSION_MATRIX } from '../helpers/permission-matrix.ts';
import { ROBUSTNESS_ROUTES } from '../helpers/robustness-routes.ts';
import { appRoutes } from '../helpers/routes.ts';

/** A Hono path as a pattern that any value of each parameter matches. */
const pattern = (path: string) => new RegExp(`^${path.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/:[^/]+/g, '[^/]+')}$`);

/** Routes that need no session or token: the permission table is about the ones that do. */
const OPEN = /^\/api\/public\/|^\/(?!api\/)/;

test('every authenticated /api route has a row in the permission table', async () => {
  const rows = PERMISSION_MATRIX.map((r) => ({ method: r.method, path: r.path.split('?')[0].replace('{self}', '1') }));
  const missing = (await appRoutes())
    .filter((r) => r.path.startsWith('/api/') && !OPEN.test(r.path))
    .filter((r) => !rows.some((row) => row.method === r.method && pattern(r.path).test(row.path)))
    .map((r) => `${r.method} ${r.path}`);
  assert.deepEqual(missing, []);
});

test('every route is in the robustness list', async () => {
  const listed = new Set(ROBUSTNESS_ROUTES.map(([m, p]) => `${m.toUpperCase()} ${p.replace(/:[^/]+/g, ':p')}`));
  const missing = (await appRoutes()).map((r) => `${r.method} ${r.path.replace(/:[^/]+/g, ':p')}`).filter((r) => !listed.has(r));
  assert.deepEqual(missing, []);
});
