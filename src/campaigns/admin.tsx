// The admin's campaign pages: the table of campaigns (/admin/campaigns) with live progress of
// the running ones, and one campaign's page (/admin/campaigns/:id, `new` creates); the
// analytics pages are in analytics-admin.tsx. Reads go through the campaign service with the
// signed-in user; every change is an /api call. The pages' scripts are admin.client.ts and
// form-parts.client.ts (the list picker and the attachments); every control names the route it
// calls and shows only when the user may call it (for one campaign: by its lists).
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { bind, bindMixin, data } from '../admin/bind.ts';
import { allRowsBox, apiFormAttrs, BulkBar, Field, fieldAttrs, formatNumber, formBusy, matchingRows, PageData, PageHead, Pager, rowBox, SearchToolbar, SortHeader, Tag, Time } from '../admin/components.tsx';
import type { closePreview } from '../admin/client/dialog.ts';
import { HelpLink } from '../help/link.tsx';
import { parseAdminPaging } from '../core/paging.ts';
import { accessOf, routesFor, type Input } from '../http/routes.ts';
import { pathId, q, z } from '../http/schema.ts';
import type { ListService } from '../lists/service.ts';
import type { Mailer } from '../mail/mailer.ts';
import type { SettingsService } from '../settings/service.ts';
import type { TemplateService } from '../templates/service.ts';
import type {
  ArchiveSample, CampaignButton, CampaignPageData, campaignPage as campaignScript, CampaignRowData, CampaignsQuery as CampaignsFilters,
  campaignsPage as campaignsScript, StatusButton,
} from './admin.client.ts';
import type { attachments as attachmentsScript, ChipButton, ChipsData, ListBox, listPicker as listPickerScript, ListOption, ListPickerData } from './form-parts.client.ts';
import { ARCHIVE_SUBSCRIBER_NAME } from './archive.ts';
import { CAMPAIGN_ORDER_BY, CAMPAIGN_STATUSES, CONTENT_TYPES, type CampaignJson, type CampaignService } from './service.ts';
import { CAMPAIGN_ROUTES } from './routes.ts';

/** What the campaign pages use. */
interface Deps extends AdminDeps {
  campaigns: CampaignService;
  lists: ListService;
  templates: TemplateService;
  settings: SettingsService;
  /** The messengers a campaign may go through. */
  mailer: Pick<Mailer, 'names'>;
}

const route = routesFor<Deps>();

export const CAMPAIGN_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/campaigns', access: accessOf(CAMPAIGN_ROUTES, 'GET', '/campaigns'), handler: campaignsPage, query: campaignsPageQuery, raw: 'text/html', summary: 'The campaigns' }),
  route({ method: 'GET', path: '/admin/campaigns/new', access: accessOf(CAMPAIGN_ROUTES, 'POST', '/campaigns'), handler: newCampaignPage, query: newCampaignQuery, raw: 'text/html', summary: 'A form for a new campaign' }),
  route({ method: 'GET', path: '/admin/campaigns/:id', access: accessOf(CAMPAIGN_ROUTES, 'GET', '/campaigns/:id'), handler: campaignPage, raw: 'text/html', summary: 'One campaign: its settings, content, archive, preview and test' }),
];

function newCampaignQuery() {
  return z.object({ list_id: q.first({ type: 'integer' }, (v) => (v && /^\d+$/.test(v) ? Number(v) : null)) });
}

/** The page's filters are read leniently: a value it does not know is no filter. */
function campaignsPageQuery() {
  const str = () => q.first({ type: 'string' }, (v) => v?.trim() ?? '');
  return z.object({ query: str(), status: str(), order_by: str(), order: str(), page: str(), per_page: str() });
}

type CampaignsQuery = ReturnType<typeof campaignsPageQuery>;
type OrderColumn = keyof typeof CAMPAIGN_ORDER_BY;

const list = bind<typeof campaignsScript>('campaignsPage');
const one = bind<typeof campaignScript>('campaignPage');
const picker = bind<typeof listPickerScript>('listPicker');
const files = bind<typeof attachmentsScript>('attachments');
/** The preview dialog's close button: on every page that has the dialog, its component closes it. */
const dialog = bindMixin<{ closePreview: typeof closePreview }>();

const STATUS_TONE: Partial<Record<CampaignJson['status'], 'accent' | 'danger'>> = { running: 'accent', scheduled: 'accent', paused: 'danger', cancelled: 'danger' };

