// The script of every admin page: Alpine.js (its CSP build: no eval, so the strict CSP holds)
// with the shell's components and every page's: the build gathers the components each
// `src/**/*.client.ts` exports (scripts/build.mjs), so the shell never imports a domain.
import Alpine from '@alpinejs/csp';
import pageScripts from 'listmgr:admin-scripts';
import { isComponent, type Component } from './component.ts';
import { apiForm } from './form.ts';
import { copy, shell } from './shell.ts';

const components: Component[] = [shell, copy, apiForm, ...pageScripts.flatMap((script) => Object.values(script).filter(isComponent))];
const names = new Set<string>();
for (const { name, make } of components) {
  // Two components of one name: the second would silently replace the first.
  if (names.has(name)) throw new Error(`two admin components are named "${name}"`);
  names.add(name);
  Alpine.data(name, make);
}
Alpine.start();
