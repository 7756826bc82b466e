// The import page (src/imports/admin.tsx): uploads the form as listmonk's multipart request
// (`params` JSON + `file`), then polls the import's status and log every 500 ms for the
// progress bar, rate and time left, and at the end shows the summary. A refusal is shown
// beside the field it is about (the file, unless it names the lists or the delimiter).
import { formatDuration, importedSubscribersUrl, skipReasons, stateLabel, type ImportPageData, type ImportProgress } from '../import-summary.ts';
import { api, ApiError, notifyError, pageData } from '../api.ts';
import { confirmAction } from '../dialog.ts';
import { clearErrors } from '../form.ts';

const POLL_MS = 500;
const num = (n: number) => n.toLocaleString('en-US');

interface Refs {
  form: HTMLFormElement;
  file: HTMLInputElement;
  status: HTMLSelectElement;
  log: HTMLElement;
  reasons: HTMLElement;
}

interface State {
  status: ImportProgress;
  log: string;
  mode: 'subscribe' | 'blocklist';
  lists: number[];
  labels: ImportPageData['labels'];
  /** When the import started, on this browser's clock. */
  startedAt: number;
  tookMs: number | null;
  now: number;
  view: 'form' | 'progress';
  busy: boolean;
  dragging: boolean;
  timer: number | null;
  $refs: Refs;
  $nextTick(fn: () => void): void;
  $event: Event;
  running(): boolean;
  poll(): void;
  showLog(): void;
}