export function StatusTag({ campaign, t }: { campaign: CampaignJson; t: AdminView['t'] }): JSX.Element {
  return (
    <Tag tone={STATUS_TONE[campaign.status]}>
      {campaign.status === 'running' ? <span class="spinner" aria-hidden="true"></span> : null}
      {t(`campaigns.status.${campaign.status}`)}
    </Tag>
  );
}

/**
 * What a status button carries: the campaign, the new status and the button's label; a start or
 * a schedule also what its confirmation counts ("Send to 12,408 subscribers of 2 lists?"): the
 * campaign's lists and type, whose audience the script counts, and its time.
 */
function statusButton(c: CampaignJson, status: string, label: string): StatusButton {
  const button = { id: String(c.id), name: c.name, status, label };
  const start = c.status === 'draft' && (status === 'running' || status === 'scheduled');
  if (!start) return button;
  return { ...button, summary: status, lists: c.lists.flatMap((l) => (l.id ? [String(l.id)] : [])).join(','), type: c.type, sendAt: c.send_at ?? '' };
}

/** The status changes a campaign's state allows, as [label key, new status]. */
function statusActions(c: CampaignJson): [string, string][] {
  switch (c.status) {
    case 'draft':
      return [c.send_at ? ['campaigns.schedule', 'scheduled'] : ['campaigns.start', 'running']];
    case 'scheduled':
      return [['admin.campaigns.unschedule', 'draft']];
    case 'running':
      return [['campaigns.pause', 'paused'], ['admin.campaigns.cancel', 'cancelled']];
    case 'paused':
      return [['admin.campaigns.resume', 'running'], ['admin.campaigns.cancel', 'cancelled']];
    case 'finished':
      // A finished campaign with failures can be sent again to its failed recipients only.
      return c.failed > 0 ? [['admin.campaigns.retryFailed', 'running']] : [];
    default:
      return [];
  }
}

/**
 * A running campaign's recipients the mail server deferred, to be tried again: kept in the
 * page (hidden at 0) so that the live progress can show it when it appears.
 */
function Deferred({ c, t, tag }: { c: CampaignJson; t: AdminView['t']; tag: 'div' | 'span' }): JSX.Element | null {
  if (c.status !== 'running') return null;
  const Tag = tag;
  return (
    <Tag data-deferred-line hidden={c.deferred === 0} title={t('admin.campaigns.deferredHelp')}>
      {t('admin.campaigns.deferred')}: <span data-deferred>{formatNumber(c.deferred)}</span>
    </Tag>
  );
}

/** The share of a campaign's messages sent, in whole percent. */
function percentSent(c: Pick<CampaignJson, 'sent' | 'to_send'>): number {
  return c.to_send > 0 ? Math.min(100, Math.round((c.sent / c.to_send) * 100)) : 0;
}

/** A running or paused campaign's progress bar and (filled while it runs) its send rate. */
function Progress({ c, t }: { c: CampaignJson; t: AdminView['t'] }): JSX.Element {
  const done = percentSent(c);
  return (
    <>
      <progress max="100" value={String(done)} aria-label={t('admin.campaigns.progress', { name: c.name })}>{done}%</progress>
      <div class="muted" data-rate></div>
    </>
  );
}

