// The package root (the directory holding package.json). Code runs either from src/ through
// tsx or bundled into dist/cli.js; both sit below the root, so walking up finds it.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function findAppRoot(start: string): string {
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`no package.json above ${start}`);
  }
}

export const appRoot: string = findAppRoot(dirname(fileURLToPath(import.meta.url)));
