// The admin's media page, rendered by the real server: the grid with thumbnails, placeholders,
// sizes and search for an admin, refusals, a read-only role without upload or delete, and
// hostile file names shown as text.
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import sharp from 'sharp';
import { adminSession, assertEscaped, getPage, userWithRole } from '../helpers/admin.ts';
import { useFreshServer, type TestServer } from '../helpers/server.ts';

function upload(t: TestServer, name: string, data: Buffer | string, type: string) {
  const form = new FormData();
  form.append('file', new Blob([typeof data === 'string' ? data : new Uint8Array(data)], { type }), name);
  return t.request('POST', '/api/media', undefined, { raw: form });
}

describe('admin media page', () => {
  const server = useFreshServer();
  let t: TestServer;
  let admin: string;
  let png: Buffer;
  const ids: Record<string, number> = {};

  before(async () => {
    t = server();
    admin = await adminSession(t);
    png = await sharp({ create: { width: 40, height: 30, channels: 3, background: '#3366cc' } }).png().toBuffer();
    const set = await t.request('PUT', '/api/settings', { 'upload.extensions': ['png', 'pdf'] });
    assert.equal(set.status, 200, set.text);
    for (const [key, [name, data, type]] of Object.entries({
      banner: ['Spring banner.png', png, 'image/png'],
      paper: ['terms.pdf', '%PDF-1.4\n%%EOF\n', 'application/pdf'],
      hostile: [`<img src=x onerror="alert('xss')">.png`, png, 'image/png'],
    } as Record<string, [string, Buffer | string, string]>)) {
      const res = await upload(t, name, data, type);
      assert.equal(res.status, 200, res.text);
      ids[key] = res.body.data.id;
    }
  });

  it('shows the files as a grid: thumbnails, a placeholder by extension, names, sizes and dates', async () => {
    const res = await getPage(t, admin, '/admin/campaigns/media');
    assert.equal(res.status, 200);
    assert.match(res.body, /<h1>Media<span class="count"> \(3\)<\/span><\/h1>/);
    const item = (id: number) => new RegExp(`<li class="media-item" data-media="${id}">.*?</li>`, 's').exec(res.body)![0];
    assert.match(item(ids.banner), /<img src="\/uploads\/thumb_Spring-banner.png" alt="Spring-banner.png"/);
    assert.match(item(ids.banner), new RegExp(`${png.length} B · <time`));
    assert.match(item(ids.paper), /<span class="media-ext" role="img" aria-label="terms.pdf">PDF<\/span>/);
    assert.match(item(ids.paper), /15 B/);
    assert.match(item(ids.paper), /x-on:click="deleteOne"/);
    assert.match(res.body, /<input type="file" id="media-files" class="visually-hidden" multiple=""/);
  });

  it('searches by part of the file name', async () => {
    const res = await getPage(t, admin, '/admin/campaigns/media?query=BANNER');
    assert.match(res.body, /\(1\)<\/span>/);
    assert.ok(res.body.includes('Spring-banner.png') && !res.body.includes('terms.pdf'));
    assert.match(res.body, /<input type="search" id="media-search" name="query" value="BANNER"/);
    const none = await getPage(t, admin, '/admin/campaigns/media?query=nothing-like-this');
    assert.match(none.body, /No file name contains this text/);
  });

  it('shows hostile file names as text', async () => {
    const res = await getPage(t, admin, '/admin/campaigns/media');
    assertEscaped(res.body);
    assert.ok(!res.body.includes('onerror="alert'), 'no live attribute from a file name');
  });

  it('refuses without a session and without media:get; hides upload and delete from a reader', async () => {
    assert.equal((await getPage(t, null, '/admin/campaigns/media')).status, 307);
    const nobody = await userWithRole(t, ['campaigns:get']);
    assert.equal((await getPage(t, await adminSession(t, nobody.username, nobody.password), '/admin/campaigns/media')).status, 403);
    const reader = await userWithRole(t, ['media:get']);
    const res = await getPage(t, await adminSession(t, reader.username, reader.password), '/admin/campaigns/media');
    assert.equal(res.status, 200);
    assert.ok(res.body.includes('Spring-banner.png'));
    assert.ok(!res.body.includes('type="file"') && !res.body.includes('deleteOne'), 'no upload, no delete');
  });
});
