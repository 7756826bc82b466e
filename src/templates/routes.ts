// /api/templates: handlers parse, call the service or store, answer.
import type { Context, Hono } from 'hono';
import type { Services } from '../services.ts';
import { readBody } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { sendPreview } from '../http/preview.ts';
import type { AppEnv } from '../http/types.ts';
import { parseBool, pathId } from '../http/validate.ts';
import { templateJson } from './store.ts';

export function registerTemplateRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const service = ctx.templates;
  const { store } = service;
  const get = ctx.guard('templates:get');
  const manage = ctx.guard('templates:manage');
  // A missing no_body means false, as clients expect (docs/decisions.md §2).
  const noBody = (c: Context<AppEnv>) => parseBool(c.req.query('no_body')) === true;

  api.get('/templates', get, (c) => ok(c, store.all().map((t) => templateJson(t, noBody(c)))));
  api.get('/templates/:id', get, (c) => ok(c, templateJson(store.get(pathId(c)), noBody(c))));

  api.post('/templates/preview', get, async (c) => sendPreview(c, service.preview(service.sourceOf(await readBody(c)))));
  // A GET carries its form fields in the query string (a body on a GET is not read, as in listmonk).
  const previewStored = async (c: Context<AppEnv>) => {
    const id = pathId(c);
    const fields = c.req.method === 'GET' ? c.req.query() : await readBody(c);
    return sendPreview(c, service.preview(service.storedSourceOf(id, fields)));
  };
  api.get('/templates/:id/preview', get, previewStored);
  api.post('/templates/:id/preview', get, previewStored);

  api.post('/templates', manage, async (c) => ok(c, templateJson(service.create(await readBody(c)))));
  api.put('/templates/:id', manage, async (c) => {
    const id = pathId(c);
    return ok(c, templateJson(service.update(id, await readBody(c))));
  });
  // The spec answers the bare template here, not {"data": [all templates]} as listmonk does.
  api.put('/templates/:id/default', manage, (c) => c.json(templateJson(store.setDefault(pathId(c)))));
  api.delete('/templates/:id', manage, (c) => {
    store.delete(pathId(c));
    return ok(c, true);
  });
}
