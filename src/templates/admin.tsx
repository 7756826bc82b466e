// The admin's template pages: the table of templates (/admin/campaigns/templates) and one
// template's page (/admin/campaigns/templates/:id, `new` creates) with its body in the code
// editor and a preview beside it. Reads go through the template service with the signed-in
// user; every change is an /api call from the page's script (admin.client.ts), and each
// control shows only when the user may call the route it names.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { bind, data } from '../admin/bind.ts';
import type { EditorData } from '../admin/client/editor.ts';
import { apiFormAttrs, Field, fieldAttrs, formBusy, PageData, PageHead, Tag, Time } from '../admin/components.tsx';
import { HelpLink } from '../help/link.tsx';
import { accessOf, routesFor } from '../http/routes.ts';
import { pathId } from '../http/schema.ts';
import { PreviewDialog } from '../campaigns/admin.tsx';
import type { TemplateButton, TemplatePageSetup, templatePage as templateScript, templatesPage as templatesScript, TemplateTypeData } from './admin.client.ts';
import type { TemplateType } from './defaults/index.ts';
import type { TemplateRow, TemplateService } from './service.ts';
import { TEMPLATE_ROUTES } from './routes.ts';

/** What the template pages use. */
interface Deps extends AdminDeps {
  templates: TemplateService;
}

const route = routesFor<Deps>();

export const TEMPLATE_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/campaigns/templates', access: accessOf(TEMPLATE_ROUTES, 'GET', '/templates'), handler: templatesPage, raw: 'text/html', summary: 'The templates' }),
  route({ method: 'GET', path: '/admin/campaigns/templates/new', access: accessOf(TEMPLATE_ROUTES, 'POST', '/templates'), handler: newTemplatePage, raw: 'text/html', summary: 'A form for a new template' }),
  route({ method: 'GET', path: '/admin/campaigns/templates/:id', access: accessOf(TEMPLATE_ROUTES, 'GET', '/templates/:id'), handler: templatePage, raw: 'text/html', summary: 'One template: its body in the editor, with a preview' }),
];

const TYPE_LABELS: Record<TemplateType, string> = {
  campaign: 'templates.typeCampaignHTML',
  campaign_visual: 'templates.typeCampaignVisual',
  tx: 'templates.typeTransactional',
};

/**
 * What a new template starts with, by type: a campaign template is a page around the
 * placeholder it must contain; a transactional one is the message itself.
 */
const STARTERS = {
  campaign: `<!doctype html>
<html>
  <body>
    <div class="wrap">
      {{ template "content" . }}
    </div>
    <p class="footer"><a href="{{ UnsubscribeURL }}">Unsubscribe</a></p>
  </body>
</html>
`,
  tx: `<p>Hello {{ .Subscriber.FirstName }},</p>
<p>Your order {{ .Tx.Data.order_id }} is on its way.</p>
`,
};

const PLACEHOLDER = '{{ template "content" . }}';

/** The placeholder a campaign template must hold, and where the template language is described. */
function TemplatingHint({ t }: { t: AdminView['t'] }): JSX.Element {
  return <p class="help">{t('templates.placeholderHelp', { placeholder: PLACEHOLDER })} {t('admin.templates.docs')} <HelpLink topic="templating" t={t} /></p>;
}

const table = bind<typeof templatesScript>('templatesPage');
const editor = bind<typeof templateScript>('templatePage');

function Row({ tp, view }: { tp: TemplateRow; view: AdminView }): JSX.Element {
  const { t } = view;
  const button = data<TemplateButton>({ id: tp.id, name: tp.name });
  const id = { id: tp.id };
  return (
    <tr data-template={String(tp.id)}>
      <td>
        <a href={`/admin/campaigns/templates/${tp.id}`}><strong>{tp.name}</strong></a>
        {tp.is_default === 1 ? <> <Tag tone="accent">{t('templates.default')}</Tag></> : null}
        {tp.type === 'tx' ? <div class="small muted">{t('admin.templates.txId')} <code>{tp.id}</code></div> : null}
      </td>
      <td>{t(TYPE_LABELS[tp.type])}</td>
      <td class="hide-narrow small"><Time value={tp.created_at} /></td>
      <td class="hide-narrow small"><Time value={tp.updated_at} /></td>
      <td>
        <div class="row-actions">
          {view.may('GET /api/templates/:id/preview', id) ? <button type="button" class="link" {...button} {...table.on('click', 'preview')}>{t('templates.preview')}</button> : null}
          {view.may('POST /api/templates') ? <button type="button" class="link" {...button} {...table.on('click', 'cloneOne')}>{t('globals.buttons.clone')}</button> : null}
          {tp.type === 'campaign' && tp.is_default !== 1 && view.may('PUT /api/templates/:id/default', id) ? <button type="button" class="link" {...button} {...table.on('click', 'makeDefault')}>{t('templates.makeDefault')}</button> : null}
          {tp.is_default !== 1 && view.may('DELETE /api/templates/:id', id) ? <button type="button" class="link" {...button} {...table.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button> : null}
        </div>
      </td>
    </tr>
  );
}

function templatesPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const templates = s.templates.all(actor);
  return adminPage(c, s, {
    title: t('globals.terms.templates'),
    body: (
      <div {...table.root()}>
        <PageHead title={t('globals.terms.templates')} count={templates.length}>
          {view.may('GET /admin/campaigns/templates/new') ? <a class="button" href="/admin/campaigns/templates/new">+ {t('templates.newTemplate')}</a> : null}
        </PageHead>
        <TemplatingHint t={t} />
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">{t('globals.fields.name')}</th>
                <th scope="col">{t('globals.fields.type')}</th>
                <th scope="col" class="hide-narrow">{t('globals.fields.createdAt')}</th>
                <th scope="col" class="hide-narrow">{t('globals.fields.updatedAt')}</th>
                <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              {templates.map((tp) => <Row tp={tp} view={view} />)}
            </tbody>
          </table>
        </div>
        <PreviewDialog t={t} />
      </div>
    ),
  });
}

