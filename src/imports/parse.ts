// Reads the CSV files of an import into validated row batches. Runs in the parser worker
// (parse-worker.ts), so parsing overlaps with the main thread's database writes.
import type { Readable } from 'node:stream';
import { Parser } from 'csv-parse';
import { emailProblem, nameFromEmail, type DomainRules } from '../mail/address.ts';
import { headerName, planColumns, rowStatus, type ColumnMapping, type ColumnPlan, type ColumnTarget, type RowStatus } from './columns.ts';
import { openSource, type ImportSource } from './source.ts';

export interface ParseOptions {
  delim: string;
  rules: DomainRules;
  batchSize: number;
  /** `params.columns`: what the caller says the columns are (the rest is guessed). */
  columns: ColumnMapping;
  /** The lists a `lists` column may name (those the importer may manage), by lower-cased name. */
  listsByName: Record<string, number>;
}

/** What a row says beyond the import's own options: its status in the tool it came from, more lists. */
export interface RowExtra {
  status?: Exclude<RowStatus, 'subscribed'>;
  lists?: number[];
}

/** Parallel arrays, one entry per accepted row (cheap to pass between threads). */
export interface RowBatch {
  emails: string[];
  names: string[];
  attribs: string[];
  /** null for a row with nothing more to say (all of them, in a listmonk CSV). */
  extras: (RowExtra | null)[];
}

export interface ParseSink {
  total(n: number): void;
  /** `skipped`: the line says why a row was not imported (counted in the import's status). */
  log(line: string, skipped?: boolean): void;
  /** Resolves when the consumer can take more (backpressure). */
  batch(b: RowBatch): Promise<void>;
}

/** A problem with a whole file (no header, no email column): the import fails. */
export class ImportFileError extends Error {}

export const emptyBatch = (): RowBatch => ({ emails: [], names: [], attribs: [], extras: [] });

/** Adds the rows of `b` to the end of `to`. */
export function appendBatch(to: RowBatch, b: RowBatch): void {
  for (let i = 0; i < b.emails.length; i++) {
    to.emails.push(b.emails[i]);
    to.names.push(b.names[i]);
    to.attribs.push(b.attribs[i]);
    to.extras.push(b.extras[i]);
  }
}

/** The rows of a batch in e-mail order; rows of the same address keep their order. */
export function sortByEmail(b: RowBatch): RowBatch {
  const e = b.emails;
  const order = e.map((_, i) => i).sort((x, y) => (e[x] < e[y] ? -1 : e[x] > e[y] ? 1 : x - y));
  return { emails: order.map((i) => e[i]), names: order.map((i) => b.names[i]), attribs: order.map((i) => b.attribs[i]), extras: order.map((i) => b.extras[i]) };
}

/** Rows [from, to) of a batch. */
export const sliceBatch = (b: RowBatch, from: number, to: number): RowBatch => ({
  emails: b.emails.slice(from, to), names: b.names.slice(from, to), attribs: b.attribs.slice(from, to), extras: b.extras.slice(from, to),
});

async function countLines(stream: Readable): Promise<number> {
  let lines = 0;
  let last = 0x0a;
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let i = chunk.indexOf(0x0a);
    while (i >= 0) {
      lines++;
      i = chunk.indexOf(0x0a, i + 1);
    }
    if (chunk.length) last = chunk[chunk.length - 1];
  }
  return last === 0x0a ? lines : lines + 1;
}

/**
 * csv-parse's stream, each record tagged with the physical line it ends on. The parser pushes
 * a record the moment it completes it, so its running line count is the record's; this is what
 * the `info` option reports too, without the snapshot object it builds per record (a third of
 * the parse time of a 1M-row file).
 */
class LineTaggingParser extends Parser {
  /** csv-parse counts a CRLF inside a quoted field as two lines. */
  private crlfInFields = 0;

  override push(record: unknown, encoding?: BufferEncoding): boolean {
    if (record === null) return super.push(null, encoding);
    for (const field of record as string[]) if (field.includes('\r\n')) this.crlfInFields += field.split('\r\n').length - 1;
    return super.push({ record, line: this.physicalLine(this.info.lines) }, encoding);
  }

