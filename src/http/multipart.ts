// Reading a multipart/form-data request without holding it in memory (busboy): file parts are
// streamed to files in a folder the caller owns (and removes), text fields are collected.
// Request.formData() would buffer the whole body, which an import of gigabytes cannot afford.
import { createWriteStream, rmSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import busboy from 'busboy';
import { diskFull, isDiskFull } from './disk-full.ts';
import { DomainError, invalid } from '../core/errors.ts';
import { byteSize } from '../core/limits.ts';

export interface ReceivedFile {
  /** The form field the file came in. */
  field: string;
  /** The client's file name (base name only; may be ''). */
  name: string;
  /** The part's Content-Type as the client sent it. */
  type: string;
  /** Where the content was written. */
  path: string;
  size: number;
}

export interface MultipartForm {
  /** Text fields by name, in the order sent (a field may repeat). */
  fields: Record<string, string[]>;
  files: ReceivedFile[];
}

export interface MultipartLimits {
  /** Fields that may hold files; a file in any other field is refused. */
  fileFields: string[];
  maxFiles: number;
  /** Per file. */
  maxFileBytes: number;
  maxFields: number;
  /** Per text field. */
  maxFieldBytes: number;
}

const baseName = (name: string) => name.split(/[\\/]/).pop() ?? '';

/**
 * Reads the whole body into `dir` (files) and memory (fields). Throws an `invalid` DomainError when the
 * body is not multipart, malformed, or over a limit, and a 507 when a file cannot be written
 * for lack of space (the partial file is removed; any other write error is thrown as is); the
 * caller removes `dir` either way.
 */
export async function receiveMultipart(body: ReadableStream<Uint8Array> | null, contentType: string, dir: string, limits: MultipartLimits): Promise<MultipartForm> {
  if (!/^multipart\/form-data\b/i.test(contentType)) throw invalid('expected a multipart/form-data body');
  if (!body) throw invalid('the request has no body');
  let parser: busboy.Busboy;
  try {
    parser = busboy({
      headers: { 'content-type': contentType },
      limits: { files: limits.maxFiles, fileSize: limits.maxFileBytes, fields: limits.maxFields, fieldSize: limits.maxFieldBytes },
    });
  } catch (e) {
    throw invalid(`invalid multipart body: ${(e as Error).message}`);
  }

  const form: MultipartForm = { fields: {}, files: [] };
  // Each resolves when its file is written or has failed (never rejects: a rejection would be
  // unhandled until the whole body is read, which ends the process).
  const writes: Promise<void>[] = [];
  let unwritable: Error | null = null;
  // The first problem wins; the rest of the body is still read (and discarded) so the client
  // gets the answer instead of a reset connection.
  let problem: DomainError | null = null;
  const refuse = (message: string) => {
    problem ??= invalid(message);
  };

  parser.on('field', (name, value, info) => {
    if (info.valueTruncated) refuse(`the form field "${name}" is larger than ${byteSize(limits.maxFieldBytes)}`);
    else (form.fields[name] ??= []).push(value);
  });
  parser.on('file', (field, stream, info) => {
    if (problem || !limits.fileFields.includes(field)) {
      refuse(`unexpected file in the form field "${field}"`);
      stream.resume();
      return;
    }
    const file: ReceivedFile = { field, name: baseName(info.filename ?? ''), type: info.mimeType, path: join(dir, `part-${form.files.length + 1}`), size: 0 };
    form.files.push(file);
    stream.on('data', (chunk: Buffer) => (file.size += chunk.length));
    stream.on('limit', () => refuse(`the file "${file.name}" is larger than ${byteSize(limits.maxFileBytes)}`));
    writes.push(new Promise<void>((resolve) => {
      const out = createWriteStream(file.path);
      out.on('close', resolve);
      out.on('error', (e) => {
        // The rest of the part is read and dropped (a destroyed part would stall busboy).
        stream.unpipe(out);
        stream.resume();
        unwritable ??= isDiskFull(e) ? diskFull(`the uploaded file "${file.name}"`) : new Error(`writing an uploaded file failed: ${e.message}`);
        rmSync(file.path, { force: true });
        resolve();
      });
      // A part cut short (the request failed) ends its file too.
      stream.on('error', () => out.destroy());
      stream.pipe(out);
    }));
  });
  parser.on('filesLimit', () => refuse(`send at most ${limits.maxFiles} file(s)`));
  parser.on('fieldsLimit', () => refuse(`send at most ${limits.maxFields} form field(s)`));

  const source = Readable.fromWeb(body as import('node:stream/web').ReadableStream<Uint8Array>);
  let unreadable: DomainError | null = null;
  try {
    await new Promise<void>((resolve, reject) => {
      parser.on('close', resolve);
      parser.on('error', (e: Error) => reject(invalid(`invalid multipart body: ${e.message}`)));
      // Over the route's body limit (body.ts) is the limit's own 413.
      source.on('error', (e) => reject(e instanceof DomainError ? e : invalid(`reading the request body failed: ${e.message}`)));
      source.pipe(parser);
    });
  } catch (e) {
    unreadable = e as DomainError;
    source.unpipe(parser);
    parser.destroy();
  }
  await Promise.all(writes);
  if (unreadable) throw unreadable;
  if (unwritable) throw unwritable;
  if (problem) throw problem;
  return form;
}
