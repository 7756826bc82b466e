// Uploaded files on disk: safe names, unique names, thumbnails, and the headers they are
// served with.
import { randomInt } from 'node:crypto';
import { existsSync } from 'node:fs';
import { link, realpath, stat, unlink } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { invalid } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';

export const THUMB_PREFIX = 'thumb_';
export const THUMB_WIDTH = 250;
/** Raster types that get a PNG thumbnail and {width, height} meta (as listmonk). */
export const THUMBNAIL_EXTENSIONS = ['gif', 'png', 'jpg', 'jpeg'];

/** The last ".xxx" of a name, lower-cased, or "". */
export function extensionOf(name: string): string {
  const i = name.lastIndexOf('.');
  return i > 0 ? name.slice(i + 1).toLowerCase() : '';
}

/**
 * The stored name for an uploaded file name: whitespace runs become "-" (as listmonk), and
 * anything but letters, digits, ".", "_" and "-" becomes "-" so names are safe in URLs.
 * Names with a path, hidden names and empty names are refused.
 */
export function safeFileName(original: string): string {
  if (/[/\\]/.test(original) || original.includes('\0')) throw invalid(`invalid file name "${original.slice(0, 100)}": it must not contain a path`);
  const name = original.normalize('NFC').trim().replace(/\s+/g, '-').replace(/[^\p{L}\p{N}._-]/gu, '-').replace(/-{2,}/g, '-');
  if (name === '' || name.startsWith('.')) throw invalid(`invalid file name "${original.slice(0, 100)}": empty or starting with a dot`);
  if (Buffer.byteLength(name) > LIMITS.mediaName) throw invalid(`invalid file name: longer than ${LIMITS.mediaName} bytes`);
  return name;
}

/** A name we could have stored: no separators, no traversal, no hidden files (see safeFileName). */
const SERVABLE_NAME_RE = /^[\p{L}\p{N}_-][\p{L}\p{N}._-]*$/u;

/**
 * The file in `dir` that a request path segment names, or null. The segment (raw, as in the
 * URL) is percent-decoded exactly once, so "%252e" stays "%2e" and is refused; the name must be
 * one we could have stored; and the real path must be a regular file directly in `dir`, so a
 * symbolic link placed there cannot lead out either.
 */
export async function resolveServable(dir: string, rawSegment: string): Promise<{ path: string; size: number } | null> {
  let name: string;
  try {
    name = decodeURIComponent(rawSegment);
  } catch {
    return null;
  }
  if (!SERVABLE_NAME_RE.test(name)) return null;
  try {
    const [realDir, realFile] = await Promise.all([realpath(dir), realpath(join(dir, name))]);
    if (dirname(realFile) !== realDir) return null;
    const info = await stat(realFile);
    return info.isFile() ? { path: realFile, size: info.size } : null;
  } catch {
    return null; // missing, or a dangling link
  }
}

/** Refuses extensions not in upload.extensions (unless it holds "*"). */
export function checkExtension(name: string, allowed: string[]): void {
  if (allowed.includes('*')) return;
  const ext = extensionOf(name);
  if (!allowed.includes(ext)) {
    throw invalid(`files of type "${ext ? `.${ext}` : 'without extension'}" are not allowed (allowed: ${allowed.map((e) => `.${e}`).join(', ') || 'none'})`);
  }
}

const randomSuffix = () => Array.from({ length: 6 }, () => 'abcdefghijklmnopqrstuvwxyz0123456789'[randomInt(36)]).join('');

/**
 * Moves a received file (`source`, on the same disk as `dir`) to a name nobody uses yet (in the
 * table, on disk, or as a thumbnail): the safe name itself, else with a "_xxxxxx" suffix before
 * the extension. A hard link fails when the name exists, so two uploads of the same name cannot
 * overwrite each other.
 */
