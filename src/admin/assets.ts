// The admin UI's browser scripts, built by scripts/build.mjs into dist/admin/ with
// content-hashed names: the manifest says which files an entry (the page bundle, an island)
// needs, and the files are served with a year-long cache since a new build renames them.
import type { Context } from 'hono';
import { readAppBytes } from '../paths.ts';

const ASSET_DIR = 'dist/admin';
const ASSET_NAME = /^[A-Za-z0-9_-]+\.(js|css)$/;
const TYPES = { js: 'text/javascript; charset=utf-8', css: 'text/css; charset=utf-8' } as const;

/** The script entries of the admin: `admin` on every page, the others as islands. */
export type AssetEntry = 'admin' | 'chart' | 'editor';

interface ManifestEntry {
  js: string;
  css: string | null;
}

let manifest: Record<string, ManifestEntry> | null = null;

function readManifest(): Record<string, ManifestEntry> {
  const file = `${ASSET_DIR}/manifest.json`;
  const text = readAppBytes(file);
  if (text === null) throw new Error(`the admin UI is not built (${file} is missing): run npm run build`);
  return JSON.parse(text.toString('utf8')) as Record<string, ManifestEntry>;
}

/** The URLs of an entry's script and stylesheet. */
export function assetUrls(entry: AssetEntry): { js: string; css: string | null } {
  manifest ??= readManifest();
  const files = manifest[entry];
  if (!files) throw new Error(`the admin UI build has no "${entry}" entry`);
  return { js: `/admin/assets/${files.js}`, css: files.css ? `/admin/assets/${files.css}` : null };
}

/** GET /admin/assets/:file — only the built files themselves (no paths, no other names). */
export function serveAsset(c: Context): Response {
  const name = c.req.param('file') ?? '';
  const m = ASSET_NAME.exec(name);
  const body = m ? readAppBytes(`${ASSET_DIR}/${name}`) : null;
  if (!m || body === null) return c.text('not found', 404);
  return c.body(body, 200, {
    'Content-Type': TYPES[m[1] as keyof typeof TYPES],
    'Cache-Control': 'public, max-age=31536000, immutable',
    'X-Content-Type-Options': 'nosniff',
  });
}
