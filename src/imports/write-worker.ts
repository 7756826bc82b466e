// The import's writer thread: writes the parser thread's row batches through its own
// connection, so the main thread (the API) never runs an import transaction. With WAL, API
// reads never wait for the import. The server's writes go first (db/foreground-writes.ts):
// before each transaction this thread waits while any is in progress, and one that comes
// waits at most for the transaction under way, which is why they are sized to about 50 ms.
// A large import is written in runs of rows sorted by e-mail address (LARGE_IMPORT_RUN_ROWS);
// while it writes one, it takes the parser's next batches between its transactions, so both
// threads keep busy.
import { parentPort, receiveMessageOnPort, workerData } from 'node:worker_threads';
import { checkpointNow, openDatabase, WalCheckpointer } from '../db/connection.ts';
import { backgroundTransaction } from '../db/foreground-writes.ts';
import { actingAs } from '../core/actor.ts';
import { EventLog } from '../events/log.ts';
import { appendBatch, emptyBatch, sliceBatch, sortByEmail, type RowBatch } from './parse.ts';
import { NameIndex } from './name-index.ts';
import { ImportStore, isLargeImport, noCounts } from './store.ts';
import {
  CONTROL_DUPLICATES, CONTROL_IMPORTED, CONTROL_NEW, CONTROL_SKIPPED, CONTROL_STOP, CONTROL_UNCHANGED, CONTROL_UPDATED, lowerThreadPriority, MAX_FOREGROUND_WAIT_MS, TransactionPacer, type ParserMessage, type WriterJob, type WriterMessage,
} from './threads.ts';

/**
 * How long one write transaction should take: about the most an API write waits for the import.
 * Written in sorted runs, shorter transactions cost little: 1M rows, 50 ms: 70k rows/s, API
 * writes p95 60 ms, worst 84 ms; 100 ms: 71k rows/s, p95 108 ms (measured while writes still
 * waited in SQLite's busy handler; before the runs, 100 ms imported 10.5k rows/s against 7.5k
 * at 60 ms).
 */
const TRANSACTION_TARGET_MS = 50;
/**
 * Page cache of the import connection (KiB). Without the search index to fill, 16 MB wrote as
 * fast as 48 MB (600k rows, 2,000 per transaction). Written in sorted runs, 8 MB was within
 * the noise of 16 MB (1M rows: 46-61k against 54-66k rows/s, the machine's speed varying by a
 * fifth between runs) and kept peak RSS at 225-228 MB against 230-248 MB.
 */
const IMPORT_CACHE_KIB = 8 * 1024;
/**
 * WAL pages per checkpoint of the import (256 MB). Inserts dirty the same index pages
 * transaction after transaction; checkpointing less often copies each of them into the
 * database file fewer times, with fewer fsyncs (1M rows, four runs each: 27.2k rows/s against
 * 23.6k at 8192 pages, which was +20% over SQLite's 1000). The WAL file is trimmed back when it
 * restarts (journal_size_limit, db/connection.ts).
 */
const IMPORT_WAL_CHECKPOINT_PAGES = 65536;

class StopSignal extends Error {}

lowerThreadPriority();
const port = parentPort;
if (!port) throw new Error('write-worker.ts runs as a worker thread');
const job = workerData as WriterJob;
const post = (m: WriterMessage) => port.postMessage(m);
const control = new Int32Array(job.control);

const db = openDatabase(job.dbPath);
db.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
// Every value this connection stores is made by the importer: attributes are JSON.stringify of
// a parsed object, statuses come from the checked import options. Checking them again per row
// (json_valid on each attributes object) took a sixth of the writer's time (1M rows: 2.7 s).
db.pragma('ignore_check_constraints = ON');
// The change log, written through this connection: the server's consumers are in the main
// thread, so the types they wanted when the import started stand for them.
const events = new EventLog(db);
const wanted: ReadonlySet<string> = new Set(job.events.types);
events.addConsumer(() => wanted);
const store = new ImportStore(db, events);
const checkpointer = new WalCheckpointer(db, IMPORT_WAL_CHECKPOINT_PAGES);
const pacer = new TransactionPacer(1000, TRANSACTION_TARGET_MS, 100, 10_000);

/**
 * Rows per run of a large import. A run is written in e-mail order (sortByEmail), so each of
 * its transactions touches only its stretch of the e-mail index, the one index that file order
 * inserts into at random (each commit wrote most of its pages to the WAL again; the others
 * append, uuids included, as ImportStore makes them in insertion order). 1M rows, the bench,
 * CHECK constraints still on: 50-66k rows/s (mean 58k over 9 runs) against 43-44k with each
 * 2,500-row batch sorted on its own; runs of 100k were no faster and passed 250 MB RSS. The
 * next run fills meanwhile: +25 MB.
 */
