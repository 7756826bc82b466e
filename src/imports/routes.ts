// /api/import/subscribers: upload and start an import, its status and log, and stop.
import { rmSync } from 'node:fs';
import type { Hono } from 'hono';
import type { Services } from '../services.ts';
import type { Body } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { badRequest, forbidden } from '../http/errors.ts';
import { receiveMultipart } from '../http/multipart.ts';
import { uploadTempDir } from '../http/upload-dirs.ts';
import { filterLists, type AuthUser } from '../http/permissions.ts';
import type { AppEnv } from '../http/types.ts';
import { optBool, optEnum, optIntArray, optString, reqEnum } from '../http/validate.ts';
import { inspectUpload } from './source.ts';
import type { Importer } from './importer.ts';
import type { WriteOptions } from './store.ts';

/** Largest accepted upload (ZIP or CSV). */
const MAX_UPLOAD_BYTES = 2 * 1024 ** 3;

export function registerImportRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const { importer } = ctx;
  const guard = ctx.guard('subscribers:import');

  api.get('/import/subscribers', guard, (c) => ok(c, importer.status()));
  api.get('/import/subscribers/logs', guard, (c) => ok(c, importer.logs()));
  api.delete('/import/subscribers', guard, (c) => ok(c, importer.stop()));

  api.post('/import/subscribers', guard, async (c) => {
    importer.reserve();
    const dir = uploadTempDir(ctx.config.dbPath, 'import', () => importer.release());
    try {
      const contentType = c.req.header('content-type') ?? '';
      if (!/^multipart\/form-data\b/i.test(contentType)) throw badRequest('send the file as multipart/form-data (fields "params" and "file")');
      const form = await receiveMultipart(c.req.raw.body, contentType, dir, {
        fileFields: ['file'], maxFiles: 1, maxFileBytes: MAX_UPLOAD_BYTES, maxFields: 8, maxFieldBytes: 64 * 1024,
      });
      const { delim, write } = importParams(form.fields.params?.at(-1), c.get('user'), importer);
      const file = form.files[0];
      if (!file) throw badRequest('the "file" field (a ZIP of CSV files, or a CSV file) is required');
      const name = file.name || 'upload';
      const source = await inspectUpload(file.path, name);
      return ok(c, importer.start({ name, source, dir, delim, write }));
    } catch (e) {
      rmSync(dir, { recursive: true, force: true });
      importer.release();
      throw e;
    }
  });
}

/** The `params` field, checked in listmonk's order. */
function importParams(raw: string | undefined, user: AuthUser, importer: Importer): { delim: string; write: WriteOptions } {
  if (raw === undefined) throw badRequest('the "params" field is required (a JSON object with mode, delim, lists, ...)');
  let b: Body;
  try {
    b = JSON.parse(raw) as Body;
  } catch (e) {
    throw badRequest(`invalid "params": not JSON (${(e as Error).message})`);
  }
  if (!b || typeof b !== 'object' || Array.isArray(b)) throw badRequest('invalid "params": expected a JSON object');

  const mode = reqEnum(b, 'mode', ['subscribe', 'blocklist'] as const);
  let lists: number[] = [];
  if (mode === 'subscribe') {
    const asked = optIntArray(b, 'lists') ?? [];
    lists = filterLists(user, 'manage', [...new Set(asked)]);
    if (!lists.length) throw forbidden(asked.length ? 'you may not manage any of the given lists (list:manage)' : '"lists" is required in subscribe mode');
    const existing = importer.existingLists(lists);
    const missing = lists.filter((id) => !existing.includes(id));
    if (missing.length) throw badRequest(`unknown list ID(s): ${missing.join(', ')}`);
  }
  const subscriptionStatus = optEnum(b, 'subscription_status', ['unconfirmed', 'confirmed', 'unsubscribed'] as const) ??
    (mode === 'subscribe' ? 'unconfirmed' : 'unsubscribed');
  const delim = optString(b, 'delim', { trim: false }) ?? ',';
  if (Buffer.byteLength(delim) !== 1) throw badRequest('invalid "delim": must be exactly one character, e.g. "," or ";"');
  const overwrite = optBool(b, 'overwrite') ?? false;
  return {
    delim,
    write: {
      mode,
      lists,
      subscriptionStatus,
      overwriteUserinfo: overwrite || (optBool(b, 'overwrite_userinfo') ?? false),
      overwriteSubscriptionStatus: overwrite || (optBool(b, 'overwrite_subscription_status') ?? false),
    },
  };
}
