// The editors (CodeMirror, TipTap) are an island only the pages that edit a body load: every
// other page's HTML names neither the editor's script nor the rich-text chunk, and nothing
// those pages' scripts import reaches them. The campaign page loads both.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, it } from 'node:test';
import { adminSession, getPage } from '../helpers/admin.ts';
import { pageScripts } from '../helpers/page-scripts.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

/** The built files of the editor island and of TipTap's chunk (dist/admin/manifest.json). */
function editorFiles(): string[] {
  const manifest = JSON.parse(readFileSync('dist/admin/manifest.json', 'utf8')) as Record<string, { js: string }>;
  assert.ok(manifest.editor && manifest.richtext, 'the build has the editor island and the rich-text chunk');
  return [`/admin/assets/${manifest.editor.js}`, `/admin/assets/${manifest.richtext.js}`];
}

describe('the editor island', () => {
  const server = useFreshServer();
  let t: TestServer;
  let session: string;
  let campaignId: number;

  before(async () => {
    t = server();
    session = await adminSession(t);
    const list = (await t.request('POST', '/api/lists', { name: 'Readers', type: 'public', optin: 'single' })).body.data.id;
    campaignId = (await t.request('POST', '/api/campaigns', { name: 'Rich', subject: 'S', lists: [list], content_type: 'richtext', body: '<p>Hi</p>' })).body.data.id;
  });

  it('is loaded by the campaign page, with TipTap for rich text', async () => {
    const html = (await getPage(t, session, `/admin/campaigns/${campaignId}`)).body;
    const loaded = (await pageScripts(t.url, html, { dynamic: true })).map((f) => f.path);
    for (const file of editorFiles()) assert.ok(loaded.includes(file), `${file} is loaded`);
  });

  for (const path of ['/admin', '/admin/lists', '/admin/subscribers', '/admin/campaigns', '/admin/campaigns/analytics', '/admin/campaigns/media', '/admin/subscribers/bounces']) {
    it(`is not referenced by ${path}`, async () => {
      const res = await getPage(t, session, path);
      assert.equal(res.status, 200);
      const [editor, richtext] = editorFiles();
      for (const file of [editor, richtext]) assert.ok(!res.body.includes(file.split('/').pop()!), `${path} names ${file}`);
      const loaded = await pageScripts(t.url, res.body, { dynamic: true });
      assert.ok(loaded.length > 0);
      assert.deepEqual(loaded.map((f) => f.path).filter((p) => p === editor || p === richtext), [], `${path} reaches the editor's code`);
      for (const f of loaded) assert.ok(!/ProseMirror|cm-content/.test(f.text), `${f.path}, loaded by ${path}, holds editor code`);
    });
  }
});
