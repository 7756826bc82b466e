// The maintenance page: each card's form first reads how many rows its action will touch,
// asks with that count, then acts and says what it did. The export downloads a CSV; compacting
// reloads the page so that its sizes are the new ones.
import { api, navigate, notify } from '../admin/client/api.ts';
import { formatBytes } from '../admin/client/bytes.ts';
import { confirmAction } from '../admin/client/dialog.ts';
import { clearErrors, FieldError, showError } from '../admin/client/form.ts';
import { component, readData } from '../admin/client/component.ts';

/** A date field's day as the API's RFC 3339 date-time (midnight UTC); '' when empty. */
function dateTime(form: HTMLFormElement, name: string): string {
  const value = (form.elements.namedItem(name) as HTMLInputElement).value;
  return value ? `${value}T00:00:00Z` : '';
}

function field(form: HTMLFormElement, name: string): string {
  return (form.elements.namedItem(name) as HTMLInputElement | HTMLSelectElement).value;
}

const n = (v: number) => v.toLocaleString('en-US');
const plural = (count: number, one: string, many: string) => `${n(count)} ${count === 1 ? one : many}`;

interface Action {
  /** The question, with the count; null when there is nothing to do (said, not asked). */
  ask(): Promise<{ question: string | null; nothing: string }>;
  confirmLabel: string;
  danger: boolean;
  /** Does it; answers what to report. */
  act(): Promise<string>;
}

/** Requires the date field `name`: the API would refuse without it, so say it beside the field. */
function requiredDate(form: HTMLFormElement, name: string): string {
  const at = dateTime(form, name);
  if (!at) throw new FieldError((form.elements.namedItem(name) as HTMLInputElement).id, 'Choose a date.');
  return at;
}

/** What each card's form carries: the operation it runs. */
export interface OpForm {
  op: 'subscribers' | 'unconfirmed' | 'analytics' | 'export' | 'vacuum';
}

function action(form: HTMLFormElement): Action {
  const { op } = readData<OpForm>(form);
  if (op === 'subscribers') {
    const type = field(form, 'type');
    const what = type === 'orphan' ? ['orphan subscriber (on no list)', 'orphan subscribers (on no list)'] : ['blocklisted subscriber', 'blocklisted subscribers'];
    return {
      async ask() {
        const { count } = await api<{ count: number }>('GET', `/api/maintenance/subscribers/${type}/count`);
        return { question: count ? `Delete ${plural(count, what[0], what[1])}? This cannot be undone.` : null, nothing: `There are no ${what[1]}.` };
      },
      confirmLabel: 'Delete', danger: true,
      async act() {
        const { count } = await api<{ count: number }>('DELETE', `/api/maintenance/subscribers/${type}`);
        return `Deleted ${plural(count, what[0], what[1])}.`;
      },
    };
  }
  if (op === 'unconfirmed') {
    const before = requiredDate(form, 'before_date');
    const q = `before_date=${encodeURIComponent(before)}`;
    return {
      async ask() {
        const { count } = await api<{ count: number }>('GET', `/api/maintenance/subscriptions/unconfirmed/count?${q}`);
        return { question: count ? `Delete ${plural(count, 'unconfirmed subscription', 'unconfirmed subscriptions')} made before ${before.slice(0, 10)}? The subscribers stay.` : null, nothing: `No unconfirmed subscription was made before ${before.slice(0, 10)}.` };
      },
      confirmLabel: 'Delete', danger: true,
      async act() {
        const { count } = await api<{ count: number }>('DELETE', `/api/maintenance/subscriptions/unconfirmed?${q}`);
        return `Deleted ${plural(count, 'unconfirmed subscription', 'unconfirmed subscriptions')}.`;
      },
    };
  }
  if (op === 'analytics' || op === 'export') {
    const type = field(form, 'type');
    const dateName = op === 'analytics' ? 'before_date' : 'since';
    const at = requiredDate(form, dateName);
    const q = `${dateName}=${encodeURIComponent(at)}`;
    const describe = (c: { views: number; clicks: number }) => [type !== 'clicks' ? plural(c.views, 'view', 'views') : '', type !== 'views' ? plural(c.clicks, 'click', 'clicks') : ''].filter(Boolean).join(' and ');
    let counted = { count: 0, views: 0, clicks: 0 };
    return op === 'analytics' ? {
      async ask() {
        counted = await api('GET', `/api/maintenance/analytics/${type}/count?${q}`);
        return { question: counted.count ? `Delete ${describe(counted)} recorded before ${at.slice(0, 10)}? This cannot be undone.` : null, nothing: `Nothing was recorded before ${at.slice(0, 10)}.` };
      },
      confirmLabel: 'Delete', danger: true,
      async act() {
        await api('DELETE', `/api/maintenance/analytics/${type}?${q}`);
        return `Deleted ${describe(counted)}.`;
      },
    } : {
      async ask() {
        counted = await api('GET', `/api/maintenance/analytics/${type}/count?${q}`);
        return { question: counted.count ? `Export ${describe(counted)} recorded since ${at.slice(0, 10)} as CSV?` : null, nothing: `Nothing was recorded since ${at.slice(0, 10)}.` };
      },
      confirmLabel: 'Export', danger: false,
      async act() {
        window.location.assign(`/api/maintenance/analytics/${type}/export?${q}`);
        return `Exporting ${describe(counted)}.`;
      },
    };
  }
  // vacuum
  return {
    async ask() {
      const db = await api<{ size: number; free: number }>('GET', '/api/maintenance/database');
      return { question: `Compact the database (${formatBytes(db.size)}, of which ${formatBytes(db.free)} is free space to return)? The server answers nothing else until it is done.`, nothing: '' };
    },
    confirmLabel: 'Compact', danger: false,
    async act() {
      const r = await api<{ size_before: number; size_after: number }>('POST', '/api/maintenance/vacuum');
      const message = `Compacted the database: ${formatBytes(r.size_before)} → ${formatBytes(r.size_after)}.`;
      navigate(null, message);
      return message;
    },
  };
}

export const maintenancePage = component('maintenancePage', () => ({
  busy: false,
  async run(this: { busy: boolean; $event: Event }) {
    this.$event.preventDefault();
    const form = this.$event.currentTarget as HTMLFormElement;
    const result = form.querySelector<HTMLElement>('[data-result]')!;
    clearErrors(form);
    result.textContent = '';
    this.busy = true;
    try {
      const a = action(form);
      const { question, nothing } = await a.ask();
      if (question === null) {
        result.textContent = nothing;
        return;
      }
      if (!(await confirmAction(question, a.confirmLabel, a.danger))) return;
      const done = await a.act();
      result.textContent = done;
      notify(done);
    } catch (err) {
      showError(form, err);
    } finally {
      this.busy = false;
    }
  },
}));
