// The in-process campaign sender. A scheduler (every second, and at once when woken) picks up
// running campaigns and scheduled ones whose send_at has passed; each is walked in subscriber
// id order in batches, every recipient recorded in campaign_sends (queued → sent | failed).
//
// Exactly-once: a recipient is queued in the DB before its message is handed to the
// messenger and marked sent only after the server accepted it; the walk skips everyone
// marked sent. Outcomes are written in small batches (every FLUSH_MS or FLUSH_EVERY results),
// so the one window for a repeat is a crash between acceptance and that write.
//
// The database may refuse a write for a while: locked by another process, the disk full. Such
// writes are waited for without blocking the event loop (db/write-lock.ts) and retried with
// backoff; outcomes stay in memory until they are written, and no new message is handed over
// while they cannot be. A write that keeps failing stops the run: the messages in flight
// finish, their outcomes are written as soon as the database takes them again, and the
// campaign is paused with the reason. The run stays registered until then, so the scheduler
// does not start the campaign again (and re-send what is in flight) meanwhile.
//
// The lists' opt-in mails (POST /api/lists/:id/optin queues them in optin_mails) are sent by
// the same scan, one walk at a time, through the same throttle as the campaigns.
//
// A send that fails because the mail server cannot be reached or used (mail/failures.ts) is
// not the recipient's failure: the recipient stays queued, below the low-water mark, and a
// short run of such failures in a row pauses the campaign with the error, so that resuming it
// sends to them (docs/decisions.md §97). Only a refusal of the message or recipient (a 5xx
// for one address, a message that does not render) is recorded as failed.
import type { AppContext } from '../context.ts';
import type { Logger } from '../log.ts';
import type { CampaignRow, CampaignStore } from '../campaigns/store.ts';
import type { AudienceBreakdown } from '../campaigns/service.ts';
import { RenderError } from '../campaigns/render.ts';
import { isStorageFailure } from '../db/connection.ts';
import { databaseLocked, waitForWriteLock } from '../db/write-lock.ts';
import { composer, loadAttachments, type Composer, type TrackedLinks } from '../campaigns/compose.ts';
import { sendOptin, type OptinStore } from '../subscribers/optin.ts';
import { DeliveryStore, type SendResult } from './store.ts';
import { Throttle } from './throttle.ts';
import { notifyAdmins } from './notify.ts';
import { isConnectionFailure } from '../mail/failures.ts';
import { LIMITS } from '../http/limits.ts';

const SCAN_MS = 1000;
/** Queued opt-in mails read at a time. */
const OPTIN_BATCH = 200;
const FLUSH_MS = 200;
const FLUSH_EVERY = 500;
/** Messages composed between yields to the event loop, so the API stays responsive. */
const YIELD_EVERY = 32;
/**
 * Tries of a failing write before the campaign is paused (about 8 s of backoff, plus up to the
 * busy timeout per try while another process holds the lock).
 */
const WRITE_TRIES = 6;
/** Pause after the nth failed try: 250 ms doubling up to 4 s. */
const backoff = (n: number) => Math.min(4000, 250 * 2 ** (n - 1));

const tick = () => new Promise<void>((r) => setImmediate(r));
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Failed messages logged in full per run; the rest are counted (each is stored with its recipient). */
const LOGGED_FAILURES = 20;

/** A write of the engine, retried while the database refuses it for a reason that may pass. */
type Persist = <T>(what: string, write: () => T, tries?: number, onFailure?: (e: Error) => void) => Promise<T>;

