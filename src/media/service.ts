// Media: uploaded files in the uploads folder with a row each, who may see (media:get) or add and
// remove them (media:manage), and the public URLs they are served at (under
// upload.filesystem.upload_uri, read per request so a settings change applies).
import { randomUUID } from 'node:crypto';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { AppContext } from '../context.ts';
import { invalid, denied, notFound } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';
import { authorize, can, type Actor, type Authorized, type Permission } from '../core/authz.ts';
import {
  THUMBNAIL_EXTENSIONS, THUMB_PREFIX, checkExtension, extensionOf, makeThumbnail, moveToUniqueName, removeFile, resolveServable,
  safeFileName,
} from './files.ts';
import type { MediaRow, MediaStore } from './store.ts';

const PROVIDER = 'filesystem';
const CONTENT_TYPE_RE = /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/i;

/** A media file as the API answers it. */
export interface Media {
  id: number;
  uuid: string;
  filename: string;
  content_type: string;
  created_at: string;
  thumb_url: string | null;
  provider: string;
  meta: unknown;
  url: string;
}

/**
 * An upload as it arrives: a multipart/form-data body holding the file in the field "file". The
 * edge reads the body; the service says where the file goes and how large it may be.
 */
export interface MediaUpload {
  contentType: string;
  /** Streams the "file" field into `dir`, refusing a larger file; undefined when the body holds none. */
  receiveFile(dir: string, maxFileBytes: number): Promise<{ name: string; type: string; path: string } | undefined>;
}

export class MediaService {
  constructor(private readonly ctx: AppContext, private readonly store: MediaStore) {}

  /** The uploaded files, newest first; `query` matches part of a file name (any case). */
  list(actor: Actor, query: string): Media[] {
    this.require(actor, 'media:get');
    return this.store.list(this.ctx.settings.str('upload.provider'), query).map((r) => this.toMedia(r));
  }

  get(actor: Actor, id: number): Media {
    this.require(actor, 'media:get');
    return this.toMedia(this.row(id));
  }

  /**
   * Stores the uploaded file under a safe, unused name (with a thumbnail for raster images and
   * SVGs); a refused file leaves nothing behind, not even its part-received copy.
   */
  async upload(actor: Actor, upload: MediaUpload): Promise<Media> {
    this.require(actor, 'media:manage');
    const { settings } = this.ctx;
    if (settings.str('upload.provider') !== PROVIDER) throw invalid('listmgr stores media on the file system only: set upload.provider to "filesystem"');
    if (!/^multipart\/form-data\b/i.test(upload.contentType)) throw invalid('send the file as multipart/form-data in a field named "file"');
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    // Hidden (names starting with a dot are never served) and on the same disk as the uploads,
    // so placing the finished file is a link, not a copy.
    const incoming = await mkdtemp(join(this.dir, '.incoming-'));
    try {
      const file = await upload.receiveFile(incoming, this.largestFile());
      if (!file) throw invalid('"file" is required: a multipart form field holding the file');
      const name = safeFileName(file.name);
      checkExtension(name, settings.get<string[]>('upload.extensions'));
      const stored = await moveToUniqueName(this.dir, name, file.path, (n) => this.store.nameTaken(n));
      const ext = extensionOf(stored);
      let thumb: string | null = null;
      let meta = {};
      try {
        if (THUMBNAIL_EXTENSIONS.includes(ext)) {
          meta = await makeThumbnail(this.dir, stored);
          thumb = THUMB_PREFIX + stored;
        } else if (ext === 'svg') thumb = stored;
        const contentType = CONTENT_TYPE_RE.test(file.type) ? file.type.toLowerCase() : 'application/octet-stream';
        const row = this.store.insert({ uuid: randomUUID(), provider: PROVIDER, filename: stored, contentType, thumb, meta });
        this.ctx.log.info(`media ${stored} uploaded by ${actor.username}`);
        return this.toMedia(row);
      } catch (e) {
        await removeFile(this.dir, stored);
        if (thumb && thumb !== stored) await removeFile(this.dir, thumb);
        throw e;
      }
    } finally {
      await rm(incoming, { recursive: true, force: true });
    }
  }

  /** The largest file an upload may carry (upload.max_file_size, in KB). */
  private largestFile(): number {
    return this.ctx.settings.num('upload.max_file_size') * 1024;
  }

  /** The largest upload request: the file and what a multipart body carries around it. */
  largestUploadBody(): number {
    return this.largestFile() + LIMITS.multipartOverheadBytes;
  }

  /** Deletes the row, then the file and its thumbnail. */
  async delete(actor: Actor, id: number): Promise<void> {
    const checked = this.authorize(actor, id);
    const row = this.row(checked);
    this.store.delete(checked);
    await removeFile(this.dir, row.filename);
    if (row.thumb && row.thumb !== row.filename) await removeFile(this.dir, row.thumb);
    this.ctx.log.info(`media ${row.filename} deleted by ${actor.username}`);
  }

  /** The path uploaded files are served under (upload.filesystem.upload_uri), without a trailing slash. */
  uploadUri(): string {
    return '/' + this.ctx.settings.str('upload.filesystem.upload_uri').replace(/^\/+|\/+$/g, '');
  }

  /** The uploaded file a public request names by its raw (still percent-encoded) name, or null. */
  servable(rawName: string): Promise<{ path: string; size: number } | null> {
    return resolveServable(this.dir, rawName);
  }

  private get dir(): string {
    return this.ctx.config.uploadsPath;
  }

  private row(id: number): MediaRow {
    const row = this.store.get(id);
    if (!row) throw notFound('media not found');
    return row;
  }

  private fileUrl(name: string): string {
    return `${this.ctx.settings.rootUrl()}${this.uploadUri()}/${name}`;
  }

  private toMedia(r: MediaRow): Media {
    return {
      id: r.id,
      uuid: r.uuid,
      filename: r.filename,
      content_type: r.content_type,
      created_at: r.created_at,
      thumb_url: r.thumb ? this.fileUrl(r.thumb) : null,
      provider: r.provider,
      meta: JSON.parse(r.meta),
      url: this.fileUrl(r.filename),
    };
  }

  private require(actor: Actor, permission: Permission): void {
    if (!can(actor, permission)) throw denied(`permission denied: ${permission}`);
  }

  private authorize(actor: Actor, id: number): Authorized<number> {
    return authorize(id, () => can(actor, 'media:manage'), () => denied('permission denied: media:manage'));
  }
}
