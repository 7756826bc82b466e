// The subscriber importer: one import at a time, in the background, on two threads: the
// parser thread (parse-worker.ts) reads and validates the upload and hands row batches to the
// writer thread (write-worker.ts), which writes them through its own connection. The main
// thread only keeps the status and the log, so the API never waits on an import.
import { rmSync } from 'node:fs';
import { MessageChannel, type Worker } from 'node:worker_threads';
import type { AppContext } from '../context.ts';
import { pauseCheckpoints, resumeCheckpoints } from '../db/connection.ts';
import { invalid, conflict, denied } from '../core/errors.ts';
import { authorizeEach, can, permittedLists, type Actor } from '../core/authz.ts';
import { domainRules } from '../mail/address.ts';
import type { ImportSource } from './source.ts';
import type { SearchIndexer } from './search-indexer.ts';
import { noCounts, type ImportCounts, type ImportMode, type ImportStore, type SubscriptionStatus, type WriteOptions } from './store.ts';
import type { ColumnMapping } from './columns.ts';
import { countsSentence } from './summary.ts';
import {
  CONTROL_DUPLICATES, CONTROL_IMPORTED, CONTROL_NEW, CONTROL_SKIPPED, CONTROL_SLOTS, CONTROL_STOP, CONTROL_UNCHANGED, CONTROL_UPDATED, startThread, type WriterMessage,
} from './threads.ts';
import { systemMessage } from '../mail/system.ts';
import { actingAs, currentActor, type EventActor } from '../core/actor.ts';
import type { EventLog } from '../events/log.ts';

export type ImportState = 'none' | 'importing' | 'stopping' | 'finished' | 'failed';

/** listmonk's status, and what the rows did (ImportCounts, the same every row once). */
export interface ImportStatus extends ImportCounts {
  name: string;
  total: number;
  imported: number;
  status: ImportState;
}

/** An import's parameters as the caller gives them (listmonk's `params`). */
export interface ImportParams {
  mode: ImportMode;
  /** The lists `subscribe` mode adds the subscribers to. */
  lists?: number[];
  /** Of new subscriptions; default unconfirmed (subscribe) or unsubscribed (blocklist). */
  subscriptionStatus?: SubscriptionStatus;
  /** Both of the two below. */
  overwrite?: boolean;
  overwriteUserinfo?: boolean;
  overwriteSubscriptionStatus?: boolean;
  /** `params.columns`: what the file's columns are, by header name (the others are guessed). */
  columns?: ColumnMapping;
}

/** The running or last import as the admin page shows it beside the status. */
export interface ImportRun {
  mode: ImportMode;
  /** The lists a `subscribe` import writes to. */
  lists: number[];
  /** Of its new subscriptions. */
  subscriptionStatus: SubscriptionStatus;
  startedAt: Date;
  /** null while it runs. */
  endedAt: Date | null;
}

export interface ImportJob {
  name: string;
  source: ImportSource;
  /** Temp folder of the upload, removed when the import ends. */
  dir: string;
  delim: string;
  write: WriteOptions;
  columns: ColumnMapping;
  /** The lists a `lists` column may name (importer.columnLists). */
  listsByName: Record<string, number>;
  /** Who started it (the log). */
  by: string;
}

/**
 * Rows per parsed batch; at most MAX_BATCHES_IN_FLIGHT wait for the writer (bounded memory).
 * The writer takes waiting batches between its transactions (write-worker.ts): with 2 in
 * flight the parser fell behind 100 ms transactions of 7,000-9,000 rows; 4 kept up, 12 were
 * no faster.
 */
const BATCH_ROWS = 2500;
const MAX_BATCHES_IN_FLIGHT = 4;
const MAX_LOG_LINES = 10_000;

const idle = (): ImportStatus => ({ name: '', total: 0, imported: 0, status: 'none', ...noCounts() });

