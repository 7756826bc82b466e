// Running as the single executable that `npm run release` makes (scripts/release.mjs): Node's
// single executable application, with the application's files inside it as assets. The assets
// are named by their path in the repository (`sql/0001_init.sql`, `dist/admin/…`), and
// `index.json` lists them, since Node 20 cannot list the assets it carries.
//
// Native code cannot be loaded from inside the executable: better-sqlite3's and sharp's
// addons, libvips, and the worker threads' scripts (which the addons' loaders and Node's worker
// API need as files) are written to a per-version cache folder on the first start that needs
// them, and loaded from there on every start after:
//   $LISTMGR_CACHE_DIR, else $XDG_CACHE_HOME/listmgr, else ~/.cache/listmgr, else
//   <tmp>/listmgr-<uid>; then a folder per build, `<version>-<hash of what it holds>`.
import { getAsset, isSea } from 'node:sea';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { homedir, tmpdir, userInfo } from 'node:os';
import { dirname, join } from 'node:path';

/** True inside the release executable, false when run from the repository (./listmgr, tsx). */
export const inSea: boolean = isSea();

/**
 * The command a person at the server types to run listmgr, for the commands that messages and
 * pages print: the launcher in the repository, the installed executable on a server (the README
 * installs it as /usr/local/bin/listmgr).
 */
export const CLI_NAME = inSea ? 'listmgr' : './listmgr';

interface AssetIndex {
  /** `<version>-<hash>`: the cache folder's name. */
  id: string;
  /** Every asset's key. */
  files: string[];
  /** The keys under `native/`, written to the cache folder (without that prefix). */
  native: string[];
}

let index: AssetIndex | null = null;

function assetIndex(): AssetIndex {
  index ??= JSON.parse(getAsset('index.json', 'utf8')) as AssetIndex;
  return index;
}

/** The keys of the assets the executable carries. */
export function assetKeys(): readonly string[] {
  return assetIndex().files;
}

/** An asset's bytes (a copy), or null when the executable has no such asset. */
export function readAsset(key: string): Buffer<ArrayBuffer> | null {
  if (!assetIndex().files.includes(key)) return null;
  return Buffer.from(getAsset(key));
}

/** Where the cache folders of all versions live. */
export function cacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  if (env.LISTMGR_CACHE_DIR) return env.LISTMGR_CACHE_DIR;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'listmgr');
  const home = env.HOME || safeHomedir();
  return home ? join(home, '.cache', 'listmgr') : join(tmpdir(), `listmgr-${userInfo().uid}`);
}

function safeHomedir(): string | null {
  try {
    return homedir() || null;
  } catch {
    return null;
  }
}

let nativeFolder: string | null = null;

/**
 * The cache folder holding this build's native files, written on first use. A start writes
 * them into a new folder beside it and renames that into place, so two first starts at once
 * cannot leave a half-written folder: the second rename fails and the first one's stays.
 */
export function nativeDir(): string {
  if (nativeFolder) return nativeFolder;
  const { id, native } = assetIndex();
  const root = cacheRoot();
  const dir = join(root, id);
  if (!existsSync(join(dir, '.complete'))) {
    try {
      mkdirSync(root, { recursive: true, mode: 0o700 });
    } catch (e) {
      throw new Error(`cannot create the cache folder ${root} for the native libraries (${(e as Error).message}); set LISTMGR_CACHE_DIR to a writable folder`);
    }
    const partial = mkdtempSync(join(root, `.${id}-`));
    try {
      for (const key of native) {
        const file = join(partial, key);
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(file, Buffer.from(getAsset(`native/${key}`)), { mode: 0o500 });
      }
      writeFileSync(join(partial, '.complete'), `${id}\n`);
      chmodSync(partial, 0o700);
      renameSync(partial, dir); // fails if another start renamed its folder first
    } catch (e) {
      rmSync(partial, { recursive: true, force: true });
      if (!existsSync(join(dir, '.complete'))) throw new Error(`cannot write the native libraries to ${dir}: ${(e as Error).message}; set LISTMGR_CACHE_DIR to a writable folder`);
    }
  }
  nativeFolder = dir;
  return dir;
}

/**
 * Loads a script from the cache folder (`file` relative to it): a package the executable loads
 * on first use (scripts/release.mjs). The main script's own require() reaches Node's modules only.
 */
export function loadScript(file: string): unknown {
  const path = join(nativeDir(), file);
  return createRequire(path)(path);
}

/** Loads a native addon from the cache folder (`file` relative to it). */
export function loadNative(file: string): unknown {
  const module = { exports: {} as unknown };
  process.dlopen(module, join(nativeDir(), file));
  return module.exports;
}
