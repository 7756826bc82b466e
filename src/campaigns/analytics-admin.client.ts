// The analytics page's campaign choice: the chosen campaigns (hidden `id` fields of the GET
// form, so the URL keeps them) and a search box that finds campaigns by name or subject through
// GET /api/campaigns as the person types; the ten most recent show before anything is typed.
import { api, notifyError, pageData } from '../admin/client/api.ts';
import { component } from '../admin/client/component.ts';

/** A chosen campaign (the page's `analytics-chosen` data), or one the search found, with its status. */
export interface Choice {
  id: number;
  name: string;
  status?: string;
}

const SEARCH_DELAY_MS = 250;
const RESULTS = 10;

interface Picker {
  chosen: Choice[];
  results: Choice[];
  open: boolean;
  timer: number;
  /** The query the shown results are for (a slower, older answer is dropped). */
  asked: string;
  $root: HTMLElement;
  $event: Event;
  run(query: string): Promise<void>;
  close(): void;
}

export const campaignPicker = component('campaignPicker', () => ({
  chosen: [] as Choice[],
  results: [] as Choice[],
  open: false,
  timer: 0,
  asked: '',
  init(this: Picker) {
    this.chosen = pageData<Choice[]>('analytics-chosen');
    document.addEventListener('click', (e) => {
      if (!this.$root.contains(e.target as Node)) this.close();
    });
  },
  /** Searches after a pause in typing (and at once on focus). */
  search(this: Picker) {
    const query = (this.$event.target as HTMLInputElement).value.trim();
    clearTimeout(this.timer);
    this.timer = window.setTimeout(() => void this.run(query), this.$event.type === 'focus' ? 0 : SEARCH_DELAY_MS);
  },
  async run(this: Picker, query: string) {
    this.asked = query;
    const params = new URLSearchParams({ query, no_body: 'true', per_page: String(RESULTS), order_by: 'created_at', order: 'desc' });
    try {
      const page = await api<{ results: Choice[] }>('GET', `/api/campaigns?${params}`);
      if (this.asked !== query) return;
      this.results = page.results.map((c) => ({ id: c.id, name: c.name, status: c.status }));
      this.open = true;
    } catch (err) {
      notifyError(err);
    }
  },
  keydown(this: Picker) {
    if ((this.$event as KeyboardEvent).key === 'Escape') this.close();
  },
  close(this: Picker) {
    this.open = false;
  },
  isChosen(this: Picker, c: Choice): boolean {
    return this.chosen.some((x) => x.id === c.id);
  },
  toggle(this: Picker & { isChosen(c: Choice): boolean }, c: Choice) {
    this.chosen = this.isChosen(c) ? this.chosen.filter((x) => x.id !== c.id) : [...this.chosen, { id: c.id, name: c.name }];
  },
  remove(this: Picker, id: number) {
    this.chosen = this.chosen.filter((x) => x.id !== id);
  },
  removeLabel(c: Choice): string {
    return `Remove ${c.name}`;
  },
  noResults(this: Picker): boolean {
    return this.results.length === 0;
  },
}));
