// The subscribers pages' behaviour: bulk actions on the ticked rows or on every subscriber the
// page's query matches (list changes in a <dialog>, blocklist, delete), deleting one row, and on
// a subscriber's page the opt-in mail, deleting its bounces and deleting it. Every change goes
// through /api and asks first, with the count it will touch.
import { api, ApiError, navigate, notify, notifyError, pageData } from '../api.ts';
import { confirmAction } from '../dialog.ts';
import { selection, type Selection } from '../selection.ts';

/** The page's query, as the API's by-query changes take it. */
interface PageQuery {
  search: string;
  query: string;
  list_ids: number[];
  subscription_status: string | null;
}

type Table = Selection & ReturnType<typeof selection> & {
  $el: HTMLElement;
  $root: HTMLElement;
  $refs: Record<string, HTMLElement>;
  listAction: string;
};

function plural(n: number): string {
  return `${n.toLocaleString('en-US')} subscriber${n === 1 ? '' : 's'}`;
}

function byQuery(): Record<string, unknown> {
  const q = pageData<PageQuery>('subscribers-query');
  const body: Record<string, unknown> = { list_ids: q.list_ids };
  if (q.subscription_status) body.subscription_status = q.subscription_status;
  // No search or segment: the selection is everyone the list filter (if any) lets through.
  if (!q.search && !q.query.trim()) body.all = true;
  if (q.search) body.search = q.search;
  if (q.query.trim()) body.query = q.query;
  return body;
}

async function run(action: () => Promise<unknown>, done: string): Promise<void> {
  try {
    await action();
    navigate(null, done);
  } catch (err) {
    notifyError(err);
  }
}

export function subscribers() {
  return {
    ...selection(),
    listAction: 'add',
    init(this: Table) {
      this.initSelection();
    },
    /** An example under the segment box: its expression replaces the box's text. */
    useExample(this: Table, e: Event) {
      const box = document.getElementById('query') as HTMLTextAreaElement;
      box.value = (e.currentTarget as HTMLElement).dataset.example ?? '';
      box.focus();
    },
    async deleteOne(this: Table, e: Event) {
      const button = e.currentTarget as HTMLElement;
      if (!(await confirmAction(`Delete ${button.dataset.email ?? 'this subscriber'}?`, 'Delete'))) return;
      await run(() => api('DELETE', `/api/subscribers/${button.dataset.id}`), 'Subscriber deleted');
    },
    async deleteSelected(this: Table) {
      const n = this.selectedCount();
      if (!(await confirmAction(`Delete ${plural(n)}${this.matching ? ' matching this query' : ''}?`, 'Delete'))) return;
      await run(
        () => (this.matching ? api('POST', '/api/subscribers/query/delete', byQuery()) : api('DELETE', `/api/subscribers?${this.selectedIds().map((id) => `id=${id}`).join('&')}`)),
        `${plural(n)} deleted`,
      );
    },
    async blocklistSelected(this: Table) {
      const n = this.selectedCount();
      if (!(await confirmAction(`Blocklist ${plural(n)}${this.matching ? ' matching this query' : ''}? They will be unsubscribed from every list.`, 'Blocklist'))) return;
      await run(
        () => (this.matching ? api('PUT', '/api/subscribers/query/blocklist', byQuery()) : api('PUT', '/api/subscribers/blocklist', { ids: this.selectedIds() })),
        `${plural(n)} blocklisted`,
      );
    },
    openLists(this: Table) {
      const dialog = this.$refs.listsDialog as HTMLDialogElement;
      dialog.querySelector<HTMLElement>('[data-error-for="_form"]')!.textContent = '';
      dialog.showModal();
    },
    closeLists(this: Table) {
      (this.$refs.listsDialog as HTMLDialogElement).close();
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
      (this.$refs.listsDialog as HTMLDialogElement).close();
      if (!(await confirmAction(`${verb} ${plural(n)} ${action === 'add' ? 'to' : 'from'} ${lists}?`, verb, action !== 'add'))) return;
      try {
        if (this.matching) await api('PUT', '/api/subscribers/query/lists', { ...byQuery(), ...change });
        else await api('PUT', '/api/subscribers/lists', { ids: this.selectedIds(), ...change });
        navigate(null, 'The list change was applied.');
      } catch (err) {
        alert.textContent = err instanceof ApiError ? err.message : String(err);
        (this.$refs.listsDialog as HTMLDialogElement).showModal();
      }
    },
  };
}

type One = { $el: HTMLElement };

function subscriberOf(el: HTMLElement): { id: string; email: string } {
  const root = el.closest<HTMLElement>('[data-id][data-email]')!;
  return { id: root.dataset.id!, email: root.dataset.email! };
}

export function subscriber() {
  return {
    async sendOptin(this: One) {
      const { id } = subscriberOf(this.$el);
      try {
        await api('POST', `/api/subscribers/${id}/optin`);
        notify('Opt-in confirmation sent');
      } catch (err) {
        notifyError(err);
      }
    },
    async remove(this: One) {
      const { id, email } = subscriberOf(this.$el);
      if (!(await confirmAction(`Delete ${email}? Their subscriptions, bounces and activity go with them.`, 'Delete'))) return;
      try {
        await api('DELETE', `/api/subscribers/${id}`);
        navigate('/admin/subscribers', `${email} was deleted`);
      } catch (err) {
        notifyError(err);
      }
    },
    async deleteBounces(this: One, e: Event) {
      const { id } = subscriberOf(this.$el);
      const n = Number((e.currentTarget as HTMLElement).dataset.count ?? 0);
      if (!(await confirmAction(`Delete all ${n.toLocaleString('en-US')} bounce${n === 1 ? '' : 's'} of this subscriber?`, 'Delete'))) return;
      await run(() => api('DELETE', `/api/subscribers/${id}/bounces`), 'Bounces deleted');
    },
  };
}
