// /api/templates. Who may read or change templates is decided by the template service.
import type { Context } from 'hono';
import { ok } from '../http/envelope.ts';
import { LIMITS } from '../core/limits.ts';
import { sendPreview } from '../http/preview.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import type { TemplateService } from './service.ts';
import { TEMPLATE_TYPES, templateJson } from './store.ts';

interface Deps {
  templates: TemplateService;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const TEMPLATE_ROUTES = [
  route({ method: 'GET', path: '/templates', access: 'templates:get', handler: listTemplates, query: noBodyQuery, summary: 'Every template, in creation order' }),
  route({ method: 'GET', path: '/templates/:id', access: 'templates:get', handler: getTemplate, query: noBodyQuery, summary: 'One template' }),
  route({ method: 'POST', path: '/templates/preview', access: 'templates:get', handler: previewUnsaved, body: previewInput, bodyKind: 'json-or-form', raw: 'text/html', summary: 'An unsaved template rendered for the demo subscriber (campaign types around a sample body)' }),
  route({ method: 'GET', path: '/templates/:id/preview', access: 'templates:get', handler: previewStored, query: storedPreviewQuery, raw: 'text/html', summary: 'A template rendered for the demo subscriber, or a body given in the query in its place' }),
  route({ method: 'POST', path: '/templates/:id/preview', access: 'templates:get', handler: previewStoredPosted, body: storedPreviewInput, bodyKind: 'json-or-form', raw: 'text/html', summary: 'A template rendered for the demo subscriber, or a posted body in its place' }),
  route({ method: 'POST', path: '/templates', access: 'templates:manage', handler: createTemplate, body: templateInput, bodyKind: 'json-or-form', summary: 'Creates a template (it must compile)' }),
  route({ method: 'PUT', path: '/templates/:id', access: 'templates:manage', handler: updateTemplate, body: templateInput, bodyKind: 'json-or-form', summary: 'Changes a template\'s name, subject, body or block document (empty ones keep their value; the type stays)' }),
  // The spec answers the bare template here, not {"data": [all templates]} as listmonk does.
  route({ method: 'PUT', path: '/templates/:id/default', access: 'templates:manage', handler: setDefaultTemplate, raw: 'application/json', summary: 'Makes a campaign template the default (answers the bare template object)' }),
  route({ method: 'DELETE', path: '/templates/:id', access: 'templates:manage', handler: deleteTemplate, summary: 'Deletes a template; campaigns using it switch to the default' }),
];

/** A missing no_body means false, as clients expect (docs/decisions.md §2). */
function noBodyQuery() {
  return z.object({ no_body: q.bool() });
}

/**
 * Create and change read the same fields. A change keeps the stored value for an empty subject,
 * body or block document, and reads but ignores the type (the service says so).
 */
function templateInput() {
  return z.object({
    type: f.optEnum(TEMPLATE_TYPES),
    name: f.reqString({ maxBytes: LIMITS.name }),
    subject: f.optString(),
    body: f.optString({ trim: false }),
    body_source: f.optString({ trim: false }),
  }).meta({ id: 'TemplateInput' });
}

function previewInput() {
  return z.object({ template_type: f.optEnum(TEMPLATE_TYPES), body: f.optString({ trim: false }) }).meta({ id: 'TemplatePreview' });
}

// In place of a stored template, template_type is read only with a body: the service checks it then.
function storedPreviewInput() {
  return z.object({ template_type: f.optString().meta({ type: 'string', enum: TEMPLATE_TYPES }), body: f.optString({ trim: false }) }).meta({ id: 'StoredTemplatePreview' });
}

/** A GET carries its form fields in the query string (a body on a GET is not read, as in listmonk). */
function storedPreviewQuery() {
  return z.object({ template_type: q.first({ type: 'string', enum: TEMPLATE_TYPES }, (v) => v?.trim()), body: q.str() });
}

function listTemplates(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof noBodyQuery>>) {
  return ok(c, s.templates.all(c.get('user')).map((t) => templateJson(t, p.no_body === true)));
}

function getTemplate(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof noBodyQuery>>) {
  return ok(c, templateJson(s.templates.get(c.get('user'), pathId(c)), p.no_body === true));
}

function previewUnsaved(c: C, s: Deps, { body }: Input<ReturnType<typeof previewInput>, undefined>) {
  return sendPreview(c, s.templates.previewUnsaved(c.get('user'), body));
}

function previewStored(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof storedPreviewQuery>>) {
  return sendPreview(c, s.templates.previewStored(c.get('user'), pathId(c), p));
}

function previewStoredPosted(c: C, s: Deps, { body }: Input<ReturnType<typeof storedPreviewInput>, undefined>) {
  return sendPreview(c, s.templates.previewStored(c.get('user'), pathId(c), body));
}

function createTemplate(c: C, s: Deps, { body }: Input<ReturnType<typeof templateInput>, undefined>) {
  return ok(c, templateJson(s.templates.create(c.get('user'), body)));
}

function updateTemplate(c: C, s: Deps, { body }: Input<ReturnType<typeof templateInput>, undefined>) {
  return ok(c, templateJson(s.templates.update(c.get('user'), pathId(c), body)));
}

function setDefaultTemplate(c: C, s: Deps) {
  return c.json(templateJson(s.templates.setDefault(c.get('user'), pathId(c))));
}

function deleteTemplate(c: C, s: Deps) {
  s.templates.delete(c.get('user'), pathId(c));
  return ok(c, true);
}