export async function moveToUniqueName(dir: string, name: string, source: string, taken: (n: string) => boolean): Promise<string> {
  const ext = extensionOf(name);
  const stem = ext ? name.slice(0, -(ext.length + 1)) : name;
  for (let attempt = 0; attempt < 20; attempt++) {
    const candidate = attempt === 0 ? name : `${stem}_${randomSuffix()}${ext ? `.${ext}` : ''}`;
    if (taken(candidate) || existsSync(join(dir, THUMB_PREFIX + candidate))) continue;
    try {
      await link(source, join(dir, candidate));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw e;
    }
    await unlink(source);
    return candidate;
  }
  throw new Error(`no free file name found for ${name}`);
}

/**
 * Largest image decoded for a thumbnail. A 48-megapixel phone photo passes; decoding stays
 * bounded (about 200 MB at 4 bytes a pixel) whatever size a file's header declares.
 */
export const MAX_IMAGE_PIXELS = 50_000_000;

/**
 * A 250-px-wide PNG thumbnail `thumb_<name>`; returns the image's size. Throws a 400 when the
 * image cannot be read or is larger than MAX_IMAGE_PIXELS (checked from its header, before
 * anything is decoded).
 */
export async function makeThumbnail(dir: string, name: string): Promise<{ width: number; height: number }> {
  const { default: sharp } = await import('sharp'); // loaded on first use: large, and rarely needed
  const file = join(dir, name);
  let width: number;
  let height: number;
  try {
    // Reading the header decodes no pixels, so no limit yet: the check below names the size.
    ({ width, height } = await sharp(file, { limitInputPixels: false }).metadata());
  } catch (e) {
    throw invalid(`the image could not be read: ${(e as Error).message}`);
  }
  if (width * height > MAX_IMAGE_PIXELS) {
    throw invalid(`the image is ${width}×${height} pixels: images over ${MAX_IMAGE_PIXELS / 1_000_000} megapixels are not accepted`);
  }
  try {
    await sharp(file, { limitInputPixels: MAX_IMAGE_PIXELS }).resize({ width: THUMB_WIDTH }).png().toFile(join(dir, THUMB_PREFIX + name));
  } catch (e) {
    await removeFile(dir, THUMB_PREFIX + name);
    throw invalid(`the image could not be read: ${(e as Error).message}`);
  }
  return { width, height };
}

export async function removeFile(dir: string, name: string): Promise<void> {
  try {
    await unlink(join(dir, name));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
}

const SERVE_TYPES: Record<string, string> = {
  png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp', avif: 'image/avif',
  ico: 'image/x-icon', bmp: 'image/bmp', svg: 'image/svg+xml', pdf: 'application/pdf', txt: 'text/plain; charset=utf-8',
  csv: 'text/csv; charset=utf-8', json: 'application/json', zip: 'application/zip', mp3: 'audio/mpeg', mp4: 'video/mp4',
  webm: 'video/webm', ogg: 'audio/ogg', wav: 'audio/wav', woff: 'font/woff', woff2: 'font/woff2',
  html: 'text/html; charset=utf-8', htm: 'text/html; charset=utf-8', xhtml: 'application/xhtml+xml', xml: 'application/xml',
};
/** Types a browser would run scripts in: never rendered from our origin. */
const ACTIVE_EXTENSIONS = ['svg', 'html', 'htm', 'xhtml', 'xml'];

/** Response headers for a stored file, by its extension (never the client-supplied type). */
export function servingHeaders(name: string): Record<string, string> {
  const ext = extensionOf(name);
  const headers: Record<string, string> = {
    'Content-Type': SERVE_TYPES[ext] ?? 'application/octet-stream',
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'public, max-age=86400',
  };
  if (ACTIVE_EXTENSIONS.includes(ext)) {
    headers['Content-Security-Policy'] = 'sandbox';
    headers['Content-Disposition'] = `attachment; filename="${name.replace(/[^\x20-\x7e]|"/g, '_')}"`;
  }
  return headers;
}