  /** The physical line of csv-parse's line count (records, errors). */
  physicalLine(lines: number): number {
    return lines - this.crlfInFields;
  }
}

/** What the parser does with each column of one file (from its ColumnPlan). */
interface FileColumns {
  email: number;
  name: number;
  first: number;
  last: number;
  /** JSON object columns, merged into the attributes (listmonk's `attributes`). */
  json: { at: number; name: string }[];
  attribs: { at: number; key: string; split: boolean }[];
  lists: number;
  status: { at: number; values?: Record<string, RowStatus> } | null;
  fileStatus: RowStatus | null;
}

function fileColumns(plan: ColumnPlan, names: string[]): FileColumns | null {
  const at = (to: ColumnTarget['to']) => plan.targets.findIndex((t) => t.to === to);
  const email = at('email');
  if (email < 0) return null;
  const status = plan.targets.findIndex((t) => t.to === 'status');
  const st = plan.targets[status];
  return {
    email,
    name: at('name'),
    first: at('first_name'),
    last: at('last_name'),
    json: plan.targets.flatMap((t, i) => (t.to === 'attributes' ? [{ at: i, name: names[i] }] : [])),
    attribs: plan.targets.flatMap((t, i) => (t.to === 'attribute' ? [{ at: i, key: t.key, split: t.split === true }] : [])),
    lists: at('lists'),
    status: st?.to === 'status' ? { at: status, values: st.values } : null,
    fileStatus: plan.fileStatus,
  };
}

/** How the log names a column's target. */
function describeTarget(t: ColumnTarget): string {
  if (t.to === 'attribute') return `attribute "${t.key}"${t.split ? ' (a list of values)' : ''}`;
  if (t.to === 'attributes') return 'attributes (JSON)';
  if (t.to === 'lists') return 'lists (their names)';
  return t.to.replace('_', ' ');
}

/** `First Name` and `Last Name` joined by a space; either may be empty or absent. */
function joinedName(record: string[], first: number, last: number): string {
  const a = first >= 0 ? record[first].trim() : '';
  const b = last >= 0 ? record[last].trim() : '';
  return a && b ? `${a} ${b}` : a || b;
}

/** A cell of comma-separated values (tags), each trimmed and unquoted (Mailchimp quotes them). */
const splitValues = (v: string) => v.split(',').map((x) => x.trim().replace(/^"(.*)"$/, '$1').trim()).filter((x) => x !== '');

/** A row's attributes as JSON: its JSON object columns merged, then its attribute columns (empty ones left out). */
function attributesOf(record: string[], cols: FileColumns, where: string, sink: ParseSink): string {
  // A listmonk CSV (one JSON column and nothing else) is passed through as it is parsed.
  if (!cols.attribs.length && cols.json.length <= 1) return cols.json.length ? jsonObject(record[cols.json[0].at], cols.json[0].name, where, sink) ?? '{}' : '{}';
  const out: Record<string, unknown> = {};
  for (const { at, name } of cols.json) {
    const json = jsonObject(record[at], name, where, sink);
    if (json) Object.assign(out, JSON.parse(json));
  }
  for (const a of cols.attribs) {
    const v = record[a.at].trim();
    if (v !== '') out[a.key] = a.split ? splitValues(v) : v;
  }
  return Object.keys(out).length ? JSON.stringify(out) : '{}';
}

/** The JSON text of a cell holding a JSON object; null (and a line in the log) for anything else but an empty cell. */
function jsonObject(cell: string, column: string, where: string, sink: ParseSink): string | null {
  const raw = cell.trim();
  if (raw === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    parsed = undefined;
  }
  if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return JSON.stringify(parsed);
  sink.log(`${where}: "${column}" is not a JSON object; imported without it`);
  return null;
}

