import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, symlinkSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import sharp from 'sharp';
import { runScenarios, type Scenario } from '../helpers/scenario.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';

let t: TestServer;
let png: Buffer;
let jpg: Buffer;
const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><script>alert(1)</script></svg>';
const pdf = '%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n';

function form(name: string, data: Buffer | string, type: string, field = 'file'): FormData {
  const f = new FormData();
  f.append(field, new Blob([typeof data === 'string' ? data : new Uint8Array(data)], { type }), name);
  return f;
}
const upload = (name: string, data: Buffer | string, type: string, opts: { auth?: string; field?: string } = {}) =>
  t.request('POST', '/api/media', undefined, { raw: form(name, data, type, opts.field), auth: opts.auth });
const uploads = () => join(t.dir, 'uploads');
function textForm(): FormData {
  const f = new FormData();
  f.append('file', 'just text');
  return f;
}
function twoFiles(): FormData {
  const f = form('a.pdf', pdf, 'application/pdf');
  f.append('file', new Blob([pdf], { type: 'application/pdf' }), 'b.pdf');
  return f;
}

/** A PNG of the given size (8-bit grey, all black); `rows` limits the pixel data that follows the header. */
function pngOf(width: number, height: number, rows = height): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const len = Buffer.alloc(4);
    len.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([len, body, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr[8] = 8; // bit depth; colour type 0 (grey), no interlace
  const parts = [Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr)];
  // Each row: filter byte 0 and `width` zero pixels, which deflate squeezes ~1000:1.
  parts.push(chunk('IDAT', deflateSync(Buffer.alloc((width + 1) * rows), { level: 9 })));
  parts.push(chunk('IEND', Buffer.alloc(0)));
  return Buffer.concat(parts);
}