function Row({ c, view, checks }: { c: CampaignJson; view: AdminView; checks: boolean }): JSX.Element {
  const { t } = view;
  const id = { id: c.id };
  const button = data<CampaignButton>({ id: c.id, name: c.name });
  const manages = view.may('DELETE /api/campaigns/:id', id);
  return (
    <tr {...data<CampaignRowData>({ campaign: c.id, running: c.status === 'running' ? '' : undefined })}>
      {checks ? <td class="check">{c.status === 'running' || !manages ? null : <input type="checkbox" {...rowBox(c.id)} aria-label={t('admin.selectRow', { name: c.name })} />}</td> : null}
      <td>
        <StatusTag campaign={c} t={t} />
        {c.status === 'scheduled' && c.send_at ? <div class="small muted"><Time value={c.send_at} /></div> : null}
        {c.status === 'paused' && c.status_reason ? <div class="small danger-text">{c.status_reason}</div> : null}
      </td>
      <td>
        <a href={`/admin/campaigns/${c.id}`}><strong>{c.name}</strong></a>
        {c.type === 'optin' ? <> <Tag>{t('admin.campaigns.optin')}</Tag></> : null}
        <div class="small">{c.subject}</div>
        <div>{c.tags.map((tag) => <span class="tag">{tag}</span>)}</div>
      </td>
      <td class="hide-narrow small">
        {c.lists.map((l) => (l.id ? <div><a href={`/admin/lists/${l.id}`}>{l.name}</a></div> : <div class="muted">{l.name}</div>))}
      </td>
      <td class="hide-narrow small">
        <div>{t('globals.fields.createdAt')}: <Time value={c.created_at} /></div>
        {c.started_at ? <div>{t('campaigns.startedAt')}: <Time value={c.started_at} /></div> : null}
        {c.status === 'finished' || c.status === 'cancelled' ? <div>{t('admin.campaigns.ended')}: <Time value={c.updated_at} /></div> : null}
      </td>
      <td class="hide-narrow small">
        <div>{t('campaigns.views')}: {formatNumber(c.views)}</div>
        <div>{t('campaigns.clicks')}: {formatNumber(c.clicks)}</div>
        <div>{t('campaigns.sent')}: <span data-sent>{formatNumber(c.sent)}</span> / <span data-to-send>{formatNumber(c.to_send)}</span></div>
        {c.failed > 0 ? <div class="danger-text">{t('admin.campaigns.failed')}: {formatNumber(c.failed)}</div> : null}
        <Deferred c={c} t={t} tag="div" />
        <div><a href={`/admin/subscribers/bounces?campaign_id=${c.id}`}>{t('globals.terms.bounces')}</a>: {formatNumber(c.bounces)}</div>
        {c.status === 'running' || c.status === 'paused' ? <Progress c={c} t={t} /> : null}
      </td>
      <td>
        <div class="row-actions">
          {view.may('PUT /api/campaigns/:id/status', id) ? statusActions(c).map(([label, status]) => (
            <button type="button" class="link" {...data<StatusButton>(statusButton(c, status, t(label)))} {...list.on('click', 'changeStatus')}>{t(label)}</button>
          )) : null}
          {view.may('GET /api/campaigns/:id/preview', id) ? <button type="button" class="link" {...button} {...list.on('click', 'preview')}>{t('campaigns.preview')}</button> : null}
          {view.may('GET /admin/campaigns/analytics') ? <a href={`/admin/campaigns/analytics?id=${c.id}`}>{t('globals.terms.analytics')}</a> : null}
          {view.may('POST /api/campaigns') ? <button type="button" class="link" {...button} {...list.on('click', 'cloneOne')}>{t('globals.buttons.clone')}</button> : null}
          {manages && c.status !== 'running' ? <button type="button" class="link" {...button} {...list.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button> : null}
        </div>
      </td>
    </tr>
  );
}

/**
 * Why a campaign is paused (the sender's reason: a relay that refused, a messenger gone...) and
 * what to do: Resume goes on where it stopped; a mail server fault is fixed under Settings → SMTP.
 */
function PausedBanner({ c, view }: { c: CampaignJson; view: AdminView }): JSX.Element {
  const { t } = view;
  const resumes = view.may('PUT /api/campaigns/:id/status', { id: c.id });
  return (
    <section class="banner warn paused-banner" aria-labelledby="paused-title">
      <h2 id="paused-title">{t('admin.campaigns.pausedTitle')}</h2>
      <p>{c.status_reason ? t('admin.campaigns.pausedReason', { reason: c.status_reason }) : t('admin.campaigns.pausedByHand')}</p>
      <p>
        {resumes ? t('admin.campaigns.pausedResume') : t('admin.campaigns.pausedResumeAsk')}{' '}
        {view.may('GET /admin/settings') ? <>{t('admin.campaigns.pausedSmtp')} <a href="/admin/settings#smtp">{t('admin.campaigns.pausedSmtpLink')}</a>.</> : null}
      </p>
      {resumes ? (
        <button type="button" {...data<StatusButton>(statusButton(c, 'running', t('admin.campaigns.resume')))} {...one.on('click', 'changeStatus')}>{t('admin.campaigns.resume')}</button>
      ) : null}
    </section>
  );
}

/** A dialog with the rendered campaign in a sandboxed frame (its scripts cannot reach the admin). */
export function PreviewDialog({ t }: { t: AdminView['t'] }): JSX.Element {
  return (
    <dialog id="preview-dialog" class="preview-dialog" aria-labelledby="preview-title">
      <div class="page-head">
        <h2 id="preview-title">{t('campaigns.preview')}</h2>
        <button type="button" class="secondary small" {...dialog.on('click', 'closePreview')}>{t('globals.buttons.close')}</button>
      </div>
      <iframe id="preview-frame" name="preview-frame" class="preview-frame" title={t('campaigns.preview')} sandbox=""></iframe>
    </dialog>
  );
}

function campaignsPage(c: AdminContext, s: Deps, { query: p }: Input<undefined, CampaignsQuery>) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const status = (CAMPAIGN_STATUSES as readonly string[]).includes(p.status) ? p.status : '';
  const orderBy: OrderColumn = Object.hasOwn(CAMPAIGN_ORDER_BY, p.order_by) ? (p.order_by as OrderColumn) : 'created_at';
  const order = p.order === 'asc' ? 'asc' : p.order === 'desc' ? 'desc' : orderBy === 'name' ? 'asc' : 'desc';
  const paging = parseAdminPaging(p);
  const { results, total } = s.campaigns.query(actor, {
    statuses: status ? [status] : [], tags: [], search: p.query, orderBy: CAMPAIGN_ORDER_BY[orderBy],
    order: order === 'asc' ? 'ASC' : 'DESC', limit: paging.limit, offset: paging.offset, noBody: true,
  });
  const path = '/admin/campaigns';
  const query = new URL(c.req.url).searchParams;
  const sort = { path, query, current: orderBy, order } as const;
  const anyManaged = view.may('DELETE /api/campaigns') && results.some((camp) => view.may('DELETE /api/campaigns/:id', { id: camp.id }));
  return adminPage(c, s, {
    title: t('globals.terms.campaigns'),
    body: (
      <div {...list.root()} {...matchingRows(total)}>
        <PageHead title={t('globals.terms.campaigns')} count={total}>
          {view.may('GET /admin/campaigns/new') ? <a class="button" href="/admin/campaigns/new">+ {t('campaigns.newCampaign')}</a> : null}
        </PageHead>
        <SearchToolbar
          path={path} t={t}
          search={{ id: 'campaign-search', label: t('admin.campaigns.search'), value: p.query, placeholder: t('campaigns.queryPlaceholder') }}
          status={{ id: 'campaign-status', value: status, options: [{ value: '', label: t('globals.terms.all') }, ...CAMPAIGN_STATUSES.map((v) => ({ value: v, label: t(`campaigns.status.${v}`) }))] }}
        />
        {anyManaged ? (
          <BulkBar t={t} matchingLabel={t('admin.selectAllMatching', { n: formatNumber(total) })}>
            <button type="button" class="danger small" {...list.on('click', 'deleteSelected')}>{t('globals.buttons.delete')}</button>
          </BulkBar>
        ) : null}
        <PageData<CampaignsFilters> id="campaigns-query" value={{ query: p.query, status }} />
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                {anyManaged ? <th scope="col" class="check"><input type="checkbox" aria-label={t('admin.selectPage')} {...allRowsBox()} /></th> : null}
                <SortHeader label={t('globals.fields.status')} column="status" {...sort} />
                <SortHeader label={t('globals.fields.name')} column="name" {...sort} />
                <th scope="col" class="hide-narrow">{t('globals.terms.lists')}</th>
                <SortHeader label={t('campaigns.timestamps')} column="created_at" class="hide-narrow" {...sort} />
                <th scope="col" class="hide-narrow">{t('campaigns.stats')}</th>
                <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
              </tr>
            </thead>
            <tbody>
              {results.length === 0 ? (
                <tr><td colspan={7} class="empty">{p.query || status ? t('admin.campaigns.noMatch') : t('admin.campaigns.none')}</td></tr>
              ) : results.map((camp) => <Row c={camp} view={view} checks={anyManaged} />)}
            </tbody>
          </table>
        </div>
        <Pager page={paging.page} perPage={paging.perPage} total={total} path={path} query={query} t={t} />
        <PreviewDialog t={t} />
      </div>
    ),
  });
}

