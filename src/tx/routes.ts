// POST /api/tx: JSON, or multipart with a `data` JSON part and `file` parts (attachments).
import type { Hono } from 'hono';
import type { AppContext } from '../context.ts';
import { deliveryFor } from '../delivery/index.ts';
import { readJson, type Body } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { badRequest, HttpError } from '../http/errors.ts';
import type { AppEnv } from '../http/types.ts';
import type { Attachment } from '../mail/types.ts';
import { TxService } from './service.ts';

/** Largest tx request (attachments included). */
const MAX_TX_BYTES = 25 * 1024 * 1024;

export function registerTxRoutes(api: Hono<AppEnv>, ctx: AppContext): void {
  const tx = new TxService(ctx, deliveryFor(ctx).tracking);

  api.post('/tx', ctx.auth('tx:send'), async (c) => {
    if (Number(c.req.header('content-length') ?? 0) > MAX_TX_BYTES) throw new HttpError(413, `request body too large (limit ${MAX_TX_BYTES / 1024 / 1024} MB)`);
    const type = (c.req.header('content-type') ?? '').toLowerCase();
    if (!type.startsWith('multipart/form-data')) {
      await tx.send(await readJson(c), []);
      return ok(c, true);
    }
    let form: FormData;
    try {
      form = await c.req.formData();
    } catch {
      throw badRequest('invalid multipart body');
    }
    const data = form.getAll('data');
    if (data.length !== 1 || typeof data[0] !== 'string') throw badRequest('a multipart request needs exactly one "data" field holding the JSON message');
    let body: Body;
    try {
      body = JSON.parse(data[0]);
    } catch (e) {
      throw badRequest(`invalid "data": ${(e as Error).message}`);
    }
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw badRequest('invalid "data": expected a JSON object');
    const attachments: Attachment[] = [];
    for (const f of form.getAll('file')) {
      if (typeof f === 'string') throw badRequest('invalid "file": expected a file upload');
      attachments.push({ filename: f.name || 'attachment', content: Buffer.from(await f.arrayBuffer()), contentType: f.type || 'application/octet-stream' });
    }
    await tx.send(body, attachments);
    return ok(c, true);
  });
}
