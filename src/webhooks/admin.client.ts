// The webhooks pages' scripts: the table's and an endpoint's actions (test, enable / disable,
// delete, rotate the secret, retry a delivery), the create / edit form with its events by group,
// a delivery's details (fetched when opened), and the dialog that shows a secret once.
import { api, ApiError, navigate, notifyError } from '../admin/client/api.ts';
import { clicked, confirmAction } from '../admin/client/dialog.ts';
import { clearErrors, FieldError, formJson, showError, type ApiFormData } from '../admin/client/form.ts';
import { component, readData } from '../admin/client/component.ts';

/** What an endpoint's buttons carry. */
export interface WebhookButton {
  id: string;
  name: string;
}

/** Enable / Disable: the state it sets. */
export interface EnableButton extends WebhookButton {
  enable: 'true' | 'false';
}

/** A delivery's buttons and its row: the endpoint and the delivery. */
export interface DeliveryData {
  webhook: string;
  delivery: string;
}

/** A group's fieldset in the events picker, and the group's "all" box in it. */
export interface EventGroupData {
  group: string;
}
export interface GroupAllBox {
  groupAll: string;
}

/** The form's choice of events on load: every event, or those ticked. */
export interface EventsMode {
  mode: 'all' | 'chosen';
}

/** A tab of the verification snippets. */
export interface SnippetTab {
  lang: string;
}

/** The page's place for a secret: the dialog's titles, one per reason it is shown. */
export interface SecretTexts {
  createdTitle: string;
  rotatedTitle: string;
}

/** What a delivery's details show of GET /api/webhooks/:id/deliveries/:delivery_id. */
interface DeliveryDetail {
  response_status: number | null;
  response_ms: number | null;
  response_body: string;
  error: string;
  request: { body: string; headers: Record<string, string> };
}

/** What creating, changing and rotating answer (the secret in the first and last only). */
interface WebhookAnswer {
  id: number;
  secret?: string;
}

/** A secret for the page's dialog (secretDialog) to show; after it, the page goes to `done` (null: reloads) with `flash`. */
interface SecretShown {
  secret: string;
  rotated: boolean;
  done: string | null;
  flash: string;
}

function showSecret(detail: SecretShown): void {
  window.dispatchEvent(new CustomEvent('webhook:secret', { detail }));
}

async function setEnabled(button: EnableButton): Promise<void> {
  const enable = button.enable === 'true';
  if (!enable && !(await confirmAction(`Disable the webhook "${button.name}"? Nothing is sent to it until it is enabled again; events meanwhile are not sent later.`, 'Disable'))) return;
  try {
    await api('PUT', `/api/webhooks/${button.id}`, { enabled: enable });
    navigate(null, `"${button.name}" ${enable ? 'enabled' : 'disabled'}`);
  } catch (err) {
    notifyError(err);
  }
}

async function deleteWebhook(button: WebhookButton, done: string | null): Promise<void> {
  if (!(await confirmAction(`Delete the webhook "${button.name}" and its deliveries? Deliveries not made yet are dropped.`, 'Delete'))) return;
  try {
    await api('DELETE', `/api/webhooks/${button.id}`);
    navigate(done, `"${button.name}" deleted`);
  } catch (err) {
    notifyError(err);
  }
}

/** Sends a test event now (the clicked button waits), then opens the endpoint's page showing how that delivery went. */
async function sendTest(button: HTMLElement): Promise<void> {
  const { id } = readData<WebhookButton>(button);
  button.setAttribute('disabled', '');
  try {
    const delivery = await api<{ id: number }>('POST', `/api/webhooks/${id}/test`);
    navigate(`/admin/settings/webhooks/${id}?tested=${delivery.id}#test-result`);
  } catch (err) {
    notifyError(err);
    button.removeAttribute('disabled');
  }
}

export const webhooksPage = component('webhooksPage', () => ({
  async sendTest(this: { $event: Event }) {
    await sendTest(clicked(this.$event));
  },
  async setEnabled(this: { $event: Event }) {
    await setEnabled(readData<EnableButton>(clicked(this.$event)));
  },
  async deleteOne(this: { $event: Event }) {
    await deleteWebhook(readData<WebhookButton>(clicked(this.$event)), null);
  },
}));