/**
 * The stand-in subscriber the archive meta's fill button proposes: a subscriber's fields
 * (listmonk's `{"email", "name", "attribs"}` sample), the name archive pages fall back on.
 */
const ARCHIVE_SAMPLE: ArchiveSample = { email: 'email@domain.com', name: ARCHIVE_SUBSCRIBER_NAME, attribs: {} };

/** Statuses in which a campaign can still be changed (as the API allows). */
const EDITABLE = ['draft', 'scheduled', 'paused'];

const FORMAT_LABELS: Record<string, string> = { richtext: 'campaigns.richText', html: 'campaigns.rawHTML', markdown: 'campaigns.markdown', plain: 'campaigns.plainText', visual: 'campaigns.visual' };

/** A datetime-local value (the browser shows it in its own time zone; the script sends UTC). */
function localInput(iso: string | null): string {
  return iso ? new Date(iso).toISOString().slice(0, 16) : '';
}

interface CampaignFormData {
  campaign: CampaignJson | null;
  /** The lists on offer: the active ones, and archived ones the campaign already goes to. */
  lists: { id: number; name: string }[];
  templates: { id: number; name: string; is_default: boolean }[];
  /** `email` (every SMTP server) and `email-<name>` (one named server), then the others (postback). */
  messengers: { email: string[]; other: string[] };
  fromEmail: string;
  /** The app-wide default of a new campaign's link tracking. */
  trackLinks: boolean;
  listId: number | null;
}