/** The row's status and extra lists, when it has any. */
function extraOf(record: string[], cols: FileColumns, opts: ParseOptions, unknown: (key: string, message: string) => void): RowExtra | null {
  let status: RowStatus = cols.fileStatus ?? 'subscribed';
  if (cols.status && record[cols.status.at].trim() !== '') {
    const word = record[cols.status.at];
    const s = rowStatus(word, cols.status.values);
    if (s) status = s;
    else unknown(`status:${word.trim().toLowerCase()}`, `status "${word.trim()}" is not one this import knows; those rows are imported as subscribed`);
  }
  const lists: number[] = [];
  if (cols.lists >= 0) {
    for (const name of splitValues(record[cols.lists])) {
      const id = opts.listsByName[name.toLowerCase()];
      if (id !== undefined) lists.push(id);
      else unknown(`list:${name.toLowerCase()}`, `"${name}" is not the name of a list you may import into; ignored`);
    }
  }
  if (status === 'subscribed' && !lists.length) return null;
  return { ...(status === 'subscribed' ? {} : { status }), ...(lists.length ? { lists } : {}) };
}

export async function parseSource(src: ImportSource, opts: ParseOptions, sink: ParseSink): Promise<void> {
  const source = await openSource(src);
  try {
    // listmonk's `total`: physical lines minus each file's header (progress only).
    let total = 0;
    for (const file of src.files) total += Math.max(0, (await countLines(await source.open(file))) - 1);
    sink.total(total);

    let batch = emptyBatch();
    for (const file of src.files) {
      const input = await source.open(file);
      const parser = new LineTaggingParser({ delimiter: opts.delim, bom: true, relax_column_count: true, skip_empty_lines: true, skip_records_with_error: true });
      input.on('error', (e) => parser.destroy(e));
      parser.on('skip', (e: Error & { lines?: number }) => sink.log(`${file.name} line ${e.lines === undefined ? '?' : parser.physicalLine(e.lines)}: skipped: ${e.message}`, true));
      input.pipe(parser);

      let fields = 0;
      let cols: FileColumns | null = null;
      /** Status words and list names already logged as unknown (once per file). */
      const unknown = new Set<string>();
      for await (const { record, line } of parser as AsyncIterable<{ record: string[]; line: number }>) {
        if (!cols) {
          const plan = planColumns(record, opts.columns);
          const names = record.map(headerName);
          cols = fileColumns(plan, names);
          if (!cols) throw new ImportFileError(`${file.name}: the header has no "email" column (nor "Email Address" or "E-mail"), and params.columns maps none to email`);
          fields = record.length;
          if (plan.tool) sink.log(`${file.name}: recognised as a ${plan.tool}${plan.fileStatus ? `; every row is ${plan.fileStatus}` : ''}`);
          const used = plan.targets.flatMap((t, i) => (t.to === 'ignore' ? [] : [`"${names[i]}" → ${describeTarget(t)}`]));
          const ignored = plan.targets.flatMap((t, i) => (t.to === 'ignore' && names[i] !== '' ? [`"${names[i]}"`] : []));
          sink.log(`${file.name}: columns ${used.join(', ')}`);
          if (ignored.length) sink.log(`${file.name}: ignoring columns ${ignored.join(', ')}`);
          continue;
        }
        const where = `${file.name} line ${line}`;
        if (record.length !== fields) {
          sink.log(`${where}: skipped: ${record.length} fields where the header has ${fields}`, true);
          continue;
        }
        const email = record[cols.email].trim().toLowerCase();
        const problem = emailProblem(email, opts.rules);
        if (problem) {
          sink.log(`${where}: skipped: ${problem}`, true);
          continue;
        }
        const name = cols.name >= 0 ? record[cols.name].trim() : cols.first >= 0 || cols.last >= 0 ? joinedName(record, cols.first, cols.last) : '';
        batch.emails.push(email);
        batch.names.push(name || nameFromEmail(email, 'title'));
        batch.attribs.push(attributesOf(record, cols, where, sink));
        batch.extras.push(cols.status || cols.fileStatus || cols.lists >= 0 ? extraOf(record, cols, opts, (key, m) => {
          if (unknown.has(key)) return;
          unknown.add(key);
          sink.log(`${file.name}: ${m}`);
        }) : null);
        if (batch.emails.length >= opts.batchSize) {
          await sink.batch(batch);
          batch = emptyBatch();
        }
      }
      if (!cols) throw new ImportFileError(`${file.name}: the file is empty (no header row)`);
    }
    if (batch.emails.length) await sink.batch(batch);
  } finally {
    source.close();
  }
}
