// Keeps the search index complete after bulk imports: whenever the search backlog
// (search-backlog.ts) has ids, or a large import dropped the name index (name-index.ts), and
// no import is writing, an indexer thread (index-worker.ts) catches up. Started at server
// start too, so what a restart or crash left is picked up.
import type { Worker } from 'node:worker_threads';
import type { AppContext } from '../context.ts';
import { pauseCheckpoints, resumeCheckpoints } from '../db/connection.ts';
import { NameIndex } from './name-index.ts';
import { SearchBacklog } from './search-backlog.ts';
import { INDEXER_HOLD, INDEXER_STOP, startThread, type IndexerMessage } from './threads.ts';

/** How long shutdown waits for the indexer to finish its step before ending the thread. */
const STOP_WAIT_MS = 5000;

export class SearchIndexer {
  private readonly backlog: SearchBacklog;
  private readonly nameIndex: NameIndex;
  private readonly control = new Int32Array(new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
  private worker: Worker | null = null;
  private exited: Promise<void> = Promise.resolve();
  private holds = 0;
  private stopping = false;

  constructor(private readonly ctx: AppContext) {
    this.backlog = new SearchBacklog(ctx.db);
    this.nameIndex = new NameIndex(ctx.db);
  }

  /** Starts the indexer thread if there is a backlog or no name index, none runs, and no import holds it. */
  drain(): void {
    if (this.worker || this.holds || this.stopping) return;
    const pending = this.backlog.pendingIds();
    const nameIndexMissing = this.nameIndex.missing();
    if (!pending && !nameIndexMissing) return;
    if (nameIndexMissing) this.ctx.log.info('subscribers: rebuilding the name index in the background');
    if (pending) this.ctx.log.info(`search index: indexing ${pending} imported subscribers in the background`);
    const started = performance.now();
    let failed = false;
    let outcome: Extract<IndexerMessage, { type: 'done' }> | null = null;
    const worker = startThread('indexer', { dbPath: this.ctx.db.name, control: this.control.buffer as SharedArrayBuffer, foregroundWrites: this.ctx.foregroundWrites.buffer }, []);
    this.worker = worker;
    pauseCheckpoints(this.ctx.db);
    worker.on('message', (m: IndexerMessage) => {
      if (m.type === 'name-index') this.ctx.log.info(`subscribers: name index rebuilt in ${m.seconds.toFixed(1)} s`);
      else outcome = m;
    });
    worker.on('error', (e) => {
      failed = true;
      this.ctx.log.error(`search index: the indexer failed: ${e.message} (search still finds the rows left, more slowly; it retries after the next import or restart)`);
    });
    this.exited = new Promise((resolve) => worker.once('exit', () => {
      this.worker = null;
      resumeCheckpoints(this.ctx.db);
      const done = outcome as typeof outcome;
      if (done && (pending || done.stopped)) this.ctx.log.info(`search index: ${done.stopped ? 'paused' : 'up to date'} after indexing ${done.indexed} subscribers in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      resolve();
      // Ranges queued while it ran (an import that ended meanwhile) get a new thread.
      if (!failed) this.drain();
    }));
  }

  /** While an import writes, the indexer waits: both would compete for the one write lock and the cores. */
  hold(): void {
    this.holds++;
    Atomics.store(this.control, INDEXER_HOLD, 1);
  }

  release(): void {
    if (--this.holds > 0) return;
    Atomics.store(this.control, INDEXER_HOLD, 0);
    Atomics.notify(this.control, INDEXER_HOLD);
    this.drain();
  }

  /** Ends the indexer after its current step (what it indexed is committed; the rest stays on the backlog). */
  async stop(): Promise<void> {
    this.stopping = true;
    const worker = this.worker;
    if (!worker) return;
    Atomics.store(this.control, INDEXER_STOP, 1);
    Atomics.notify(this.control, INDEXER_HOLD);
    const timer = setTimeout(() => void worker.terminate(), STOP_WAIT_MS);
    await this.exited;
    clearTimeout(timer);
  }
}
