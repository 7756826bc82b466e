// Bundles src/ into dist/ with esbuild. Native and heavy runtime packages stay external
// (they are resolved from node_modules at run time).
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';

const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

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
  // Everything in dependencies stays external: better-sqlite3 is native, the rest load fine from node_modules.
  external: Object.keys(pkg.dependencies ?? {}),
  define: { LISTMGR_VERSION: JSON.stringify(pkg.version) },
  banner: { js: "import { createRequire as __lmCreateRequire } from 'node:module'; const require = __lmCreateRequire(import.meta.url);" },
  logLevel: 'warning',
});
