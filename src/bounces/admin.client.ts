// The bounces page (src/bounces/admin.tsx): deleting one bounce, the selected or all, and
// blocklisting the subscribers of the selected bounces (PUT /api/subscribers/blocklist) or of
// every bounce (PUT /api/bounces/blocklist); each asks first, with the count.
import { api, writeThenReload } from '../admin/client/api.ts';
import { confirmAction } from '../admin/client/dialog.ts';
import { selection } from '../admin/client/selection.ts';
import { component, readData } from '../admin/client/component.ts';

const num = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many: string) => `${num(n)} ${n === 1 ? one : many}`;

/** What a bounce's delete button carries. */
export interface BounceButton {
  id: string;
  email: string;
}

/** What a bounce's tick box carries besides its id: whose bounce it is. */
export interface BounceRow {
  subscriber: string;
}

interface Page {
  selected: string[];
  total: number;
  $event: Event;
  $el: HTMLElement;
  initSelection(): void;
  selectedIds(): number[];
  rowBoxes(): HTMLInputElement[];
}

export const bouncesPage = component('bouncesPage', () => ({
  ...selection(),
  init(this: Page) {
    this.initSelection();
  },
  noSelection(this: Page) {
    return this.selected.length === 0;
  },
  async deleteOne(this: Page) {
    const bounce = readData<BounceButton>(this.$event.currentTarget as HTMLElement);
    if (!(await confirmAction(`Delete the bounce of ${bounce.email}?`, 'Delete'))) return;
    await writeThenReload(() => api('DELETE', `/api/bounces/${bounce.id}`), 'Bounce deleted');
  },
  async deleteSelected(this: Page) {
    const ids = this.selectedIds();
    if (!ids.length || !(await confirmAction(`Delete ${plural(ids.length, 'bounce', 'bounces')}?`, 'Delete'))) return;
    await writeThenReload(() => api('DELETE', `/api/bounces?${ids.map((id) => `id=${id}`).join('&')}`), `${plural(ids.length, 'bounce', 'bounces')} deleted`);
  },
  async deleteAll(this: Page) {
    if (!(await confirmAction(`Delete all ${plural(this.total, 'bounce', 'bounces')}?`, 'Delete all'))) return;
    await writeThenReload(() => api('DELETE', '/api/bounces?all=true'), 'All bounces deleted');
  },
  /** The subscribers of the selected bounces (one subscriber may have bounced several times). */
  async blocklistSelected(this: Page) {
    const chosen = new Set(this.selected);
    const ids = [...new Set(this.rowBoxes().filter((b) => chosen.has(b.value)).map((b) => Number(readData<BounceRow>(b).subscriber)))];
    if (!ids.length || !(await confirmAction(`Blocklist ${plural(ids.length, 'subscriber', 'subscribers')} and unsubscribe them from every list?`, 'Blocklist'))) return;
    await writeThenReload(() => api('PUT', '/api/subscribers/blocklist', { ids }), `${plural(ids.length, 'subscriber', 'subscribers')} blocklisted`);
  },
  async blocklistAll(this: Page) {
    if (!(await confirmAction('Blocklist every subscriber with a bounce record and unsubscribe them from every list?', 'Blocklist'))) return;
    await writeThenReload(() => api('PUT', '/api/bounces/blocklist'), 'Bounced subscribers blocklisted');
  },
}));