/** One campaign being sent by this process. */
class Run {
  stopped = false;
  /** Set when the run stops for a reason the campaign is paused with. */
  pauseReason = '';
  errors = 0;
  /** Messages that failed to render or to send. */
  failures = 0;
  /** Sends that failed in a row for want of a working mail server. */
  connectionFailures = 0;
  /** Recipients whose send failed that way: left queued, not done (the low-water mark stays below them). */
  private setAside = new Map<number, string>();
  /** Outcomes not written yet, oldest first. */
  private pending: SendResult[] = [];
  /** Fetched ids in order, and which of them are done: the low-water mark is the done prefix. */
  private order: number[] = [];
  private head = 0;
  private done = new Set<number>();
  lowWater: number;
  private written: number;
  private inFlight = 0;
  private drained: (() => void) | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  /** The write under way (one at a time), and whether more was asked for meanwhile. */
  private writing: Promise<void> | null = null;
  private writeAgain = false;
  /** Set while writing outcomes fails: no new message is handed over. */
  private failing = false;
  private recovered: (() => void)[] = [];
  /** Sends per second over the last minute, for running stats. */
  private perSecond = new Map<number, number>();

  constructor(readonly campaign: CampaignRow, private readonly store: DeliveryStore, private readonly persist: Persist, private readonly onStop: (reason: string) => void, start: number) {
    this.lowWater = start;
    this.written = start;
  }

  /** Stops handing over messages; with a reason, the campaign is paused with it (the first reason wins). */
  stop(reason = ''): void {
    if (reason && !this.pauseReason) this.pauseReason = reason;
    if (this.stopped) return;
    this.stopped = true;
    this.onStop(reason);
    for (const r of this.recovered.splice(0)) r();
  }

  start(from: number): void {
    this.lowWater = from;
    this.written = from;
  }

  logFailure(log: Logger, what: string): void {
    this.failures++;
    if (this.failures > LOGGED_FAILURES) return;
    const more = this.failures === LOGGED_FAILURES ? ' (further failures of this run are counted, not logged)' : '';
    log.error(`campaign ${this.campaign.id}: ${what}${more}`);
  }

  fetched(ids: number[]): void {
    this.order.push(...ids);
  }

  started(): void {
    this.inFlight++;
  }

  finished(r: SendResult): void {
    this.inFlight--;
    this.pending.push(r);
    this.done.add(r.subscriberId);
    if (r.ok) {
      const sec = Math.floor(Date.now() / 1000);
      this.perSecond.set(sec, (this.perSecond.get(sec) ?? 0) + 1);
    }
    if (this.pending.length >= FLUSH_EVERY) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    if (this.inFlight === 0) this.drained?.();
  }

  /** A send failed for want of a working mail server: the recipient stays queued, to be sent on resume. */
  failedToConnect(subscriberId: number, error: string): void {
    this.inFlight--;
    this.setAside.set(subscriberId, error);
    if (this.inFlight === 0) this.drained?.();
  }

  /**
   * Records the recipients set aside by isolated connection failures (too few in a row to
   * pause: a send succeeded after them, or the walk ended) as failed, so that the campaign does
   * not finish with them neither sent nor failed, nor hold its low-water mark below them for the
   * rest of the walk; a retry of the failed recipients reaches them.
   */
  failSetAside(): void {
    for (const [subscriberId, error] of this.setAside) {
      this.started();
      this.finished({ subscriberId, ok: false, error });
    }
    this.setAside.clear();
  }

  hasSetAside(): boolean {
    return this.setAside.size > 0;
  }

  /** Resolves at once, or, while outcomes cannot be written, when they can again or the run stops. */
  async writable(): Promise<void> {
    if (this.failing && !this.stopped) await new Promise<void>((r) => this.recovered.push(r));
  }