export const webhookPage = component('webhookPage', () => ({
  async sendTest(this: { $event: Event }) {
    await sendTest(clicked(this.$event));
  },
  async setEnabled(this: { $event: Event }) {
    await setEnabled(readData<EnableButton>(clicked(this.$event)));
  },
  async deleteOne(this: { $event: Event }) {
    await deleteWebhook(readData<WebhookButton>(clicked(this.$event)), '/admin/settings/webhooks');
  },
  async rotateSecret(this: { $event: Event }) {
    const { id, name } = readData<WebhookButton>(clicked(this.$event));
    if (!(await confirmAction(`Make a new signing secret for "${name}"? The current one keeps signing too, as a second signature, for 24 hours: time to put the new one on the receiver.`, 'Rotate the secret', false))) return;
    try {
      const { secret } = await api<WebhookAnswer>('POST', `/api/webhooks/${id}/secret`);
      showSecret({ secret: secret ?? '', rotated: true, done: null, flash: 'The secret was rotated' });
    } catch (err) {
      notifyError(err);
    }
  },
  async retry(this: { $event: Event }) {
    const { webhook, delivery } = readData<DeliveryData>(clicked(this.$event));
    try {
      await api('POST', `/api/webhooks/${webhook}/deliveries/${delivery}/retry`);
      navigate(null, 'The delivery will be sent again in a moment');
    } catch (err) {
      notifyError(err);
    }
  },
}));

interface RowState {
  open: boolean;
  loading: boolean;
  loaded: boolean;
  loadError: string;
  requestBody: string;
  requestHeaders: string;
  response: string;
  responseBody: string;
  error: string;
  $root: HTMLElement;
}

/** The JSON of a request body, indented for reading (as sent when it is not JSON). */
function indented(body: string): string {
  try {
    return JSON.stringify(JSON.parse(body), null, 2);
  } catch {
    return body;
  }
}

/** One delivery of the endpoint's page: its details, fetched when first opened. */
export const deliveryRow = component('deliveryRow', () => ({
  open: false,
  loading: false,
  loaded: false,
  loadError: '',
  requestBody: '',
  requestHeaders: '',
  response: '',
  responseBody: '',
  error: '',
  hasError(this: RowState) {
    return this.error !== '';
  },
  async toggle(this: RowState) {
    this.open = !this.open;
    if (!this.open || this.loaded || this.loading) return;
    const { webhook, delivery } = readData<DeliveryData>(this.$root);
    this.loading = true;
    this.loadError = '';
    try {
      const d = await api<DeliveryDetail>('GET', `/api/webhooks/${webhook}/deliveries/${delivery}`);
      this.requestBody = indented(d.request.body);
      this.requestHeaders = Object.entries(d.request.headers).map(([k, v]) => `${k}: ${v}`).join('\n');
      this.response = d.response_status === null ? 'No answer' : `HTTP ${d.response_status}${d.response_ms === null ? '' : ` in ${d.response_ms.toLocaleString('en-US')} ms`}`;
      this.responseBody = d.response_body || '(empty)';
      this.error = d.error;
      this.loaded = true;
    } catch (err) {
      this.loadError = err instanceof Error ? err.message : String(err);
    }
    this.loading = false;
  },
}));

/** The form's fields a refusal may name, each with how a message names it. */
const FIELD_NAMES: [id: string, named: RegExp][] = [
  ['webhook-name', /\bname\b/i],
  ['webhook-url', /\burl\b/i],
  ['webhook-description', /\bdescription\b/i],
  ['webhook-events', /\bevents?\b/i],
];

/**
 * A refusal from the API placed beside the field its message names first ("url: ... the host
 * name ..." belongs to the URL, though it also says "name").
 */
function placed(err: unknown): unknown {
  if (!(err instanceof ApiError)) return err;
  const found = FIELD_NAMES.map(([id, re]) => ({ id, at: err.message.search(re) })).filter((f) => f.at >= 0).sort((a, b) => a.at - b.at)[0];
  return found ? new FieldError(found.id, err.message) : err;
}

interface FormState {
  mode: EventsMode['mode'];
  busy: boolean;
  $root: HTMLElement;
  $event: Event;
  sync(): void;
}