/** Where each count is in the control array the writer thread fills. */
const COUNT_SLOTS: [keyof ImportCounts, number][] = [
  ['new', CONTROL_NEW], ['updated', CONTROL_UPDATED], ['unchanged', CONTROL_UNCHANGED], ['skipped', CONTROL_SKIPPED], ['duplicates', CONTROL_DUPLICATES],
];

export class Importer {
  private state: ImportStatus = idle();
  private logLines: string[] = [];
  private suppressed = 0;
  /** Held from the moment an upload is accepted for reading until the import ends. */
  private busy = false;
  private running: Promise<void> | null = null;
  /** Shared with the writer thread while an import runs (stop flag, rows imported). */
  private control: Int32Array | null = null;
  /** Kept until the next import or a DELETE clears it, like the status. */
  private current: ImportRun | null = null;
  constructor(private readonly ctx: AppContext, private readonly store: ImportStore, private readonly indexer: SearchIndexer, private readonly events: EventLog) {}

  status(): ImportStatus {
    if (this.control) this.readCounts(this.control);
    return { ...this.state };
  }

  private readCounts(control: Int32Array): void {
    this.state.imported = Atomics.load(control, CONTROL_IMPORTED);
    for (const [key, slot] of COUNT_SLOTS) this.state[key] = Atomics.load(control, slot);
  }

  logs(): string {
    const tail = this.suppressed ? [`... ${this.suppressed} more log lines not kept`] : [];
    return [...this.logLines, ...tail].join('\n');
  }

  /** The running or last import's mode, lists and times; null when there is none (or it was cleared). */
  lastRun(): ImportRun | null {
    return this.current && { ...this.current };
  }

  /** Claims the importer for an upload about to be read; 409 if one is running. */
  reserve(): void {
    if (this.busy) {
      const s = this.status();
      throw conflict(`an import is already running ("${s.name}", ${s.imported} of ${s.total} rows); stop it or wait for it to finish`);
    }
    this.busy = true;
  }

  /** Gives the claim back (the upload was refused). */
  release(): void {
    if (!this.running) this.busy = false;
  }

  /**
   * What an import of these parameters writes. In `subscribe` mode, the given lists the actor
   * may manage: 403 if none, 400 naming the ones that do not exist.
   */
  writeOptions(actor: Actor, p: ImportParams): WriteOptions {
    const lists = p.mode === 'subscribe' ? this.subscribeLists(actor, p.lists ?? []) : [];
    return {
      mode: p.mode,
      lists,
      subscriptionStatus: p.subscriptionStatus ?? (p.mode === 'subscribe' ? 'unconfirmed' : 'unsubscribed'),
      overwriteUserinfo: p.overwrite === true || p.overwriteUserinfo === true,
      overwriteSubscriptionStatus: p.overwrite === true || p.overwriteSubscriptionStatus === true,
      changeable: this.changeable(actor),
    };
  }

  /**
   * Which subscribers already there the import may overwrite or blocklist: all of them for an
   * actor who may change any subscriber (every list, or subscribers:get_all with
   * subscribers:manage, as the subscriber API allows), else those on a list the actor manages.
   */
  private changeable(actor: Actor): WriteOptions['changeable'] {
    const managed = permittedLists(actor, 'manage');
    if (managed === 'all' || (can(actor, 'subscribers:get_all') && can(actor, 'subscribers:manage'))) return 'all';
    return authorizeEach(managed, (id) => can(actor, 'list:manage', id));
  }

  /**
   * The lists a `lists` column may subscribe rows to, by lower-cased name: those the actor may
   * manage (none in blocklist mode). Of two lists with one name, the older is meant.
   */
  columnLists(actor: Actor, mode: ImportMode): Record<string, number> {
    if (mode !== 'subscribe') return {};
    const managed = permittedLists(actor, 'manage');
    const byName: Record<string, number> = {};
    for (const l of this.store.listNames(managed)) byName[l.name.trim().toLowerCase()] ??= l.id;
    return byName;
  }

