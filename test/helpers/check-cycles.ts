// scripts/check-cycles.mjs run on small fixture trees (the cycle and layer tests).
import { after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fromRoot } from '../../src/paths.ts';

export const CHECKER = fromRoot('scripts/check-cycles.mjs');

/**
 * A function that writes a fixture folder (path → content) and runs the checker on it; the
 * fixtures live in one temporary folder, removed after the test file's tests.
 */
export function fixtureChecker(): { base: string; check: (name: string, files: Record<string, string>) => { code: number | null; out: string } } {
  const base = mkdtempSync(join(tmpdir(), 'listmgr-cycles-'));
  after(() => rmSync(base, { recursive: true, force: true }));
  const check = (name: string, files: Record<string, string>) => {
    const root = join(base, name);
    mkdirSync(root, { recursive: true });
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    }
    const r = spawnSync(process.execPath, [CHECKER, root], { encoding: 'utf8' });
    return { code: r.status, out: r.stdout + r.stderr };
  };
  return { base, check };
}
