// The admin's webhooks pages, under Settings: the endpoints (/admin/settings/webhooks), a form for
// a new one (/new) or a change (/:id/edit), and an endpoint's page (/:id) with its deliveries.
// Reads go through the webhooks service with the signed-in user; every change is a call to /api
// from the pages' script (admin.client.ts). The pages hold no secret: a new or rotated one reaches
// the browser only as the answer to the call that makes it, and the dialog shows it once.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { bind, data } from '../admin/bind.ts';
import { CopyButton, Field, fieldAttrs, formatNumber, PageHead, Pager, Tag, Time, apiTarget, withQuery } from '../admin/components.tsx';
import type { Translate } from '../admin/i18n.ts';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { parseAdminPaging } from '../core/paging.ts';
import { EVENT_TYPES, type EventTypeInfo } from '../events/types.ts';
import { HelpLink } from '../help/link.tsx';
import { accessOf, routesFor, type Input } from '../http/routes.ts';
import { pathId, q, z } from '../http/schema.ts';
import type {
  DeliveryData, deliveryRow as rowScript, EnableButton, EventGroupData, EventsMode, GroupAllBox, secretDialog as secretScript, SecretTexts, SnippetTab,
  WebhookButton, webhookForm as formScript, webhookPage as pageScript, webhooksPage as tableScript,
} from './admin.client.ts';
import { WEBHOOK_ROUTES } from './routes.ts';
import { DELIVERY_STATUSES, type Delivery, type DeliveryStatus, type Webhook, type WebhookService } from './service.ts';
import { SECRET_ENV, VERIFY_SNIPPETS } from './snippets.ts';

/** What the webhooks pages use. */
interface Deps extends AdminDeps {
  webhooks: WebhookService;
}

const route = routesFor<Deps>();
// Static paths before `:id`.
export const WEBHOOK_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/settings/webhooks', access: accessOf(WEBHOOK_ROUTES, 'GET', '/webhooks'), handler: webhooksPage, raw: 'text/html', summary: 'The webhooks: where the change log\'s events are sent' }),
  route({ method: 'GET', path: '/admin/settings/webhooks/new', access: accessOf(WEBHOOK_ROUTES, 'POST', '/webhooks'), handler: newWebhookPage, raw: 'text/html', summary: 'A form for a new webhook' }),
  route({ method: 'GET', path: '/admin/settings/webhooks/:id', access: accessOf(WEBHOOK_ROUTES, 'GET', '/webhooks/:id'), handler: webhookPage, query: webhookPageQuery, raw: 'text/html', summary: 'One webhook and its deliveries' }),
  route({ method: 'GET', path: '/admin/settings/webhooks/:id/edit', access: accessOf(WEBHOOK_ROUTES, 'PUT', '/webhooks/:id'), handler: editWebhookPage, raw: 'text/html', summary: 'A form to change a webhook' }),
];

/** The page's filters are read leniently: a value it does not know is no filter. */
function webhookPageQuery() {
  const str = () => q.first({ type: 'string' }, (v) => v?.trim() ?? '');
  return z.object({ status: str(), page: str(), per_page: str(), tested: str() });
}

const table = bind<typeof tableScript>('webhooksPage');
const one = bind<typeof pageScript>('webhookPage');
const form = bind<typeof formScript>('webhookForm');
const row = bind<typeof rowScript>('deliveryRow');
const secret = bind<typeof secretScript>('secretDialog');

const LIST_PATH = '/admin/settings/webhooks';
/** The types a webhook may choose: all but `webhook.test`, which only "Send test event" sends. */
const CHOOSABLE = (Object.entries(EVENT_TYPES) as [string, EventTypeInfo][]).filter(([, info]) => info.group !== 'webhooks');
/** The picker's groups, in the order a reader looks for them. */
const GROUPS: EventTypeInfo['group'][] = ['subscribers', 'subscriptions', 'lists', 'campaigns', 'tracking', 'bounces', 'imports'];
const receivesAll = (w: Webhook) => w.events.includes('*');

