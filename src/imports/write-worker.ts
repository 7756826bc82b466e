// The import's writer thread: writes the parser thread's row batches through its own
// connection, so the main thread (the API) never runs an import transaction. With WAL, API
// reads never wait for the import. The server's writes go first: before each transaction this
// thread waits while any is in progress (db/foreground-writes.ts), so one waits at most for the
// transaction under way, which is why transactions are sized to about 100 ms.
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointNow, openDatabase } from '../db/connection.ts';
import { waitForForegroundWrites } from '../db/foreground-writes.ts';
import type { ParserMessage } from './parse-worker.ts';
import { sliceBatch, type RowBatch } from './parse.ts';
import { NameIndex } from './name-index.ts';
import { ImportStore } from './store.ts';
import { CONTROL_IMPORTED, CONTROL_STOP, lowerThreadPriority, MAX_FOREGROUND_WAIT_MS, TransactionPacer, type WriterJob, type WriterMessage } from './threads.ts';

/**
 * How long one write transaction should take: the most an API write waits for the import.
 * Longer ones are faster (each commit rewrites the index pages it touched): 100 ms imported
 * 10.5k rows/s against 7.5k at 60 ms (200k rows, search index then still filled here).
 */
const TRANSACTION_TARGET_MS = 100;
/**
 * Page cache of the import connection (KiB). Without the search index to fill, 16 MB wrote as
 * fast as 48 MB (600k rows, 2,000 per transaction) and keeps 32 MB off the server's peak RSS.
 */
const IMPORT_CACHE_KIB = 16 * 1024;
/**
 * WAL pages after which the import's commits checkpoint (256 MB). Random inserts into the
 * e-mail index dirty the same pages transaction after transaction; checkpointing less often
 * copies each of them into the database file fewer times, with fewer fsyncs (1M rows, four
 * runs each: 27.2k rows/s against 23.6k at 8192 pages, which was +20% over SQLite's 1000).
 * The WAL file is trimmed back when it restarts (journal_size_limit, db/connection.ts).
 */
const IMPORT_WAL_AUTOCHECKPOINT = 65536;

class StopSignal extends Error {}

lowerThreadPriority();
const port = parentPort;
if (!port) throw new Error('write-worker.ts runs as a worker thread');
const job = workerData as WriterJob;
const post = (m: WriterMessage) => port.postMessage(m);
const control = new Int32Array(job.control);

const db = openDatabase(job.dbPath);
db.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
db.pragma(`wal_autocheckpoint = ${IMPORT_WAL_AUTOCHECKPOINT}`);
const store = new ImportStore(db);
const pacer = new TransactionPacer(1000, TRANSACTION_TARGET_MS, 100, 10_000);

/** Set for a large import (ImportStore.isLargeImport): written without the name index, each batch's new rows in e-mail order. */
let large = false;

function writeBatch(batch: RowBatch): void {
  for (let from = 0; from < batch.emails.length;) {
    waitForForegroundWrites(job.foregroundWrites, MAX_FOREGROUND_WAIT_MS);
    if (Atomics.load(control, CONTROL_STOP)) throw new StopSignal();
    const to = Math.min(batch.emails.length, from + pacer.rows);
    const started = performance.now();
    Atomics.add(control, CONTROL_IMPORTED, store.writeBatch(sliceBatch(batch, from, to), job.write, large));
    pacer.record(to - from, performance.now() - started);
    from = to;
  }
}

/** The import's size is known before its first batch. */
function prepare(total: number): void {
  try {
    if (!store.isLargeImport(total)) return;
    new NameIndex(db).drop();
    large = true;
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

job.parser.on('message', (m: ParserMessage) => {
  if (ended) return;
  if (m.type === 'total') {
    post(m);
    prepare(m.n);
  } else if (m.type === 'log') post(m);
  else if (m.type === 'failed') finish({ type: 'failed', message: m.message, dbError: false });
  else if (m.type === 'done') finish({ type: 'done', stopped: false });
  else {
    try {
      writeBatch(m.batch);
      job.parser.postMessage('ack');
    } catch (e) {
      if (e instanceof StopSignal) finish({ type: 'done', stopped: true });
      else finish({ type: 'failed', message: (e as Error).message, dbError: true });
    }
  }
});
