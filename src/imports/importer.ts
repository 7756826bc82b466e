// The subscriber importer: one import at a time, in the background. A parser thread reads
// and validates the upload (parse-worker.ts) while this thread writes the batches, one
// transaction each, yielding to the event loop between them so the API keeps answering.
import { existsSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { AppContext } from '../context.ts';
import { conflict } from '../http/errors.ts';
import { domainRules } from '../subscribers/email.ts';
import { parseSource, sliceBatch, type ParseOptions, type RowBatch } from './parse.ts';
import type { ParserJob, ParserMessage } from './parse-worker.ts';
import type { ImportSource } from './source.ts';
import { ImportStore, type WriteOptions } from './store.ts';
import { systemMessage } from '../mail/system.ts';

export type ImportState = 'none' | 'importing' | 'stopping' | 'finished' | 'failed';

export interface ImportStatus {
  name: string;
  total: number;
  imported: number;
  status: ImportState;
}

export interface ImportJob {
  name: string;
  source: ImportSource;
  /** Temp folder of the upload, removed when the import ends. */
  dir: string;
  delim: string;
  write: WriteOptions;
}

/** Rows per parsed batch; at most this many batches wait for the writer (bounded memory). */
const BATCH_ROWS = 5000;
const MAX_BATCHES_IN_FLIGHT = 3;
/**
 * Each write transaction runs on the event loop, so its length is how long the API waits. The
 * writer sizes its transactions to take about this long (fewer, larger commits are faster;
 * shorter ones keep the API answering) and yields to the event loop between them.
 */
const TRANSACTION_TARGET_MS = 40;
const MIN_TRANSACTION_ROWS = 100;
const MAX_TRANSACTION_ROWS = 5000;
const MAX_LOG_LINES = 10_000;
/** Page cache while importing (KiB): keeps the e-mail and name indexes in memory. */
const IMPORT_CACHE_KIB = 96 * 1024;

class StopSignal extends Error {}

/**
 * Starts the parser thread: its bundle beside dist/cli.js in a build; from source (tests,
 * tsx) the .ts file, through tsx's loader, which worker threads do not inherit. Null when the
 * bundle is missing.
 */
function startParser(job: ParserJob): Worker | null {
  if (import.meta.url.endsWith('.ts')) {
    const tsx = import.meta.resolve('tsx/esm/api');
    const script = new URL('./parse-worker.ts', import.meta.url).href;
    return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(script)}); })`, { eval: true, workerData: job });
  }
  const bundle = new URL('./import-parser.js', import.meta.url);
  return existsSync(fileURLToPath(bundle)) ? new Worker(bundle, { workerData: job }) : null;
}

export class Importer {
  private state: ImportStatus = { name: '', total: 0, imported: 0, status: 'none' };
  private logLines: string[] = [];
  private suppressed = 0;
  /** Held from the moment an upload is accepted for reading until the import ends. */
  private busy = false;
  private stopRequested = false;
  private running: Promise<void> | null = null;
  private readonly store: ImportStore;

  constructor(private readonly ctx: AppContext) {
    this.store = new ImportStore(ctx.db);
  }

  status(): ImportStatus {
    return { ...this.state };
  }

  logs(): string {
    const tail = this.suppressed ? [`... ${this.suppressed} more log lines not kept`] : [];
    return [...this.logLines, ...tail].join('\n');
  }

  /** Claims the importer for an upload about to be read; 409 if one is running. */
  reserve(): void {
    if (this.busy) throw conflict(`an import is already running ("${this.state.name}", ${this.state.imported} of ${this.state.total} rows); stop it or wait for it to finish`);
    this.busy = true;
  }

  /** Gives the claim back (the upload was refused). */
  release(): void {
    if (!this.running) this.busy = false;
  }

  existingLists(ids: number[]): number[] {
    return this.store.existingLists(ids);
  }

  start(job: ImportJob): ImportStatus {
    this.state = { name: job.name, total: 0, imported: 0, status: 'importing' };
    this.logLines = [];
    this.suppressed = 0;
    this.stopRequested = false;
    this.log(`importing "${job.name}" (${job.source.files.map((f) => f.name).join(', ')}) in ${job.write.mode} mode`);
    // The final status is published last, once the importer is free for the next upload.
    this.running = this.run(job).then((final) => {
      rmSync(job.dir, { recursive: true, force: true });
      this.running = null;
      this.busy = false;
      this.state.status = final;
    });
    return this.status();
  }

  /** DELETE: stop a running import (it keeps what was committed), else reset to idle. */
  stop(): ImportStatus {
    if (this.running) {
      if (this.state.status === 'importing') {
        this.stopRequested = true;
        this.state.status = 'stopping';
        this.log('stop requested');
      }
    } else {
      this.state = { name: '', total: 0, imported: 0, status: 'none' };
      this.logLines = [];
      this.suppressed = 0;
    }
    return this.status();
  }

  /** Resolves when the running import (if any) has ended. */
  async whenIdle(): Promise<void> {
    await this.running;
  }

  private log(line: string): void {
    if (this.logLines.length >= MAX_LOG_LINES) {
      this.suppressed++;
      return;
    }
    this.logLines.push(`${new Date().toISOString()} ${line}`);
  }

  private async run(job: ImportJob): Promise<'finished' | 'failed'> {
    const db = this.ctx.db;
    const previousCache = db.pragma('cache_size', { simple: true }) as number;
    db.pragma(`cache_size = -${IMPORT_CACHE_KIB}`);
    const opts: ParseOptions = { delim: job.delim, rules: domainRules(this.ctx.settings), batchSize: BATCH_ROWS };
    let dbError: Error | null = null;
    let final: 'finished' | 'failed';
    let rowsPerTransaction = 1000;
    const writeBatch = async (batch: RowBatch) => {
      for (let from = 0; from < batch.emails.length;) {
        if (this.stopRequested) throw new StopSignal();
        const to = Math.min(batch.emails.length, from + rowsPerTransaction);
        const started = performance.now();
        try {
          this.state.imported += this.store.writeBatch(sliceBatch(batch, from, to), job.write);
        } catch (e) {
          dbError = e as Error;
          throw e;
        }
        // A full transaction tells the pace; the next one is sized for the target (at most
        // halved or doubled per step).
        if (to - from === rowsPerTransaction) {
          const paced = (rowsPerTransaction * TRANSACTION_TARGET_MS) / Math.max(1, performance.now() - started);
          rowsPerTransaction = Math.round(Math.min(MAX_TRANSACTION_ROWS, rowsPerTransaction * 2, Math.max(MIN_TRANSACTION_ROWS, rowsPerTransaction / 2, paced)));
        }
        from = to;
        await new Promise((r) => setImmediate(r));
      }
    };
    try {
      const worker = startParser({ source: job.source, opts, maxInFlight: MAX_BATCHES_IN_FLIGHT });
      if (worker) await this.consume(worker, writeBatch);
      else {
        this.ctx.log.warn('import: parser thread script not found; parsing on the main thread (slower)');
        await parseSource(job.source, opts, { total: (n) => (this.state.total = n), log: (l) => this.log(l), batch: writeBatch });
      }
      this.log(`finished: ${this.state.imported} rows imported`);
      final = 'finished';
    } catch (e) {
      if (e instanceof StopSignal) {
        this.log(`stopped: ${this.state.imported} rows imported`);
        final = 'finished';
      } else {
        this.log(`failed: ${(e as Error).message}`);
        this.ctx.log.error(`import of "${job.name}" failed: ${(e as Error).message}`);
        final = 'failed';
      }
    } finally {
      db.pragma(`cache_size = ${previousCache}`);
    }
    try {
      this.store.touchLists(job.write.mode === 'subscribe' ? job.write.lists : []);
    } catch (e) {
      this.ctx.log.error(`import: updating the lists failed: ${(e as Error).message}`);
    }
    // listmonk notifies on completion and on database errors, not on unreadable files.
    if (final === 'finished' || dbError) await this.notify(final);
    return final;
  }

  private consume(worker: Worker, writeBatch: (b: RowBatch) => Promise<void>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      let chain = Promise.resolve();
      let settled = false;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        void worker.terminate();
        if (err) reject(err);
        else resolve();
      };
      worker.on('message', (m: ParserMessage) => {
        chain = chain.then(async () => {
          if (settled) return;
          if (m.type === 'total') this.state.total = m.n;
          else if (m.type === 'log') this.log(m.line);
          else if (m.type === 'batch') {
            await writeBatch(m.batch);
            worker.postMessage('ack');
          } else if (m.type === 'done') finish(null);
          else finish(new Error(m.message));
        }).catch((e: Error) => finish(e));
      });
      worker.on('error', (e) => finish(e));
      worker.on('exit', (code) => finish(settled ? null : new Error(`the parser thread exited (code ${code})`)));
    });
  }

  private async notify(final: 'finished' | 'failed'): Promise<void> {
    const to = this.ctx.settings.get<string[]>('app.notify_emails') ?? [];
    if (!to.length || !this.ctx.mailer.has('email')) return;
    const s = { ...this.state, status: final };
    try {
      const data = { Name: s.name, Status: s.status, Imported: s.imported, Total: s.total };
      await this.ctx.mailer.send('email', systemMessage(this.ctx, 'import-status', data, to, `Import ${s.status}: ${s.name}`));
    } catch (e) {
      this.ctx.log.error(`import: sending the notification failed: ${(e as Error).message}`);
    }
  }
}
