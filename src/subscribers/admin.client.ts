// The subscribers pages' behaviour: bulk actions on the ticked rows or on every subscriber the
// page's query matches (list changes in a <dialog>, blocklist, delete), deleting one row, and on
// a subscriber's page the opt-in mail, deleting its bounces and deleting it. Every change goes
// through /api and asks first, with the count it will touch.
import { api, ApiError, navigate, notify, notifyError, pageData, writeThenReload } from '../admin/client/api.ts';
import { confirmAction } from '../admin/client/dialog.ts';
import { selection, type Selection } from '../admin/client/selection.ts';
import { component, readData } from '../admin/client/component.ts';

/** The page's query, as the API's by-query changes take it (the page's `subscribers-query` data). */
export interface SubscribersQuery {
  search: string;
  query: string;
  list_ids: number[];
  subscription_status: string | null;
}

/** What a subscriber's buttons carry (a row's Delete; the root of a subscriber's page). */
export interface SubscriberButton {
  id: string;
  email: string;
}

/** What a segment example's button carries: its expression. */
export interface QueryExample {
  example: string;
}

/** What the button deleting a subscriber's bounces carries: how many there are. */
export interface BouncesButton {
  count: string;
}

type Table = Selection & ReturnType<typeof selection> & {
  $root: HTMLElement;
  listAction: string;
};

/** The bulk "manage lists" dialog (one per page). */
function listsDialog(): HTMLDialogElement {
  return document.getElementById('lists-dialog') as HTMLDialogElement;
}

function plural(n: number): string {
  return `${n.toLocaleString('en-US')} subscriber${n === 1 ? '' : 's'}`;
}

function byQuery(): Record<string, unknown> {
  const q = pageData<SubscribersQuery>('subscribers-query');
  const body: Record<string, unknown> = { list_ids: q.list_ids };
  if (q.subscription_status) body.subscription_status = q.subscription_status;
  // No search or segment: the selection is everyone the list filter (if any) lets through.
  if (!q.search && !q.query.trim()) body.all = true;
  if (q.search) body.search = q.search;
  if (q.query.trim()) body.query = q.query;
  return body;
}

export const subscribers = component('subscribers', () => ({
  ...selection(),
  listAction: 'add',
  init(this: Table) {
    this.initSelection();
  },
  /** An example under the segment box: its expression replaces the box's text. */
  useExample(this: Table, e: Event) {
    const box = document.getElementById('query') as HTMLTextAreaElement;
    box.value = readData<QueryExample>(e.currentTarget as HTMLElement).example;
    box.focus();
  },
  async deleteOne(this: Table, e: Event) {
    const sub = readData<SubscriberButton>(e.currentTarget as HTMLElement);
    if (!(await confirmAction(`Delete ${sub.email}?`, 'Delete'))) return;
    await writeThenReload(() => api('DELETE', `/api/subscribers/${sub.id}`), 'Subscriber deleted');
  },
  async deleteSelected(this: Table) {
    const n = this.selectedCount();
    if (!(await confirmAction(`Delete ${plural(n)}${this.matching ? ' matching this query' : ''}?`, 'Delete'))) return;
    await writeThenReload(
      () => (this.matching ? api('POST', '/api/subscribers/query/delete', byQuery()) : api('DELETE', `/api/subscribers?${this.selectedIds().map((id) => `id=${id}`).join('&')}`)),
      `${plural(n)} deleted`,
    );
  },
  async blocklistSelected(this: Table) {
    const n = this.selectedCount();
    if (!(await confirmAction(`Blocklist ${plural(n)}${this.matching ? ' matching this query' : ''}? They will be unsubscribed from every list.`, 'Blocklist'))) return;
    await writeThenReload(
      () => (this.matching ? api('PUT', '/api/subscribers/query/blocklist', byQuery()) : api('PUT', '/api/subscribers/blocklist', { ids: this.selectedIds() })),
      `${plural(n)} blocklisted`,
    );
  },
  /** Whether the list change adds (the new subscriptions' status is asked only then). */
  adding(this: Table) {
    return this.listAction === 'add';
  },
  openLists() {
    const dialog = listsDialog();
    dialog.querySelector<HTMLElement>('[data-error-for="_form"]')!.textContent = '';
    dialog.showModal();
  },
  closeLists() {
    listsDialog().close();
  },
  async applyLists(this: Table, e: Event) {
    const form = e.target as HTMLFormElement;
    const alert = form.querySelector<HTMLElement>('[data-error-for="_form"]')!;
    const data = new FormData(form);
    const targets = data.getAll('target_list_ids').map(Number);
    if (!targets.length) {
      alert.textContent = 'Choose at least one list.';
      return;
    }
    const action = String(data.get('action'));
    const change: Record<string, unknown> = { action, target_list_ids: targets };
    if (action === 'add') change.status = String(data.get('status'));
    const n = this.selectedCount();
    const verb = action === 'add' ? 'Add' : action === 'remove' ? 'Remove' : 'Unsubscribe';
    const lists = `${targets.length} list${targets.length === 1 ? '' : 's'}`;
    listsDialog().close();
    if (!(await confirmAction(`${verb} ${plural(n)} ${action === 'add' ? 'to' : 'from'} ${lists}?`, verb, action !== 'add'))) return;
    try {
      if (this.matching) await api('PUT', '/api/subscribers/query/lists', { ...byQuery(), ...change });
      else await api('PUT', '/api/subscribers/lists', { ids: this.selectedIds(), ...change });
      navigate(null, 'The list change was applied.');
    } catch (err) {
      alert.textContent = err instanceof ApiError ? err.message : String(err);
      listsDialog().showModal();
    }
  },
}));

type One = { $root: HTMLElement };

/** The subscriber of the page: its root carries the id and e-mail. */
function subscriberOf(page: One): SubscriberButton {
  return readData<SubscriberButton>(page.$root);
}

export const subscriber = component('subscriber', () => ({
  async sendOptin(this: One) {
    const { id } = subscriberOf(this);
    try {
      await api('POST', `/api/subscribers/${id}/optin`);
      notify('Opt-in confirmation sent');
    } catch (err) {
      notifyError(err);
    }
  },
  async remove(this: One) {
    const { id, email } = subscriberOf(this);
    if (!(await confirmAction(`Delete ${email}? Their subscriptions, bounces and activity go with them.`, 'Delete'))) return;
    try {
      await api('DELETE', `/api/subscribers/${id}`);
      navigate('/admin/subscribers', `${email} was deleted`);
    } catch (err) {
      notifyError(err);
    }
  },
  async deleteBounces(this: One, e: Event) {
    const { id } = subscriberOf(this);
    const n = Number(readData<BouncesButton>(e.currentTarget as HTMLElement).count);
    if (!(await confirmAction(`Delete all ${n.toLocaleString('en-US')} bounce${n === 1 ? '' : 's'} of this subscriber?`, 'Delete'))) return;
    await writeThenReload(() => api('DELETE', `/api/subscribers/${id}/bounces`), 'Bounces deleted');
  },
}));
