// Reads the CSV files of an import into validated row batches. Runs in the parser worker
// (parse-worker.ts), so parsing overlaps with the main thread's database writes.
import type { Readable } from 'node:stream';
import { Parser } from 'csv-parse';
import { emailProblem, nameFromEmail, type DomainRules } from '../subscribers/email.ts';
import { openSource, type ImportSource } from './source.ts';

export interface ParseOptions {
  delim: string;
  rules: DomainRules;
  batchSize: number;
}

/** Parallel arrays, one entry per accepted row (cheap to pass between threads). */
export interface RowBatch {
  emails: string[];
  names: string[];
  attribs: string[];
}

export interface ParseSink {
  total(n: number): void;
  log(line: string): void;
  /** Resolves when the consumer can take more (backpressure). */
  batch(b: RowBatch): Promise<void>;
}

/** A problem with a whole file (no header, no email column): the import fails. */
export class ImportFileError extends Error {}

export const emptyBatch = (): RowBatch => ({ emails: [], names: [], attribs: [] });

/** Adds the rows of `b` to the end of `to`. */
export function appendBatch(to: RowBatch, b: RowBatch): void {
  for (let i = 0; i < b.emails.length; i++) {
    to.emails.push(b.emails[i]);
    to.names.push(b.names[i]);
    to.attribs.push(b.attribs[i]);
  }
}

/** The rows of a batch in e-mail order; rows of the same address keep their order. */
export function sortByEmail(b: RowBatch): RowBatch {
  const e = b.emails;
  const order = e.map((_, i) => i).sort((x, y) => (e[x] < e[y] ? -1 : e[x] > e[y] ? 1 : x - y));
  return { emails: order.map((i) => e[i]), names: order.map((i) => b.names[i]), attribs: order.map((i) => b.attribs[i]) };
}

/** Rows [from, to) of a batch. */
export const sliceBatch = (b: RowBatch, from: number, to: number): RowBatch => ({
  emails: b.emails.slice(from, to), names: b.names.slice(from, to), attribs: b.attribs.slice(from, to),
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

/** Header name as listmonk matches it: non-printable-ASCII (e.g. a BOM) removed, trimmed, lower-cased. */
const headerName = (s: string) => s.replace(/[^\x20-\x7e]/g, '').trim().toLowerCase();

/**
 * Header names other tools (Mailchimp, spreadsheets) write for the e-mail column, as headerName
 * leaves them; listmonk's own `email` comes first and wins when a file has several.
 */
export const EMAIL_HEADERS = ['email', 'email address', 'e-mail', 'e-mail address'];

/** Where a file's columns are, decided once from its header row. */
interface Columns {
  email: number;
  name: number;
  /** `first name` / `last name`, read only when there is no `name` column. */
  first: number;
  last: number;
  attribs: number;
}

function columnsOf(names: string[]): Columns | null {
  const email = EMAIL_HEADERS.map((h) => names.indexOf(h)).find((i) => i >= 0) ?? -1;
  if (email < 0) return null;
  const name = names.indexOf('name');
  return {
    email,
    name,
    first: name < 0 ? names.indexOf('first name') : -1,
    last: name < 0 ? names.indexOf('last name') : -1,
    attribs: names.indexOf('attributes'),
  };
}

/** `First Name` and `Last Name` joined by a space; either may be empty or absent. */
function joinedName(record: string[], first: number, last: number): string {
  const a = first >= 0 ? record[first].trim() : '';
  const b = last >= 0 ? record[last].trim() : '';
  return a && b ? `${a} ${b}` : a || b;
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
      parser.on('skip', (e: Error & { lines?: number }) => sink.log(`${file.name} line ${e.lines === undefined ? '?' : parser.physicalLine(e.lines)}: skipped: ${e.message}`));
      input.pipe(parser);

      let columns = 0;
      let emailAt = -1;
      let nameAt = -1;
      let firstAt = -1;
      let lastAt = -1;
      let attribsAt = -1;
      for await (const { record, line } of parser as AsyncIterable<{ record: string[]; line: number }>) {
        if (emailAt < 0) {
          const names = record.map(headerName);
          const cols = columnsOf(names);
          if (!cols) throw new ImportFileError(`${file.name}: the header has no "email" column (nor "Email Address" or "E-mail")`);
          ({ email: emailAt, name: nameAt, first: firstAt, last: lastAt, attribs: attribsAt } = cols);
          columns = record.length;
          const used = [emailAt, nameAt, firstAt, lastAt, attribsAt];
          const ignored = names.filter((_, i) => !used.includes(i));
          if (ignored.length) sink.log(`${file.name}: ignoring columns ${ignored.map((n) => `"${n}"`).join(', ')}`);
          continue;
        }
        const where = `${file.name} line ${line}`;
        if (record.length !== columns) {
          sink.log(`${where}: skipped: ${record.length} fields where the header has ${columns}`);
          continue;
        }
        const email = record[emailAt].trim().toLowerCase();
        const problem = emailProblem(email, opts.rules);
        if (problem) {
          sink.log(`${where}: skipped: ${problem}`);
          continue;
        }
        const name = nameAt >= 0 ? record[nameAt].trim() : firstAt >= 0 || lastAt >= 0 ? joinedName(record, firstAt, lastAt) : '';
        let attribs = '{}';
        const rawAttribs = attribsAt >= 0 ? record[attribsAt].trim() : '';
        if (rawAttribs !== '') {
          let parsed: unknown;
          try {
            parsed = JSON.parse(rawAttribs);
          } catch {
            parsed = undefined;
          }
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) attribs = JSON.stringify(parsed);
          else sink.log(`${where}: "attributes" is not a JSON object; imported without attributes`);
        }
        batch.emails.push(email);
        batch.names.push(name || nameFromEmail(email, 'title'));
        batch.attribs.push(attribs);
        if (batch.emails.length >= opts.batchSize) {
          await sink.batch(batch);
          batch = emptyBatch();
        }
      }
      if (emailAt < 0) throw new ImportFileError(`${file.name}: the file is empty (no header row)`);
    }
    if (batch.emails.length) await sink.batch(batch);
  } finally {
    source.close();
  }
}
