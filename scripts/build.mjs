// Bundles src/ into dist/ with esbuild: the server (Node, dependencies external) and the admin
// UI's browser scripts (dist/admin/, content-hashed names, with a manifest the server reads).
import { build } from 'esbuild';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { asciiOnly, FIRST_USE_PACKAGES, zodEnglishOnly } from './bundling.mjs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
/** Dependencies left out of the server bundle, loaded from node_modules. */
const EXTERNAL = ['better-sqlite3', 'sharp', 'altcha', ...FIRST_USE_PACKAGES];

await build({
  // The import's parser, writer and search indexer and the segment queries run on worker
  // threads, which load their bundles from beside cli.js.
  entryPoints: {
    cli: 'src/cli.ts',
    'import-parser': 'src/imports/parse-worker.ts',
    'import-writer': 'src/imports/write-worker.ts',
    'import-indexer': 'src/imports/index-worker.ts',
    'segment-query': 'src/segments/query-worker.ts',
  },
  outdir: 'dist',
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  sourcemap: true,
  // The native packages (better-sqlite3, sharp) and the big ones loaded on first use only stay
  // external; the rest is bundled: one file to read and compile instead of hundreds of modules
  // cut start-up from 361 to ~200 ms and idle memory by ~10 MB (npm run bench:footprint).
  external: EXTERNAL,
  plugins: [zodEnglishOnly],
  // V8 keeps the bundle's source text in memory for as long as the process runs: without the
  // whitespace it is half the size (identifiers stay, so stack traces keep their names).
  minifyWhitespace: true,
  minifySyntax: true,
  define: { LISTMGR_VERSION: JSON.stringify(pkg.version) },
  banner: { js: "import { createRequire as __lmCreateRequire } from 'node:module'; const require = __lmCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
for (const file of ['cli', 'import-parser', 'import-writer', 'import-indexer', 'segment-query']) asciiOnly(`dist/${file}.js`);

// The admin UI's scripts: one small bundle every page loads (Alpine.js and the page
// components), and islands only the pages that need them load. Hashed names let the server
// answer them with a year-long cache; the manifest maps each entry to its files.
rmSync('dist/admin', { recursive: true, force: true });

// Every page script: each *.client.ts under src/, beside the page it belongs to.
function pageScripts(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return pageScripts(p);
    return e.name.endsWith('.client.ts') ? [resolve(p)] : [];
  }).sort();
}

/** `listmgr:admin-scripts`: the page scripts' modules, so the shell's entry never names a domain. */
const adminScripts = {
  name: 'admin-scripts',
  setup(b) {
    b.onResolve({ filter: /^listmgr:admin-scripts$/ }, () => ({ path: 'admin-scripts', namespace: 'listmgr' }));
    b.onLoad({ filter: /.*/, namespace: 'listmgr' }, () => {
      const files = pageScripts('src');
      const imports = files.map((f, i) => `import * as script${i} from ${JSON.stringify(f)};`);
      return { contents: `${imports.join('\n')}\nexport default [${files.map((_, i) => `script${i}`).join(', ')}];\n`, loader: 'js', resolveDir: resolve('src'), watchFiles: files };
    });
  },
};

const admin = await build({
  entryPoints: { admin: 'src/admin/client/admin.ts', chart: 'src/admin/client/chart.ts', editor: 'src/admin/client/editor.ts' },
  outdir: 'dist/admin',
  entryNames: '[name]-[hash]',
  chunkNames: 'shared-[hash]',
  assetNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  minify: true,
  platform: 'browser',
  target: ['es2020'],
  format: 'esm',
  metafile: true,
  plugins: [adminScripts],
  logLevel: 'warning',
});
const manifest = {};
for (const [file, out] of Object.entries(admin.metafile.outputs)) {
  if (!out.entryPoint) continue;
  const entry = basename(out.entryPoint).replace(/\.ts$/, '');
  manifest[entry] = { js: basename(file), css: out.cssBundle ? basename(out.cssBundle) : null };
}
mkdirSync('dist/admin', { recursive: true });
writeFileSync('dist/admin/manifest.json', JSON.stringify(manifest, null, 2));
