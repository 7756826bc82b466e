// /api/import/subscribers: upload and start an import, its status and log, and stop. Which lists
// an import may write to is decided by the importer.
import { rmSync } from 'node:fs';
import type { Context } from 'hono';
import { ok } from '../http/envelope.ts';
import { invalid } from '../core/errors.ts';
import { parseJson } from '../http/json.ts';
import { LIMITS } from '../core/limits.ts';
import { receiveMultipart } from '../http/multipart.ts';
import { routesFor } from '../http/routes.ts';
import { f, parseInput, z } from '../http/schema.ts';
import { uploadTempDir } from '../http/upload-dirs.ts';
import type { Config } from '../config.ts';
import type { AppEnv } from '../http/types.ts';
import { SUBSCRIPTION_STATUSES } from '../subscribers/store.ts';
import type { Importer, ImportParams } from './importer.ts';
import { ROW_STATUSES, SIMPLE_TARGETS, type RowStatus } from './columns.ts';
import { inspectUpload } from './source.ts';

interface Deps {
  importer: Importer;
  config: Config;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const IMPORT_ROUTES = [
  route({ method: 'GET', path: '/import/subscribers', access: 'subscribers:import', handler: importStatus, summary: 'The running or last import: its name, rows imported of the total, and state' }),
  route({ method: 'GET', path: '/import/subscribers/logs', access: 'subscribers:import', handler: importLogs, summary: 'The log of the running or last import' }),
  route({ method: 'DELETE', path: '/import/subscribers', access: 'subscribers:import', handler: stopImport, summary: 'Stops the running import (what it wrote stays), or clears the last one' }),
  route({ method: 'POST', path: '/import/subscribers', access: 'subscribers:import', handler: startImport, bodyBytes: LIMITS.importUploadBytes + LIMITS.importParamsBytes + LIMITS.multipartOverheadBytes, describedBody: { contentType: 'multipart/form-data', schema: uploadForm }, summary: 'Uploads a CSV file (or a ZIP of them) and imports it in the background' }),
];

const IMPORT_MODES = ['subscribe', 'blocklist'] as const;

/** The `params` field's JSON object, as listmonk names its fields. */
function importParams() {
  return z.object({
    mode: f.reqEnum(IMPORT_MODES),
    lists: f.any().meta({ type: 'array', items: { type: 'integer', minimum: 1 }, description: 'Read in subscribe mode only' }),
    subscription_status: f.optEnum(SUBSCRIPTION_STATUSES),
    delim: f.optString({ trim: false }).refine((d) => d === undefined || Buffer.byteLength(d) === 1, 'invalid "{key}": must be exactly one character, e.g. "," or ";"'),
    overwrite: f.optBool(),
    overwrite_userinfo: f.optBool(),
    overwrite_subscription_status: f.optBool(),
    columns: columnMapping().optional(),
  }).transform((p, ctx) => {
    // Blocklist mode ignores the lists, however they are given.
    if (p.mode !== 'subscribe') return { ...p, lists: undefined };
    const lists = f.optIntArray().safeParse(p.lists);
    if (lists.success) return { ...p, lists: lists.data };
    ctx.addIssue({ code: 'custom', path: ['lists'], message: lists.error.issues[0].message });
    return z.NEVER;
  }).meta({ id: 'ImportParams' });
}

/**
 * `params.columns`: header name → what the column is (docs/import.md). The columns it does not
 * name are guessed, as without it.
 */
function columnMapping() {
  const status = z.enum(ROW_STATUSES as [RowStatus, ...RowStatus[]]);
  const spec = z.union([
    z.enum(SIMPLE_TARGETS),
    z.strictObject({ attribute: z.string().trim().min(1, 'an attribute key may not be empty').max(200), split: z.boolean().optional() }),
    z.strictObject({ status: z.record(z.string().max(200), status) }),
  ], { error: 'each column is "email", "name", "first_name", "last_name", "attributes", "lists", "status", "ignore", {"attribute": "key"} or {"status": {"value": "subscribed|unconfirmed|unsubscribed|blocklisted"}}' });
  return z.record(z.string().max(500), spec).refine((m) => Object.keys(m).length <= 500, 'at most 500 columns')
    .meta({ description: 'What each column is, by header name (matched trimmed and in any case); the columns not named are guessed' });
}

/** The upload, read by the handler as it streams in (it may be gigabytes). */
function uploadForm() {
  return z.object({
    params: z.string().meta({ description: 'An ImportParams JSON object', contentMediaType: 'application/json' }),
    file: z.string().meta({ description: 'A CSV file, or a ZIP of CSV files', format: 'binary' }),
  }).meta({ id: 'ImportUpload' });
}

function importStatus(c: C, s: Deps) {
  return ok(c, s.importer.status());
}

function importLogs(c: C, s: Deps) {
  return ok(c, s.importer.logs());
}

function stopImport(c: C, s: Deps) {
  return ok(c, s.importer.stop());
}

async function startImport(c: C, { importer, config }: Deps) {
  importer.reserve();
  const dir = uploadTempDir(config.dbPath, 'import', () => importer.release());
  try {
    const contentType = c.req.header('content-type') ?? '';
    if (!/^multipart\/form-data\b/i.test(contentType)) throw invalid('send the file as multipart/form-data (fields "params" and "file")');
    const form = await receiveMultipart(c.req.raw.body, contentType, dir, {
      fileFields: ['file'], maxFiles: 1, maxFileBytes: LIMITS.importUploadBytes, maxFields: 8, maxFieldBytes: LIMITS.importParamsBytes,
    });
    const { delim, params } = readParams(form.fields.params?.at(-1));
    const write = importer.writeOptions(c.get('user'), params);
    const file = form.files[0];
    if (!file) throw invalid('the "file" field (a ZIP of CSV files, or a CSV file) is required');
    const name = file.name || 'upload';
    const source = await inspectUpload(file.path, name);
    const listsByName = importer.columnLists(c.get('user'), params.mode);
    return ok(c, importer.start({ name, source, dir, delim, write, columns: params.columns ?? {}, listsByName, by: c.get('user').username }));
  } catch (e) {
    // Nothing was started: the upload goes, and the importer is free for the next one.
    rmSync(dir, { recursive: true, force: true });
    importer.release();
    throw e;
  }
}

/** The `params` field: the parser's delimiter and the importer's parameters. */
function readParams(raw: string | undefined): { delim: string; params: ImportParams } {
  if (raw === undefined) throw invalid('the "params" field is required (a JSON object with mode, delim, lists, ...)');
  let value: unknown;
  try {
    value = parseJson(raw);
  } catch (e) {
    throw invalid(`invalid "params": not JSON (${(e as Error).message})`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw invalid('invalid "params": expected a JSON object');
  const p = parseInput(importParams(), value);
  return {
    delim: p.delim ?? ',',
    params: {
      mode: p.mode,
      lists: p.lists,
      subscriptionStatus: p.subscription_status,
      overwrite: p.overwrite,
      overwriteUserinfo: p.overwrite_userinfo,
      overwriteSubscriptionStatus: p.overwrite_subscription_status,
      columns: p.columns,
    },
  };
}
