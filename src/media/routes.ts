// /api/media (list, upload, get, delete) and the public file route under
// upload.filesystem.upload_uri (default /uploads), read per request so a settings change applies.
import type { Context, MiddlewareHandler } from 'hono';
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { Readable } from 'node:stream';
import { ok } from '../http/envelope.ts';
import { receiveMultipart } from '../http/multipart.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { servingHeaders } from './files.ts';
import type { MediaService } from './service.ts';

interface Deps {
  media: MediaService;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const MEDIA_ROUTES = [
  route({ method: 'GET', path: '/media', access: 'media:get', handler: listMedia, query: mediaQuery, summary: 'Every uploaded file, newest first, optionally those whose name contains `query`' }),
  route({ method: 'GET', path: '/media/:id', access: 'media:get', handler: getMedia, summary: 'One uploaded file' }),
  route({
    method: 'POST', path: '/media', access: 'media:manage', handler: uploadMedia, bodyBytes: (s) => s.media.largestUploadBody(), summary: 'Uploads a file (images get a 250 px thumbnail)',
    describedBody: { contentType: 'multipart/form-data', schema: () => z.object({ file: z.file() }).meta({ id: 'MediaUpload' }) },
  }),
  route({ method: 'DELETE', path: '/media/:id', access: 'media:manage', handler: deleteMedia, summary: 'Deletes an uploaded file and its thumbnail' }),
];

/**
 * Public files: GET/HEAD <upload_uri>/<filename>, on the root app. A middleware rather than a
 * route, as the path is a setting: anything else goes on to the next handler. The raw URL path
 * is used (not Hono's partly decoded one) so that it is decoded exactly once, in resolveServable.
 */
export function uploadedFiles(media: MediaService): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return next();
    const prefix = media.uploadUri() + '/';
    const rawPath = new URL(c.req.url).pathname;
    if (!rawPath.startsWith(prefix)) return next();
    const file = await media.servable(rawPath.slice(prefix.length));
    if (!file) return next();
    const headers = { ...servingHeaders(basename(file.path)), 'Content-Length': String(file.size) };
    if (c.req.method === 'HEAD') return c.body(null, 200, headers);
    return c.body(Readable.toWeb(createReadStream(file.path)) as ReadableStream, 200, headers);
  };
}

function mediaQuery() {
  return z.object({ query: q.str() });
}

function listMedia(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof mediaQuery>>) {
  return ok(c, s.media.list(c.get('user'), (p.query ?? '').trim()));
}

function getMedia(c: C, s: Deps) {
  return ok(c, s.media.get(c.get('user'), pathId(c)));
}

/** The multipart body is streamed to disk, into the folder the service gives, not read here. */
async function uploadMedia(c: C, s: Deps) {
  const contentType = c.req.header('content-type') ?? '';
  const receiveFile = async (dir: string, maxFileBytes: number) =>
    (await receiveMultipart(c.req.raw.body, contentType, dir, { fileFields: ['file'], maxFiles: 1, maxFileBytes, maxFields: 8, maxFieldBytes: 4096 })).files[0];
  return ok(c, await s.media.upload(c.get('user'), { contentType, receiveFile }));
}

async function deleteMedia(c: C, s: Deps) {
  await s.media.delete(c.get('user'), pathId(c));
  return ok(c, true);
}