/** A chosen item (a list, an attachment) as a chip, with a remove button while it can be changed. */
function Chip({ id, name, editable, t, children }: { id: number; name: string; editable: boolean; t: AdminView['t']; children?: unknown }): JSX.Element {
  return (
    <li class="chip" data-id={String(id)}>
      <span>{name}</span>
      {children}
      {editable ? <button type="button" class="chip-remove" {...data<ChipButton>({ remove: id })} aria-label={t('admin.campaigns.remove', { name })}>×</button> : null}
    </li>
  );
}

/**
 * The lists to send to: the chosen ones as chips, a search over the lists on offer (archived
 * ones are not), each a checkbox; below, the live count of the subscribers the campaign would
 * reach (the `listPicker` script asks GET /api/campaigns/audience at every change).
 */
function ListPicker({ d, chosen, editable, t }: { d: CampaignFormData; chosen: Set<number>; editable: boolean; t: AdminView['t'] }): JSX.Element {
  const picked = d.lists.filter((l) => chosen.has(l.id));
  return (
    <fieldset class="field list-picker" {...picker.root()} {...data<ListPickerData>({ type: d.campaign?.type ?? 'regular', removeLabel: t('admin.campaigns.remove', { name: '{name}' }) })} aria-describedby={editable ? 'c-lists-help' : undefined}>
      <legend>{t('campaigns.sendToLists')}</legend>
      <ul class="chips" data-chips aria-label={t('admin.campaigns.chosenLists')} {...picker.on('click', 'remove')}>
        {picked.map((l) => <Chip id={l.id} name={l.name} editable={editable} t={t} />)}
      </ul>
      {editable ? (
        <>
          <input type="search" id="c-lists-search" class="list-search" aria-label={t('admin.campaigns.searchLists')} placeholder={t('admin.campaigns.searchLists')} {...picker.on('input', 'filter')} {...picker.on('keydown', 'keepForm')} />
          <ul class="choices" data-options>
            {d.lists.map((l) => (
              <li {...data<ListOption>({ name: l.name.toLowerCase() })}>
                <label class="check-label"><input type="checkbox" id={`c-list-${l.id}`} name="lists" value={String(l.id)} {...fieldAttrs({ kind: 'ints', errorKeys: 'list,lists' })} {...data<ListBox>({ name: l.name })} checked={chosen.has(l.id)} {...picker.on('change', 'changed')} /> {l.name}</label>
              </li>
            ))}
          </ul>
          <p class="muted small" data-no-match hidden>{t('admin.campaigns.noListMatch')}</p>
        </>
      ) : null}
      {editable ? (
        <>
          <p class="help" id="c-lists-help">{t('admin.campaigns.listsHelp')}</p>
          <p class="audience" data-audience aria-live="polite"></p>
        </>
      ) : null}
      <p class="field-error" id="c-lists-error" data-error-for="c-lists" role="alert"></p>
    </fieldset>
  );
}

/** The messenger: `email` and the named SMTP servers in one group, the other messengers (postback) in another. */
function MessengerSelect({ d, current, editable, t }: { d: CampaignFormData; current: string; editable: boolean; t: AdminView['t'] }): JSX.Element {
  const known = [...d.messengers.email, ...d.messengers.other];
  const opt = (m: string) => <option value={m} selected={current === m}>{m}</option>;
  return (
    <select id="c-messenger" name="messenger" disabled={!editable}>
      <optgroup label={t('admin.campaigns.smtpMessengers')}>{d.messengers.email.map(opt)}</optgroup>
      {d.messengers.other.length ? <optgroup label={t('admin.campaigns.otherMessengers')}>{d.messengers.other.map(opt)}</optgroup> : null}
      {known.includes(current) ? null : <option value={current} selected>{t('admin.campaigns.messengerGone', { name: current })}</option>}
    </select>
  );
}