/** A description from types.ts: its `code` spans as code. */
function Described({ text }: { text: string }): JSX.Element {
  return <>{text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? <code>{part}</code> : part))}</>;
}

function Events({ webhook, t }: { webhook: Webhook; t: Translate }): JSX.Element {
  if (receivesAll(webhook)) return <Tag tone="accent">{t('admin.webhooks.allEvents')}</Tag>;
  return <span title={webhook.events.join(', ')}>{t('admin.webhooks.eventCount', { n: formatNumber(webhook.events.length) })}</span>;
}

function Status({ webhook, t }: { webhook: Webhook; t: Translate }): JSX.Element {
  if (webhook.enabled) return <Tag tone="accent">{t('admin.webhooks.enabled')}</Tag>;
  return (
    <>
      <Tag tone="danger">{t('admin.webhooks.disabled')}</Tag>
      {webhook.disabled_reason ? <div class="small danger-text">{webhook.disabled_reason}</div> : null}
    </>
  );
}

const DELIVERY_TONES: Record<DeliveryStatus, 'accent' | 'danger' | undefined> = { pending: undefined, delivered: 'accent', retrying: 'danger', failed: 'danger' };

function DeliveryTag({ status, t }: { status: DeliveryStatus; t: Translate }): JSX.Element {
  return <Tag tone={DELIVERY_TONES[status]}>{t(`admin.webhooks.status.${status}`)}</Tag>;
}

function LastDelivery({ webhook, t }: { webhook: Webhook; t: Translate }): JSX.Element {
  if (!webhook.last_delivery_at || !webhook.last_delivery_status) return <span class="muted">{t('admin.webhooks.never')}</span>;
  return <><Time value={webhook.last_delivery_at} /> <DeliveryTag status={webhook.last_delivery_status} t={t} /></>;
}

/** The share of failed attempts, as a percentage; a dash before the first attempt. */
function FailureRate({ webhook }: { webhook: Webhook }): JSX.Element {
  if (webhook.failure_rate === null) return <span class="muted">—</span>;
  const pct = webhook.failure_rate * 100;
  return <span class={pct >= 50 ? 'danger-text' : undefined}>{pct > 0 && pct < 1 ? '<1' : formatNumber(Math.round(pct))}%</span>;
}

/**
 * Test, Enable / Disable and Delete of an endpoint: links on the table's row (`link`), buttons in
 * its page's heading.
 */
function Actions({ webhook, view, on, look }: { webhook: Webhook; view: AdminView; on: typeof table | typeof one; look: 'link' | 'secondary small' }): JSX.Element {
  const { t } = view;
  const { id, name } = webhook;
  const named = data<WebhookButton>({ id, name });
  return (
    <>
      {view.may('POST /api/webhooks/:id/test', { id }) ? <button type="button" class={look} {...named} {...on.on('click', 'sendTest')}>{t('admin.webhooks.sendTest')}</button> : null}
      {view.may('PUT /api/webhooks/:id', { id }) ? (
        <button type="button" class={look} {...data<EnableButton>({ id, name, enable: webhook.enabled ? 'false' : 'true' })} {...on.on('click', 'setEnabled')}>
          {webhook.enabled ? t('globals.buttons.disable') : t('globals.buttons.enable')}
        </button>
      ) : null}
      {view.may('DELETE /api/webhooks/:id', { id }) ? <button type="button" class={look} {...named} {...on.on('click', 'deleteOne')}>{t('globals.buttons.delete')}</button> : null}
    </>
  );
}

function NewButton({ view }: { view: AdminView }): JSX.Element | null {
  return view.may('GET /admin/settings/webhooks/new') ? <a class="button" href={`${LIST_PATH}/new`}>+ {view.t('admin.webhooks.new')}</a> : null;
}

