// Each admin page is one typed unit (#30): its markup binds to its script only through the typed
// helpers of src/admin/bind.ts (no directive written as a raw string), names no permission (a
// control names the route it calls and shows when view.may says so), and every route it names
// is one the app mounts. What the binding types catch is proved in bind-types.test.ts.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ALL_PERMISSIONS, LIST_PERMISSIONS } from '../../src/core/authz.ts';
import { useFreshServer } from '../helpers/server.ts';

/** The admin's markup and the sidebar: every .tsx under src/, and src/admin/nav.ts. */
function pageFiles(dir = 'src'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return pageFiles(p);
    return e.name.endsWith('.tsx') || p === join('src', 'admin', 'nav.ts') ? [p] : [];
  }).sort();
}

/** Each line of the files matching `re`, as "file:line: text". */
function matches(files: string[], re: RegExp): string[] {
  return files.flatMap((file) => readFileSync(file, 'utf8').split('\n').flatMap((line, i) => (re.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])));
}

describe('admin pages as typed units', () => {
  const files = pageFiles();

  it('finds the page files', () => {
    assert.ok(files.includes(join('src', 'lists', 'admin.tsx')) && files.includes(join('src', 'admin', 'page.tsx')) && files.length > 15, files.join(', '));
  });

  it('writes no Alpine directive as a raw attribute: each goes through the typed bindings', () => {
    assert.deepEqual(matches(files, /\sx-(data|on|model|show|text|bind|for|if|ref|init|effect)[:=.]/), []);
  });

  it('names no permission in a page or the sidebar: controls ask view.may for the route they call', () => {
    const names = [...ALL_PERMISSIONS, ...LIST_PERMISSIONS].map((p) => p.replace(':', '\\:'));
    assert.deepEqual(matches(files, new RegExp(`['"\`](${names.join('|')})['"\`]`)), []);
    assert.deepEqual(matches(files, /\b(can|hasPerm|permittedLists|canAccessList)\(/), []);
  });

  it('imports no store and not the whole of the services', () => {
    assert.deepEqual(matches(files, /from '[^']*(\/store\.ts|\/services\.ts)'/), []);
  });

  const server = useFreshServer();
  it('names only routes the app mounts', () => {
    const keys = new Set(files.flatMap((file) => [...readFileSync(file, 'utf8').matchAll(/'((?:GET|POST|PUT|PATCH|DELETE) \/[^']*)'/g)].map((m) => m[1])));
    assert.ok(keys.size > 20, `only ${keys.size} route names found`);
    const routes = server().server.ctx.routes;
    assert.deepEqual([...keys].filter((k) => !routes.has(k)), []);
  });
});
