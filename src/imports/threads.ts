// What the import's threads share with the main thread: how they are started, the parser's,
// the writer's and the search indexer's jobs and messages, and the slots of their control arrays.
import { setPriority } from 'node:os';
import type { MessagePort, Transferable, Worker } from 'node:worker_threads';
import { startWorker } from '../worker-thread.ts';
import type { ParseOptions, RowBatch } from './parse.ts';
import type { ImportSource } from './source.ts';
import type { WriteOptions } from './store.ts';
import type { EventActor } from '../core/actor.ts';
import type { EventType } from '../events/types.ts';

/** The parser thread (parse-worker.ts) reads the upload and posts row batches to the writer. */
export interface ParserJob {
  source: ImportSource;
  opts: ParseOptions;
  maxInFlight: number;
  /** The writer thread's end of the channel. */
  writer: MessagePort;
}

export type ParserMessage =
  | { type: 'total'; n: number }
  | { type: 'log'; line: string; skipped?: boolean }
  | { type: 'batch'; batch: RowBatch }
  | { type: 'done' }
  | { type: 'failed'; message: string };

export interface WriterJob {
  dbPath: string;
  write: WriteOptions;
  /** The parser thread's end of the channel: batches in, acknowledgements out. */
  parser: MessagePort;
  /** Int32 slots shared with the main thread: CONTROL_STOP (set by it), the counts (set here). */
  control: SharedArrayBuffer;
  /** ForegroundWrites.buffer: the server's writes in progress, which go first. */
  foregroundWrites: SharedArrayBuffer;
  /** The change log: the types the server's consumers want as the import starts (EventLog.wantedTypes), and who imports. */
  events: { types: EventType[]; actor: EventActor };
}

export const CONTROL_STOP = 0;
/** Rows written (duplicates and rows the writer skipped included): listmonk's `imported`. */
export const CONTROL_IMPORTED = 1;
/** What the rows did (ImportCounts), one slot each. */
export const CONTROL_NEW = 2;
export const CONTROL_UPDATED = 3;
export const CONTROL_UNCHANGED = 4;
export const CONTROL_SKIPPED = 5;
export const CONTROL_DUPLICATES = 6;
export const CONTROL_SLOTS = 7;

/** The search indexer (index-worker.ts) rebuilds the name index if an import dropped it, drains the search backlog, then ends. */
export interface IndexerJob {
  dbPath: string;
  /** Int32 slots shared with the main thread: INDEXER_STOP, INDEXER_HOLD (set by it). */
  control: SharedArrayBuffer;
  /** ForegroundWrites.buffer: the server's writes in progress, which go first. */
  foregroundWrites: SharedArrayBuffer;
}

/**
 * The longest an import thread waits for the server's writes before its next transaction: a
 * slow request (a large upload) holds the import up no longer than this.
 */
export const MAX_FOREGROUND_WAIT_MS = 500;

export const INDEXER_STOP = 0;
/** Non-zero while an import writes: the indexer waits between steps. */
export const INDEXER_HOLD = 1;

export type IndexerMessage =
  | { type: 'name-index'; seconds: number }
  | { type: 'done'; indexed: number; stopped: boolean };

export type WriterMessage =
  | { type: 'total'; n: number }
  | { type: 'log'; line: string }
  | { type: 'done'; stopped: boolean }
  | { type: 'failed'; message: string; dbError: boolean };

/** Nice value of the import's threads: below the main thread, so the API answers first. */
const THREAD_NICENESS = 10;

/**
 * Called first thing on each import thread. The threads keep both cores busy for the length of
 * an import; at a lower priority than the main thread, the API's requests still run at once.
 * Only on Linux, where a nice value belongs to the thread that sets it (elsewhere it would
 * lower the whole server).
 */
export function lowerThreadPriority(): void {
  if (process.platform === 'linux') setPriority(THREAD_NICENESS);
}

/** The import's threads; each has a source file and a bundle beside dist/cli.js (scripts/build.mjs). */
const THREADS = {
  parser: { source: './parse-worker.ts', bundle: './import-parser.js' },
  writer: { source: './write-worker.ts', bundle: './import-writer.js' },
  indexer: { source: './index-worker.ts', bundle: './import-indexer.js' },
};

/**
 * The threads make short-lived strings by the million; a small young generation is collected
 * more often but keeps RSS down (200k-row import: peak RSS 305 -> 259 MB, same rows/s).
 */
const resourceLimits = { maxYoungGenerationSizeMb: 4 };

/** Starts an import thread (see startWorker). */
export function startThread(thread: keyof typeof THREADS, workerData: ParserJob | WriterJob | IndexerJob, transferList: Transferable[]): Worker {
  return startWorker({ from: import.meta.url, ...THREADS[thread] }, { workerData, transferList, resourceLimits });
}

/**
 * Sizes a thread's write transactions for a time target (the most an API write waits for it):
 * after each full transaction the next is sized from its pace, at most halved or doubled.
 */
export class TransactionPacer {
  constructor(public rows: number, private readonly targetMs: number, private readonly minRows: number, private readonly maxRows: number) {}

  /**
   * Runs a transaction that writes at most `this.rows` rows and answers how many it wrote; if
   * that is all of them, sizes the next one from how long it took.
   */
  timed(transaction: () => number): number {
    const started = performance.now();
    const rows = transaction();
    if (rows === this.rows) {
      const paced = (this.rows * this.targetMs) / Math.max(1, performance.now() - started);
      this.rows = Math.round(Math.min(this.maxRows, this.rows * 2, Math.max(this.minRows, this.rows / 2, paced)));
    }
    return rows;
  }
}
