// The shell's behaviour: the folding sidebar on narrow screens, notices (the message a page
// left for the next one, results of actions, and server errors as they are logged, from
// /api/events), and copy buttons.
import { notify, takeFlash } from './api.ts';
import { component, readData } from './component.ts';

interface Notice {
  id: number;
  text: string;
  kind: 'success' | 'error';
  role: 'status' | 'alert';
}

/** Server errors arrive as toasts; at most this many are kept on screen. */
const MAX_NOTICES = 50;
let nextId = 1;

export const shell = component('shell', () => ({
  menuOpen: false,
  notices: [] as Notice[],
  init(this: { add(text: string, kind: Notice['kind']): void }) {
    window.addEventListener('admin:notify', (e) => {
      const { text, kind } = (e as CustomEvent<{ text: string; kind: Notice['kind'] }>).detail;
      this.add(text, kind);
    });
    const flash = takeFlash();
    if (flash) this.add(flash, 'success');
    const events = document.body.dataset.events;
    if (events && 'EventSource' in window) {
      const source = new EventSource(events);
      source.onmessage = (e) => {
        try {
          const event = JSON.parse(e.data) as { message?: string };
          if (event.message) this.add(event.message, 'error');
        } catch {
          /* not an event of ours */
        }
      };
      window.addEventListener('pagehide', () => source.close());
    }
  },
  add(this: { notices: Notice[] }, text: string, kind: Notice['kind']) {
    const notice: Notice = { id: nextId++, text, kind, role: kind === 'error' ? 'alert' : 'status' };
    this.notices = [...this.notices, notice].slice(-MAX_NOTICES);
    // Results fade on their own; errors stay until dismissed.
    if (kind === 'success') setTimeout(() => this.notices = this.notices.filter((n) => n.id !== notice.id), 6000);
  },
  dismiss(this: { notices: Notice[] }, id: number) {
    this.notices = this.notices.filter((n) => n.id !== id);
  },
  toggleMenu(this: { menuOpen: boolean }) {
    this.menuOpen = !this.menuOpen;
  },
  menuClass(this: { menuOpen: boolean }) {
    return this.menuOpen ? 'sidebar open' : 'sidebar';
  },
}));

/** What a copy button carries: the text it copies. */
export interface CopyData {
  copy: string;
}

export const copy = component('copy', () => ({
  async copy(this: { $el: HTMLElement }) {
    try {
      await navigator.clipboard.writeText(readData<CopyData>(this.$el).copy ?? '');
      notify('Copied');
    } catch {
      notify('Copying was refused by the browser; select the text and copy it instead.', 'error');
    }
  },
}));
