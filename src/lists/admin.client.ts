// The lists table (delete one, or the selected lists, or all matching) and a list's page; on
// both, a double opt-in list's opt-in action.
import { api, navigate, notify, notifyError, pageData } from '../admin/client/api.ts';
import { confirmAction } from '../admin/client/dialog.ts';
import { selection } from '../admin/client/selection.ts';
import { component, readData } from '../admin/client/component.ts';

/** The filters of the lists page, for "all matching" (the page's `lists-query` data). */
export interface ListsQuery {
  query: string;
  status: 'active' | 'archived' | 'all';
  type: string;
  optin: string;
  tag: string;
}

async function deleteLists(ids: number[], what: string): Promise<void> {
  if (!(await confirmAction(`Delete ${what}? Their subscribers are kept.`, 'Delete'))) return;
  try {
    if (ids.length === 1) await api('DELETE', `/api/lists/${ids[0]}`);
    else await api('DELETE', `/api/lists?${ids.map((id) => `id=${id}`).join('&')}`);
    navigate(null, ids.length === 1 ? 'List deleted' : `${ids.length.toLocaleString('en-US')} lists deleted`);
  } catch (err) {
    notifyError(err);
  }
}

/** What a list's buttons carry. */
export interface ListButton {
  id: string;
  name: string;
}

const subscribers = (n: number) => `${n.toLocaleString('en-US')} unconfirmed subscriber${n === 1 ? '' : 's'}`;

/**
 * The opt-in action of the list on the clicked button: asks first, with how many it will mail
 * (GET /api/lists/:id/optin), then queues the mails (POST).
 */
async function sendOptin(button: HTMLElement): Promise<void> {
  const { id, name } = readData<ListButton>(button);
  let counts: { unconfirmed: number; sendable: number };
  try {
    counts = await api('GET', `/api/lists/${id}/optin`);
  } catch (err) {
    notifyError(err);
    return;
  }
  if (!counts.sendable) {
    notify(counts.unconfirmed ? `Every unconfirmed subscriber of "${name}" was sent an opt-in mail in the last 24 hours.` : `"${name}" has no unconfirmed subscribers.`, 'error');
    return;
  }
  const details = [document.createElement('p')];
  const recent = counts.unconfirmed - counts.sendable;
  details[0].textContent = `Each gets the opt-in mail with a link to confirm, sent as fast as the campaign rate limits allow.${recent ? ` ${subscribers(recent)} sent one in the last 24 hours ${recent === 1 ? 'is' : 'are'} left out.` : ''}`;
  if (!(await confirmAction(`Send the opt-in confirmation to ${subscribers(counts.sendable)} of "${name}"?`, 'Send', false, details))) return;
  try {
    const { queued } = await api<{ queued: number }>('POST', `/api/lists/${id}/optin`);
    navigate(null, `Opt-in confirmation queued for ${subscribers(queued)}`);
  } catch (err) {
    notifyError(err);
  }
}

/** Every list matching the page's filters (lists are few: one request gives them all). */
async function matchingIds(): Promise<number[]> {
  const q = pageData<ListsQuery>('lists-query');
  const params = new URLSearchParams({ per_page: 'all', query: q.query });
  if (q.status !== 'all') params.set('status', q.status);
  if (q.type) params.set('type', q.type);
  if (q.optin) params.set('optin', q.optin);
  if (q.tag) params.set('tag', q.tag);
  const page = await api<{ results: { id: number }[] }>('GET', `/api/lists?${params}`);
  return page.results.map((l) => l.id);
}

export const listsPage = component('listsPage', () => ({
  ...selection(),
  init(this: { initSelection(): void }) {
    this.initSelection();
  },
  async deleteOne(this: { $event: Event }) {
    const list = readData<ListButton>(this.$event.currentTarget as HTMLElement);
    await deleteLists([Number(list.id)], `the list "${list.name}"`);
  },
  async sendOptin(this: { $event: Event }) {
    await sendOptin(this.$event.currentTarget as HTMLElement);
  },
  async deleteSelected(this: { matching: boolean; selectedIds(): number[] }) {
    const ids = this.matching ? await matchingIds() : this.selectedIds();
    await deleteLists(ids, ids.length === 1 ? '1 list' : `${ids.length.toLocaleString('en-US')} lists`);
  },
}));

export const listPage = component('listPage', () => ({
  async sendOptin(this: { $event: Event }) {
    await sendOptin(this.$event.currentTarget as HTMLElement);
  },
  async deleteOne(this: { $event: Event }) {
    const list = readData<ListButton>(this.$event.currentTarget as HTMLElement);
    if (!(await confirmAction(`Delete the list "${list.name}"? Its subscribers are kept.`, 'Delete'))) return;
    try {
      await api('DELETE', `/api/lists/${list.id}`);
      navigate('/admin/lists', 'List deleted');
    } catch (err) {
      notifyError(err);
    }
  },
}));