/** The campaign's attachments from the media library, as chips; the `attachments` script adds through the media picker. */
function Attachments({ media, editable, t }: { media: { id: number; filename: string }[]; editable: boolean; t: AdminView['t'] }): JSX.Element {
  return (
    <fieldset class="field attachments" {...files.root()} {...data<ChipsData>({ removeLabel: t('admin.campaigns.remove', { name: '{name}' }) })} aria-describedby="c-media-help">
      <legend>{t('campaigns.attachments')}</legend>
      <ul class="chips" data-chips aria-label={t('campaigns.attachments')} {...files.on('click', 'remove')}>
        {media.map((m) => (
          <Chip id={m.id} name={m.filename} editable={editable} t={t}>
            <input type="hidden" name="media" {...fieldAttrs({ kind: 'ints' })} value={String(m.id)} disabled={!editable} />
          </Chip>
        ))}
      </ul>
      <p class="muted small" data-none hidden={media.length > 0}>{t('admin.campaigns.noAttachments')}</p>
      {editable ? <button type="button" class="secondary small" {...files.on('click', 'add')}>{t('campaigns.addAttachments')}</button> : null}
      <p class="help" id="c-media-help">{t('admin.campaigns.attachmentsHelp')}</p>
      <p class="field-error" id="c-media-error" data-error-for="c-media" role="alert"></p>
    </fieldset>
  );
}

function CampaignForm({ d, view, editable }: { d: CampaignFormData; view: AdminView; editable: boolean }): JSX.Element {
  const { t } = view;
  const c = d.campaign;
  const dis = { disabled: !editable };
  const chosen = new Set(c ? c.lists.flatMap((l) => (l.id ? [l.id] : [])) : d.listId ? [d.listId] : []);
  const defaultTemplate = d.templates.find((tp) => tp.is_default)?.id;
  const templateId = c ? c.template_id : defaultTemplate;
  return (
    <form
      id="campaign-form" class="card"
      {...(c
        ? apiFormAttrs('PUT /api/campaigns/:id', { id: c.id }, { done: `/admin/campaigns/${c.id}`, flash: t('admin.saved') })
        : apiFormAttrs('POST /api/campaigns', {}, { done: '/admin/campaigns/{id}', flash: t('admin.campaigns.created') }))}
    >
      <div class="grid2">
        <Field id="c-name" label={t('globals.fields.name')}>
          <input type="text" id="c-name" name="name" value={c?.name ?? ''} required {...dis} />
        </Field>
        <Field id="c-subject" label={t('campaigns.subject')} help={t('admin.campaigns.subjectHelp')}>
          <input type="text" id="c-subject" name="subject" value={c?.subject ?? ''} required {...dis} />
        </Field>
      </div>
      <div class="grid2">
        <Field id="c-from" label={t('campaigns.fromAddress')}>
          <input type="text" id="c-from" name="from_email" value={c?.from_email ?? d.fromEmail} placeholder={t('campaigns.fromAddressPlaceholder')} {...dis} />
        </Field>
        <Field id="c-messenger" label={t('globals.terms.messenger')}>
          <MessengerSelect d={d} current={c?.messenger ?? 'email'} editable={editable} t={t} />
        </Field>
      </div>
      <ListPicker d={d} chosen={chosen} editable={editable} t={t} />
      <div class="grid2">
        <Field id="c-template" label={t('globals.terms.template')}>
          <select id="c-template" name="template_id" {...fieldAttrs({ kind: 'int' })} {...dis}>
            {d.templates.map((tp) => <option value={String(tp.id)} selected={tp.id === templateId}>{tp.name}</option>)}
          </select>
        </Field>
        <Field id="c-send-at" label={t('campaigns.sendLater')} help={t('admin.campaigns.sendAtHelp')}>
          <input type="datetime-local" id="c-send-at" name="send_at" {...fieldAttrs({ kind: 'datetime' })} value={localInput(c?.send_at ?? null)} {...dis} />
        </Field>
      </div>
      <Field id="c-tags" label={t('globals.terms.tags')} help={t('admin.lists.tagsHelp')}>
        <input type="text" id="c-tags" name="tags" {...fieldAttrs({ kind: 'tags' })} value={c?.tags.join(', ') ?? ''} {...dis} />
      </Field>
      <div class="field">
        <label class="check-label"><input type="checkbox" name="track_links" value="true" {...fieldAttrs({ kind: 'bool' })} checked={c ? c.track_links : d.trackLinks} {...dis} /> {t('admin.campaigns.trackLinks')}</label>
        <p class="help">{t('admin.campaigns.trackLinksHelp')}</p>
      </div>
      <h2>{t('campaigns.content')}</h2>
      <Field id="c-format" label={t('campaigns.format')}>
        <select id="c-format" name="content_type" {...dis}>
          {CONTENT_TYPES.filter((f) => f !== 'visual' || c?.content_type === 'visual').map((f) => <option value={f} selected={(c?.content_type ?? 'richtext') === f}>{t(FORMAT_LABELS[f] ?? f)}</option>)}
        </select>
      </Field>
      <Field id="c-body" label={t('admin.campaigns.body')} help={<>{t('admin.campaigns.bodyHelp')} <HelpLink topic="templating" t={t} /></>}>
        <textarea id="c-body" name="body" class="editor" rows={18} data-editor-format="c-format" {...fieldAttrs({ errorKeys: 'body,template' })} {...dis}>{c?.body ?? ''}</textarea>
      </Field>
      <Attachments media={c ? c.media.flatMap((m) => (m.id ? [{ id: m.id, filename: m.filename }] : [])) : []} editable={editable} t={t} />
      <Field id="c-altbody" label={t('admin.campaigns.altbody')} help={t('admin.campaigns.altbodyHelp')}>
        <textarea id="c-altbody" name="altbody" {...fieldAttrs({ kind: 'nullable' })} rows={5} {...dis}>{c?.altbody ?? ''}</textarea>
      </Field>
      <details>
        <summary>{t('admin.campaigns.advanced')}</summary>
        <Field id="c-headers" label={t('admin.campaigns.headers')} help={t('admin.campaigns.headersHelp')}>
          <textarea id="c-headers" name="headers" {...fieldAttrs({ kind: 'json', empty: '[]' })} rows={3} {...dis}>{JSON.stringify(c?.headers ?? [], null, 2)}</textarea>
        </Field>
        <Field id="c-attribs" label={t('admin.campaigns.attribs')} help={t('admin.campaigns.attribsHelp')}>
          <textarea id="c-attribs" name="attribs" {...fieldAttrs({ kind: 'json' })} rows={3} {...dis}>{JSON.stringify(c?.attribs ?? {}, null, 2)}</textarea>
        </Field>
      </details>
      <p class="alert" data-error-for="_form" role="alert"></p>
      {editable ? (
        <div class="actions">
          <button type="submit" {...formBusy()}>{c ? t('globals.buttons.saveChanges') : t('campaigns.newCampaign')}</button>
          <span class="muted small">{t('admin.campaigns.ctrlS')}</span>
        </div>
      ) : <p class="muted">{t('admin.campaigns.readOnly')}</p>}
    </form>
  );
}

