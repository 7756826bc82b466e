// Runs every test/**/*.test.ts with node:test (TypeScript through tsx).
// Node 20's --test does not expand globs itself, so the files are listed here.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';

function find(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return find(p);
    return p.endsWith('.test.ts') ? [p] : [];
  });
}

// The CLI tests run the built launcher, so build first (esbuild takes well under a second).
const build = spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const only = process.argv.slice(2);
const files = only.length ? only : find('test').sort();
// TAP to the console as before, and the failing tests' names to a file printed last.
const scratch = mkdtempSync(join(tmpdir(), 'listmgr-tests-'));
const failuresFile = join(scratch, 'failures.txt');
const res = spawnSync(
  process.execPath,
  [
    '--import', 'tsx', '--test', '--test-concurrency=2',
    '--test-reporter=tap', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/failures-reporter.mjs', `--test-reporter-destination=${failuresFile}`,
    ...files,
  ],
  { stdio: 'inherit' },
);
try {
  process.stdout.write(readFileSync(failuresFile, 'utf8'));
} catch {
  // No file: the run ended before any reporter output.
}
rmSync(scratch, { recursive: true, force: true });
process.exit(res.status ?? 1);