  /** Starts writing the pending outcomes (in the background; never throws). */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    if (this.writing) {
      this.writeAgain = true;
      return;
    }
    this.writing = this.writeWhilePending().finally(() => (this.writing = null));
  }

  private async writeWhilePending(): Promise<void> {
    do {
      this.writeAgain = false;
      try {
        await this.write(WRITE_TRIES);
      } catch (e) {
        // Kept failing: no more messages; drain() goes on trying to write what is pending.
        this.stop(`the outcomes of sent messages could not be recorded: ${(e as Error).message}`);
        return;
      }
    } while (this.writeAgain || this.pending.length >= FLUSH_EVERY);
  }

  /**
   * Writes the pending outcomes and the low-water mark in one transaction; what arrives
   * meanwhile stays pending. The outcomes leave memory only once written.
   */
  private async write(tries: number): Promise<void> {
    await this.persist(`recording outcomes of campaign ${this.campaign.id}`, () => {
      while (this.head < this.order.length && this.done.has(this.order[this.head])) {
        this.done.delete(this.order[this.head]);
        this.lowWater = this.order[this.head++];
      }
      if (this.head > 4096) {
        this.order = this.order.slice(this.head);
        this.head = 0;
      }
      const n = this.pending.length;
      const lowWater = this.lowWater;
      if (!n && lowWater <= this.written) return;
      this.store.record(this.campaign.id, this.pending, lowWater);
      this.pending.splice(0, n);
      this.written = lowWater;
    }, tries, () => (this.failing = true));
    if (this.failing) {
      this.failing = false;
      for (const r of this.recovered.splice(0)) r();
    }
  }

  /**
   * Waits for the messages in flight, then writes every outcome, retrying for as long as the
   * database refuses (`tries`; the engine's persist gives up early when it stops).
   */
  async drain(tries = Infinity): Promise<void> {
    if (this.inFlight > 0) await new Promise<void>((r) => (this.drained = r));
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    while (this.writing) await this.writing;
    await this.write(tries);
  }

  /** Outcomes still in memory. */
  unwritten(): number {
    return this.pending.length;
  }

  rate(): number {
    const now = Math.floor(Date.now() / 1000);
    let n = 0;
    for (const [sec, count] of this.perSecond) {
      if (sec <= now - 60) this.perSecond.delete(sec);
      else n += count;
    }
    return n;
  }
}

export class DeliveryEngine {
  private readonly throttle: Throttle;
  private readonly runs = new Map<number, Run>();
  private readonly tasks = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  /** The walk over the queued opt-in mails, while one runs. */
  private optinWalk: Promise<void> | null = null;

  constructor(
    private readonly ctx: AppContext,
    private readonly store: DeliveryStore,
    private readonly campaigns: CampaignStore,
    private readonly tracking: TrackedLinks,
    private readonly optinStore: OptinStore,
  ) {
    this.throttle = new Throttle(ctx.settings);
  }

  start(): void {
    this.timer = setInterval(() => this.scan(), SCAN_MS);
    this.timer.unref();
    setImmediate(() => this.scan());
  }

  /** Why opt-in mails cannot be sent now (no SMTP server enabled), or null. */
  optinsUnavailable(): string | null {
    return this.ctx.mailer.unavailable('email');
  }

  /** Scan now (a campaign was set running, opt-in mails were queued). */
  wake(): void {
    if (!this.stopping) setImmediate(() => this.scan());
  }

  /** Stops sending a campaign (pause, cancel, delete); queued messages are dropped. */
  halt(id: number): void {
    this.runs.get(id)?.stop();
  }

  isSending(id: number): boolean {
    return this.runs.has(id);
  }

  /** Messages sent for the campaign by this process in the last minute. */
  rate(id: number): number {
    return this.runs.get(id)?.rate() ?? 0;
  }

  audience(listIds: number[], optin: boolean): AudienceBreakdown {
    return this.store.audienceOfLists(listIds, optin);
  }