  /** Whether the actor may import subscribers into the list: the check of every list an import subscribes to. */
  importsInto(actor: Actor, listId: number): boolean {
    return can(actor, 'list:manage', listId);
  }

  private subscribeLists(actor: Actor, asked: number[]) {
    const lists = authorizeEach([...new Set(asked)], (id) => this.importsInto(actor, id));
    if (!lists.length) throw denied(asked.length ? 'you may not manage any of the given lists (list:manage)' : '"lists" is required in subscribe mode');
    const existing = this.store.existingLists(lists);
    const missing = lists.filter((id) => !existing.includes(id));
    if (missing.length) throw invalid(`unknown list ID(s): ${missing.join(', ')}`);
    return lists;
  }

  start(job: ImportJob): ImportStatus {
    this.state = { ...idle(), name: job.name, status: 'importing' };
    this.logLines = [];
    this.suppressed = 0;
    this.current = { mode: job.write.mode, lists: [...job.write.lists], subscriptionStatus: job.write.subscriptionStatus, startedAt: new Date(), endedAt: null };
    this.control = new Int32Array(new SharedArrayBuffer(CONTROL_SLOTS * Int32Array.BYTES_PER_ELEMENT));
    this.log(`importing "${job.name}" (${job.source.files.map((f) => f.name).join(', ')}) in ${job.write.mode} mode`);
    this.ctx.log.info(`import of "${job.name}" started by ${job.by} (${job.write.mode} mode)`);
    this.indexer.hold();
    pauseCheckpoints(this.ctx.db);
    // The final status is published last, once the importer is free for the next upload.
    // Whatever fails here (a full disk, a database that cannot be read), the upload is removed
    // and the importer is free again: a rejection would leave it busy until a restart.
    this.running = this.run(job, this.control, currentActor()).catch((e) => {
      this.ctx.log.error(`import of "${job.name}" failed: ${(e as Error).message}`);
      return 'failed' as const;
    }).then((final) => {
      try {
        rmSync(job.dir, { recursive: true, force: true });
        resumeCheckpoints(this.ctx.db);
        this.indexer.release();
      } catch (e) {
        this.ctx.log.error(`import: cleaning up after "${job.name}" failed: ${(e as Error).message}`);
      } finally {
        this.readCounts(this.control!);
        this.control = null;
        this.running = null;
        this.busy = false;
        this.state.status = final;
        if (this.current) this.current.endedAt = new Date();
      }
    });
    return this.status();
  }