/** GET with the path sent exactly as written (fetch would normalise "..", "%2e%2e" and "\\"). */
function rawGet(path: string): Promise<{ status: number; body: Buffer }> {
  const { hostname, port } = new URL(t.url);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: hostname, port, path, method: 'GET' }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (d: Buffer) => chunks.push(d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

before(async () => {
  t = await startTestServer();
  png = await sharp({ create: { width: 600, height: 300, channels: 3, background: '#3366cc' } }).png().toBuffer();
  jpg = await sharp({ create: { width: 400, height: 500, channels: 3, background: '#cc6633' } }).jpeg().toBuffer();
  const res = await t.request('PUT', '/api/settings', { 'upload.extensions': ['png', 'jpg', 'jpeg', 'svg', 'pdf'], 'upload.max_file_size': 100, 'app.root_url': 'http://media.test' });
  assert.equal(res.status, 200);
});
after(() => t.stop());

describe('media upload', () => {
  it('stores a PNG with a 250 px PNG thumbnail and its size in meta', async () => {
    const res = await upload('Spring banner.png', png, 'image/png');
    assert.equal(res.status, 200, res.text);
    const m = res.body.data;
    assert.equal(m.filename, 'Spring-banner.png');
    assert.equal(m.content_type, 'image/png');
    assert.equal(m.provider, 'filesystem');
    assert.deepEqual(m.meta, { width: 600, height: 300 });
    assert.equal(m.url, 'http://media.test/uploads/Spring-banner.png');
    assert.equal(m.thumb_url, 'http://media.test/uploads/thumb_Spring-banner.png');
    assert.match(m.uuid, /^[0-9a-f-]{36}$/);
    assert.deepEqual(Object.keys(m).sort(), ['content_type', 'created_at', 'filename', 'id', 'meta', 'provider', 'thumb_url', 'url', 'uuid']);
    const thumb = await sharp(join(uploads(), 'thumb_Spring-banner.png')).metadata();
    assert.equal(thumb.format, 'png');
    assert.equal(thumb.width, 250);
    assert.equal(thumb.height, 125);
  });

  it('stores a JPEG with a thumbnail, and never overwrites: a second upload of the same name gets a suffix', async () => {
    const a = await upload('photo.jpg', jpg, 'image/jpeg');
    const b = await upload('photo.jpg', jpg, 'image/jpeg');
    assert.equal(a.status, 200);
    assert.equal(b.status, 200);
    assert.equal(a.body.data.filename, 'photo.jpg');
    assert.match(b.body.data.filename, /^photo_[a-z0-9]{6}\.jpg$/);
    assert.deepEqual(b.body.data.meta, { width: 400, height: 500 });
    assert.ok(existsSync(join(uploads(), `thumb_${b.body.data.filename}`)));
  });

  it('does not let an upload named like a thumbnail replace one', async () => {
    const res = await upload('thumb_photo.jpg', jpg, 'image/jpeg');
    assert.equal(res.status, 200);
    assert.notEqual(res.body.data.filename, 'thumb_photo.jpg');
  });

  it('stores an SVG as its own thumbnail with empty meta', async () => {
    const res = await upload('logo.svg', svg, 'image/svg+xml');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.thumb_url, 'http://media.test/uploads/logo.svg');
    assert.deepEqual(res.body.data.meta, {});
  });

  it('stores a PDF without a thumbnail', async () => {
    const res = await upload('report 2025.pdf', pdf, 'application/pdf');
    assert.equal(res.status, 200, res.text);
    assert.equal(res.body.data.filename, 'report-2025.pdf');
    assert.equal(res.body.data.thumb_url, null);
    assert.equal(res.body.data.content_type, 'application/pdf');
  });

  // Each refusal also leaves the uploads folder and the media list as they were.
  let files: string[] = [];
  let count = 0;
  const refused = (name: string, send: Pick<Scenario, 'raw' | 'body'>, message: RegExp, status = 400): Scenario => ({
    name: `refuses: ${name}`, method: 'POST', path: '/api/media', ...send, status, contains: [message],
    before: async () => {
      files = readdirSync(uploads()).sort();
      count = (await t.request('GET', '/api/media')).body.data.length;
    },
    after: async () => {
      assert.deepEqual(readdirSync(uploads()).sort(), files, 'no file left behind');
      assert.equal((await t.request('GET', '/api/media')).body.data.length, count);
    },
  });
  const file = (name: string, data: () => Buffer | string, type: string, field?: string) => ({ raw: () => form(name, data(), type, field) });
  runScenarios(() => t, [
    refused('extension not allowed', file('run.exe', () => 'MZ', 'application/octet-stream'), /\.exe.*not allowed/),
    refused('no extension with a list lacking *', file('README', () => 'hello', 'text/plain'), /without extension/),
    refused('larger than upload.max_file_size', file('big.png', () => Buffer.alloc(101 * 1024, 1), 'image/png'), /"big\.png" is larger than 100 KB/),
    // The request as a whole may carry the file and 64 KB of multipart around it.
    refused('far larger than the limit', file('huge.pdf', () => Buffer.alloc(400 * 1024, 1), 'application/pdf'), /the request body is larger than 164 KB/, 413),
    refused('a file in another field', file('a.png', () => png, 'image/png', 'other'), /unexpected file in the form field "other"/),
    refused('no "file" part', { raw: textForm }, /"file" is required/),
    refused('two files', { raw: twoFiles }, /at most 1 file/),
    refused('not multipart', { body: { file: 'x' } }, /multipart/),
    refused('hidden file name', file('.htaccess.png', () => png, 'image/png'), /starting with a dot/),
    refused('an image that is not one', file('broken.png', () => 'not an image at all', 'image/png'), /image could not be read/),
    // Both stay under sharp's own default limit (268 megapixels): ours must refuse them.
    refused('a header declaring 15000×15000 pixels', file('declared.png', () => pngOf(15000, 15000, 1), 'image/png'), /15000×15000 pixels: images over 50 megapixels/),
    refused('a 60 KB PNG that decodes to 8000×8000 pixels', file('bomb.png', () => pngOf(8000, 8000), 'image/png'), /8000×8000 pixels: images over 50 megapixels/),
  ]);

  it('a too-big upload leaves nothing in the uploads folder, not even its incoming folder', async () => {
    const before = readdirSync(uploads()).sort();
    const res = await upload('toobig.pdf', Buffer.alloc(150 * 1024, 7), 'application/pdf');
    assert.equal(res.status, 400);
    const after = readdirSync(uploads());
    assert.deepEqual(after.filter((n) => n.startsWith('.incoming-')), []);
    assert.ok(!after.some((n) => n.startsWith('toobig')));
    assert.deepEqual(after.sort(), before);
  });

  it('keeps only the last part of a file name with a path (as listmonk), inside the uploads folder', async () => {
    for (const name of ['../../etc/evil.pdf', '..\\..\\evil.pdf']) {
      const res = await upload(name, pdf, 'application/pdf');
      assert.equal(res.status, 200, res.text);
      assert.match(res.body.data.filename, /^evil(_[a-z0-9]{6})?\.pdf$/);
      assert.ok(existsSync(join(uploads(), res.body.data.filename)));
    }
    assert.ok(!existsSync(join(t.dir, 'etc')));
  });

  describe('needs media:manage to upload and media:get to read', () => {
    let reader = '';
    let nobody = '';
    before(() => {
      const f = fixtures(t.server.ctx.db);
      reader = f.apiUser('media-reader', { permissions: ['media:get'] });
      nobody = f.apiUser('nobody', { permissions: [] });
    });
    runScenarios(() => t, [
      { name: 'a reader cannot upload', method: 'POST', path: '/api/media', raw: () => form('x.png', png, 'image/png'), auth: () => reader, status: 403, contains: [/media:manage/] },
      { name: 'a reader lists', method: 'GET', path: '/api/media', auth: () => reader, status: 200 },
      { name: 'without media:get no list', method: 'GET', path: '/api/media', auth: () => nobody, status: 403 },
      { name: 'without credentials no list', method: 'GET', path: '/api/media', auth: null, status: 403 },
    ]);
  });
});

