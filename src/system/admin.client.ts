// The logs page: the server's recent log lines (GET /api/logs), newest last, coloured by level,
// re-read every few seconds while "auto-refresh" is on, and narrowed to the lines holding what
// is typed in the filter box. Lines are drawn as plain DOM nodes (up to 5,000 of them: the
// server keeps no more), the view kept at its end unless the reader scrolled up.
import { api, notifyError } from '../admin/client/api.ts';
import { logLevel } from './log-lines.ts';
import { component } from '../admin/client/component.ts';

const REFRESH_MS = 5000;

/** The element the lines are drawn in. */
const logView = () => document.getElementById('log-view')!;

interface State {
  filter: string;
  auto: boolean;
  lines: string[];
  shown: number;
  timer: number | null;
  render(): void;
  refresh(): Promise<void>;
  schedule(): void;
}

export const logsPage = component('logsPage', () => ({
  filter: '',
  auto: true,
  lines: [] as string[],
  shown: 0,
  timer: null as number | null,
  init(this: State) {
    const view = logView();
    this.lines = [...view.querySelectorAll('.log-line')].map((el) => el.textContent ?? '');
    this.shown = this.lines.length;
    view.scrollTop = view.scrollHeight;
    this.schedule();
    window.addEventListener('pagehide', () => this.timer !== null && clearTimeout(this.timer));
  },
  summary(this: State) {
    const all = this.lines.length.toLocaleString('en-US');
    return this.filter ? `${this.shown.toLocaleString('en-US')} of ${all} lines match` : `${all} lines, newest last`;
  },
  /** The filter box changed (read here: an x-model may not have updated yet). */
  filterBy(this: State & { $event: Event }) {
    this.filter = (this.$event.target as HTMLInputElement).value;
    this.render();
  },
  /** The auto-refresh switch (read here, as the filter box). */
  toggleAuto(this: State & { $event: Event }) {
    this.auto = (this.$event.target as HTMLInputElement).checked;
    this.schedule();
  },
  render(this: State) {
    const view = logView();
    const atEnd = view.scrollHeight - view.scrollTop - view.clientHeight < 40;
    const needle = this.filter.trim().toLowerCase();
    const nodes: HTMLElement[] = [];
    for (const line of this.lines) {
      if (needle && !line.toLowerCase().includes(needle)) continue;
      const div = document.createElement('div');
      div.className = `log-line ${logLevel(line)}`;
      div.textContent = line;
      nodes.push(div);
    }
    view.replaceChildren(...nodes);
    this.shown = nodes.length;
    if (atEnd) view.scrollTop = view.scrollHeight;
  },
  async refresh(this: State) {
    try {
      this.lines = await api<string[]>('GET', '/api/logs');
      this.render();
    } catch (err) {
      notifyError(err);
      this.auto = false;
    }
    this.schedule();
  },
  /** The next read in REFRESH_MS while auto-refresh is on. */
  schedule(this: State) {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = this.auto ? window.setTimeout(() => void this.refresh(), REFRESH_MS) : null;
  },
}));