  /** DELETE: stop a running import (it keeps what was committed), else reset to idle. */
  stop(): ImportStatus {
    if (this.running) {
      if (this.state.status === 'importing') {
        Atomics.store(this.control!, CONTROL_STOP, 1);
        this.state.status = 'stopping';
        this.log('stop requested');
      }
    } else {
      this.state = idle();
      this.logLines = [];
      this.suppressed = 0;
      this.current = null;
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

  /** Runs the import as `actor` (who started it): the change log names them. */
  private async run(job: ImportJob, control: Int32Array, actor: EventActor): Promise<'finished' | 'failed'> {
    let outcome: WriterMessage;
    try {
      outcome = await this.runThreads(job, control, actor);
    } catch (e) {
      outcome = { type: 'failed', message: (e as Error).message, dbError: false };
    }
    const imported = Atomics.load(control, CONTROL_IMPORTED);
    let final: 'finished' | 'failed';
    if (outcome.type === 'done') {
      this.readCounts(control);
      this.log(`${outcome.stopped ? 'stopped' : 'finished'}: ${imported} rows imported`);
      this.log(summaryLine(this.state));
      this.ctx.log.info(`import of "${job.name}" ${outcome.stopped ? 'stopped' : 'finished'}: ${imported} rows imported`);
      final = 'finished';
    } else {
      const message = outcome.type === 'failed' ? outcome.message : 'unexpected message';
      this.log(`failed: ${message}`);
      this.ctx.log.error(`import of "${job.name}" failed: ${message}`);
      final = 'failed';
    }
    try {
      this.readCounts(control);
      actingAs(actor, () => this.store.recordEnd(job.write.mode === 'subscribe' ? job.write.lists : [], this.finishedEvent(job, final, outcome)));
    } catch (e) {
      this.ctx.log.error(`import: recording its end failed: ${(e as Error).message}`);
    }
    // listmonk notifies on completion and on database errors, not on unreadable files.
    if (final === 'finished' || (outcome.type === 'failed' && outcome.dbError)) await this.notify(final, imported);
    return final;
  }

  /**
   * import.finished's payload: the import as GET /api/import/subscribers gives it once ended,
   * with its mode, lists and whether it was stopped; its counts.
   */
  private finishedEvent(job: ImportJob, final: 'finished' | 'failed', outcome: WriterMessage): { import: Record<string, unknown>; counts: Record<string, number> } {
    const s = { ...this.state, status: final };
    const counts = { total: s.total, imported: s.imported, ...Object.fromEntries(COUNT_SLOTS.map(([key]) => [key, s[key]])) };
    return { import: { ...s, mode: job.write.mode, lists: job.write.lists, stopped: outcome.type === 'done' && outcome.stopped }, counts };
  }

  /** Runs the parser and writer threads to the end; resolves with the writer's last word. */
  private runThreads(job: ImportJob, control: Int32Array, actor: EventActor): Promise<WriterMessage> {
    const channel = new MessageChannel();
    const parser = startThread('parser', {
      source: job.source,
      opts: { delim: job.delim, rules: domainRules(this.ctx.settings), batchSize: BATCH_ROWS, columns: job.columns, listsByName: job.listsByName },
      maxInFlight: MAX_BATCHES_IN_FLIGHT,
      writer: channel.port1,
    }, [channel.port1]);
    let writer: Worker;
    try {
      const events = { types: this.events.wantedTypes(), actor };
      writer = startThread('writer', { dbPath: this.ctx.db.name, write: job.write, parser: channel.port2, control: control.buffer as SharedArrayBuffer, foregroundWrites: this.ctx.foregroundWrites.buffer, events }, [channel.port2]);
    } catch (e) {
      void parser.terminate();
      throw e;
    }
    return new Promise<WriterMessage>((resolve) => {
      let settled = false;
      const finish = (m: WriterMessage) => {
        if (settled) return;
        settled = true;
        void parser.terminate();
        void writer.terminate();
        resolve(m);
      };
      writer.on('message', (m: WriterMessage) => {
        if (m.type === 'total') this.state.total = m.n;
        else if (m.type === 'log') this.log(m.line);
        else finish(m);
      });
      for (const [name, w] of [['parser', parser], ['writer', writer]] as const) {
        w.on('error', (e) => finish({ type: 'failed', message: `${name} thread: ${e.message}`, dbError: name === 'writer' }));
        w.on('exit', (code) => finish({ type: 'failed', message: `the ${name} thread exited (code ${code})`, dbError: false }));
      }
    });
  }

  private async notify(final: 'finished' | 'failed', imported: number): Promise<void> {
    const to = this.ctx.settings.get<string[]>('app.notify_emails') ?? [];
    if (!to.length || !this.ctx.mailer.has('email')) return;
    const s = { ...this.state, imported, status: final };
    try {
      const data = { Name: s.name, Status: s.status, Imported: s.imported, Total: s.total };
      await this.ctx.mailer.deliverWithin('email', systemMessage(this.ctx, 'import-status', data, to, `Import ${s.status}: ${s.name}`), 'import: the notification');
    } catch (e) {
      this.ctx.log.error(`import: sending the notification failed: ${(e as Error).message}`);
    }
  }
}

/** The log's last line: what the rows did, as the import page says it. */
const summaryLine = (c: ImportCounts) => `summary: ${countsSentence(c)}`;
