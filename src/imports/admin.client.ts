// The import page (src/imports/admin.tsx): reads the chosen file's header and first rows and
// shows what each column will become (columns.ts's guess, changeable), uploads the form
// as listmonk's multipart request (`params` JSON + `file`, with the columns), then polls the
// import's status and log every 500 ms for the progress bar, rate and time left, and at the
// end shows the summary, and for unconfirmed subscribers of double opt-in lists, the offer to
// send them the opt-in mail. A refusal is shown beside the field it is about (the file, unless
// it names the lists or the delimiter).
import { countsSentence, formatDuration, onFileText, importedSubscribersUrl, skipReasons, stateLabel, type ImportPageData, type ImportProgress } from './summary.ts';
import { planColumns, specOf, targetOf, type ColumnMapping, type ColumnPlan, type ColumnSpec, type ColumnTarget } from './columns.ts';
import { csvRecords, readHead } from './preview.ts';
import { api, ApiError, notifyError, pageData } from '../admin/client/api.ts';
import { confirmAction } from '../admin/client/dialog.ts';
import { clearErrors } from '../admin/client/form.ts';
import { component, readData } from '../admin/client/component.ts';

const POLL_MS = 500;
const num = (n: number) => n.toLocaleString('en-US');

/** Rows of the file shown under its header. */
const PREVIEW_ROWS = 3;

/** The elements the script reads (the page names them with `ref<ImportRefs>`). */
export interface ImportRefs {
  form: HTMLFormElement;
  file: HTMLInputElement;
  status: HTMLSelectElement;
  log: HTMLElement;
  reasons: HTMLElement;
  mapping: HTMLElement;
  optin: HTMLElement;
  optinResult: HTMLElement;
}

/** What a list's tick box carries besides its id: its opt-in and name (the opt-in offer after the import). */
export interface ImportList {
  optin: 'single' | 'double';
  name: string;
}

const listOf = (box: HTMLInputElement) => readData<ImportList>(box);

/** GET /api/lists/{id}/optin. */
interface OptinCount {
  unconfirmed: number;
  sendable: number;
}

/** One column of the file on the page: its guess and the choice made. */
interface MappedColumn {
  header: string;
  guess: ColumnTarget;
  select: HTMLSelectElement;
  key: HTMLInputElement;
}

/** The choices of a column's select: a target, or an attribute (one value, or a list of them). */
const CHOICES: [string, string][] = [
  ['email', 'E-mail'], ['name', 'Name'], ['first_name', 'First name'], ['last_name', 'Last name'],
  ['attribute', 'Attribute'], ['attribute_list', 'Attribute (comma-separated values)'], ['attributes', 'Attributes (a JSON object)'],
  ['lists', 'Lists (named in it)'], ['status', 'Status'], ['ignore', 'Ignore'],
];

/**
 * The columns of the file shown, with their controls: outside the component's state, which
 * Alpine wraps in proxies that DOM elements do not work through.
 */
let mapped: MappedColumn[] = [];

const choiceOf = (t: ColumnTarget) => (t.to === 'attribute' ? (t.split ? 'attribute_list' : 'attribute') : t.to);

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
  subscriptionStatus: ImportPageData['subscriptionStatus'];
  optinLists: ImportPageData['optinLists'];
  doubleOptinChosen: boolean;
  optinOffered: boolean;
  optinKept: boolean;
  mappingNote: string;
  mappingShown: boolean;
  $refs: ImportRefs;
  $nextTick(fn: () => void): void;
  $event: Event;
  running(): boolean;
  poll(): void;
  showLog(): void;
  offerOptin(): Promise<void>;
  listsChanged(): void;
  fileChosen(): Promise<void>;
}