  /** Graceful stop: no new messages, in-flight ones finish and are recorded; status stays running. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    for (const run of this.runs.values()) run.stop();
    this.throttle.nudge();
    await Promise.all([...this.tasks]);
  }

  private scan(): void {
    if (this.stopping) return;
    let due: number[];
    try {
      due = this.store.due(new Date().toISOString());
    } catch (e) {
      // A database that cannot be read now (I/O error, a lock) is tried again at the next scan.
      this.ctx.log.error(`delivery: looking for campaigns to send failed: ${(e as Error).message}`);
      return;
    }
    for (const id of due) {
      if (this.runs.has(id)) continue;
      let c: CampaignRow | undefined;
      try {
        c = this.campaigns.get(id);
      } catch (e) {
        this.ctx.log.error(`campaign ${id}: reading it failed: ${(e as Error).message}`);
        continue;
      }
      if (!c) continue;
      this.track(this.send(c).catch((e) => this.ctx.log.error(`campaign ${id}: ${(e as Error).stack ?? e}`)));
    }
    if (!this.optinWalk) {
      this.optinWalk = this.walkOptins().catch((e) => this.ctx.log.error(`opt-in mails: ${(e as Error).stack ?? e}`)).finally(() => (this.optinWalk = null));
      this.track(this.optinWalk);
    }
  }

  /** Background work that stop() waits for. */
  private track(task: Promise<void>): void {
    this.tasks.add(task);
    void task.finally(() => this.tasks.delete(task));
  }

  /**
   * Sends the queued opt-in mails in id order, each when the throttle lets it (the campaigns'
   * rate limits, shared with them), and records each outcome: sent, failed (the subscriber may
   * be queued again), or skipped (confirmed or unsubscribed since it was queued).
   */
  private async walkOptins(): Promise<void> {
    const inFlight = new Set<Promise<void>>();
    let after = 0;
    let failed = 0;
    let lastError = '';
    const record = (id: number, status: 'sent' | 'failed' | 'skipped', error: string) => {
      try {
        this.store.recordOptin(id, status, error);
      } catch (e) {
        // Left queued: the next walk sends it again.
        this.ctx.log.error(`opt-in mail ${id}: its outcome (${status}) could not be recorded: ${(e as Error).message}`);
      }
    };
    try {
      for (;;) {
        const batch = this.store.queuedOptins(after, OPTIN_BATCH);
        if (!batch.length) return;
        for (const m of batch) {
          if (!(await this.throttle.acquire(() => this.stopping))) return;
          after = m.id;
          const send: Promise<void> = sendOptin(this.ctx, this.optinStore, m.subscriber_id, [m.list_id], false).then(
            (lists) => record(m.id, lists ? 'sent' : 'skipped', ''),
            (e: Error) => {
              failed++;
              lastError = String(e.message).slice(0, 500);
              record(m.id, 'failed', lastError);
            },
          ).finally(() => {
            this.throttle.release();
            inFlight.delete(send);
          });
          inFlight.add(send);
        }
      }
    } finally {
      await Promise.all(inFlight);
      if (failed) this.ctx.log.error(`opt-in mails: ${failed} could not be sent (last: ${lastError}); the list's opt-in action may send them again`);
    }
  }

  /**
   * Runs a write: waits, without blocking the event loop, for SQLite's write lock (up to the
   * busy timeout), and retries a write the database refuses for a while (isStorageFailure)
   * after a backoff, `tries` times in all (Infinity: until it is written); the engine stopping
   * cuts that short. Throws the last error.
   */
  private readonly persist: Persist = async (what, write, tries = WRITE_TRIES, onFailure) => {
    for (let n = 1; ; n++) {
      try {
        if (!(await waitForWriteLock(this.ctx.db))) throw databaseLocked();
        return write();
      } catch (e) {
        if (!isStorageFailure(e) || n >= tries || (this.stopping && n >= 2)) throw e;
        onFailure?.(e as Error);
        if (n === 1 || n % 20 === 0) this.ctx.log.warn(`delivery: ${what} failed (${(e as Error).message}); trying again`);
        await sleep(backoff(n));
      }
    }
  };

