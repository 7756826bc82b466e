// The admin's help: every guide in docs/ is a page for any signed-in user (and for nobody
// else), its links lead to other help pages or to files the help serves, and what the
// Markdown holds is shown, never run.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { renderDoc } from '../../src/help/docs.ts';
import { adminSession, getPage, userWithRole } from '../helpers/admin.ts';
import { useFreshServer } from '../helpers/server.ts';

const topics = readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => f.slice(0, -3));

/** The local addresses a page links to or loads (the shell's own links left out). */
function localLinks(html: string): string[] {
  const main = /<main[^>]*>([\s\S]*)<\/main>/.exec(html)?.[1] ?? '';
  return [...main.matchAll(/(?:href|src)="(\/[^"#]*)(?:#[^"]*)?"/g)].map((m) => m[1].replace(/&amp;/g, '&'));
}

describe('admin help', () => {
  const server = useFreshServer();

  it('serves the index and every guide to any signed-in user, and every link on them resolves', async () => {
    const t = server();
    const nobody = await userWithRole(t, []);
    const session = await adminSession(t, nobody.username, nobody.password);
    const index = await getPage(t, session, '/admin/help');
    assert.equal(index.status, 200);
    for (const topic of ['quickstart', 'import', 'templating', 'segments', 'api', 'backup-and-upgrade', 'differences', 'performance', 'architecture', 'operations']) {
      assert.ok(topics.includes(topic), `docs/${topic}.md`);
    }
    for (const topic of topics) assert.ok(index.body.includes(`href="/admin/help/${topic}"`), `the index links ${topic}`);
    const checked = new Set<string>();
    for (const topic of topics) {
      const page = await getPage(t, session, `/admin/help/${topic}`);
      assert.equal(page.status, 200, topic);
      assert.match(page.body, /<article class="doc">/);
      for (const link of localLinks(page.body)) {
        if (checked.has(link) || link.startsWith('/admin/assets/')) continue;
        checked.add(link);
        const res = await fetch(t.url + link, { redirect: 'manual', headers: { cookie: `session=${session}` } });
        assert.equal(res.status, 200, `${topic} links ${link}`);
        await res.arrayBuffer();
      }
    }
    assert.ok(checked.has('/admin/help/images/admin-dashboard.png'), 'the admin guide shows its screenshots');
    assert.ok(checked.has('/admin/help/templating'), 'guides link each other as help pages');
  });

  it('links help from the menu of every user', async () => {
    const t = server();
    const nobody = await userWithRole(t, []);
    const page = await getPage(t, await adminSession(t, nobody.username, nobody.password), '/admin');
    assert.match(/<nav class="sidebar"[\s\S]*?<\/nav>/.exec(page.body)?.[0] ?? '', /href="\/admin\/help"/);
  });

  it('serves an image with its type, and nothing outside the guides\' folders', async () => {
    const t = server();
    const session = await adminSession(t);
    const image = await fetch(`${t.url}/admin/help/images/admin-dashboard.png`, { headers: { cookie: `session=${session}` } });
    assert.equal(image.status, 200);
    assert.equal(image.headers.get('content-type'), 'image/png');
    assert.deepEqual([...new Uint8Array(await image.arrayBuffer()).subarray(1, 4)], [...Buffer.from('PNG')]);
    for (const bad of ['/admin/help/no-such-guide', '/admin/help/README', '/admin/help/..%2FREADME', '/admin/help/images/nope.png', '/admin/help/images/..%2F..%2Fpackage.json', '/admin/help/sql/0001_init.sql', '/admin/help/Import']) {
      assert.equal((await getPage(t, session, bad)).status, 404, bad);
    }
  });

  it('puts a "?" to the guide beside the segment box, the template editors, the import form, the SMTP tab and the segment permission', async () => {
    const t = server();
    const session = await adminSession(t);
    const list = await t.request('POST', '/api/lists', { name: 'Help', type: 'private', optin: 'single' });
    const campaign = await t.request('POST', '/api/campaigns', { name: 'Help', subject: 'S', lists: [list.body.data.id] });
    const role = await t.request('POST', '/api/roles/users', { name: 'help role', permissions: ['subscribers:sql_query'] });
    const pages: [string, string][] = [
      ['/admin/subscribers', '/admin/help/segments'],
      ['/admin/campaigns/templates/new', '/admin/help/templating'],
      [`/admin/campaigns/${campaign.body.data.id}`, '/admin/help/templating'],
      ['/admin/subscribers/import', '/admin/help/import'],
      ['/admin/settings', '/admin/help/quickstart#3-connect-a-mail-server'],
      [`/admin/users/roles/users/${role.body.data.id}`, '/admin/help/segments'],
    ];
    for (const [path, href] of pages) {
      const page = await getPage(t, session, path);
      assert.equal(page.status, 200, path);
      assert.match(page.body, new RegExp(`<a class="help-link" href="${href}" title="Help: [^"]+" aria-label="Help: [^"]+">\\?</a>`), path);
      const guide = await getPage(t, session, href.split('#')[0]);
      assert.equal(guide.status, 200, href);
      const anchor = href.split('#')[1];
      if (anchor) assert.ok(guide.body.includes(`id="${anchor}"`), href);
    }
  });

  it('leaves no admin text pointing at a file in docs/ (the guides are help pages)', () => {
    const pack = JSON.parse(readFileSync('src/i18n/en.json', 'utf8')) as Record<string, string>;
    assert.deepEqual(Object.entries(pack).filter(([, v]) => /docs\/|\.md\b|README/.test(v)), []);
  });

  it('is not for signed-out visitors', async () => {
    const t = server();
    for (const path of ['/admin/help', '/admin/help/quickstart', '/admin/help/images/admin-dashboard.png']) {
      const res = await getPage(t, null, path);
      assert.equal(res.status, 307, path);
      assert.match(res.headers.get('location') ?? '', /^\/admin\/login\?next=/);
    }
  });

  it('shows HTML written in a guide as text and drops links that are not http(s), mail or the guides\'', () => {
    const { title, html } = renderDoc([
      '# A <b>guide</b>',
      '<script>alert(1)</script>',
      '',
      'Text with <img src=x onerror=alert(1)> inline, [a script](javascript:alert(1)), [a file](/etc/passwd),',
      '[another guide](import.md#modes), [a section](#a-section), [outside](https://example.com "Example").',
      '',
      '## A section',
      '',
      '![shot](images/admin-dashboard.png) ![missing](images/nope.png)',
    ].join('\n'));
    assert.equal(title, 'A <b>guide</b>');
    assert.ok(!/<script|<img src=x|<b>|javascript:|href="\/etc/.test(html), html);
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(html.includes('&lt;img src=x onerror=alert(1)&gt;'));
    assert.ok(html.includes('a script') && html.includes('a file'), 'the text of a dropped link stays');
    assert.ok(html.includes('<a href="/admin/help/import#modes">another guide</a>'));
    assert.ok(html.includes('<a href="#a-section">a section</a>'));
    assert.ok(html.includes('<a href="https://example.com" title="Example" rel="noopener noreferrer">outside</a>'));
    assert.ok(html.includes('<h2 id="a-section">A section</h2>'));
    assert.ok(html.includes('<img src="/admin/help/images/admin-dashboard.png" alt="shot"'));
    assert.ok(!html.includes('nope.png'));
  });
});
