// Runs a benchmark as the server runs: bundled by esbuild like dist/ (tsx's on-the-fly
// transform wraps functions in naming helpers that cost time in hot loops).
// Usage: node --import tsx scripts/bench/bundled.ts scripts/bench/<name>.ts
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fromRoot } from '../../src/paths.ts';

const entry = process.argv[2];
if (!entry) {
  console.error('usage: bundled.ts <bench entry .ts>');
  process.exit(2);
}
const outdir = fromRoot('.bench');
mkdirSync(outdir, { recursive: true });
const outfile = join(outdir, basename(entry).replace(/\.ts$/, '.mjs'));
await build({
  entryPoints: [entry], outfile, bundle: true, platform: 'node', target: 'node20', format: 'esm', packages: 'external', logLevel: 'warning',
  banner: { js: "import { createRequire as __lmCreateRequire } from 'node:module'; const require = __lmCreateRequire(import.meta.url);" },
});
const r = spawnSync(process.execPath, [outfile], { stdio: 'inherit' });
process.exit(r.status ?? 1);