function campaignFormData(s: Deps, view: AdminView, campaign: CampaignJson | null, listId: number | null): CampaignFormData {
  const { actor } = view;
  const { results } = s.lists.query(actor, { search: '', status: 'active', tags: [], orderBy: 'l.name', order: 'ASC', limit: -1, offset: 0, minimal: false });
  const lists = results.map((l) => ({ id: l.id, name: l.name }));
  // An archived list the campaign already goes to stays on offer (else a save would drop it).
  for (const l of campaign?.lists ?? []) if (l.id && !lists.some((x) => x.id === l.id)) lists.push({ id: l.id, name: l.name });
  const templates = view.may('GET /api/templates') ? s.templates.all(actor).filter((tp) => tp.type === 'campaign' || tp.id === campaign?.template_id) : [];
  const names = s.mailer.names();
  const isEmail = (m: string) => m === 'email' || m.startsWith('email-');
  return {
    campaign,
    lists,
    templates: templates.map((tp) => ({ id: tp.id, name: tp.name, is_default: tp.is_default === 1 })),
    // "email" is always offered: a campaign can be written before SMTP is set up (the API accepts it).
    messengers: { email: ['email', ...names.filter((m) => m !== 'email' && isEmail(m))], other: names.filter((m) => !isEmail(m)) },
    fromEmail: s.settings.str('app.from_email'),
    trackLinks: s.settings.bool('privacy.track_links'),
    listId,
  };
}

function newCampaignPage(c: AdminContext, s: Deps, { query }: Input<undefined, ReturnType<typeof newCampaignQuery>>) {
  const view = adminView(c, s);
  return adminPage(c, s, {
    title: view.t('campaigns.newCampaign'),
    islands: ['editor'],
    body: (
      <div {...one.root()}>
        <a class="back" href="/admin/campaigns">← {view.t('globals.terms.campaigns')}</a>
        <PageHead title={view.t('campaigns.newCampaign')} />
        <CampaignForm d={campaignFormData(s, view, null, query.list_id)} view={view} editable />
      </div>
    ),
  });
}

function campaignPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const campaign = s.campaigns.get(actor, pathId(c));
  const id = { id: campaign.id };
  const editable = view.may('PUT /api/campaigns/:id', id) && EDITABLE.includes(campaign.status);
  const d = campaignFormData(s, view, campaign, null);
  return adminPage(c, s, {
    title: campaign.name,
    islands: ['editor'],
    body: (
      <div {...one.root()} {...data<CampaignPageData>({ id: campaign.id, campaignStatus: campaign.status })}>
        <a class="back" href="/admin/campaigns">← {t('globals.terms.campaigns')}</a>
        <PageHead title={campaign.name}>
          <StatusTag campaign={campaign} t={t} />
          {view.may('POST /api/campaigns/:id/preview', id) ? <button type="button" class="secondary" {...one.on('click', 'preview')}>{t('campaigns.preview')} (F9)</button> : null}
          {view.may('PUT /api/campaigns/:id/status', id) ? statusActions(campaign).map(([label, status]) => (
            <button type="button" class={status === 'cancelled' ? 'danger' : ''} {...data<StatusButton>(statusButton(campaign, status, t(label)))} {...one.on('click', 'changeStatus')}>{t(label)}</button>
          )) : null}
        </PageHead>
        {campaign.status === 'paused' ? <PausedBanner c={campaign} view={view} /> : null}
        <div class="ids">
          <span>{t('globals.fields.id')}: <code>{campaign.id}</code></span>
          <span>{t('globals.fields.uuid')}: <code>{campaign.uuid}</code></span>
          <span>{t('campaigns.sent')}: <span data-sent>{formatNumber(campaign.sent)}</span> / <span data-to-send>{formatNumber(campaign.to_send)}</span></span>
          <Deferred c={campaign} t={t} tag="span" />
        </div>
        {campaign.status === 'running' || campaign.status === 'paused' ? <div class="campaign-progress"><Progress c={campaign} t={t} /></div> : null}
        <CampaignForm d={d} view={view} editable={editable} />
        {view.may('POST /api/campaigns/:id/test', id) ? (
          <section class="card" aria-labelledby="test-title">
            <h2 id="test-title">{t('campaigns.sendTest')}</h2>
            <form {...one.on('submit', 'sendTest')}>
              <Field id="test-emails" label={t('campaigns.testEmails')} help={t('admin.campaigns.testHelp')}>
                <input type="text" id="test-emails" name="subscribers" required />
              </Field>
              <button type="submit" class="secondary">{t('campaigns.send')}</button>
            </form>
          </section>
        ) : null}
        {view.may('PUT /api/campaigns/:id/archive', id) ? (
          <section class="card" aria-labelledby="archive-title">
            <h2 id="archive-title">{t('campaigns.archive')}</h2>
            <form {...apiFormAttrs('PUT /api/campaigns/:id/archive', id, { done: `/admin/campaigns/${campaign.id}`, flash: t('admin.saved') })}>
              <div class="field">
                <label class="check-label"><input type="checkbox" name="archive" value="true" {...fieldAttrs({ kind: 'bool' })} checked={campaign.archive} /> {t('campaigns.archiveEnable')}</label>
                {campaign.archive ? <p class="help"><a href={`/archive/${campaign.archive_slug ?? campaign.uuid}`}>{t('admin.campaigns.archiveLink')}</a></p> : null}
              </div>
              <div class="grid2">
                <Field id="archive-slug" label={t('campaigns.archiveSlug')}>
                  <input type="text" id="archive-slug" name="archive_slug" value={campaign.archive_slug ?? ''} {...fieldAttrs({ kind: 'nullable' })} />
                </Field>
                <Field id="archive-template" label={t('globals.terms.template')}>
                  <select id="archive-template" name="archive_template_id" {...fieldAttrs({ kind: 'int', omitEmpty: '' })}>
                    <option value="">{t('admin.campaigns.archiveTemplateDefault')}</option>
                    {d.templates.map((tp) => <option value={String(tp.id)} selected={tp.id === campaign.archive_template_id}>{tp.name}</option>)}
                  </select>
                </Field>
              </div>
              <Field id="archive-meta" label={t('admin.campaigns.archiveMeta')} help={t('admin.campaigns.archiveMetaHelp')}>
                <textarea id="archive-meta" name="archive_meta" {...fieldAttrs({ kind: 'json' })} rows={4}>{JSON.stringify(campaign.archive_meta ?? {}, null, 2)}</textarea>
                <button type="button" class="secondary small fill" {...one.on('click', 'fillArchiveMeta')}>{t('admin.campaigns.archiveMetaFill')}</button>
              </Field>
              <PageData<ArchiveSample> id="archive-sample" value={ARCHIVE_SAMPLE} />
              <p class="alert" data-error-for="_form" role="alert"></p>
              <button type="submit" class="secondary">{t('globals.buttons.save')}</button>
            </form>
          </section>
        ) : null}
        <PreviewDialog t={t} />
      </div>
    ),
  });
}
