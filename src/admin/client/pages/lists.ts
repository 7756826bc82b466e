// The lists table (delete one, or the selected lists, or all matching) and a list's page.
import { api, navigate, notifyError, pageData } from '../api.ts';
import { confirmAction } from '../dialog.ts';
import { selection } from '../selection.ts';

interface ListsQuery {
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

export function listsPage() {
  return {
    ...selection(),
    init(this: { initSelection(): void }) {
      this.initSelection();
    },
    async deleteOne(this: { $event: Event }) {
      const button = this.$event.currentTarget as HTMLElement;
      await deleteLists([Number(button.dataset.id)], `the list "${button.dataset.name}"`);
    },
    async deleteSelected(this: { matching: boolean; selectedIds(): number[] }) {
      const ids = this.matching ? await matchingIds() : this.selectedIds();
      await deleteLists(ids, ids.length === 1 ? '1 list' : `${ids.length.toLocaleString('en-US')} lists`);
    },
  };
}

export function listPage() {
  return {
    async deleteOne(this: { $event: Event }) {
      const button = this.$event.currentTarget as HTMLElement;
      if (!(await confirmAction(`Delete the list "${button.dataset.name}"? Its subscribers are kept.`, 'Delete'))) return;
      try {
        await api('DELETE', `/api/lists/${button.dataset.id}`);
        navigate('/admin/lists', 'List deleted');
      } catch (err) {
        notifyError(err);
      }
    },
  };
}
