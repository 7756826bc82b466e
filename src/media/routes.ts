// /api/media (list, upload, get, delete) and the public file route under
// upload.filesystem.upload_uri (default /uploads), read per request so a settings change applies.
import type { Hono } from 'hono';
import { randomUUID } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { Readable } from 'node:stream';
import type { Services } from '../services.ts';
import { ok } from '../http/envelope.ts';
import { badRequest, notFound } from '../http/errors.ts';
import { receiveMultipart } from '../http/multipart.ts';
import type { AppEnv } from '../http/types.ts';
import { pathId } from '../http/validate.ts';
import {
  THUMBNAIL_EXTENSIONS, THUMB_PREFIX, checkExtension, extensionOf, makeThumbnail, removeFile, resolveServable,
  moveToUniqueName, safeFileName, servingHeaders,
} from './files.ts';
import { MediaStore, type MediaRow } from './store.ts';

const PROVIDER = 'filesystem';
const CONTENT_TYPE_RE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;

export function registerMediaRoutes(app: Hono<AppEnv>, api: Hono<AppEnv>, ctx: Services): void {
  const { guard, settings } = ctx;
  const store = new MediaStore(ctx.db);
  const dir = ctx.config.uploadsPath;
  const uploadUri = () => '/' + settings.str('upload.filesystem.upload_uri').replace(/^\/+|\/+$/g, '');
  const fileUrl = (name: string) => `${settings.rootUrl()}${uploadUri()}/${name}`;
  const toMedia = (r: MediaRow) => ({
    id: r.id,
    uuid: r.uuid,
    filename: r.filename,
    content_type: r.content_type,
    created_at: r.created_at,
    thumb_url: r.thumb ? fileUrl(r.thumb) : null,
    provider: r.provider,
    meta: JSON.parse(r.meta),
    url: fileUrl(r.filename),
  });

  api.get('/media', guard('media:get'), (c) => {
    const query = (c.req.query('query') ?? '').trim();
    return ok(c, store.list(settings.str('upload.provider'), query).map(toMedia));
  });

  api.get('/media/:id', guard('media:get'), (c) => {
    const row = store.get(pathId(c));
    if (!row) throw notFound('media not found');
    return ok(c, toMedia(row));
  });

  api.post('/media', guard('media:manage'), async (c) => {
    if (settings.str('upload.provider') !== PROVIDER) throw badRequest('listmgr stores media on the file system only: set upload.provider to "filesystem"');
    const bodyType = c.req.header('content-type') ?? '';
    if (!/^multipart\/form-data\b/i.test(bodyType)) throw badRequest('send the file as multipart/form-data in a field named "file"');
    await mkdir(dir, { recursive: true });
    // Hidden (names starting with a dot are never served) and on the same disk as the uploads,
    // so placing the finished file is a link, not a copy.
    const incoming = await mkdtemp(join(dir, '.incoming-'));
    try {
      const form = await receiveMultipart(c.req.raw.body, bodyType, incoming, {
        fileFields: ['file'], maxFiles: 1, maxFileBytes: settings.num('upload.max_file_size') * 1024, maxFields: 8, maxFieldBytes: 4096,
      });
      const file = form.files[0];
      if (!file) throw badRequest('"file" is required: a multipart form field holding the file');
      const name = safeFileName(file.name);
      checkExtension(name, settings.get<string[]>('upload.extensions'));
      const stored = await moveToUniqueName(dir, name, file.path, (n) => store.nameTaken(n));
      const ext = extensionOf(stored);
      let thumb: string | null = null;
      let meta = {};
      try {
        if (THUMBNAIL_EXTENSIONS.includes(ext)) {
          meta = await makeThumbnail(dir, stored);
          thumb = THUMB_PREFIX + stored;
        } else if (ext === 'svg') thumb = stored;
        const contentType = CONTENT_TYPE_RE.test(file.type) ? file.type.toLowerCase() : 'application/octet-stream';
        const row = store.insert({ uuid: randomUUID(), provider: PROVIDER, filename: stored, contentType, thumb, meta });
        ctx.log.info(`media ${stored} uploaded by ${c.get('user').username}`);
        return ok(c, toMedia(row));
      } catch (e) {
        await removeFile(dir, stored);
        if (thumb && thumb !== stored) await removeFile(dir, thumb);
        throw e;
      }
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  });

  api.delete('/media/:id', guard('media:manage'), async (c) => {
    const row = store.get(pathId(c));
    if (!row) throw notFound('media not found');
    store.delete(row.id);
    await removeFile(dir, row.filename);
    if (row.thumb && row.thumb !== row.filename) await removeFile(dir, row.thumb);
    ctx.log.info(`media ${row.filename} deleted by ${c.get('user').username}`);
    return ok(c, true);
  });

  // Public files: GET/HEAD <upload_uri>/<filename>. The raw URL path is used (not Hono's
  // partly decoded one) so that it is decoded exactly once, in resolveServable.
  app.use('*', async (c, next) => {
    const prefix = uploadUri() + '/';
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    const rawPath = new URL(c.req.url).pathname;
    if (!rawPath.startsWith(prefix)) return next();
    const file = await resolveServable(dir, rawPath.slice(prefix.length));
    if (!file) return next();
    const headers = { ...servingHeaders(basename(file.path)), 'Content-Length': String(file.size) };
    if (c.req.method === 'HEAD') return c.body(null, 200, headers);
    return c.body(Readable.toWeb(createReadStream(file.path)) as ReadableStream, 200, headers);
  });
}
