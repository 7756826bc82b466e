// What each column of an import file becomes: the e-mail, the name, an attribute, the lists or
// the status a row names, or nothing. The guess is made from the header alone (the exports of
// Mailchimp, Substack, Buttondown, beehiiv, Ghost and Kit are recognised by theirs); a mapping
// given with the import (`params.columns`, or the import page's choices) overrides it column by
// column. Pure, so the parser thread (src/imports/parse.ts) and the import page's script make
// the same guess.

/** What a row says about its subscription, as the tool it came from meant it. */
export type RowStatus = 'subscribed' | 'unconfirmed' | 'unsubscribed' | 'blocklisted';

export type ColumnTarget =
  | { to: 'email' | 'name' | 'first_name' | 'last_name' | 'lists' | 'ignore' }
  /** listmonk's JSON object column (and Buttondown's `metadata`), merged into the attributes. */
  | { to: 'attributes' }
  /** One attribute; `split`: the comma-separated values as an array (tags). */
  | { to: 'attribute'; key: string; split?: boolean }
  /** The row's status in the tool it came from; `values` (lower-case) before the common table. */
  | { to: 'status'; values?: Record<string, RowStatus> };

/** `params.columns`: header name → target, as the API takes it (see docs/import.md). */
export type ColumnMapping = Record<string, ColumnSpec>;
export type ColumnSpec =
  | 'email' | 'name' | 'first_name' | 'last_name' | 'attributes' | 'lists' | 'status' | 'ignore'
  | { attribute: string; split?: boolean }
  | { status: Record<string, RowStatus> };

export const SIMPLE_TARGETS = ['email', 'name', 'first_name', 'last_name', 'attributes', 'lists', 'status', 'ignore'] as const;
export const ROW_STATUSES: readonly RowStatus[] = ['subscribed', 'unconfirmed', 'unsubscribed', 'blocklisted'];

/** Header name as listmonk matches it: non-printable-ASCII (e.g. a BOM) removed, trimmed, lower-cased. */
export const headerName = (s: string) => s.replace(/[^\x20-\x7e]/g, '').trim().toLowerCase();

/** An attribute key made from a header: `Phone Number` → `phone_number`. */
export function attributeKey(header: string): string {
  return header.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').trim().toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '') || 'column';
}

/** The mapping's form of a target (what the import page posts back). */
export function specOf(t: ColumnTarget): ColumnSpec {
  if (t.to === 'attribute') return t.split ? { attribute: t.key, split: true } : { attribute: t.key };
  if (t.to === 'status' && t.values) return { status: t.values };
  return t.to;
}

export function targetOf(spec: ColumnSpec): ColumnTarget {
  if (typeof spec === 'string') return { to: spec };
  if ('attribute' in spec) return { to: 'attribute', key: spec.attribute, split: spec.split === true };
  return { to: 'status', values: spec.status };
}

/**
 * Status words of the tools people move from, lower-cased. Whatever is not here counts as
 * subscribed (the import's own status), and the log names it once.
 */
const STATUS_WORDS: Record<string, RowStatus> = {
  '': 'subscribed', subscribed: 'subscribed', active: 'subscribed', confirmed: 'subscribed', enabled: 'subscribed', true: 'subscribed', yes: 'subscribed', '1': 'subscribed',
  regular: 'subscribed', premium: 'subscribed', paid: 'subscribed', free: 'subscribed', comped: 'subscribed', comp: 'subscribed', gifted: 'subscribed', trialed: 'subscribed', churning: 'subscribed', unpaid: 'subscribed', paused: 'subscribed',
  unconfirmed: 'unconfirmed', pending: 'unconfirmed', unactivated: 'unconfirmed', validating: 'unconfirmed', 'non-subscribed': 'unconfirmed', transactional: 'unconfirmed',
  unsubscribed: 'unsubscribed', inactive: 'unsubscribed', cancelled: 'unsubscribed', canceled: 'unsubscribed', removed: 'unsubscribed', false: 'unsubscribed', no: 'unsubscribed', '0': 'unsubscribed',
  cleaned: 'blocklisted', bounced: 'blocklisted', undeliverable: 'blocklisted', complained: 'blocklisted', spammy: 'blocklisted', spam: 'blocklisted', blocked: 'blocklisted', blocklisted: 'blocklisted', blacklisted: 'blocklisted', invalid: 'blocklisted',
};

/** A row's status from a status column's value; null when the word is not known. */
export function rowStatus(value: string, values?: Record<string, RowStatus>): RowStatus | null {
  const v = value.trim().toLowerCase();
  return values?.[v] ?? STATUS_WORDS[v] ?? null;
}

/** A tool whose export is recognised by its header. */
interface Tool {
  name: string;
  detect(h: Set<string>): boolean;
  /** Targets of its columns by header name (lower-case); the others are guessed as usual. */
  columns: Record<string, ColumnTarget>;
  /** A status for every row of the file, from its header (Mailchimp's per-status files). */
  fileStatus?(h: Set<string>): RowStatus | null;
}

const ignore: ColumnTarget = { to: 'ignore' };
const tags = (key: string): ColumnTarget => ({ to: 'attribute', key, split: true });

