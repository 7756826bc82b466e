// `npm run release`: one executable file for Linux x64 that needs nothing installed, made with
// Node's single executable applications (the running node binary with the application injected
// into it by postject), and beside it a tarball with the README, the licence and a service unit,
// and SHA256SUMS. Everything goes to release/ (git-ignored); the steps' scratch to .release/.
//
// What the executable carries (as assets, read by src/sea.ts and src/paths.ts):
// - the application bundled into one CommonJS script (SEA runs its main script as CommonJS,
//   whose require() reaches only Node's own modules, so every dependency is inside it or
//   beside it in the cache folder);
// - the files the application reads: sql/, the default and system mail templates, the
//   language packs, the admin UI's built scripts, the guides in docs/ (with their images and
//   the example CSV), the Altcha widget;
// - under native/, what has to be a file to be loaded, written to a cache folder on first use:
//   better-sqlite3's addon, sharp's addon with libvips (in the layout its RPATH expects), the
//   worker threads' scripts, better-sqlite3 as a script for the backup's copying thread, and
//   the packages loaded on first use (scripts/bundling.mjs), each a script of its own.
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { inject } from 'postject';
import { asciiOnly, FIRST_USE_PACKAGES, zodEnglishOnly } from './bundling.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const require = createRequire(join(root, 'package.json'));
const name = `listmgr-${pkg.version}-linux-x64`;
const work = join(root, '.release');
const out = join(root, 'release');
const started = Date.now();
const step = (what) => console.log(`release: ${what} (${((Date.now() - started) / 1000).toFixed(1)} s)`);

if (process.platform !== 'linux' || process.arch !== 'x64') throw new Error(`the release is built for linux-x64 with that platform's node; this is ${process.platform}-${process.arch}`);

// The admin UI's scripts (dist/admin) and a check that the sources build.
const built = spawnSync(process.execPath, [join(root, 'scripts/build.mjs')], { cwd: root, stdio: 'inherit' });
if (built.status !== 0) process.exit(built.status ?? 1);
step('built dist/');

rmSync(work, { recursive: true, force: true });
mkdirSync(join(work, 'native'), { recursive: true });
mkdirSync(out, { recursive: true });

// sharp's addon and libvips, where the addon's RPATH ($ORIGIN/../../sharp-libvips-linux-x64/lib) finds it.
const sharpDir = dirname(require.resolve('@img/sharp-linux-x64/package'));
const vipsDir = dirname(require.resolve('@img/sharp-libvips-linux-x64/package'));
const sharpNode = readdirSync(join(sharpDir, 'lib')).find((f) => f.endsWith('.node'));
const natives = {
  'better_sqlite3.node': join(dirname(require.resolve('better-sqlite3/package.json')), 'build', 'Release', 'better_sqlite3.node'),
  [`@img/sharp-linux-x64/lib/${sharpNode}`]: join(sharpDir, 'lib', sharpNode),
  ...Object.fromEntries(readdirSync(join(vipsDir, 'lib')).filter((f) => f.includes('.so')).map((f) => [`@img/sharp-libvips-linux-x64/lib/${f}`, join(vipsDir, 'lib', f)])),
};

// The bundles' native loading goes through src/sea.ts: better-sqlite3 finds its addon with the
// `bindings` package, and sharp tries a list of require()s; both become loadNative().
const seaModule = join(root, 'src', 'sea.ts');
const nativeLoading = {
  name: 'listmgr-native',
  setup(b) {
    b.onResolve({ filter: /^bindings$/ }, () => ({ path: 'bindings', namespace: 'listmgr-native' }));
    b.onLoad({ filter: /^bindings$/, namespace: 'listmgr-native' }, () => ({
      contents: `module.exports = () => require(${JSON.stringify(seaModule)}).loadNative('better_sqlite3.node');`,
      resolveDir: root,
      loader: 'js',
    }));
    // The CommonJS build of sharp, whose addon loading is one file (dist/sharp.cjs).
    b.onResolve({ filter: /^sharp$/ }, () => ({ path: require.resolve('sharp') }));
    // sharp.versions: its require()s of a name made at run time would each log Node's warning
    // that an executable's require() loads built-in modules only; libvips's versions.json is named.
    b.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]utility\.cjs$/ }, (args) => ({
      contents: readFileSync(args.path, 'utf8').replace(/require\(`@img\/sharp(?:-libvips)?-\$\{runtimePlatform\}\/versions`\)/g, "require('@img/sharp-libvips-linux-x64/versions')"),
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
    b.onLoad({ filter: /[\\/]sharp[\\/]dist[\\/]sharp\.cjs$/ }, () => ({
      contents: `module.exports = require(${JSON.stringify(seaModule)}).loadNative(${JSON.stringify(`@img/sharp-linux-x64/lib/${sharpNode}`)});`,
      resolveDir: root,
      loader: 'js',
    }));
  },
};

