// The README is a front door (short, pointing at the guides), and no link in it or in the
// guides leads nowhere: every relative link names a file of the repository, and every
// `#anchor` a heading of the file it points at (as GitHub and the admin's help make them).
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { docAnchors, docLinks } from '../../src/help/docs.ts';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const read = (file: string) => readFileSync(join(repo, file), 'utf8');
const markdownFiles = ['README.md', ...readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The broken relative links of a Markdown file of the repository, as `file: link (why)`. */
function brokenLinks(file: string): string[] {
  const broken: string[] = [];
  for (const href of docLinks(read(file))) {
    if (/^[a-z][a-z0-9+.-]*:/i.test(href)) continue; // http(s), mailto
    const [path, anchor] = href.split('#') as [string, string | undefined];
    const target = path ? normalize(join(dirname(file), decodeURIComponent(path))) : file;
    if (target.startsWith('..') || !existsSync(join(repo, target))) {
      broken.push(`${file}: ${href} (no file ${target})`);
      continue;
    }
    if (anchor !== undefined && target.endsWith('.md') && !docAnchors(read(target)).has(anchor)) broken.push(`${file}: ${href} (no heading #${anchor} in ${target})`);
  }
  return broken;
}

describe('the README and the guides', () => {
  it('keep the README a front door: under 250 lines', () => {
    const lines = read('README.md').split('\n').length;
    assert.ok(lines < 250, `README.md has ${lines} lines`);
  });

  it('link the README to every guide in docs/', () => {
    const links = new Set(docLinks(read('README.md')).map((h) => h.split('#')[0]));
    const missing = markdownFiles.filter((f) => f.startsWith('docs/') && !links.has(f));
    assert.deepEqual(missing, []);
  });

  it('have no relative link to a missing file or heading', () => {
    assert.ok(markdownFiles.length > 10, markdownFiles.join(', '));
    assert.deepEqual(markdownFiles.flatMap(brokenLinks), []);
  });

  it('would catch a broken link (the check itself)', () => {
    assert.deepEqual(docLinks('[a](nowhere.md) `[b](code.md)` [c](https://example.com) ![d](images/x.png)'), ['nowhere.md', 'https://example.com', 'images/x.png']);
    assert.ok(docAnchors(read('docs/api.md')).has('delivery-guarantee'));
    assert.ok(!docAnchors(read('docs/api.md')).has('no-such-heading'));
  });
});
