// Where the application's own files are: the SQL migrations, the default and system mail
// templates, the language packs, the admin UI's built scripts, the guides in docs/. Run from the
// repository, src/ is bundled into dist/cli.js but the checkout is always beside it, so files
// are found from its root; run as the release executable they are its assets (src/sea.ts),
// under the same relative paths. Every read of such a file goes through here.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { assetKeys, inSea, readAsset } from './sea.ts';

function findRoot(start: string): string {
  let dir = start;
  for (;;) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`listmgr: cannot find package.json above ${start}`);
    dir = parent;
  }
}

/** The repository's root (in the release executable: the executable's folder, which holds none of these files). */
export const appRoot = inSea ? dirname(process.execPath) : findRoot(dirname(fileURLToPath(import.meta.url)));

export function fromRoot(...parts: string[]): string {
  return join(appRoot, ...parts);
}

/** An application file's bytes, by its path from the repository's root (`/`-separated); null when there is none. */
export function readAppBytes(path: string): Buffer<ArrayBuffer> | null {
  if (inSea) return readAsset(path);
  const file = fromRoot(path);
  return existsSync(file) ? readFileSync(file) : null;
}

/** An application file's text; throws naming the file when there is none. */
export function readAppFile(path: string): string {
  const bytes = readAppBytes(path);
  if (bytes === null) throw new Error(`listmgr: the file ${path} is missing${inSea ? ' from the executable' : ''}`);
  return bytes.toString('utf8');
}

export function appFileExists(path: string): boolean {
  return inSea ? assetKeys().includes(path) : existsSync(fromRoot(path));
}

/** The names of the files directly in an application folder. */
export function listAppFiles(dir: string): string[] {
  if (!inSea) return readdirSync(fromRoot(dir));
  const prefix = `${dir}/`;
  return assetKeys().filter((k) => k.startsWith(prefix) && !k.slice(prefix.length).includes('/')).map((k) => k.slice(prefix.length));
}

/**
 * A file a dependency ships for the browser (the package's main file), read from
 * node_modules; in the executable, from its asset `deps/<package>`.
 */
export function readDependencyFile(pkg: string): string {
  if (inSea) return readAppFile(`deps/${pkg}`);
  return readFileSync(createRequire(import.meta.url).resolve(pkg), 'utf8');
}
