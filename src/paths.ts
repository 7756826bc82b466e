// Where the package lives on disk. src/ is bundled into dist/cli.js, but the checkout (with sql/
// and the template files under src/) is always beside it, so files are found from the root.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`listmgr: cannot find package.json above ${start}`);
    dir = parent;
  }
}

export const appRoot = findRoot(dirname(fileURLToPath(import.meta.url)));

export function fromRoot(...parts: string[]): string {
  return join(appRoot, ...parts);
}