function TemplateForm({ tp, view, editable }: { tp: TemplateRow | null; view: AdminView; editable: boolean }): JSX.Element {
  const { t } = view;
  const dis = { disabled: !editable };
  const type = tp?.type ?? 'campaign';
  return (
    <form
      id="template-form" class="card"
      {...(tp
        ? apiFormAttrs('PUT /api/templates/:id', { id: tp.id }, { done: `/admin/campaigns/templates/${tp.id}`, flash: t('admin.saved') })
        : apiFormAttrs('POST /api/templates', {}, { done: '/admin/campaigns/templates/{id}', flash: t('admin.templates.created') }))}
    >
      <div class="grid2">
        <Field id="t-name" label={t('globals.fields.name')}>
          <input type="text" id="t-name" name="name" value={tp?.name ?? ''} required {...dis} />
        </Field>
        <Field id="t-type" label={t('globals.fields.type')} help={tp ? t('admin.templates.typeLocked') : undefined}>
          {/* A template keeps its type: on edit the choice is shown but not sent. */}
          <select id="t-type" name="type" disabled={!!tp || !editable} {...editor.on('change', 'typeChanged')}>
            {(tp?.type === 'campaign_visual' ? (['campaign_visual'] as const) : (['campaign', 'tx'] as const)).map((v) => (
              <option value={v} selected={v === type}>{t(TYPE_LABELS[v])}</option>
            ))}
          </select>
        </Field>
      </div>
      <div {...editor.show('isTx()')} x-cloak>
        <Field id="t-subject" label={t('templates.subject')} help={t('admin.campaigns.subjectHelp')}>
          <input type="text" id="t-subject" name="subject" value={tp?.subject ?? ''} {...dis} />
        </Field>
      </div>
      <Field id="t-body" label={t('admin.campaigns.body')}>
        <textarea id="t-body" name="body" class="editor" rows={22} {...data<EditorData>({ editor: 'html' })} {...fieldAttrs({ errorKeys: 'body,template,line' })} {...dis}>{tp?.body ?? STARTERS.campaign}</textarea>
      </Field>
      <TemplatingHint t={t} />
      <p class="alert" data-error-for="_form" role="alert"></p>
      <div class="actions">
        {editable ? <button type="submit" {...formBusy()}>{tp ? t('globals.buttons.saveChanges') : t('templates.newTemplate')}</button> : null}
        {view.may('POST /api/templates/preview') ? <button type="button" class="secondary" {...editor.on('click', 'preview')}>{t('templates.preview')} (F9)</button> : null}
        {editable ? <span class="muted small">{t('admin.campaigns.ctrlS')}</span> : <span class="muted">{t('admin.templates.readOnly')}</span>}
      </div>
    </form>
  );
}

/** The form and the preview beside it (below it on narrow screens). */
function TemplateEditor({ tp, view, editable }: { tp: TemplateRow | null; view: AdminView; editable: boolean }): JSX.Element {
  const { t } = view;
  return (
    <div {...editor.root()} {...data<TemplateTypeData>({ type: tp?.type ?? 'campaign' })} class="editor-layout">
      <TemplateForm tp={tp} view={view} editable={editable} />
      <section class="card" aria-labelledby="preview-title">
        <h2 id="preview-title">{t('templates.preview')}</h2>
        <iframe id="template-preview" name="template-preview" class="preview-frame" title={t('templates.preview')} sandbox=""></iframe>
      </section>
      {/* A stored template is previewed on arrival; a new one swaps its starting body with its type. */}
      <PageData<TemplatePageSetup> id="template-page" value={{ preview: tp !== null, starters: tp ? null : STARTERS }} />
    </div>
  );
}

function newTemplatePage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  return adminPage(c, s, {
    title: view.t('templates.newTemplate'),
    islands: ['editor'],
    body: (
      <>
        <a class="back" href="/admin/campaigns/templates">← {view.t('globals.terms.templates')}</a>
        <PageHead title={view.t('templates.newTemplate')} />
        <TemplateEditor tp={null} view={view} editable />
      </>
    ),
  });
}

function templatePage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const tp = s.templates.get(actor, pathId(c));
  return adminPage(c, s, {
    title: tp.name,
    islands: ['editor'],
    body: (
      <>
        <a class="back" href="/admin/campaigns/templates">← {t('globals.terms.templates')}</a>
        <PageHead title={tp.name}>
          {tp.is_default === 1 ? <Tag tone="accent">{t('templates.default')}</Tag> : null}
        </PageHead>
        <div class="ids">
          <span>{t('globals.fields.id')}: <code>{tp.id}</code></span>
          <span>{t('globals.fields.type')}: {t(TYPE_LABELS[tp.type])}</span>
          <span>{t('globals.fields.updatedAt')}: <Time value={tp.updated_at} /></span>
        </div>
        <TemplateEditor tp={tp} view={view} editable={view.may('PUT /api/templates/:id', { id: tp.id })} />
      </>
    ),
  });
}