const LARGE_IMPORT_RUN_ROWS = 50_000;

/** Set for a large import (isLargeImport): written in runs. */
let large = false;
/** Rows received, not yet written: the next run. */
let pending = emptyBatch();
/** The parser is done (or failed with this message): what it sent is written, then the writer finishes. */
let parserDone = false;
let parserFailure: string | null = null;

/** Takes one message of the parser; never writes, so it can run between two transactions. */
function take(m: ParserMessage): void {
  if (m.type === 'total') {
    post(m);
    prepare(m.n);
  } else if (m.type === 'log') {
    if (m.skipped) Atomics.add(control, CONTROL_SKIPPED, 1);
    post({ type: 'log', line: m.line });
  } else if (m.type === 'batch') {
    appendBatch(pending, m.batch);
    job.parser.postMessage('ack');
  } else {
    parserDone = true;
    if (m.type === 'failed') parserFailure = m.message;
  }
}

/** Rows that make a run: a large import's run size, else each batch is written as it comes. */
const runRows = () => (large ? LARGE_IMPORT_RUN_ROWS : 1);

/**
 * Takes the parser's messages already waiting, up to a run, so that it keeps parsing while a
 * run is written (what is left waits, and so does the parser: bounded memory).
 */
function takeWaiting(): void {
  while (!parserDone && pending.emails.length < runRows()) {
    const r = receiveMessageOnPort(job.parser);
    if (!r) return;
    take(r.message as ParserMessage);
  }
}

/** A row the import did not apply (a list-restricted importer's), or a duplicate, in the import's log. */
const logSkip = (line: string) => post({ type: 'log', line });

/** Writes one run, in transactions of the pacer's size. */
function writeRun(run: RowBatch): void {
  for (let from = 0; from < run.emails.length;) {
    if (Atomics.load(control, CONTROL_STOP)) throw new StopSignal();
    const to = Math.min(run.emails.length, from + pacer.rows);
    const rows = sliceBatch(run, from, to);
    const counts = actingAs(job.events.actor, () => backgroundTransaction(job.foregroundWrites, MAX_FOREGROUND_WAIT_MS, () => {
      let c = noCounts();
      pacer.timed(() => {
        c = store.writeBatch(rows, job.write, logSkip);
        return rows.emails.length;
      });
      return c;
    }));
    Atomics.add(control, CONTROL_IMPORTED, rows.emails.length);
    Atomics.add(control, CONTROL_NEW, counts.new);
    Atomics.add(control, CONTROL_UPDATED, counts.updated);
    Atomics.add(control, CONTROL_UNCHANGED, counts.unchanged);
    Atomics.add(control, CONTROL_SKIPPED, counts.skipped);
    Atomics.add(control, CONTROL_DUPLICATES, counts.duplicates);
    checkpointer.afterTransaction();
    from = to;
    takeWaiting();
  }
}

/** The import's size is known before its first batch. */
function prepare(total: number): void {
  large = isLargeImport(total);
  if (!store.writesWithoutNameIndex(total)) return;
  try {
    backgroundTransaction(job.foregroundWrites, MAX_FOREGROUND_WAIT_MS, () => new NameIndex(db).drop());
    post({ type: 'log', line: 'writing without the name index, rebuilt in the background after the import (faster for large imports)' });
  } catch (e) {
    post({ type: 'log', line: `keeping the name index: ${(e as Error).message}` });
  }
}

/** The last word; the main thread then ends both threads (the open channel keeps this one alive till then). */
let ended = false;
function finish(m: WriterMessage): void {
  ended = true;
  checkpointNow(db);
  db.close();
  post(m);
}

/** Writes the runs that are complete (all that is left once the parser is done), then finishes if it is. */
function writeReady(): void {
  while (pending.emails.length >= runRows() || (parserDone && pending.emails.length)) {
    const run = pending;
    pending = emptyBatch();
    writeRun(large ? sortByEmail(run) : run);
  }
  if (!parserDone) return;
  if (parserFailure === null) finish({ type: 'done', stopped: false });
  else finish({ type: 'failed', message: parserFailure, dbError: false });
}

job.parser.on('message', (m: ParserMessage) => {
  if (ended) return;
  take(m);
  try {
    writeReady();
  } catch (e) {
    if (e instanceof StopSignal) finish({ type: 'done', stopped: true });
    else finish({ type: 'failed', message: (e as Error).message, dbError: true });
  }
});