export function importPage() {
  return {
    status: { name: '', total: 0, imported: 0, status: 'none' } as ImportProgress,
    log: '',
    mode: 'subscribe' as 'subscribe' | 'blocklist',
    lists: [] as number[],
    labels: {} as ImportPageData['labels'],
    startedAt: 0,
    tookMs: null as number | null,
    now: Date.now(),
    view: 'form' as 'form' | 'progress',
    busy: false,
    dragging: false,
    timer: null as number | null,

    init(this: State) {
      const d = pageData<ImportPageData>('import-data');
      Object.assign(this, { status: d.status, log: d.log, mode: d.mode, lists: d.lists, labels: d.labels, tookMs: d.tookMs });
      this.startedAt = Date.now() - (d.elapsedMs ?? 0);
      this.view = d.status.status === 'none' ? 'form' : 'progress';
      if (this.running()) this.poll();
      this.showLog();
    },

    running(this: State) {
      return this.status.status === 'importing' || this.status.status === 'stopping';
    },
    formHidden(this: State) {
      return this.view !== 'form';
    },
    progressHidden(this: State) {
      return this.view !== 'progress';
    },
    summaryHidden(this: State) {
      return this.running();
    },
    stopHidden(this: State) {
      return this.status.status !== 'importing';
    },
    blocklisting(this: State) {
      return this.mode === 'blocklist';
    },
    dropClass(this: State) {
      return this.dragging ? 'dropzone over' : 'dropzone';
    },

    stateText(this: State) {
      return stateLabel(this.status, this.log, this.labels);
    },
    progressMax(this: State) {
      return Math.max(1, this.status.total);
    },
    countText(this: State) {
      return `${num(this.status.imported)} / ${num(this.status.total)}`;
    },
    /** Rows per second since the start (over the whole run once it ended). */
    rate(this: State) {
      const ms = this.running() ? this.now - this.startedAt : this.tookMs ?? this.now - this.startedAt;
      return ms > 0 ? (this.status.imported * 1000) / ms : 0;
    },
    rateText(this: State & { rate(): number }) {
      const r = this.rate();
      return r > 0 ? `${num(Math.round(r))} rows/s` : '—';
    },
    timeLeftText(this: State & { rate(): number }) {
      if (!this.running()) return '—';
      const r = this.rate();
      const left = this.status.total - this.status.imported;
      return r > 0 && this.status.total > 0 ? formatDuration((left / r) * 1000) : '—';
    },
    importedText(this: State) {
      return num(this.status.imported);
    },
    skippedText(this: State) {
      return num(Math.max(0, this.status.total - this.status.imported));
    },
    tookText(this: State) {
      return this.tookMs === null ? '—' : formatDuration(this.tookMs);
    },
    subscribersUrl(this: State) {
      return importedSubscribersUrl(this.mode, this.lists);
    },

    setMode(this: State) {
      this.mode = (this.$event.target as HTMLInputElement).value === 'blocklist' ? 'blocklist' : 'subscribe';
      // Blocklisted addresses get unsubscribed subscriptions; subscribe mode, either of the others.
      const select = this.$refs.status;
      for (const o of select.options) o.disabled = (o.value === 'unsubscribed') !== (this.mode === 'blocklist');
      select.value = this.mode === 'blocklist' ? 'unsubscribed' : 'unconfirmed';
    },
    dragOver(this: State) {
      this.$event.preventDefault();
      this.dragging = true;
    },
    dragLeave(this: State) {
      this.dragging = false;
    },
    drop(this: State) {
      this.$event.preventDefault();
      this.dragging = false;
      const files = (this.$event as DragEvent).dataTransfer?.files;
      if (files?.length) this.$refs.file.files = files;
    },

    async submit(this: State) {
      this.$event.preventDefault();
      const form = this.$refs.form;
      clearErrors(form);
      const file = this.$refs.file.files?.[0];
      if (!file) return showAt(form, 'import-file', 'Choose a CSV or ZIP file to import.');
      const lists = [...form.querySelectorAll<HTMLInputElement>('input[name=lists]:checked')].map((el) => Number(el.value));
      const field = (name: string) => form.querySelector<HTMLInputElement | HTMLSelectElement>(`[name=${name}]`)!;
      const params = {
        mode: this.mode,
        subscription_status: field('subscription_status').value,
        delim: field('delim').value,
        overwrite_userinfo: (field('overwrite_userinfo') as HTMLInputElement).checked,
        overwrite_subscription_status: (field('overwrite_subscription_status') as HTMLInputElement).checked,
        ...(this.mode === 'subscribe' ? { lists } : {}),
      };
      const body = new FormData();
      body.set('params', JSON.stringify(params));
      body.set('file', file, file.name);
      this.busy = true;
      try {
        this.status = await api<ImportProgress>('POST', '/api/import/subscribers', body);
        this.lists = lists;
        this.log = '';
        this.tookMs = null;
        this.startedAt = Date.now();
        this.view = 'progress';
        this.poll();
      } catch (err) {
        const message = err instanceof Error ? err.message : String(err);
        showAt(form, err instanceof ApiError ? fieldOf(message) : 'import-file', message);
      } finally {
        this.busy = false;
      }
    },

    /** One status and log read, then the next in POLL_MS while the import runs. */
    async poll(this: State) {
      this.timer = null;
      try {
        const [status, log] = await Promise.all([
          api<ImportProgress>('GET', '/api/import/subscribers'),
          api<string>('GET', '/api/import/subscribers/logs'),
        ]);
        this.status = status;
        this.log = log;
        this.now = Date.now();
        if (!this.running() && this.tookMs === null) this.tookMs = this.now - this.startedAt;
        this.showLog();
      } catch {
        /* a missed poll: the next one tries again */
      }
      if (this.running()) this.timer = window.setTimeout(() => this.poll(), POLL_MS);
    },

    /** The log scrolled to its end, and the skip reasons listed from it. */
    showLog(this: State) {
      this.$nextTick(() => {
        this.$refs.log.scrollTop = this.$refs.log.scrollHeight;
        if (this.running()) return;
        const items = skipReasons(this.log).map((r) => {
          const li = document.createElement('li');
          const count = document.createElement('strong');
          count.textContent = num(r.count);
          li.append(count, ` × ${r.reason}`);
          return li;
        });
        this.$refs.reasons.replaceChildren(...items);
      });
    },

    async stop(this: State) {
      if (!(await confirmAction('Stop the import? The rows imported so far stay.', 'Stop import'))) return;
      try {
        this.status = await api<ImportProgress>('DELETE', '/api/import/subscribers');
      } catch (err) {
        notifyError(err);
      }
    },

    /** "New import": clears the ended import's status and log, and shows the form again (kept as it was). */
    async reset(this: State) {
      try {
        this.status = await api<ImportProgress>('DELETE', '/api/import/subscribers');
      } catch (err) {
        notifyError(err);
        return;
      }
      this.log = '';
      this.tookMs = null;
      this.view = 'form';
      this.$refs.file.value = '';
    },
  };
}

/** The field a refusal is about: the lists, the delimiter or the status when it names them, else the file. */
function fieldOf(message: string): string {
  if (/\blists?\b/i.test(message)) return 'import-lists';
  if (/\bdelim\b/i.test(message)) return 'import-delim';
  if (/\bsubscription_status\b/.test(message)) return 'import-status';
  return 'import-file';
}

/** Shows `message` beside the control `id` and focuses it. */
function showAt(form: HTMLFormElement, id: string, message: string): void {
  const slot = form.querySelector<HTMLElement>(`[data-error-for="${id}"]`);
  if (slot) slot.textContent = message;
  const control = form.querySelector<HTMLElement>(id === 'import-lists' ? 'input[name=lists]' : `#${id}`);
  control?.setAttribute('aria-invalid', 'true');
  control?.focus();
}
