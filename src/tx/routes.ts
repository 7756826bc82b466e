// POST /api/tx: JSON, or multipart with a `data` JSON part and `file` parts (attachments).
import type { Hono } from 'hono';
import { readFile, rm } from 'node:fs/promises';
import type { Services } from '../services.ts';
import { readJson, type Body } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { badRequest, HttpError } from '../http/errors.ts';
import { receiveMultipart, type MultipartForm } from '../http/multipart.ts';
import { uploadTempDir } from '../http/upload-dirs.ts';
import type { AppEnv } from '../http/types.ts';
import type { Attachment } from '../mail/types.ts';

/** Largest JSON tx request. */
const MAX_TX_BYTES = 25 * 1024 * 1024;
/**
 * Attachment limits of a multipart request. Attachments are held in memory while the mail is
 * built, so they are bounded in number, per file and in total (25 MB is also about the largest
 * message common mail servers accept).
 */
const MAX_ATTACHMENTS = 10;
const MAX_ATTACHMENT_BYTES = 25 * 1024 * 1024;
const MAX_ATTACHMENTS_TOTAL_BYTES = 25 * 1024 * 1024;

export function registerTxRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const { tx } = ctx;

  api.post('/tx', ctx.guard('tx:send'), async (c) => {
    const type = c.req.header('content-type') ?? '';
    if (!/^multipart\/form-data\b/i.test(type)) {
      if (Number(c.req.header('content-length') ?? 0) > MAX_TX_BYTES) throw new HttpError(413, `request body too large (limit ${MAX_TX_BYTES / 1024 / 1024} MB)`);
      await tx.send(await readJson(c), []);
      return ok(c, true);
    }
    const dir = uploadTempDir(ctx.config.dbPath, 'tx');
    try {
      const form = await receiveMultipart(c.req.raw.body, type, dir, {
        fileFields: ['file'], maxFiles: MAX_ATTACHMENTS, maxFileBytes: MAX_ATTACHMENT_BYTES, maxFields: 8, maxFieldBytes: 1024 * 1024,
      });
      await tx.send(messageData(form), await readAttachments(form));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
    return ok(c, true);
  });
}

/** The `data` field: the JSON message. */
function messageData(form: MultipartForm): Body {
  const data = form.fields.data ?? [];
  if (data.length !== 1) throw badRequest('a multipart request needs exactly one "data" field holding the JSON message');
  let body: Body;
  try {
    body = JSON.parse(data[0]!);
  } catch (e) {
    throw badRequest(`invalid "data": ${(e as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid "data": expected a JSON object');
  return body;
}

async function readAttachments(form: MultipartForm): Promise<Attachment[]> {
  const total = form.files.reduce((sum, f) => sum + f.size, 0);
  if (total > MAX_ATTACHMENTS_TOTAL_BYTES) throw badRequest(`the attachments are larger than ${MAX_ATTACHMENTS_TOTAL_BYTES / 1024 / 1024} MB in total`);
  return Promise.all(form.files.map(async (f) => ({ filename: f.name || 'attachment', content: await readFile(f.path), contentType: f.type || 'application/octet-stream' })));
}