  private async send(c: CampaignRow): Promise<void> {
    const log = this.ctx.log;
    const optin = c.type === 'optin';
    const unavailable = this.ctx.mailer.unavailable(c.messenger);
    if (unavailable) {
      this.store.holdBack(c.id, unavailable);
      log.error(`campaign ${c.id}: ${unavailable}; paused`);
      return;
    }
    let compose: Composer;
    try {
      compose = composer(this.ctx, this.campaigns, this.tracking, c, loadAttachments(this.ctx, this.campaigns, c.id));
    } catch (e) {
      if (!(e instanceof RenderError)) throw e;
      this.store.holdBack(c.id, e.message);
      log.error(`campaign ${c.id}: ${e.message}; paused`);
      return;
    }
    // Registered before the first wait, so that the scheduler does not start it twice.
    const run = new Run(c, this.store, this.persist, (reason) => {
      this.throttle.nudge();
      if (reason) log.error(`campaign ${c.id}: stopped sending: ${reason}; it is paused as soon as that can be recorded`);
    }, c.last_subscriber_id);
    this.runs.set(c.id, run);
    try {
      let picked: { max: number; start: number };
      try {
        picked = await this.persist(`starting campaign ${c.id}`, () => this.store.pickUp(c, optin));
      } catch (e) {
        // Nothing was sent: the campaign stays running and the next scans try again.
        log.error(`campaign ${c.id}: could not start sending: ${(e as Error).message}`);
        return;
      }
      const { max, start } = picked;
      run.start(start);
      log.info(`campaign ${c.id} "${c.name}": sending ${c.retrying_failed ? 'again to its failed recipients ' : ''}from subscriber ${start} up to ${max}`);
      this.ctx.rootUrlCheck.logWarning(`campaign ${c.id}`);
      await this.walk(run, compose, optin, start, max);
      if (run.failures > LOGGED_FAILURES) log.error(`campaign ${c.id}: ${run.failures} messages failed in this run`);
      await this.end(run);
    } finally {
      this.runs.delete(c.id);
    }
  }

  /** Hands over the campaign's messages until the walk ends or the run stops; then waits for those in flight and records them. */
  private async walk(run: Run, compose: Composer, optin: boolean, start: number, max: number): Promise<void> {
    const log = this.ctx.log;
    const c = run.campaign;
    const maxErrors = Math.max(0, Math.floor(this.ctx.settings.num('app.max_send_errors')));
    const batchSize = Math.max(1, Math.floor(this.ctx.settings.num('app.batch_size')) || 1000);
    try {
      let cursor = start;
      outer: while (!run.stopped) {
        const after = cursor;
        let batch;
        try {
          batch = await this.persist(`queueing recipients of campaign ${c.id}`, () => this.store.nextBatch(c.id, optin, c.retrying_failed === 1, after, max, batchSize));
        } catch (e) {
          run.stop(`the next recipients could not be queued: ${(e as Error).message}`);
          break;
        }
        if (run.stopped || !batch.length) break;
        run.fetched(batch.map((s) => s.id));
        for (let i = 0; i < batch.length; i++) {
          const sub = batch[i];
          if (i % YIELD_EVERY === 0) await tick();
          await run.writable();
          if (run.stopped || !(await this.throttle.acquire(() => run.stopped))) break outer;
          let msg;
          try {
            msg = compose.message(sub);
          } catch (e) {
            this.throttle.release();
            if (isStorageFailure(e)) {
              // Not the message's fault (a tracked link could not be stored): it stays queued.
              run.stop(`a message could not be composed: ${(e as Error).message}`);
              break outer;
            }
            run.started();
            run.finished({ subscriberId: sub.id, ok: false, error: `render: ${(e as Error).message}` });
            run.logFailure(log, `message to subscriber ${sub.id} does not render: ${(e as Error).message}`);
            continue;
          }
          run.started();
          this.ctx.mailer.send(c.messenger, msg).then(
            () => {
              run.connectionFailures = 0;
              run.finished({ subscriberId: sub.id, ok: true, error: '' });
              // The server works: the connection failures before this were isolated ones.
              if (!run.stopped) run.failSetAside();
            },
            (e: Error) => {
              const error = String(e.message).slice(0, 500);
              if (isConnectionFailure(e)) {
                run.failedToConnect(sub.id, error);
                run.logFailure(log, `message to subscriber ${sub.id} could not be handed to the mail server: ${e.message}`);
                if (++run.connectionFailures >= LIMITS.campaignConnectionFailures && !run.stopped) {
                  run.stop(`the mail server could not be used (${run.connectionFailures} sends failed in a row; last: ${e.message}); the recipients of those sends get the campaign when it is resumed`);
                }
                return;
              }
              run.connectionFailures = 0;
              run.finished({ subscriberId: sub.id, ok: false, error });
              run.logFailure(log, `message to subscriber ${sub.id} failed: ${e.message}`);
              run.errors++;
              if (maxErrors > 0 && run.errors >= maxErrors && !run.stopped) run.stop(`Too many errors (${run.errors}); last: ${e.message}`);
            },
          ).finally(() => this.throttle.release()).catch((e) => log.error(`campaign ${c.id}: ${(e as Error).stack ?? e}`));
        }
        cursor = batch[batch.length - 1].id;
      }
    } finally {
      // Also when something above threw: the messages in flight are recorded before the run
      // ends, so that the next run does not send them again.
      try {
        await run.drain();
        if (!run.stopped && run.hasSetAside()) {
          run.failSetAside();
          await run.drain();
        }
      } catch (e) {
        const message = (e as Error).message;
        log.error(`campaign ${c.id}: the outcomes of ${run.unwritten()} sent messages could not be recorded (${message}); their recipients may get the campaign again when it resumes`);
        // Not finished with outcomes missing; on a shutdown it stays running, to go on after the restart.
        if (!this.stopping) run.stop(`the outcomes of sent messages could not be recorded: ${message}`);
      }
    }
  }

