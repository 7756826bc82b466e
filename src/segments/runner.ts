// Segment queries run on worker threads, each with its own read-only connection, under a
// deadline. better-sqlite3 cannot interrupt a statement on the main thread, and a user's
// expression can ask for rows by the billion (nested correlated subqueries): on the main
// thread that holds every request of every user. On a worker, the main thread keeps serving;
// past the deadline the worker is terminated, which stops the statement at its next call into
// JavaScript (the translator's checkpoints), and the caller gets a 400 naming the limit.
import Database from 'better-sqlite3';
import type { Worker } from 'node:worker_threads';
import { invalid, unavailable } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';
import { startWorker } from '../worker-thread.ts';
import { SegmentError } from './errors.ts';

/** A statement over `subscribers` with a translated segment in it: its ids, or its rows. */
export interface SegmentQuery {
  kind: 'ids' | 'rows';
  sql: string;
  params: unknown[];
}

export type SegmentReply =
  | { type: 'ready' }
  | { type: 'ids'; ids: Float64Array }
  | { type: 'rows'; rows: unknown[] }
  | { type: 'failed'; message: string; code: string };

export interface SegmentThreadData {
  dbPath: string;
}

export interface SegmentLimits {
  deadlineMs: number;
  threads: number;
}

const SCRIPT = { from: import.meta.url, source: './query-worker.ts', bundle: './segment-query.js' };

/** SQLite errors that are the database's state, not the expression's: answered as elsewhere (503, 507). */
const STORAGE_CODES = ['SQLITE_BUSY', 'SQLITE_LOCKED', 'SQLITE_FULL', 'SQLITE_IOERR', 'SQLITE_NOMEM', 'SQLITE_CANTOPEN', 'SQLITE_PROTOCOL'];

export class SegmentRunner {
  /** Threads waiting for a query; at most `threads` exist at once. */
  private readonly idle: Worker[] = [];
  private readonly all = new Set<Worker>();
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  private closed = false;

  constructor(private readonly dbPath: string, private readonly limits: SegmentLimits = { deadlineMs: LIMITS.segmentDeadlineMs, threads: LIMITS.segmentThreads }) {}

  /** The first column of every row, as numbers (subscriber ids). */
  async ids(sql: string, params: unknown[]): Promise<number[]> {
    const reply = await this.run({ kind: 'ids', sql, params });
    return reply.type === 'ids' ? Array.from(reply.ids) : [];
  }

  async rows<T>(sql: string, params: unknown[]): Promise<T[]> {
    const reply = await this.run({ kind: 'rows', sql, params });
    return reply.type === 'rows' ? (reply.rows as T[]) : [];
  }

  /** Ends every thread (a running query's caller gets an error). */
  async close(): Promise<void> {
    this.closed = true;
    this.idle.length = 0;
    await Promise.all([...this.all].map((w) => w.terminate()));
  }

  private async run(query: SegmentQuery): Promise<SegmentReply> {
    if (this.closed) throw unavailable('the server is shutting down', 1);
    await this.turn();
    let worker: Worker;
    try {
      worker = this.idle.pop() ?? (await this.start());
    } catch (e) {
      this.done();
      throw e;
    }
    return new Promise<SegmentReply>((resolve, reject) => {
      const settle = (keep: boolean) => {
        clearTimeout(timer);
        worker.off('message', onMessage).off('error', onError).off('exit', onExit);
        if (keep && !this.closed) this.idle.push(worker);
        else void worker.terminate();
        this.done();
      };
      const onMessage = (reply: SegmentReply) => {
        settle(true);
        if (reply.type === 'failed') reject(queryError(reply));
        else resolve(reply);
      };
      const onError = (e: Error) => {
        settle(false);
        reject(e);
      };
      const onExit = () => {
        settle(false);
        reject(new Error('the segment query thread ended'));
      };
      const timer = setTimeout(() => {
        settle(false);
        reject(invalid(`the query took longer than ${this.limits.deadlineMs / 1000} s (the segment deadline); simplify it`));
      }, this.limits.deadlineMs);
      worker.on('message', onMessage).once('error', onError).once('exit', onExit);
      worker.postMessage(query);
    });
  }

  /** Waits for a thread to be free; one that stays taken for the whole deadline is a 503. */
  private turn(): Promise<void> {
    if (this.running < this.limits.threads) {
      this.running++;
      return Promise.resolve();
    }
    return new Promise<void>((resolve, reject) => {
      const go = () => {
        clearTimeout(timer);
        this.running++;
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiting.splice(this.waiting.indexOf(go), 1);
        const seconds = Math.ceil(this.limits.deadlineMs / 1000);
        reject(unavailable(`segment queries are busy (at most ${this.limits.threads} run at once, each up to ${seconds} s); try again in a moment`, seconds));
      }, this.limits.deadlineMs);
      this.waiting.push(go);
    });
  }

  private done(): void {
    this.running--;
    this.waiting.shift()?.();
  }

  /** A new thread, once its connection is open. */
  private start(): Promise<Worker> {
    const worker = startWorker(SCRIPT, { workerData: { dbPath: this.dbPath } satisfies SegmentThreadData });
    worker.unref();
    this.all.add(worker);
    worker.once('exit', () => {
      this.all.delete(worker);
      const i = this.idle.indexOf(worker);
      if (i >= 0) this.idle.splice(i, 1);
    });
    return new Promise<Worker>((resolve, reject) => {
      worker.once('error', reject).once('exit', () => reject(new Error('the segment query thread ended before it was ready')));
      worker.once('message', (reply: SegmentReply) => {
        worker.off('error', reject);
        if (reply.type === 'failed') reject(new Database.SqliteError(reply.message, reply.code));
        else resolve(worker);
      });
    });
  }
}

/** A failed query: the database's state as the same SqliteError (app.ts answers it), else the expression's fault (400). */
function queryError(reply: Extract<SegmentReply, { type: 'failed' }>): Error {
  if (STORAGE_CODES.some((c) => reply.code.startsWith(c))) return new Database.SqliteError(reply.message, reply.code);
  return new SegmentError(`running it failed: ${reply.message}`, 0);
}
