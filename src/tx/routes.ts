// POST /api/tx: JSON, or multipart with a `data` JSON part and `file` parts (attachments).
import type { Context } from 'hono';
import { readFile, rm } from 'node:fs/promises';
import { readJson } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { invalid } from '../core/errors.ts';
import { parseJson } from '../http/json.ts';
import { LIMITS } from '../core/limits.ts';
import { receiveMultipart, type MultipartForm } from '../http/multipart.ts';
import { routesFor } from '../http/routes.ts';
import { f, parseInput, z } from '../http/schema.ts';
import { uploadTempDir } from '../http/upload-dirs.ts';
import type { Config } from '../config.ts';
import type { AppEnv } from '../http/types.ts';
import type { Attachment } from '../mail/types.ts';
import { TX_MODES, type TxService } from './service.ts';

interface Deps {
  tx: TxService;
  config: Config;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const TX_ROUTES = [
  route({
    method: 'POST', path: '/tx', access: 'tx:send', handler: sendTx, bodyBytes: LIMITS.txBodyBytes,
    // Read by the handler: JSON, or multipart/form-data with this JSON in a "data" part and attachments in "file" parts.
    describedBody: { contentType: 'application/json', schema: txInput },
    summary: 'Sends a transactional message from a tx template to subscribers or addresses (multipart: with attachments)',
  }),
];

function txInput() {
  return z.object({
    subscriber_mode: f.optEnum(TX_MODES),
    subscriber_emails: f.optStringArray(),
    subscriber_ids: f.optIntArray(),
    subscriber_email: f.optString(),
    subscriber_id: f.optInt({ min: 1 }),
    template_id: f.optInt(),
    messenger: f.optString(),
    content_type: f.optString(),
    from_email: f.optString(),
    data: f.optObject(),
    headers: f.optHeaderList(),
    subject: f.optString({ trim: false }),
    altbody: f.optString({ trim: false }),
  }).meta({ id: 'TxInput' });
}

async function sendTx(c: C, s: Deps) {
  const { message, attachments } = await readTxRequest(c, s.config.dbPath);
  await s.tx.send(c.get('user'), parseInput(txInput(), message), attachments);
  return ok(c, true);
}

/** The message (a JSON body, or the multipart `data` part) and the multipart `file` parts, read into memory. */
async function readTxRequest(c: C, dbPath: string): Promise<{ message: unknown; attachments: Attachment[] }> {
  const type = c.req.header('content-type') ?? '';
  if (!/^multipart\/form-data\b/i.test(type)) return { message: await readJson(c), attachments: [] };
  const dir = uploadTempDir(dbPath, 'tx');
  try {
    const form = await receiveMultipart(c.req.raw.body, type, dir, {
      fileFields: ['file'], maxFiles: LIMITS.txAttachments, maxFileBytes: LIMITS.txAttachmentBytes, maxFields: 8, maxFieldBytes: LIMITS.txMessageBytes,
    });
    return { message: messageData(form), attachments: await readAttachments(form) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** The `data` field: the JSON message. */
function messageData(form: MultipartForm): unknown {
  const data = form.fields.data ?? [];
  if (data.length !== 1) throw invalid('a multipart request needs exactly one "data" field holding the JSON message');
  let body: unknown;
  try {
    body = parseJson(data[0]!);
  } catch (e) {
    throw invalid(`invalid "data": ${(e as Error).message}`);
  }
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalid('invalid "data": expected a JSON object');
  return body;
}

async function readAttachments(form: MultipartForm): Promise<Attachment[]> {
  const total = form.files.reduce((sum, file) => sum + file.size, 0);
  if (total > LIMITS.txAttachmentsTotalBytes) throw invalid(`the attachments are larger than ${LIMITS.txAttachmentsTotalBytes / 1024 / 1024} MB in total`);
  return Promise.all(form.files.map(async (file) => ({ filename: file.name || 'attachment', content: await readFile(file.path), contentType: file.type || 'application/octet-stream' })));
}
