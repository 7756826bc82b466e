// Building blocks the admin pages share: the page heading, sortable column headers, the pager,
// tags, copy buttons, numbers and times for people, and data handed to a page's script.
import { raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { RouteKey, RouteParams } from '../http/route-access.ts';
import { bind, bindMixin, data, type Attrs } from './bind.ts';
import type { ApiFormData, apiForm, FieldData } from './client/form.ts';
import type { selection, SelectionData } from './client/selection.ts';
import type { copy, CopyData } from './client/shell.ts';
import type { Translate } from './i18n.ts';

/** 12,408 */
export function formatNumber(n: number): string {
  return n.toLocaleString('en-US');
}

const RELATIVE_STEPS: [Intl.RelativeTimeFormatUnit, number][] = [['year', 31536000], ['month', 2592000], ['day', 86400], ['hour', 3600], ['minute', 60]];

/** "3 minutes ago", with the exact time on hover; an empty value is a dash. */
export function Time({ value, lang = 'en' }: { value: string | null | undefined; lang?: string }): JSX.Element {
  if (!value) return <span class="muted">—</span>;
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) return <span>{value}</span>;
  const seconds = Math.round((d.getTime() - Date.now()) / 1000);
  const fmt = new Intl.RelativeTimeFormat(lang, { numeric: 'auto' });
  const step = RELATIVE_STEPS.find(([, size]) => Math.abs(seconds) >= size);
  const text = step ? fmt.format(Math.trunc(seconds / step[1]), step[0]) : fmt.format(0, 'second');
  return <time datetime={d.toISOString()} title={d.toUTCString()}>{text}</time>;
}

/** The page's heading, with a count beside it and its main actions at the right. */
export function PageHead({ title, count, children }: { title: string; count?: number; children?: Child }): JSX.Element {
  return (
    <div class="page-head">
      <h1>{title}{count !== undefined ? <span class="count"> ({formatNumber(count)})</span> : null}</h1>
      {children}
    </div>
  );
}

export function ErrorPanel({ title, message }: { title: string; message: string }): JSX.Element {
  return (
    <>
      <PageHead title={title} />
      <p class="alert" role="alert">{message}</p>
      <p><a href="/admin">← Dashboard</a></p>
    </>
  );
}

export function Tag({ children, tone }: { children: Child; tone?: 'accent' | 'danger' }): JSX.Element {
  return <span class={tone ? `tag ${tone}` : 'tag'}>{children}</span>;
}

const copyButton = bind<typeof copy>('copy');

/**
 * A button that copies `value` to the clipboard (the shell's `copy` component): a text, or the
 * binding of data-copy to what the page's script holds (a secret it was just given).
 */
export function CopyButton({ value, label, t }: { value: string | Attrs; label: string; t: Translate }): JSX.Element {
  const copied = typeof value === 'string' ? data<CopyData>({ copy: value }) : value;
  return <button type="button" class="link small" {...copyButton.root()} {...copied} {...copyButton.on('click', 'copy')} aria-label={`${t('globals.buttons.copy')} ${label}`}>{t('globals.buttons.copy')}</button>;
}

const form = bind<typeof apiForm>('apiForm');

/**
 * Where a form sends (ApiFormData): the route as its table names it, its path parameters
 * filled in, and where to go after (`{id}` is filled from the answer). For a form whose own
 * script sends it. Whether the user may send it is the page's `view.may(route)`.
 */
export function apiTarget(route: RouteKey, params: RouteParams, after: { done?: string; flash?: string } = {}): Attrs {
  const [method, path] = route.split(' ') as [ApiFormData['method'], string];
  const action = path.replace(/:(\w+)/g, (m, name: string) => {
    if (!(name in params)) throw new Error(`${route}: no value for :${name}`);
    return encodeURIComponent(String(params[name]));
  });
  return data<ApiFormData>({ method, action, ...after });
}

/** The attributes of a form the shell's `apiForm` sends to an API route (apiTarget's). */
export function apiFormAttrs(route: RouteKey, params: RouteParams, after: { done?: string; flash?: string } = {}): Attrs {
  return { ...form.root(), ...form.on('submit', 'submit'), ...apiTarget(route, params, after) };
}

/** How an apiForm reads a field: its kind and options (data-kind, data-off, ...). */
export function fieldAttrs(field: FieldData): Attrs {
  return data<FieldData>(field);
}

/** The submit button of an apiForm: disabled while the form is being sent. */
export const formBusy = (): Attrs => form.attr('disabled', 'busy');

/**
 * Data for a page's script, as JSON in a non-executed <script> element. `<`, `>` and `&` are
 * written as \u escapes, so no value can end the element or start markup.
 */
/** Data for the page's script, as the type the script reads it by (`pageData<T>(id)` there). */
export function PageData<T>({ id, value }: { id: string; value: T }): JSX.Element {
  const json = JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return <script type="application/json" id={id}>{raw(json)}</script>;
}

/** The URL of `path` with the current query changed: `null` removes a parameter. */
export function withQuery(path: string, query: URLSearchParams, changes: Record<string, string | number | null>): string {
  const next = new URLSearchParams(query);
  for (const [k, v] of Object.entries(changes)) {
    if (v === null || v === '') next.delete(k);
    else next.set(k, String(v));
  }
  const qs = next.toString();
  return qs ? `${path}?${qs}` : path;
}

