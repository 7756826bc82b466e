// scripts/check-cycles.mjs, which `npm test` runs on src/: it fails on a fixture with a known
// cycle and passes on one without, so the check cannot pass silently.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { CHECKER, fixtureChecker } from '../helpers/check-cycles.ts';

const { base, check } = fixtureChecker();

describe('check-cycles', () => {
  it('fails on a cycle between folders and prints it as a chain with the imports behind it', () => {
    const r = check('folders', {
      'a/x.ts': "import { y } from '../b/y.ts';\nexport const x = () => y;\n",
      'b/y.ts': "import { z } from '../a/z.ts';\nexport const y = z;\n",
      'a/z.ts': 'export const z = 1;\n',
    });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /Folder-level/);
    assert.match(r.out, /a → b → a/);
    assert.match(r.out, /b → a: b\/y\.ts → a\/z\.ts/);
    assert.doesNotMatch(r.out, /File-level/);
  });

  it('fails on a cycle between files, type-only imports and re-exports included', () => {
    const r = check('files', {
      'one.ts': "import type { Two } from './two.ts';\nexport type One = { two?: Two };\n",
      'two.ts': "export { three } from './three.js';\nexport type Two = number;\n",
      'three.ts': "import { type One } from './one';\nexport const three = (o: One) => o;\n",
    });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /File-level/);
    assert.match(r.out, /one\.ts →\(type\) two\.ts → three\.ts →\(type\) one\.ts/);
    // Files directly in the root are units of their own, and type-only imports do not make folder cycles.
    assert.doesNotMatch(r.out, /Folder-level/);
  });

  it('finds dynamic imports', () => {
    const r = check('dynamic', {
      'a/one.ts': "export async function load() { return (await import('../b/two.ts')).two; }\nexport const one = 1;\n",
      'b/two.ts': "import { one } from '../a/one.ts';\nexport const two = one + 1;\n",
    });
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, /a\/one\.ts → b\/two\.ts → a\/one\.ts/);
  });

  it('passes without a cycle, ignoring imports in comments and strings and type-only folder imports', () => {
    const r = check('clean', {
      'context.ts': 'export const perCtx = 1;\n',
      'service/model.ts': 'export interface Model { id: number }\n',
      'service/service.ts': [
        "import { perCtx } from '../context.ts';",
        "import { helper } from '../lib/helper.ts';",
        '// import { nothing } from \'../other/uses-service.ts\';',
        "/* export * from '../other/uses-service.ts'; */",
        "const code = \"import { x } from '../other/uses-service.ts'\";",
        'const tpl = `\nimport { x } from \'../other/uses-service.ts\'\n${code}`;',
        'const re = /[\'"]/g;',
        'export class Service { n = perCtx + helper(re.source + tpl); }',
        '',
      ].join('\n'),
      // lib → service by type only: not a folder cycle.
      'lib/helper.ts': "import { type Model } from '../service/model.ts';\nexport const helper = (s: string, m?: Model) => s.length + (m?.id ?? 0);\n",
      'other/uses-service.ts': "import { Service } from '../service/service.ts';\nexport const x = new Service();\n",
    });
    assert.equal(r.code, 0, r.out);
    assert.match(r.out, /No import cycles .* \(5 files\)/);
  });

  it('refuses a root that is not a folder', () => {
    const r = check('usage', {});
    const missing = spawnSync(process.execPath, [CHECKER, join(base, 'no-such-folder')], { encoding: 'utf8' });
    assert.equal(r.code, 0, r.out);
    assert.equal(missing.status, 2);
  });
});