function webhooksPage(c: AdminContext, s: Deps) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const hooks = s.webhooks.list(actor);
  return adminPage(c, s, {
    title: t('admin.webhooks.title'),
    body: (
      <div {...table.root()}>
        <PageHead title={t('admin.webhooks.title')} count={hooks.length}>
          <HelpLink topic="webhooks" t={t} />
          {hooks.length ? <NewButton view={view} /> : null}
        </PageHead>
        {hooks.length === 0 ? (
          <section class="card empty-state">
            <p>{t('admin.webhooks.what')}</p>
            <NewButton view={view} />
          </section>
        ) : (
          <>
            <p class="help">{t('admin.webhooks.what')}</p>
            <div class="table-wrap">
              <table class="cards">
                <thead>
                  <tr>
                    <th scope="col">{t('globals.fields.name')}</th>
                    <th scope="col">{t('admin.webhooks.url')}</th>
                    <th scope="col">{t('admin.webhooks.events')}</th>
                    <th scope="col">{t('globals.fields.status')}</th>
                    <th scope="col">{t('admin.webhooks.lastDelivery')}</th>
                    <th scope="col" class="num">{t('admin.webhooks.failureRate')}</th>
                    <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
                  </tr>
                </thead>
                <tbody>
                  {hooks.map((w) => (
                    <tr>
                      <td>
                        <a href={`${LIST_PATH}/${w.id}`}><strong>{w.name}</strong></a>
                        {w.description ? <div class="muted small">{w.description}</div> : null}
                      </td>
                      <td class="break" data-label={t('admin.webhooks.url')}><code>{w.url}</code></td>
                      <td class="nowrap" data-label={t('admin.webhooks.events')}><Events webhook={w} t={t} /></td>
                      <td><Status webhook={w} t={t} /></td>
                      <td data-label={t('admin.webhooks.lastDelivery')}><LastDelivery webhook={w} t={t} /></td>
                      <td class="num" data-label={t('admin.webhooks.failureRate')}><FailureRate webhook={w} /></td>
                      <td>
                        <div class="row-actions">
                          {view.may('GET /admin/settings/webhooks/:id/edit', { id: w.id }) ? <a href={`${LIST_PATH}/${w.id}/edit`}>{t('globals.buttons.edit')}</a> : null}
                          <Actions webhook={w} view={view} on={table} look="link" />
                        </div>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          </>
        )}
      </div>
    ),
  });
}

// ---- the form -----------------------------------------------------------------------------------

/** The events by group, each with its description; a group's box ticks all of it. */
function EventPicker({ webhook, t }: { webhook: Webhook | null; t: Translate }): JSX.Element {
  const chosen = new Set(webhook && !receivesAll(webhook) ? webhook.events : []);
  return (
    <div class="perm-groups event-groups" {...form.show('chosen()')}>
      {GROUPS.map((group) => (
        <fieldset {...data<EventGroupData>({ group })} {...form.on('change', 'sync')}>
          <legend>{t(`admin.webhooks.group.${group}`)}</legend>
          <label class="check-label all"><input type="checkbox" {...data<GroupAllBox>({ groupAll: group })} {...form.on('change', 'toggleGroup')} /> {t('admin.webhooks.groupAll', { group: t(`admin.webhooks.group.${group}`) })}</label>
          {CHOOSABLE.filter(([, info]) => info.group === group).map(([type, info]) => (
            <div class="event-type">
              <label class="check-label">
                <input type="checkbox" name="events" value={type} checked={chosen.has(type)} aria-describedby={`event-${type.replace('.', '-')}-help`} />
                <span class="choice-text"><code>{type}</code> {info.volume === 'single' ? null : <Tag>{t(`admin.webhooks.volume.${info.volume}`)}</Tag>}</span>
              </label>
              <p class="help" id={`event-${type.replace('.', '-')}-help`}><Described text={info.description} /></p>
            </div>
          ))}
        </fieldset>
      ))}
    </div>
  );
}

function WebhookForm({ webhook, view }: { webhook: Webhook | null; view: AdminView }): JSX.Element {
  const { t } = view;
  const mode: EventsMode['mode'] = webhook && !receivesAll(webhook) ? 'chosen' : 'all';
  const target = webhook
    ? apiTarget('PUT /api/webhooks/:id', { id: webhook.id }, { done: `${LIST_PATH}/${webhook.id}`, flash: t('admin.saved') })
    : apiTarget('POST /api/webhooks', {}, { done: `${LIST_PATH}/{id}`, flash: t('admin.webhooks.created') });
  return (
    <form class="card" id="webhook-form" novalidate {...form.root()} {...form.on('submit', 'submit')} {...target} {...data<EventsMode>({ mode })}>
      <Field id="webhook-name" label={t('globals.fields.name')}>
        <input type="text" id="webhook-name" name="name" value={webhook?.name ?? ''} required maxlength={200} autocomplete="off" />
      </Field>
      <Field id="webhook-url" label={t('admin.webhooks.url')} help={t('admin.webhooks.urlHelp')}>
        <input type="url" id="webhook-url" name="url" value={webhook?.url ?? ''} required maxlength={2000} placeholder="https://example.com/listmgr-webhook" autocomplete="off" spellcheck={false} />
      </Field>
      <Field id="webhook-description" label={t('globals.fields.description')}>
        <textarea id="webhook-description" name="description" rows={2}>{webhook?.description ?? ''}</textarea>
      </Field>
      <fieldset class="plain">
        <legend>{t('admin.webhooks.events')}</legend>
        <label class="check-label"><input type="radio" name="events_mode" value="all" {...form.model('mode')} checked={mode === 'all'} /> {t('admin.webhooks.eventsAll')}</label>
        <label class="check-label"><input type="radio" name="events_mode" value="chosen" id="webhook-events" {...form.model('mode')} checked={mode === 'chosen'} /> {t('admin.webhooks.eventsChosen')}</label>
        <p class="field-error" data-error-for="webhook-events" role="alert"></p>
        <p class="help" {...form.show('chosen()')}>{t('admin.webhooks.volumeHelp')}</p>
        <EventPicker webhook={webhook} t={t} />
      </fieldset>
      <div class="field">
        <label class="check-label"><input type="checkbox" name="enabled" value="true" {...fieldAttrs({ kind: 'bool' })} checked={webhook?.enabled ?? true} /> {t('admin.webhooks.enabledLabel')}</label>
        <p class="help">{t('admin.webhooks.enabledHelp')}</p>
      </div>
      <p class="alert" data-error-for="_form" role="alert"></p>
      <div class="actions">
        <button type="submit" {...form.attr('disabled', 'busy')}>{webhook ? t('globals.buttons.saveChanges') : t('admin.webhooks.new')}</button>
        <a class="button secondary" href={webhook ? `${LIST_PATH}/${webhook.id}` : LIST_PATH}>{t('globals.buttons.cancel')}</a>
      </div>
    </form>
  );
}

/** The dialog that shows a secret once, with the code that verifies signatures by it (secretDialog). */
function SecretDialog({ t }: { t: Translate }): JSX.Element {
  return (
    <dialog class="secret-dialog" aria-labelledby="secret-title" {...secret.root()} {...secret.on('close', 'closed')}
      {...data<SecretTexts>({ createdTitle: t('admin.webhooks.secretCreated'), rotatedTitle: t('admin.webhooks.secretRotated') })}>
      <h2 id="secret-title" {...secret.text('title()')}></h2>
      <p class="banner warn">{t('admin.webhooks.secretOnce')}</p>
      <p {...secret.show('rotated')}>{t('admin.webhooks.secretOverlap')}</p>
      <label for="webhook-secret">{t('admin.webhooks.secret')}</label>
      <div class="secret-line">
        <input type="text" id="webhook-secret" class="mono" readonly {...secret.attr('value', 'secret')} />
        <CopyButton value={secret.attr('data-copy', 'secret')} label={t('admin.webhooks.secret')} t={t} />
      </div>
      <h3>{t('admin.webhooks.verifyTitle')}</h3>
      <p class="help"><Described text={t('admin.webhooks.verifyHelp', { env: SECRET_ENV })} /></p>
      <div class="settings-tabs" role="tablist" aria-label={t('admin.webhooks.verifyTitle')}>
        {VERIFY_SNIPPETS.map((s, i) => (
          <button type="button" role="tab" id={`snippet-tab-${s.lang}`} aria-controls={`snippet-${s.lang}`} aria-selected={i === 0 ? 'true' : 'false'} {...data<SnippetTab>({ lang: s.lang })} {...secret.on('click', 'selectLang')}>{s.label}</button>
        ))}
      </div>
      {VERIFY_SNIPPETS.map((s, i) => (
        <div role="tabpanel" id={`snippet-${s.lang}`} aria-labelledby={`snippet-tab-${s.lang}`} {...data<SnippetTab>({ lang: s.lang })} hidden={i > 0}>
          <pre class="snippet" tabindex={0}><code>{s.verify}{s.usage}</code></pre>
          <CopyButton value={`${s.verify}${s.usage}`} label={s.label} t={t} />
        </div>
      ))}
      <div class="actions">
        <button type="button" {...secret.on('click', 'finish')}>{t('admin.webhooks.secretDone')}</button>
        <span class="copy-notice" role="status" {...secret.text('notice')}></span>
      </div>
    </dialog>
  );
}

/** The form's page: a new webhook's (with the dialog for its secret) or a change's. */
function formPage(c: AdminContext, s: Deps, webhook: Webhook | null) {
  const view = adminView(c, s);
  const { t } = view;
  const title = webhook ? t('admin.webhooks.editTitle', { name: webhook.name }) : t('admin.webhooks.new');
  return adminPage(c, s, {
    title,
    body: (
      <>
        <a class="back" href={webhook ? `${LIST_PATH}/${webhook.id}` : LIST_PATH}>← {webhook ? webhook.name : t('admin.webhooks.title')}</a>
        <PageHead title={title}><HelpLink topic="webhooks" t={t} /></PageHead>
        <WebhookForm webhook={webhook} view={view} />
        {webhook ? null : <SecretDialog t={t} />}
      </>
    ),
  });
}

function newWebhookPage(c: AdminContext, s: Deps) {
  return formPage(c, s, null);
}

function editWebhookPage(c: AdminContext, s: Deps) {
  return formPage(c, s, s.webhooks.get(adminView(c, s).actor, pathId(c)));
}

// ---- an endpoint and its deliveries ------------------------------------------------------------

type PageQuery = Input<undefined, ReturnType<typeof webhookPageQuery>>['query'];

/** How the test event sent from the table or this page went (`?tested=<delivery id>`). */
function TestResult({ delivery, t }: { delivery: Delivery; t: Translate }): JSX.Element {
  const ok = delivery.status === 'delivered';
  const answer = delivery.response_status === null ? '' : t('admin.webhooks.answered', { status: delivery.response_status, ms: formatNumber(delivery.response_ms ?? 0) });
  return (
    <section class={ok ? 'banner' : 'banner warn'} id="test-result" role="status" aria-labelledby="test-result-title">
      <h2 id="test-result-title">{ok ? t('admin.webhooks.testDelivered') : t('admin.webhooks.testFailed')}</h2>
      {answer ? <p>{answer}</p> : null}
      {delivery.error ? <p class="danger-text">{delivery.error}</p> : null}
      {ok ? null : <p>{t(delivery.status === 'failed' ? 'admin.webhooks.testGaveUp' : 'admin.webhooks.testWillRetry')}</p>}
    </section>
  );
}

function Facts({ webhook, t, query }: { webhook: Webhook; t: Translate; query: URLSearchParams }): JSX.Element {
  const path = `${LIST_PATH}/${webhook.id}`;
  return (
    <section class="card">
      <dl class="facts">
        <dt>{t('admin.webhooks.url')}</dt>
        <dd><code>{webhook.url}</code> <CopyButton value={webhook.url} label={t('admin.webhooks.url')} t={t} /></dd>
        {webhook.description ? <><dt>{t('globals.fields.description')}</dt><dd>{webhook.description}</dd></> : null}
        <dt>{t('globals.fields.status')}</dt>
        <dd><Status webhook={webhook} t={t} /></dd>
        <dt>{t('admin.webhooks.events')}</dt>
        <dd>{receivesAll(webhook) ? <Tag tone="accent">{t('admin.webhooks.allEvents')}</Tag> : webhook.events.map((e) => <Tag>{e}</Tag>)}</dd>
        <dt>{t('admin.webhooks.lastDelivery')}</dt>
        <dd><LastDelivery webhook={webhook} t={t} /></dd>
        <dt>{t('admin.webhooks.failureRate')}</dt>
        <dd><FailureRate webhook={webhook} /> <span class="muted small">{t('admin.webhooks.failureRateHelp')}</span></dd>
        <dt>{t('admin.webhooks.deliveries')}</dt>
        <dd class="inline">
          {DELIVERY_STATUSES.map((st) => <a href={withQuery(path, query, { status: st, page: null, tested: null })}>{t(`admin.webhooks.status.${st}`)}: {formatNumber(webhook.counts[st] ?? 0)}</a>)}
        </dd>
        <dt>{t('globals.fields.uuid')}</dt>
        <dd><code>{webhook.uuid}</code></dd>
        <dt>{t('globals.fields.createdAt')}</dt>
        <dd><Time value={webhook.created_at} /></dd>
      </dl>
    </section>
  );
}

/** One delivery: its row, and below it the details the script fetches when opened. */
function DeliveryRows({ d, webhook, view }: { d: Delivery; webhook: Webhook; view: AdminView }): JSX.Element {
  const { t } = view;
  const ids = { webhook: webhook.id, delivery: d.id };
  const retries = (d.status === 'failed' || d.status === 'retrying') && view.may('POST /api/webhooks/:id/deliveries/:delivery_id/retry', { id: webhook.id, delivery_id: d.id });
  return (
    <tbody {...row.root()} {...data<DeliveryData>(ids)}>
      <tr>
        <td class="break"><code>{d.type}</code><div class="muted small">{t('admin.webhooks.eventNo', { id: d.event_id })} · <Time value={d.created_at} /></div></td>
        <td><DeliveryTag status={d.status} t={t} />{d.attempts > 1 ? <div class="muted small">{t('admin.webhooks.attempts', { n: d.attempts })}</div> : null}</td>
        <td class="hide-narrow">{d.response_status === null ? <span class="muted">—</span> : <>{d.response_status} <span class="muted small">{formatNumber(d.response_ms ?? 0)} ms</span></>}</td>
        <td class="hide-narrow">{d.status === 'delivered' ? <Time value={d.delivered_at} /> : d.next_attempt_at && d.status !== 'failed' ? <>{t('admin.webhooks.next')} <Time value={d.next_attempt_at} /></> : <Time value={d.attempted_at} />}</td>
        <td>
          <div class="row-actions">
            <button type="button" class="link" aria-controls={`delivery-${d.id}`} aria-expanded="false" {...row.attr('aria-expanded', 'open')} {...row.on('click', 'toggle')}>
              <span {...row.show('!open')}>{t('admin.webhooks.details')}</span><span {...row.show('open')} x-cloak>{t('admin.webhooks.hideDetails')}</span>
            </button>
            {retries ? <button type="button" class="link" {...data<DeliveryData>(ids)} {...one.on('click', 'retry')}>{t('admin.webhooks.retry')}</button> : null}
          </div>
        </td>
      </tr>
      <tr id={`delivery-${d.id}`} class="delivery-detail" {...row.show('open')} x-cloak>
        <td colspan={5}>
          <p class="muted" {...row.show('loading')}>{t('admin.webhooks.loading')}</p>
          <p class="alert" role="alert" {...row.text('loadError')}></p>
          <div class="delivery-parts" {...row.show('loaded')}>
            <div>
              <h3>{t('admin.webhooks.request')}</h3>
              <pre {...row.text('requestHeaders')}></pre>
              <pre {...row.text('requestBody')}></pre>
            </div>
            <div>
              <h3>{t('admin.webhooks.response')}</h3>
              <p {...row.text('response')}></p>
              <p class="danger-text" {...row.show('hasError()')} {...row.text('error')}></p>
              <pre {...row.text('responseBody')}></pre>
            </div>
          </div>
        </td>
      </tr>
    </tbody>
  );
}

function Deliveries({ webhook, view, p, query, s }: { webhook: Webhook; view: AdminView; p: PageQuery; query: URLSearchParams; s: Deps }): JSX.Element {
  const { t, actor } = view;
  const path = `${LIST_PATH}/${webhook.id}`;
  const status = (DELIVERY_STATUSES as readonly string[]).includes(p.status) ? (p.status as DeliveryStatus) : undefined;
  const paging = parseAdminPaging(p);
  const { results, total } = s.webhooks.deliveries(actor, webhook.id, status, paging);
  return (
    <section aria-labelledby="deliveries-title">
      <h2 id="deliveries-title">{t('admin.webhooks.deliveries')} <span class="muted small">({formatNumber(total)})</span></h2>
      <form class="toolbar" method="get" action={path}>
        <div>
          <label for="delivery-status">{t('globals.fields.status')}</label>
          <select id="delivery-status" name="status">
            <option value="">{t('admin.webhooks.status.all')}</option>
            {DELIVERY_STATUSES.map((st) => <option value={st} selected={st === status}>{t(`admin.webhooks.status.${st}`)}</option>)}
          </select>
        </div>
        <button type="submit" class="secondary">{t('admin.filter')}</button>
      </form>
      <div class="table-wrap">
        <table class="deliveries">
          <thead>
            <tr>
              <th scope="col">{t('admin.webhooks.event')}</th>
              <th scope="col">{t('globals.fields.status')}</th>
              <th scope="col" class="hide-narrow">{t('admin.webhooks.response')}</th>
              <th scope="col" class="hide-narrow">{t('admin.webhooks.when')}</th>
              <th scope="col"><span class="visually-hidden">{t('admin.actions')}</span></th>
            </tr>
          </thead>
          {results.length === 0 ? (
            <tbody><tr><td colspan={5} class="empty">{status ? t('admin.webhooks.noDeliveriesOf', { status: t(`admin.webhooks.status.${status}`) }) : t('admin.webhooks.noDeliveries')}</td></tr></tbody>
          ) : results.map((d) => <DeliveryRows d={d} webhook={webhook} view={view} />)}
        </table>
      </div>
      <Pager page={paging.page} perPage={paging.perPage} total={total} path={path} query={query} t={t} />
    </section>
  );
}

/** A tested delivery of this endpoint, when the page was opened to show one. */
function tested(s: Deps, view: AdminView, webhook: Webhook, id: string): Delivery | null {
  if (!/^\d{1,15}$/.test(id)) return null;
  try {
    return s.webhooks.delivery(view.actor, webhook.id, Number(id));
  } catch {
    return null;
  }
}

function webhookPage(c: AdminContext, s: Deps, { query: p }: Input<undefined, ReturnType<typeof webhookPageQuery>>) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const webhook = s.webhooks.get(actor, pathId(c));
  const query = new URL(c.req.url).searchParams;
  const test = tested(s, view, webhook, p.tested);
  const rotates = view.may('POST /api/webhooks/:id/secret', { id: webhook.id });
  return adminPage(c, s, {
    title: webhook.name,
    body: (
      <div {...one.root()}>
        <a class="back" href={LIST_PATH}>← {t('admin.webhooks.title')}</a>
        <PageHead title={webhook.name}>
          <div class="head-actions">
            <HelpLink topic="webhooks" t={t} />
            {view.may('GET /admin/settings/webhooks/:id/edit', { id: webhook.id }) ? <a class="button secondary small" href={`${LIST_PATH}/${webhook.id}/edit`}>{t('globals.buttons.edit')}</a> : null}
            {rotates ? <button type="button" class="secondary small" {...data<WebhookButton>({ id: webhook.id, name: webhook.name })} {...one.on('click', 'rotateSecret')}>{t('admin.webhooks.rotate')}</button> : null}
            <Actions webhook={webhook} view={view} on={one} look="secondary small" />
          </div>
        </PageHead>
        {test ? <TestResult delivery={test} t={t} /> : null}
        <Facts webhook={webhook} t={t} query={query} />
        <Deliveries webhook={webhook} view={view} p={p} query={query} s={s} />
        {rotates ? <SecretDialog t={t} /> : null}
      </div>
    ),
  });
}