/** A column header that sorts by `column` (and flips the order when already sorted by it). */
export function SortHeader({ label, column, path, query, current, order, class: cls }: {
  label: string; column: string; path: string; query: URLSearchParams; current: string; order: 'asc' | 'desc'; class?: string;
}): JSX.Element {
  const active = current === column;
  const nextOrder = active && order === 'asc' ? 'desc' : 'asc';
  return (
    <th scope="col" class={cls} aria-sort={active ? (order === 'asc' ? 'ascending' : 'descending') : undefined}>
      <a href={withQuery(path, query, { order_by: column, order: nextOrder, page: null })}>
        {label}{active ? (order === 'asc' ? ' ▲' : ' ▼') : ''}
      </a>
    </th>
  );
}

const PAGE_SIZES = [20, 50, 100, 500];

/** Page links around the current page, and the page-size choice. */
export function Pager({ page, perPage, total, path, query, t }: {
  page: number; perPage: number; total: number; path: string; query: URLSearchParams; t: Translate;
}): JSX.Element {
  const pages = Math.max(1, Math.ceil(total / perPage));
  const shown = [...new Set([1, page - 2, page - 1, page, page + 1, page + 2, pages])].filter((p) => p >= 1 && p <= pages).sort((a, b) => a - b);
  const items: (number | 'gap')[] = [];
  shown.forEach((p, i) => {
    if (i > 0 && p - shown[i - 1] > 1) items.push('gap');
    items.push(p);
  });
  return (
    <nav class="pager" aria-label={t('admin.pagination')}>
      {pages > 1 ? (
        <ul>
          {page > 1 ? <li><a href={withQuery(path, query, { page: page - 1 })} rel="prev" aria-label={t('admin.previousPage')}>‹</a></li> : null}
          {items.map((p) => (p === 'gap' ? <li class="muted">…</li> : p === page
            ? <li><span class="current" aria-current="page">{p}</span></li>
            : <li><a href={withQuery(path, query, { page: p })}>{p}</a></li>))}
          {page < pages ? <li><a href={withQuery(path, query, { page: page + 1 })} rel="next" aria-label={t('admin.nextPage')}>›</a></li> : null}
        </ul>
      ) : null}
      <span class="muted small">
        {t('admin.perPage')}{' '}
        {PAGE_SIZES.map((n) => (n === perPage ? <strong>{n} </strong> : <><a href={withQuery(path, query, { per_page: n, page: null })}>{n}</a>{' '}</>))}
      </span>
    </nav>
  );
}

/** A form field's label, control, help and the place where the API's refusal is shown. */
export function Field({ id, label, help, children }: { id: string; label: string; help?: Child; children: Child }): JSX.Element {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      {children}
      {help ? <p class="help" id={`${id}-help`}>{help}</p> : null}
      <p class="field-error" id={`${id}-error`} data-error-for={id} role="alert"></p>
    </div>
  );
}

/**
 * A table's search form (GET, so the results have a URL): a search box, a status choice, the
 * other filters in effect kept as hidden fields.
 */
export function SearchToolbar({ path, search, status, keep = {}, t }: {
  path: string;
  search: { id: string; label: string; value: string; placeholder: string };
  status: { id: string; value: string; options: { value: string; label: string }[] };
  keep?: Record<string, string>;
  t: Translate;
}): JSX.Element {
  return (
    <form class="toolbar" method="get" action={path} role="search">
      <div class="grow">
        <label for={search.id}>{search.label}</label>
        <input type="search" id={search.id} name="query" value={search.value} placeholder={search.placeholder} />
      </div>
      <div>
        <label for={status.id}>{t('globals.fields.status')}</label>
        <select id={status.id} name="status">
          {status.options.map((o) => <option value={o.value} selected={o.value === status.value}>{o.label}</option>)}
        </select>
      </div>
      {Object.entries(keep).filter(([, v]) => v).map(([name, value]) => <input type="hidden" name={name} value={value} />)}
      <button type="submit" class="secondary">{t('admin.filter')}</button>
    </form>
  );
}

/**
 * The bar of a table's bulk actions, shown while rows are ticked (the page's `selection()`):
 * how many, "select all N matching" when the page offers it, the page's actions, and Clear.
 */
export function BulkBar({ t, matchingLabel, children }: {
  t: Translate;
  /** The text of the "all N matching" choice; none when the page's actions cannot take a query. */
  matchingLabel?: string;
  children: Child;
}): JSX.Element {
  return (
    <div class="bulk" {...rows.show('barShown()')} x-cloak>
      <strong {...rows.text('selectedLabel()')}></strong>
      {matchingLabel ? <button type="button" class="link" {...rows.show('offerMatching()')} {...rows.on('click', 'selectMatching')}>{matchingLabel}</button> : null}
      {children}
      <button type="button" class="secondary small" {...rows.on('click', 'clearSelection')}>{t('globals.buttons.clear')}</button>
    </div>
  );
}

/** The selection's bindings, for the tick boxes a page with a BulkBar renders. */
export const rows = bindMixin<ReturnType<typeof selection>>();

/** On a component with a selection: how many rows the page's query matches (for "all N matching"). */
export function matchingRows(total: number): Attrs {
  return data<SelectionData>({ total });
}

/** The tick box of one row: its value is the row's id. */
export function rowBox(id: number): Attrs {
  return { 'data-row': '', value: String(id), ...rows.model('selected') };
}

/** The header's tick box: the whole page. */
export const allRowsBox = (): Attrs => ({ ...rows.on('change', 'toggleAll'), ...rows.attr('checked', 'allOnPage()') });