export const TOOLS: Tool[] = [
  {
    // An audience export: a ZIP of subscribed, unsubscribed, cleaned (hard-bounced) and
    // non-subscribed CSV files of the same columns, plus UNSUB_* or CLEAN_* in the last two.
    name: 'Mailchimp audience export',
    detect: (h) => h.has('email address') && ['member_rating', 'leid', 'euid', 'optin_time'].some((c) => h.has(c)),
    columns: {
      'email address': { to: 'email' }, 'first name': { to: 'first_name' }, 'last name': { to: 'last_name' }, tags: tags('tags'),
      member_rating: ignore, optin_ip: ignore, confirm_ip: ignore, latitude: ignore, longitude: ignore, gmtoff: ignore, dstoff: ignore, leid: ignore, euid: ignore,
      unsub_campaign_title: ignore, unsub_campaign_id: ignore, clean_campaign_title: ignore, clean_campaign_id: ignore,
    },
    fileStatus: (h) => (h.has('clean_time') ? 'blocklisted' : h.has('unsub_time') ? 'unsubscribed' : null),
  },
  {
    name: 'Substack subscribers export',
    detect: (h) => h.has('email') && (h.has('email_disabled') || h.has('active_subscription')),
    columns: { email_disabled: { to: 'status', values: { true: 'unsubscribed', false: 'subscribed' } } },
  },
  {
    name: 'Buttondown subscribers export',
    detect: (h) => h.has('email') && h.has('subscriber_type'),
    columns: { subscriber_type: { to: 'status' }, metadata: { to: 'attributes' }, tags: tags('tags'), id: ignore, secondary_id: ignore },
  },
  {
    name: 'beehiiv subscribers export',
    detect: (h) => h.has('email') && h.has('status') && (h.has('subscription_tier') || h.has('referring_site')),
    columns: { status: { to: 'status' }, tags: tags('tags') },
  },
  {
    name: 'Ghost members export',
    detect: (h) => h.has('email') && h.has('subscribed_to_emails'),
    columns: { subscribed_to_emails: { to: 'status', values: { true: 'subscribed', false: 'unsubscribed' } }, labels: tags('labels'), id: ignore },
  },
  {
    name: 'Kit (ConvertKit) subscribers export',
    detect: (h) => h.has('email_address') && (h.has('state') || h.has('status')),
    columns: { email_address: { to: 'email' }, state: { to: 'status' }, status: { to: 'status' }, tags: tags('tags'), id: ignore },
  },
];

/** Guesses for any file, by header name (lower-case). */
const COMMON: Record<string, ColumnTarget> = {
  email: { to: 'email' }, 'email address': { to: 'email' }, 'e-mail': { to: 'email' }, 'e-mail address': { to: 'email' }, email_address: { to: 'email' },
  name: { to: 'name' }, 'full name': { to: 'name' }, full_name: { to: 'name' },
  'first name': { to: 'first_name' }, first_name: { to: 'first_name' }, firstname: { to: 'first_name' },
  'last name': { to: 'last_name' }, last_name: { to: 'last_name' }, lastname: { to: 'last_name' },
  attributes: { to: 'attributes' },
  status: { to: 'status' }, tags: tags('tags'), labels: tags('labels'),
};

const COMMON_ORDER = Object.keys(COMMON);

/** Targets of which a file has at most one column; a second guess of them is ignored. */
const SINGLE = new Set(['email', 'name', 'first_name', 'last_name', 'lists', 'status']);

export interface ColumnPlan {
  /** The tool whose export this is, when its header says so. */
  tool: string | null;
  /** One target per column, in the file's order. */
  targets: ColumnTarget[];
  /** Every row's status, from the header (a Mailchimp unsubscribed or cleaned file). */
  fileStatus: RowStatus | null;
}

/**
 * What each column of a file with this header becomes. A `mapping` (keys matched as header
 * names are) decides the columns it names; the others are guessed: the tool's own columns,
 * then the common names, then an attribute named after the header. A second column guessed
 * as the e-mail, name or status is ignored, and so are `first name`/`last name` beside a `name`.
 */
export function planColumns(header: string[], mapping: ColumnMapping = {}): ColumnPlan {
  const names = header.map(headerName);
  const set = new Set(names);
  const tool = TOOLS.find((t) => t.detect(set)) ?? null;
  const mapped = new Map(Object.entries(mapping).map(([k, v]) => [headerName(k), targetOf(v)]));
  const taken = new Set<string>();
  for (const n of names) {
    const t = mapped.get(n);
    if (t && SINGLE.has(t.to)) taken.add(t.to);
  }
  const guessed = names.map((n) => tool?.columns[n] ?? COMMON[n]);
  if (names.some((n, i) => (mapped.get(n) ?? guessed[i])?.to === 'name')) taken.add('first_name').add('last_name');
  // Of several columns guessed as one single target, the tool's own, then the common name
  // listed first (`email` before `Email Address`), then the leftmost.
  const rank = (i: number) => (tool?.columns[names[i]] ? -1 : COMMON_ORDER.indexOf(names[i]));
  const winner = new Map<string, number>();
  guessed.forEach((g, i) => {
    if (!g || mapped.has(names[i]) || !SINGLE.has(g.to) || taken.has(g.to)) return;
    const best = winner.get(g.to);
    if (best === undefined || rank(i) < rank(best)) winner.set(g.to, i);
  });
  const targets = names.map((n, i): ColumnTarget => {
    const explicit = mapped.get(n);
    if (explicit) return explicit;
    const guess = guessed[i];
    if (!guess) return n === '' ? ignore : { to: 'attribute', key: attributeKey(header[i]) };
    if (SINGLE.has(guess.to) && winner.get(guess.to) !== i) return ignore;
    return guess;
  });
  return { tool: tool?.name ?? null, targets, fileStatus: tool?.fileStatus?.(set) ?? null };
}