/** The boxes of one event type each. */
const typeBoxes = (root: ParentNode) => [...root.querySelectorAll<HTMLInputElement>('input[name="events"]')];

/**
 * A webhook's form: name, URL, description, enabled, and its events, every one ("*") or those
 * ticked by group. A new webhook's secret is shown once, then its page opens.
 */
export const webhookForm = component('webhookForm', () => ({
  mode: 'all' as EventsMode['mode'],
  busy: false,
  init(this: FormState) {
    this.mode = readData<EventsMode>(this.$root).mode === 'chosen' ? 'chosen' : 'all';
    this.sync();
  },
  chosen(this: FormState) {
    return this.mode === 'chosen';
  },
  /** A group's "all" box ticks or clears its types. */
  toggleGroup(this: FormState) {
    const box = this.$event.target as HTMLInputElement;
    const group = box.closest('fieldset');
    if (group) typeBoxes(group).forEach((el) => (el.checked = box.checked));
  },
  /** Each group's "all" box: ticked when every type of the group is, mixed when some are. */
  sync(this: FormState) {
    for (const group of this.$root.querySelectorAll<HTMLFieldSetElement>('fieldset[data-group]')) {
      const boxes = typeBoxes(group);
      const all = group.querySelector<HTMLInputElement>('input[data-group-all]');
      if (!all) continue;
      const on = boxes.filter((b) => b.checked).length;
      all.checked = on === boxes.length;
      all.indeterminate = on > 0 && on < boxes.length;
    }
  },
  async submit(this: FormState) {
    this.$event.preventDefault();
    const form = this.$root as HTMLFormElement;
    clearErrors(form);
    this.busy = true;
    try {
      const body = formJson(form);
      delete body.events_mode;
      body.events = this.mode === 'all' ? ['*'] : typeBoxes(form).filter((b) => b.checked).map((b) => b.value);
      const to = readData<ApiFormData>(form);
      const saved = await api<WebhookAnswer>(to.method ?? 'POST', to.action ?? '', body);
      const done = (to.done ?? '').replace('{id}', String(saved.id));
      if (saved.secret) showSecret({ secret: saved.secret, rotated: false, done, flash: to.flash ?? '' });
      else navigate(done, to.flash);
    } catch (err) {
      showError(form, placed(err));
      this.busy = false;
    }
  },
}));

interface SecretState extends SecretShown {
  notice: string;
  $root: HTMLElement;
  $event: Event;
}

/**
 * The dialog that shows a secret once (a new webhook's, or a rotated one) with the code to verify
 * signatures by it. Closing it (the button, Escape) goes on: the secret is not shown again.
 */
export const secretDialog = component('secretDialog', () => ({
  secret: '',
  rotated: false,
  done: null as string | null,
  flash: '',
  notice: '',
  init(this: SecretState) {
    const dialog = this.$root as HTMLDialogElement;
    window.addEventListener('webhook:secret', (e) => {
      Object.assign(this, (e as CustomEvent<SecretShown>).detail);
      dialog.showModal();
    });
    // The shell's notices lie under the modal dialog: a copy button's "Copied" is said in it too.
    window.addEventListener('admin:notify', (e) => {
      if (dialog.open) this.notice = (e as CustomEvent<{ text: string }>).detail.text;
    });
  },
  title(this: SecretState) {
    const texts = readData<SecretTexts>(this.$root);
    return (this.rotated ? texts.rotatedTitle : texts.createdTitle) ?? '';
  },
  selectLang(this: SecretState) {
    const lang = readData<SnippetTab>(clicked(this.$event)).lang;
    for (const tab of this.$root.querySelectorAll<HTMLElement>('[role=tab]')) tab.setAttribute('aria-selected', String(readData<SnippetTab>(tab).lang === lang));
    for (const panel of this.$root.querySelectorAll<HTMLElement>('[role=tabpanel]')) panel.hidden = readData<SnippetTab>(panel).lang !== lang;
  },
  finish(this: SecretState) {
    (this.$root as HTMLDialogElement).close();
  },
  closed(this: SecretState) {
    navigate(this.done, this.flash);
  },
}));
