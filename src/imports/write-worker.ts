// The import's writer thread: writes the parser thread's row batches through its own
// connection, so the main thread (the API) never runs an import transaction. With WAL, API
// reads never wait for the import, and API writes wait at most one import transaction
// (busy_timeout), which is why transactions are sized to a few tens of milliseconds.
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/connection.ts';
import type { ParserMessage } from './parse-worker.ts';
import { sliceBatch, type RowBatch } from './parse.ts';
import { ImportStore } from './store.ts';
import { CONTROL_IMPORTED, CONTROL_STOP, type WriterJob, type WriterMessage } from './threads.ts';

/** How long one write transaction should take (the most an API write waits for the import). */
const TRANSACTION_TARGET_MS = 60;
const MIN_TRANSACTION_ROWS = 100;
const MAX_TRANSACTION_ROWS = 10_000;
/** Page cache of the import connection (KiB): keeps the e-mail and name indexes in memory. */
const IMPORT_CACHE_KIB = 96 * 1024;

class StopSignal extends Error {}

const port = parentPort;
if (!port) throw new Error('write-worker.ts runs as a worker thread');
const job = workerData as WriterJob;
const post = (m: WriterMessage) => port.postMessage(m);
const control = new Int32Array(job.control);

const db = openDatabase(job.dbPath);
db.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
const store = new ImportStore(db);
let rowsPerTransaction = 1000;

function writeBatch(batch: RowBatch): void {
  for (let from = 0; from < batch.emails.length;) {
    if (Atomics.load(control, CONTROL_STOP)) throw new StopSignal();
    const to = Math.min(batch.emails.length, from + rowsPerTransaction);
    const started = performance.now();
    Atomics.add(control, CONTROL_IMPORTED, store.writeBatch(sliceBatch(batch, from, to), job.write));
    // A full transaction tells the pace; the next one is sized for the target (at most halved
    // or doubled per step).
    if (to - from === rowsPerTransaction) {
      const paced = (rowsPerTransaction * TRANSACTION_TARGET_MS) / Math.max(1, performance.now() - started);
      rowsPerTransaction = Math.round(Math.min(MAX_TRANSACTION_ROWS, rowsPerTransaction * 2, Math.max(MIN_TRANSACTION_ROWS, rowsPerTransaction / 2, paced)));
    }
    from = to;
  }
}

/** The last word; the main thread then ends both threads (the open channel keeps this one alive till then). */
let ended = false;
function finish(m: WriterMessage): void {
  ended = true;
  db.close();
  post(m);
}

job.parser.on('message', (m: ParserMessage) => {
  if (ended) return;
  if (m.type === 'total' || m.type === 'log') post(m);
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
