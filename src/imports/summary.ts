// What the admin's import page (admin.tsx and its script admin.client.ts) says about an
// import: from its log (src/imports/importer.ts, parse.ts and store.ts write the lines) why
// rows were skipped, counted by reason, and whether it was stopped; durations for people;
// where its subscribers are. Pure, so the page's server side and its browser script share it.

/** GET /api/import/subscribers's answer (the importer's ImportStatus must fit it). */
export interface ImportProgress {
  name: string;
  total: number;
  imported: number;
  status: 'none' | 'importing' | 'stopping' | 'finished' | 'failed';
  /** New subscribers. */
  new: number;
  /** Already on file, and changed by the import. */
  updated: number;
  /** Already on file, and nothing changed. */
  unchanged: number;
  /** Rows not imported, each with its reason in the log. */
  skipped: number;
  /** Rows of an address an earlier row had. */
  duplicates: number;
}

const num = (n: number) => n.toLocaleString('en-US');
const plural = (n: number, one: string, many: string) => `${num(n)} ${n === 1 ? one : many}`;

type Counts = Pick<ImportProgress, 'new' | 'updated' | 'unchanged' | 'skipped' | 'duplicates'>;

/** "2,000 (0 updated, 2,000 unchanged)": the rows already on file. */
export const onFileText = (c: Counts) => `${num(c.updated + c.unchanged)} (${num(c.updated)} updated, ${num(c.unchanged)} unchanged)`;

/** "0 new, 2,000 already on file (0 updated, 2,000 unchanged), 3 skipped, 1 duplicate in the file". */
export function countsSentence(c: Counts): string {
  const parts = [`${num(c.new)} new`, `${num(c.updated + c.unchanged)} already on file (${num(c.updated)} updated, ${num(c.unchanged)} unchanged)`];
  if (c.skipped) parts.push(`${num(c.skipped)} skipped`);
  if (c.duplicates) parts.push(`${plural(c.duplicates, 'duplicate', 'duplicates')} in the file`);
  return parts.join(', ');
}

/** The states the page names: the importer's, and "stopped" (finished after a stop). */
export const IMPORT_PAGE_STATES = ['importing', 'stopping', 'finished', 'failed', 'stopped'] as const;

/** What the admin page's script starts from: the API's status and log, and the run's lists and times. */
export interface ImportPageData {
  status: ImportProgress;
  log: string;
  mode: 'subscribe' | 'blocklist';
  lists: number[];
  /** Milliseconds since the import started, when one ran. */
  elapsedMs: number | null;
  /** How long it took, once it ended. */
  tookMs: number | null;
  /** Of the run's new subscriptions. */
  subscriptionStatus: 'unconfirmed' | 'confirmed' | 'unsubscribed';
  /** The run's double opt-in lists (those an opt-in mail can be sent for). */
  optinLists: { id: number; name: string }[];
  labels: Record<(typeof IMPORT_PAGE_STATES)[number], string>;
}

export interface SkipReason {
  reason: string;
  count: number;
}

/** "a.csv line 3: skipped: <why>" (parser) and "skipped <address>: <why>" (writer). */
const SKIP_LINE = [/ line (?:\d+|\?): skipped: (.*)$/, /^\S+ skipped [^:]*: (.*)$/];

/**
 * The reasons rows were skipped, most frequent first. A reason starting with the quoted value
 * (`"x@" is not a valid e-mail address`) has it left out, so alike reasons count together.
 */
export function skipReasons(log: string): SkipReason[] {
  const counts = new Map<string, number>();
  for (const line of log.split('\n')) {
    const why = SKIP_LINE.map((re) => re.exec(line)?.[1]).find((w) => w !== undefined);
    if (why === undefined) continue;
    const reason = why.replace(/^".*"(?= )/, '"…"');
    counts.set(reason, (counts.get(reason) ?? 0) + 1);
  }
  return [...counts].map(([reason, count]) => ({ reason, count })).sort((a, b) => b.count - a.count);
}

/** Whether the import ended because it was stopped (its status is then "finished" too). */
function wasStopped(log: string): boolean {
  return /^\S+ stopped: \d+ rows imported$/m.test(log);
}

/** The page's name for the import's state ('' when there is none). */
export function stateLabel(status: ImportProgress, log: string, labels: ImportPageData['labels']): string {
  if (status.status === 'none') return '';
  return labels[status.status === 'finished' && wasStopped(log) ? 'stopped' : status.status];
}

/** "850 ms", "42 s", "3 min 05 s", "1 h 02 min". */
export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.max(0, Math.round(ms))} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const pad = (n: number) => String(n).padStart(2, '0');
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${pad(Math.floor((s % 3600) / 60))} min`;
}

/** The admin's subscribers page showing what an import wrote: its lists, or the blocklisted. */
export function importedSubscribersUrl(mode: 'subscribe' | 'blocklist', lists: number[]): string {
  if (mode === 'blocklist') return '/admin/subscribers?status=blocklisted';
  return `/admin/subscribers?${lists.map((id) => `list_id=${id}`).join('&')}`;
}