  /** Pauses the campaign with the run's reason, or marks it finished; written as soon as the database takes it. */
  private async end(run: Run): Promise<void> {
    const { id, name } = run.campaign;
    const log = this.ctx.log;
    const reason = run.pauseReason;
    if (!reason && run.stopped) return; // paused, cancelled, deleted or shutting down
    let changed: boolean;
    try {
      changed = await this.persist(`${reason ? 'pausing' : 'finishing'} campaign ${id}`, () => (reason ? this.store.pause(id, reason) : this.store.finish(id)), Infinity);
    } catch (e) {
      log.error(`campaign ${id}: could not be marked ${reason ? 'paused' : 'finished'}: ${(e as Error).message}${reason ? ` (it was stopped: ${reason})` : ''}`);
      return;
    }
    if (!changed) return;
    const counts = this.counts(id);
    if (reason) {
      log.error(`campaign ${id}: ${reason}; paused (${counts})`);
      await this.notify(id, 'Paused', reason);
    } else {
      log.info(`campaign ${id} "${name}" finished: ${counts}`);
      await this.notify(id, 'Finished', '');
    }
  }

  /**
   * "N sent, N failed, N skipped" of the campaign so far; skipped are the members of its
   * audience neither sent to nor failed (unsubscribed, blocklisted or deleted during the send).
   */
  private counts(id: number): string {
    const c = this.campaigns.get(id);
    if (!c) return 'deleted';
    return `${c.sent} sent, ${c.failed} failed, ${Math.max(0, c.to_send - c.sent - c.failed)} skipped`;
  }

  private async notify(id: number, verb: string, reason: string): Promise<void> {
    const c = this.campaigns.get(id);
    if (!c) return;
    try {
      await notifyAdmins(this.ctx, `${verb}: ${c.name}`, { ID: c.id, Name: c.name, Status: c.status, Sent: c.sent, ToSend: c.to_send, Reason: reason });
    } catch (e) {
      this.ctx.log.error(`campaign ${id}: admin notification failed: ${(e as Error).message}`);
    }
  }
}
