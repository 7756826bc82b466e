// Receives a multipart/form-data upload without holding it in memory: text fields are
// collected (small), the file part is streamed to a file on disk as it arrives.
// (A well-kept streaming parser such as busboy would replace this; it is not installed, and
// Request.formData() buffers the whole body.)
import { createWriteStream, type WriteStream } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { badRequest } from '../http/errors.ts';

export interface UploadedFile {
  /** The client's file name (base name only). */
  name: string;
  path: string;
  size: number;
}

export interface Upload {
  fields: Record<string, string>;
  file: UploadedFile | null;
}

export interface UploadLimits {
  fileField: string;
  maxFileBytes: number;
  maxFieldBytes: number;
}

const MAX_HEADER_BYTES = 16 * 1024;
const CRLF = Buffer.from('\r\n');
const HEADER_END = Buffer.from('\r\n\r\n');

function boundaryOf(contentType: string): string {
  if (!/^multipart\/form-data\b/i.test(contentType)) throw badRequest('send the file as multipart/form-data (fields "params" and "file")');
  const m = /;\s*boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  if (!m) throw badRequest('invalid multipart body: no boundary in the content type');
  return m[1] ?? m[2];
}

interface PartHeaders {
  name: string;
  filename: string | null;
}

function parsePartHeaders(text: string): PartHeaders {
  const disposition = text.split('\r\n').find((l) => /^content-disposition:/i.test(l));
  if (!disposition) throw badRequest('invalid multipart body: a part has no Content-Disposition');
  const param = (key: string) => {
    const m = new RegExp(`;\\s*${key}="((?:[^"\\\\]|\\\\.)*)"`, 'i').exec(disposition) ?? new RegExp(`;\\s*${key}=([^;\\s]+)`, 'i').exec(disposition);
    return m ? m[1].replace(/\\(.)/g, '$1') : null;
  };
  const name = param('name');
  if (name === null) throw badRequest('invalid multipart body: a part has no name');
  return { name, filename: param('filename') };
}

/** Reads the whole body; the file field goes to `dir`. Throws 400 on malformed or oversized input. */
export async function receiveUpload(body: AsyncIterable<Uint8Array> | null, contentType: string, dir: string, limits: UploadLimits): Promise<Upload> {
  const boundary = boundaryOf(contentType);
  if (!body) throw badRequest('the request has no body');
  const delim = Buffer.from(`\r\n--${boundary}`);
  const fields: Record<string, string> = {};
  let file: UploadedFile | null = null;

  let state: 'preamble' | 'after-delimiter' | 'headers' | 'part' | 'done' = 'preamble';
  let buf: Buffer = Buffer.from(CRLF); // lets the opening delimiter match like the others
  let part: PartHeaders | null = null;
  let field: Buffer[] = [];
  let fieldBytes = 0;
  let out: WriteStream | null = null;

  const emit = async (data: Buffer) => {
    if (!data.length || !part) return;
    if (out && file) {
      file.size += data.length;
      if (file.size > limits.maxFileBytes) throw badRequest(`the file is larger than ${Math.round(limits.maxFileBytes / 1048576)} MB`);
      if (!out.write(data)) await once(out, 'drain');
    } else {
      fieldBytes += data.length;
      if (fieldBytes > limits.maxFieldBytes) throw badRequest(`the form field "${part.name}" is too large`);
      field.push(Buffer.from(data));
    }
  };
  const endPart = async () => {
    if (out) {
      out.end();
      await once(out, 'finish');
      out = null;
    } else if (part) {
      fields[part.name] = Buffer.concat(field).toString('utf8');
    }
    part = null;
  };

  try {
    for await (const chunk of body) {
      buf = buf.length ? Buffer.concat([buf, chunk]) : Buffer.from(chunk);
      for (;;) {
        if (state === 'preamble') {
          const i = buf.indexOf(delim);
          if (i < 0) {
            buf = buf.subarray(Math.max(0, buf.length - delim.length + 1));
            break;
          }
          buf = buf.subarray(i + delim.length);
          state = 'after-delimiter';
        } else if (state === 'after-delimiter') {
          if (buf.length < 2) break;
          if (buf[0] === 0x2d && buf[1] === 0x2d) {
            state = 'done';
            break;
          }
          const eol = buf.indexOf(CRLF);
          if (eol < 0) break;
          buf = buf.subarray(eol + 2); // transport padding before the CRLF is ignored
          state = 'headers';
        } else if (state === 'headers') {
          const i = buf.indexOf(HEADER_END);
          if (i < 0) {
            if (buf.length > MAX_HEADER_BYTES) throw badRequest('invalid multipart body: part headers too large');
            break;
          }
          part = parsePartHeaders(buf.subarray(0, i).toString('utf8'));
          buf = buf.subarray(i + HEADER_END.length);
          field = [];
          fieldBytes = 0;
          if (part.name === limits.fileField && part.filename !== null) {
            if (file) throw badRequest(`send one file in "${limits.fileField}"`);
            const name = part.filename.split(/[\\/]/).pop() || 'upload';
            file = { name, path: join(dir, 'upload'), size: 0 };
            out = createWriteStream(file.path);
          }
          state = 'part';
        } else if (state === 'part') {
          const i = buf.indexOf(delim);
          if (i < 0) {
            const safe = buf.length - delim.length + 1;
            if (safe > 0) {
              await emit(buf.subarray(0, safe));
              buf = buf.subarray(safe);
            }
            break;
          }
          await emit(buf.subarray(0, i));
          await endPart();
          buf = buf.subarray(i + delim.length);
          state = 'after-delimiter';
        } else {
          break;
        }
      }
      if (state === 'done') break;
    }
  } finally {
    const open = out as WriteStream | null;
    if (open) {
      open.destroy();
      await once(open, 'close').catch(() => undefined);
    }
  }
  if (state !== 'done') throw badRequest('invalid multipart body: it ends before the closing boundary');
  return { fields, file };
}