export const importPage = component('importPage', () => ({
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
  subscriptionStatus: 'unconfirmed' as ImportPageData['subscriptionStatus'],
  optinLists: [] as ImportPageData['optinLists'],
  doubleOptinChosen: false,
  optinOffered: false,
  optinKept: false,
  mappingNote: '',
  mappingShown: false,

  init(this: State) {
    const d = pageData<ImportPageData>('import-data');
    Object.assign(this, { status: d.status, log: d.log, mode: d.mode, lists: d.lists, labels: d.labels, tookMs: d.tookMs, subscriptionStatus: d.subscriptionStatus, optinLists: d.optinLists });
    this.startedAt = Date.now() - (d.elapsedMs ?? 0);
    this.view = d.status.status === 'none' ? 'form' : 'progress';
    this.listsChanged();
    if (this.running()) this.poll();
    else if (d.status.status === 'finished') void this.offerOptin();
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
  /** The status help shows while a double opt-in list is ticked (in subscribe mode). */
  optinHelpHidden(this: State) {
    return !this.doubleOptinChosen || this.mode === 'blocklist';
  },
  optinHidden(this: State) {
    return !this.optinOffered || this.running();
  },
  mappingHidden(this: State) {
    return !this.mappingShown;
  },
  keepHidden(this: State) {
    return this.optinKept;
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
  countsText(this: State) {
    return countsSentence(this.status);
  },
  newText(this: State) {
    return num(this.status.new);
  },
  onFileText(this: State) {
    return onFileText(this.status);
  },
  skippedText(this: State) {
    return num(this.status.skipped);
  },
  duplicatesText(this: State) {
    return num(this.status.duplicates);
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
  listsChanged(this: State) {
    this.doubleOptinChosen = [...this.$refs.form.querySelectorAll<HTMLInputElement>('input[name=lists]:checked')].some((el) => listOf(el).optin === 'double');
  },

  /** Reads the chosen file's header and first rows, and shows what each column becomes. */
  async fileChosen(this: State) {
    const file = this.$refs.file.files?.[0];
    mapped = [];
    this.$refs.mapping.replaceChildren();
    this.mappingNote = '';
    this.mappingShown = !!file;
    if (!file) return;
    const head = await readHead(file).catch(() => null);
    const delim = this.$refs.form.querySelector<HTMLSelectElement>('[name=delim]')!.value;
    const records = head ? csvRecords(head.text, delim, PREVIEW_ROWS + 1, head.cut) : [];
    if (!head || !records.length) {
      this.mappingNote = 'The columns of this file cannot be shown here; they are recognised when it is imported (see the log).';
      return;
    }
    const [header, ...rows] = records;
    const plan = planColumns(header);
    this.mappingNote = planNote(head.name, plan);
    mapped = header.map((h, i) => mappedColumn(h, plan.targets[i]));
    this.$refs.mapping.replaceChildren(mappingTable(mapped, rows));
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
    if (!files?.length) return;
    this.$refs.file.files = files;
    void this.fileChosen();
  },

  async submit(this: State) {
    this.$event.preventDefault();
    const form = this.$refs.form;
    clearErrors(form);
    const file = this.$refs.file.files?.[0];
    if (!file) return showAt(form, 'import-file', 'Choose a CSV or ZIP file to import.');
    const lists = [...form.querySelectorAll<HTMLInputElement>('input[name=lists]:checked')].map((el) => Number(el.value));
    const field = (name: string) => form.querySelector<HTMLInputElement | HTMLSelectElement>(`[name=${name}]`)!;
    const columns = mappingOf(mapped);
    if (typeof columns === 'string') return showAt(form, 'import-file', columns);
    const params = {
      mode: this.mode,
      subscription_status: field('subscription_status').value,
      delim: field('delim').value,
      overwrite_userinfo: (field('overwrite_userinfo') as HTMLInputElement).checked,
      overwrite_subscription_status: (field('overwrite_subscription_status') as HTMLInputElement).checked,
      ...(this.mode === 'subscribe' ? { lists } : {}),
      ...(columns ? { columns } : {}),
    };
    const body = new FormData();
    body.set('params', JSON.stringify(params));
    body.set('file', file, file.name);
    this.busy = true;
    try {
      this.status = await api<ImportProgress>('POST', '/api/import/subscribers', body);
      this.lists = lists;
      this.subscriptionStatus = params.subscription_status as ImportPageData['subscriptionStatus'];
      this.optinLists = this.mode === 'subscribe'
        ? [...form.querySelectorAll<HTMLInputElement>('input[name=lists]:checked')].filter((el) => listOf(el).optin === 'double').map((el) => ({ id: Number(el.value), name: listOf(el).name }))
        : [];
      this.optinOffered = false;
      this.optinKept = false;
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
      if (!this.running() && this.tookMs === null) {
        this.tookMs = this.now - this.startedAt;
        if (this.status.status === 'finished') void this.offerOptin();
      }
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

  /**
   * After an import of unconfirmed subscriptions into double opt-in lists: for each such list
   * with unconfirmed subscribers, the offer to send them the opt-in mail (one button per list).
   */
  async offerOptin(this: State) {
    if (this.mode !== 'subscribe' || this.subscriptionStatus !== 'unconfirmed' || !this.optinLists.length) return;
    const items: HTMLLIElement[] = [];
    for (const list of this.optinLists) {
      const li = document.createElement('li');
      try {
        const n = await api<OptinCount>('GET', `/api/lists/${list.id}/optin`);
        if (!n.unconfirmed) continue;
        li.append(optinOffer(list, n, this.$refs.optinResult));
      } catch (err) {
        li.textContent = `${list.name}: the unconfirmed subscribers could not be counted (${err instanceof Error ? err.message : String(err)}).`;
      }
      items.push(li);
    }
    this.$refs.optin.replaceChildren(...items);
    this.optinOffered = items.length > 0;
  },

  /** "Keep them unconfirmed": the offer goes, and the page says what that means. */
  keepUnconfirmed(this: State) {
    this.$refs.optin.replaceChildren();
    this.$refs.optinResult.textContent = 'They stay unconfirmed and get no campaigns until they confirm. A list\'s page can send them the opt-in mail later.';
    this.optinKept = true;
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
    this.optinOffered = false;
    this.$refs.optinResult.textContent = '';
    this.$refs.file.value = '';
    void this.fileChosen();
  },
}));

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

/** What the page says about the file's columns: the tool recognised, if any. */
function planNote(name: string, plan: ColumnPlan): string {
  const tool = plan.tool ? `${name} looks like a ${plan.tool}${plan.fileStatus ? `; every row of it is ${plan.fileStatus}` : ''}. ` : '';
  return `${tool}Each column of the file, with its first rows and what it becomes. Columns that are none of these become attributes named after them.`;
}

function mappedColumn(header: string, guess: ColumnTarget): MappedColumn {
  const select = document.createElement('select');
  for (const [value, label] of CHOICES) select.append(new Option(label, value));
  select.value = choiceOf(guess);
  const key = document.createElement('input');
  key.type = 'text';
  key.value = guess.to === 'attribute' ? guess.key : '';
  key.placeholder = 'attribute key';
  const showKey = () => {
    key.hidden = select.value !== 'attribute' && select.value !== 'attribute_list';
  };
  select.addEventListener('change', showKey);
  showKey();
  return { header, guess, select, key };
}

/** One row per column: its header, its first values, and what it becomes. */
function mappingTable(columns: MappedColumn[], rows: string[][]): HTMLTableElement {
  const table = document.createElement('table');
  table.className = 'mapping';
  const head = table.createTHead().insertRow();
  for (const title of ['Column', 'First rows', 'Becomes']) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = title;
    head.append(th);
  }
  const body = table.createTBody();
  columns.forEach((c, i) => {
    const tr = body.insertRow();
    const name = document.createElement('th');
    name.scope = 'row';
    name.textContent = c.header.trim() || `(column ${i + 1})`;
    const sample = tr.insertCell();
    sample.className = 'muted small';
    sample.textContent = rows.map((r) => r[i] ?? '').filter((v) => v.trim() !== '').join(' · ') || '—';
    const target = document.createElement('td');
    const controls = document.createElement('div');
    controls.className = 'becomes';
    c.select.setAttribute('aria-label', `What "${name.textContent}" becomes`);
    c.key.setAttribute('aria-label', `Attribute key for "${name.textContent}"`);
    controls.append(c.select, c.key);
    target.append(controls);
    tr.prepend(name);
    tr.append(sample, target);
  });
  return table;
}

/**
 * `params.columns` from the page's choices (null when no file was read); a message when they
 * cannot be imported (no e-mail column, an attribute without a key).
 */
function mappingOf(columns: MappedColumn[]): ColumnMapping | string | null {
  if (!columns.length) return null;
  const mapping: ColumnMapping = {};
  for (const c of columns) {
    if (c.header.trim() === '') continue;
    const choice = c.select.value;
    let spec: ColumnSpec;
    if (choice === 'attribute' || choice === 'attribute_list') {
      const key = c.key.value.trim();
      if (!key) return `Give the attribute key for the column "${c.header}".`;
      spec = choice === 'attribute_list' ? { attribute: key, split: true } : { attribute: key };
    } else if (choice === choiceOf(c.guess)) spec = specOf(c.guess);
    else spec = choice as ColumnSpec;
    mapping[c.header] = spec;
  }
  if (!Object.values(mapping).some((s) => targetOf(s).to === 'email')) return 'Choose the column that holds the e-mail address.';
  return mapping;
}

/** "Weekly: 1,997 unconfirmed subscribers" and the button that sends them the opt-in mail. */
function optinOffer(list: { id: number; name: string }, n: OptinCount, result: HTMLElement): DocumentFragment {
  const frag = document.createDocumentFragment();
  const text = document.createElement('span');
  const recent = n.unconfirmed - n.sendable;
  text.textContent = `${list.name}: ${num(n.unconfirmed)} unconfirmed ${n.unconfirmed === 1 ? 'subscriber' : 'subscribers'}${recent > 0 ? ` (${num(recent)} had an opt-in mail in the last 24 hours)` : ''}. `;
  const send = document.createElement('button');
  send.type = 'button';
  send.textContent = `Send the opt-in mail to ${num(n.sendable)}`;
  send.disabled = n.sendable === 0;
  send.addEventListener('click', async () => {
    send.disabled = true;
    try {
      const { queued } = await api<{ queued: number }>('POST', `/api/lists/${list.id}/optin`);
      result.textContent = `The opt-in mail is on its way to ${num(queued)} ${queued === 1 ? 'subscriber' : 'subscribers'} of ${list.name}, sent at the campaign rate.`;
    } catch (err) {
      send.disabled = false;
      result.textContent = `The opt-in mail could not be sent for ${list.name}: ${err instanceof Error ? err.message : String(err)}`;
    }
  });
  frag.append(text, send);
  return frag;
}