// The packages loaded on first use: each a script of its own (native/first-use/<name>.cjs),
// loaded from the cache folder when the application first imports it, so that the executable's
// script, which V8 keeps in memory whole, holds none of them.
const firstUseScripts = {
  name: 'listmgr-first-use',
  setup(b) {
    const names = new RegExp(`^(${FIRST_USE_PACKAGES.join('|')})$`);
    b.onResolve({ filter: names }, (args) => ({ path: args.path, namespace: 'listmgr-first-use' }));
    b.onLoad({ filter: /.*/, namespace: 'listmgr-first-use' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(seaModule)}).loadScript(${JSON.stringify(`first-use/${args.path}.cjs`)});`,
      resolveDir: root,
      loader: 'js',
    }));
  },
};

const common = {
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'cjs',
  // pg's optional native client, tried in a try/catch.
  external: ['pg-native'],
  define: { LISTMGR_VERSION: JSON.stringify(pkg.version), 'import.meta.url': '__lmImportMetaUrl' },
  banner: { js: "var __lmImportMetaUrl = require('node:url').pathToFileURL(__filename).href;" },
  plugins: [nativeLoading, zodEnglishOnly],
  // As dist/cli.js (scripts/build.mjs): V8 holds the script's source for as long as it runs.
  minifyWhitespace: true,
  minifySyntax: true,
  legalComments: 'none',
  logLevel: 'error',
};

const main = join(work, 'listmgr.cjs');
await build({ ...common, plugins: [...common.plugins, firstUseScripts], entryPoints: [join(root, 'src', 'sea-main.ts')], outfile: main });
asciiOnly(main);
await build({
  ...common,
  entryPoints: Object.fromEntries(FIRST_USE_PACKAGES.map((name) => [`first-use/${name}`, require.resolve(name)])),
  outdir: join(work, 'native'),
  outExtension: { '.js': '.cjs' },
});
// The worker threads' scripts (src/worker-thread.ts loads <name>.cjs from the cache folder).
await build({
  ...common,
  entryPoints: {
    'import-parser': join(root, 'src/imports/parse-worker.ts'),
    'import-writer': join(root, 'src/imports/write-worker.ts'),
    'import-indexer': join(root, 'src/imports/index-worker.ts'),
    'segment-query': join(root, 'src/segments/query-worker.ts'),
  },
  outdir: join(work, 'native'),
  outExtension: { '.js': '.cjs' },
});
// better-sqlite3 as a script of its own, for the backup's copying thread (src/db/copy.ts).
await build({ ...common, entryPoints: { 'better-sqlite3': require.resolve('better-sqlite3') }, outdir: join(work, 'native'), outExtension: { '.js': '.cjs' } });
step('bundled the application and its threads');

// The assets: key (a path from the repository's root) → file.
const assets = {};
const addTree = (dir, filter = () => true) => {
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const file = join(entry.parentPath ?? entry.path, entry.name);
    const key = relative(root, file).split('\\').join('/');
    if (filter(key)) assets[key] = file;
  }
};
addTree('sql', (k) => k.endsWith('.sql'));
addTree('src/i18n', (k) => k.endsWith('.json'));
addTree('src/templates/defaults', (k) => /\.(html|json)$/.test(k));
addTree('src/mail/templates', (k) => k.endsWith('.html'));
addTree('dist/admin');
// The guides, their images and the example CSV: the admin's help pages (src/help/) and the import page.
addTree('docs', (k) => /\.(md|png|jpe?g|webp|gif|csv)$/.test(k));
assets['deps/altcha'] = require.resolve('altcha');
for (const [key, file] of Object.entries(natives)) assets[`native/${key}`] = file;
for (const f of readdirSync(join(work, 'native'), { recursive: true })) {
  if (f.endsWith('.cjs')) assets[`native/${f.split('\\').join('/')}`] = join(work, 'native', f);
}

// The cache folder's name changes whenever what is written there does.
const hash = createHash('sha256');
const native = Object.keys(assets).filter((k) => k.startsWith('native/')).sort();
for (const k of native) hash.update(k).update(readFileSync(assets[k]));
const index = { id: `${pkg.version}-${hash.digest('hex').slice(0, 12)}`, files: Object.keys(assets).sort(), native: native.map((k) => k.slice('native/'.length)) };
writeFileSync(join(work, 'index.json'), JSON.stringify(index));
assets['index.json'] = join(work, 'index.json');

writeFileSync(join(work, 'sea-config.json'), JSON.stringify({
  main: join(work, 'listmgr.cjs'),
  output: join(work, 'sea.blob'),
  disableExperimentalSEAWarning: true,
  // The compiled bundle is stored with it: start-up skips compiling most of the script.
  useCodeCache: true,
  assets,
}, null, 2));
const blob = spawnSync(process.execPath, ['--experimental-sea-config', join(work, 'sea-config.json')], { cwd: work, stdio: ['ignore', 'ignore', 'inherit'] });
if (blob.status !== 0) process.exit(blob.status ?? 1);
step(`wrote the blob (${Object.keys(assets).length} assets)`);

const exe = join(out, name);
rmSync(exe, { force: true });
copyFileSync(process.execPath, exe);
chmodSync(exe, 0o755);
// postject's warning about a note section it cannot name is harmless for ELF files.
const origWarn = console.warn;
console.warn = () => {};
try {
  await inject(exe, 'NODE_SEA_BLOB', readFileSync(join(work, 'sea.blob')), { sentinelFuse: 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2' });
} finally {
  console.warn = origWarn;
}
step(`wrote ${relative(root, exe)}`);

// The tarball: a folder with the executable (as `listmgr`), the README, the licence and the unit.
const stage = join(work, name);
mkdirSync(stage, { recursive: true });
copyFileSync(exe, join(stage, 'listmgr'));
chmodSync(join(stage, 'listmgr'), 0o755);
copyFileSync(join(root, 'README.md'), join(stage, 'README.md'));
copyFileSync(join(root, 'LICENSE'), join(stage, 'LICENSE'));
const unit = spawnSync(exe, ['service-unit', '--exec', '/usr/local/bin/listmgr'], { encoding: 'utf8', env: { LISTMGR_CACHE_DIR: join(work, 'cache') } });
if (unit.status !== 0) throw new Error(`the executable failed to print its service unit: ${unit.stderr}`);
writeFileSync(join(stage, 'listmgr.service'), unit.stdout);
const tarball = join(out, `${name}.tar.gz`);
const tar = spawnSync('tar', ['-czf', tarball, '--owner=0', '--group=0', '--numeric-owner', '-C', work, name], { stdio: 'inherit' });
if (tar.status !== 0) process.exit(tar.status ?? 1);
step(`wrote ${relative(root, tarball)}`);

const sums = [exe, tarball].map((f) => `${createHash('sha256').update(readFileSync(f)).digest('hex')}  ${basename(f)}\n`).join('');
writeFileSync(join(out, 'SHA256SUMS'), sums);
cpSync(join(stage, 'listmgr.service'), join(out, 'listmgr.service'));
console.log(`release: ${relative(root, exe)} is ${(statSync(exe).size / 1048576).toFixed(1)} MB; ${relative(root, tarball)} is ${(statSync(tarball).size / 1048576).toFixed(1)} MB`);