describe('media listing, fetching and serving', () => {
  it('lists every file newest first as a plain array, filtered by query', async () => {
    const all = await t.request('GET', '/api/media');
    assert.equal(all.status, 200);
    assert.ok(Array.isArray(all.body.data));
    const names = all.body.data.map((m: any) => m.filename);
    assert.ok(names.includes('Spring-banner.png') && names.includes('logo.svg'));
    assert.equal(names[names.length - 1], 'Spring-banner.png');
    const q = await t.request('GET', '/api/media?query=PHOTO');
    assert.ok(q.body.data.length >= 2);
    assert.ok(q.body.data.every((m: any) => m.filename.toLowerCase().includes('photo')));
    assert.deepEqual((await t.request('GET', '/api/media?query=nomatch')).body.data, []);
  });

  it('gets one by id', async () => {
    const first = (await t.request('GET', '/api/media?query=Spring')).body.data[0];
    const res = await t.request('GET', `/api/media/${first.id}`);
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, first);
  });
  runScenarios(() => t, [
    { name: 'an unknown id is 404', method: 'GET', path: '/api/media/99999', status: 404 },
    { name: 'a bad id is 400', method: 'GET', path: '/api/media/abc', status: 400 },
  ]);

  it('serves files publicly with safe headers', async () => {
    const img = await fetch(`${t.url}/uploads/Spring-banner.png`);
    assert.equal(img.status, 200);
    assert.equal(img.headers.get('content-type'), 'image/png');
    assert.equal(img.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(img.headers.get('content-security-policy'), null);
    assert.deepEqual(Buffer.from(await img.arrayBuffer()), png);

    const thumb = await fetch(`${t.url}/uploads/thumb_Spring-banner.png`);
    assert.equal(thumb.status, 200);
    await thumb.arrayBuffer();

    const s = await fetch(`${t.url}/uploads/logo.svg`);
    assert.equal(s.status, 200);
    assert.equal(s.headers.get('content-type'), 'image/svg+xml');
    assert.equal(s.headers.get('content-security-policy'), 'sandbox');
    assert.match(s.headers.get('content-disposition') ?? '', /^attachment/);
    assert.equal(await s.text(), svg);

    const p = await fetch(`${t.url}/uploads/report-2025.pdf`);
    assert.equal(p.headers.get('content-type'), 'application/pdf');
    assert.equal(await p.text(), pdf);
  });

  // The database sits next to the uploads folder: "../listmgr.db" from there.
  const escapes = [
    '/uploads/../listmgr.db',
    '/uploads/..%2Flistmgr.db',
    '/uploads/..%2flistmgr.db',
    '/uploads/%2e%2e%2flistmgr.db',
    '/uploads/%2E%2E%2Flistmgr.db',
    '/uploads/%2e%2e/listmgr.db',
    '/uploads/.%2e/listmgr.db',
    '/uploads/..%5clistmgr.db',
    '/uploads/..\\listmgr.db',
    '/uploads/%252e%252e%252flistmgr.db',
    '/uploads/..%252flistmgr.db',
    '/uploads/%25252e%25252e%25252flistmgr.db',
    '/uploads/%c0%ae%c0%ae%c0%aflistmgr.db',
    '/uploads/%2flistmgr.db',
    '/uploads/%2Fetc%2Fpasswd',
    '/uploads/x/../../listmgr.db',
    '/uploads/listmgr.db%00.png',
    '/uploads/%00',
    '/uploads/%',
    '/uploads/..',
    '/uploads/.',
    '/uploads/',
    '/uploads/.hidden',
    '/uploads/missing.png',
    '/uploads/link-out.db',
    '/uploads/link-dir',
  ];
  it('serves nothing outside the uploads folder, however the path is encoded', async () => {
    symlinkSync(join(t.dir, 'listmgr.db'), join(uploads(), 'link-out.db'));
    symlinkSync(t.dir, join(uploads(), 'link-dir'));
    for (const path of escapes) {
      const res = await rawGet(path);
      // "/uploads/.." is the URL "/" once the dot segments are resolved: the landing page, not a file.
      const landing = path === '/uploads/..' && res.status === 200 && res.body.toString().startsWith('<!doctype html>');
      assert.ok(res.status === 404 || res.status === 400 || landing, `${path}: ${res.status}`);
      assert.ok(!res.body.includes('SQLite format 3'), `${path} leaked the database`);
    }
    // The same route still serves the files that are there.
    assert.equal((await rawGet('/uploads/report-2025.pdf')).status, 200);
    assert.equal((await rawGet('/uploads/report%2D2025.pdf')).status, 200, 'percent-encoded ordinary characters are decoded once');
  });

  it('deletes the row, the file and its thumbnail; a second delete is 404', async () => {
    const m = (await t.request('GET', '/api/media?query=Spring')).body.data[0];
    const res = await t.request('DELETE', `/api/media/${m.id}`);
    assert.equal(res.status, 200);
    assert.equal(res.body.data, true);
    assert.ok(!existsSync(join(uploads(), 'Spring-banner.png')));
    assert.ok(!existsSync(join(uploads(), 'thumb_Spring-banner.png')));
    assert.equal((await t.request('GET', `/api/media/${m.id}`)).status, 404);
    assert.equal((await t.request('DELETE', `/api/media/${m.id}`)).status, 404);
    assert.equal((await fetch(`${t.url}/uploads/Spring-banner.png`)).status, 404);
  });

  it('deleting an SVG removes the one file it has', async () => {
    const m = (await t.request('GET', '/api/media?query=logo')).body.data[0];
    assert.equal((await t.request('DELETE', `/api/media/${m.id}`)).status, 200);
    assert.ok(!existsSync(join(uploads(), 'logo.svg')));
  });
});
