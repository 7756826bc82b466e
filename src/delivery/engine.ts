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
// A send the relay defers (a 4xx reply at any stage, a connection dropped, a timeout) is not
// the recipient's failure: the recipient stays queued (below the low-water mark) and is tried
// again with backoff (1 s doubling, up to a sixth of app.defer_limit and 5 minutes), before the
// recipients not reached yet. While the relay defers, new messages wait for the backoff and
// then go one at a time until one is accepted; the campaign stays running, and is paused with
// the reason only when nothing has been accepted for app.defer_limit (resuming it sends to
// the recipients left queued). A recipient deferred for that long while the relay accepts
// others is recorded as failed. A mail server that cannot be used as set up (connection
// refused, DNS, TLS, authentication) defers its recipients alike, and a short run of such
// failures in a row pauses the campaign with the error at once. Only a refusal of the message
// or recipient (a 5xx for one address, a message that does not render) is recorded as failed
// (docs/decisions.md §97). A connection that drops after the data went out but before the
// relay's reply is the in-flight window again: the relay may have taken the message, and the
// retry sends it once more.
import type { AppContext } from '../context.ts';
import type { Logger } from '../log.ts';
import type { CampaignRow, CampaignStore } from '../campaigns/store.ts';
import type { AudienceBreakdown } from '../campaigns/service.ts';
import { isStorageFailure } from '../db/connection.ts';
import { databaseLocked, waitForWriteLock } from '../db/write-lock.ts';
import { composer, loadAttachments, type Composer } from '../campaigns/compose.ts';
import { RenderError, type TrackedLinks } from '../rendering/message.ts';
import { sendOptin, type OptinStore } from '../subscribers/optin.ts';
import type { SubscriberRow } from '../campaigns/store.ts';
import { DeliveryStore, type SendResult } from './store.ts';
import { Throttle } from './throttle.ts';
import { notifyAdmins } from './notify.ts';
import { classifySendFailure, deferBackoff, deferLimitMs, spokenDuration } from '../mail/failures.ts';
import { LIMITS } from '../core/limits.ts';
import { actingAs } from '../core/actor.ts';

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

/** A recipient whose send was deferred, tried again when due. */
interface Deferral {
  subscriberId: number;
  tries: number;
  /** When it was first deferred, and when it is tried next (ms). */
  since: number;
  due: number;
  error: string;
  /** Handed over again, not settled yet. */
  sending: boolean;
}

/** One campaign being sent by this process. */
class Run {
  stopped = false;
  /** Set when the run stops for a reason the campaign is paused with. */
  pauseReason = '';
  errors = 0;
  /** Messages that failed to render or to send. */
  failures = 0;
  /** Sends the relay deferred. */
  deferrals = 0;
  /** Sends that failed in a row because the mail server could not be used as set up. */
  unusableInRow = 0;
  /** Recipients deferred, to be tried again: left queued, not done (the low-water mark stays below them). */
  private deferred = new Map<number, Deferral>();
  /** The relay's backoff: raised by a deferral after the last hold ended, 0 once a message is accepted; above 1, messages wait. */
  private level = 0;
  /** No message is handed over before this time (ms). */
  private holdUntil = 0;
  /** When the relay began deferring, since it last accepted a message (0 while it accepts). */
  private deferringSince = 0;
  private lastAccepted = 0;
  /** The count of deferred recipients last written to the campaign. */
  private deferredWritten = 0;
  /** Waiting for a change of the state above (a send ended, a deferral, a stop). */
  private changed: (() => void)[] = [];
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
    this.change();
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

  /** Deferrals are logged like failures: the first of a run in full, then counted. */
  logDeferral(log: Logger, what: string): void {
    this.deferrals++;
    if (this.deferrals <= LOGGED_FAILURES) log.warn(`campaign ${this.campaign.id}: ${what}; tried again after a backoff`);
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
    this.deferred.delete(r.subscriberId);
    if (r.ok) {
      const now = Date.now();
      const sec = Math.floor(now / 1000);
      this.perSecond.set(sec, (this.perSecond.get(sec) ?? 0) + 1);
      this.level = 0;
      this.holdUntil = 0;
      this.deferringSince = 0;
      this.unusableInRow = 0;
      this.lastAccepted = now;
    }
    if (this.pending.length >= FLUSH_EVERY) this.flush();
    else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    if (this.inFlight === 0) this.drained?.();
    this.change();
  }

  /**
   * The relay deferred the message to the subscriber (or could not be used): it stays queued, to be tried
   * again after a backoff, and the next messages wait for the relay's. Returns why the campaign
   * must be paused (nothing accepted for `limitMs`), or ''; a recipient deferred for that long
   * while the relay accepted others is recorded as failed.
   */
  defer(subscriberId: number, error: string, limitMs: number): string {
    this.inFlight--;
    const now = Date.now();
    const d = this.deferred.get(subscriberId) ?? { subscriberId, tries: 0, since: now, due: 0, error, sending: false };
    d.tries++;
    d.error = error;
    d.sending = false;
    d.due = now + deferBackoff(d.tries, limitMs);
    this.deferred.set(subscriberId, d);
    // A deferral after the hold ended raises the relay's backoff; the first after an acceptance
    // holds nobody else (a single connection dropped costs no wait).
    if (now >= this.holdUntil && ++this.level > 1) this.holdUntil = now + deferBackoff(this.level - 1, limitMs);
    this.deferringSince ||= now;
    let reason = '';
    if (now - d.since >= limitMs && this.lastAccepted > d.since) {
      // The relay took other messages meanwhile: it is this recipient it keeps deferring.
      this.started();
      this.finished({ subscriberId, ok: false, error: `deferred for longer than ${spokenDuration(limitMs)}; last: ${error}`.slice(0, 500) });
    } else if (now - this.deferringSince >= limitMs) {
      reason = `the mail server deferred every message for ${spokenDuration(limitMs)} (app.defer_limit; last: ${error}); the ${this.deferred.size} recipients deferred, and those not reached yet, get the campaign when it is resumed`;
    }
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    if (this.inFlight === 0) this.drained?.();
    this.change();
    return reason;
  }

  /** A deferred recipient left the audience: no outcome, and the low-water mark may pass it. */
  skip(subscriberId: number): void {
    this.deferred.delete(subscriberId);
    this.done.add(subscriberId);
    this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    this.change();
  }

  /** The deferred recipient tried again first: the one due longest, or none. */
  dueRetry(): Deferral | null {
    const now = Date.now();
    let first: Deferral | null = null;
    for (const d of this.deferred.values()) if (!d.sending && d.due <= now && (!first || d.due < first.due)) first = d;
    if (first) first.sending = true;
    return first;
  }

  /**
   * Waits until a message may be handed over: after the relay's backoff, and while it defers,
   * one at a time (the first accepted ends the backoff). Resolves at once when the run stopped.
   */
  async sendable(): Promise<void> {
    for (;;) {
      if (this.stopped) return;
      const wait = this.holdUntil - Date.now();
      if (wait > 0) await this.nextChange(wait);
      else if (this.level > 1 && this.inFlight > 0) await this.nextChange(SCAN_MS);
      else return;
    }
  }

  /**
   * After the walk: the next deferred recipient to try again, once due; null when none is left
   * (nor any message in flight that could be deferred) or the run stopped.
   */
  async nextRetry(): Promise<Deferral | null> {
    for (;;) {
      if (this.stopped) return null;
      if (!this.deferred.size && this.inFlight === 0) return null;
      const d = this.dueRetry();
      if (d) return d;
      let wait = SCAN_MS;
      for (const x of this.deferred.values()) if (!x.sending) wait = Math.min(wait, x.due - Date.now());
      await this.nextChange(Math.max(1, wait));
    }
  }

  private change(): void {
    for (const r of this.changed.splice(0)) r();
  }

  /** Resolves at the next change of the run's state, or after `ms`. */
  private nextChange(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        const i = this.changed.indexOf(done);
        if (i >= 0) this.changed.splice(i, 1);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.changed.push(done);
    });
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
      // A stopped run tries its deferred recipients no more: they are queued, not deferred.
      const deferred = this.stopped ? 0 : this.deferred.size;
      if (!n && lowWater <= this.written && deferred === this.deferredWritten) return;
      this.store.record(this.campaign.id, this.pending, lowWater, deferred);
      this.pending.splice(0, n);
      this.written = lowWater;
      this.deferredWritten = deferred;
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
    // The engine's changes are the system's, not those of the request that woke it.
    if (!this.stopping) setImmediate(() => actingAs({ type: 'system' }, () => this.scan()));
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
      if (run.deferrals > LOGGED_FAILURES) log.warn(`campaign ${c.id}: ${run.deferrals} sends were deferred in this run`);
      await this.end(run);
    } finally {
      this.runs.delete(c.id);
    }
  }

  /**
   * Hands over the campaign's messages until the walk ends and no deferred recipient is left, or
   * the run stops; then waits for those in flight and records them.
   */
  private async walk(run: Run, compose: Composer, optin: boolean, start: number, max: number): Promise<void> {
    const c = run.campaign;
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
          if (i % YIELD_EVERY === 0) await tick();
          // Deferred recipients whose wait is over go before the next new one.
          for (let d = run.dueRetry(); d; d = run.dueRetry()) if (!(await this.retry(run, compose, optin, d.subscriberId))) break outer;
          if (!(await this.handOver(run, compose, batch[i]))) break outer;
        }
        cursor = batch[batch.length - 1].id;
      }
      for (let d = await run.nextRetry(); d; d = await run.nextRetry()) if (!(await this.retry(run, compose, optin, d.subscriberId))) break;
    } finally {
      // Also when something above threw: the messages in flight are recorded before the run
      // ends, so that the next run does not send them again.
      try {
        await run.drain();
      } catch (e) {
        const message = (e as Error).message;
        this.ctx.log.error(`campaign ${c.id}: the outcomes of ${run.unwritten()} sent messages could not be recorded (${message}); their recipients may get the campaign again when it resumes`);
        // Not finished with outcomes missing; on a shutdown it stays running, to go on after the restart.
        if (!this.stopping) run.stop(`the outcomes of sent messages could not be recorded: ${message}`);
      }
    }
  }

  /**
   * Tries a deferred recipient again, re-read: one who left the audience meanwhile (unsubscribed,
   * blocklisted, deleted) is skipped, as the walk would. False when the run stopped.
   */
  private async retry(run: Run, compose: Composer, optin: boolean, subscriberId: number): Promise<boolean> {
    let sub: SubscriberRow | undefined;
    try {
      sub = this.store.eligible(run.campaign.id, optin, subscriberId);
    } catch (e) {
      run.stop(`a deferred recipient could not be read: ${(e as Error).message}`);
      return false;
    }
    if (!sub) {
      run.skip(subscriberId);
      return true;
    }
    return this.handOver(run, compose, sub);
  }

  /**
   * Hands the message to `sub` to the messenger once the run may send (outcomes writable, the
   * relay's backoff over, a throttle slot); its outcome is recorded when it settles. False when
   * the run stopped meanwhile (nothing handed over).
   */
  private async handOver(run: Run, compose: Composer, sub: SubscriberRow): Promise<boolean> {
    const log = this.ctx.log;
    const c = run.campaign;
    await run.writable();
    await run.sendable();
    if (run.stopped || !(await this.throttle.acquire(() => run.stopped))) return false;
    let msg;
    try {
      msg = compose.message(sub);
    } catch (e) {
      this.throttle.release();
      if (isStorageFailure(e)) {
        // Not the message's fault (a tracked link could not be stored): it stays queued.
        run.stop(`a message could not be composed: ${(e as Error).message}`);
        return false;
      }
      run.started();
      run.finished({ subscriberId: sub.id, ok: false, error: `render: ${(e as Error).message}` });
      run.logFailure(log, `message to subscriber ${sub.id} does not render: ${(e as Error).message}`);
      return true;
    }
    run.started();
    this.ctx.mailer.send(c.messenger, msg).then(
      () => run.finished({ subscriberId: sub.id, ok: true, error: '' }),
      (e: Error) => this.failed(run, sub, e),
    ).finally(() => this.throttle.release()).catch((e) => log.error(`campaign ${c.id}: ${(e as Error).stack ?? e}`));
    return true;
  }

  /** A send failed: deferred (transient, or a server that cannot be used), or the recipient's failure (refused). */
  private failed(run: Run, sub: SubscriberRow, e: Error): void {
    const log = this.ctx.log;
    const error = String(e.message).slice(0, 500);
    const kind = classifySendFailure(e);
    if (kind === 'refused') {
      run.finished({ subscriberId: sub.id, ok: false, error });
      run.logFailure(log, `message to subscriber ${sub.id} failed: ${e.message}`);
      run.errors++;
      const maxErrors = Math.max(0, Math.floor(this.ctx.settings.num('app.max_send_errors')));
      if (maxErrors > 0 && run.errors >= maxErrors && !run.stopped) run.stop(`Too many errors (${run.errors}); last: ${e.message}`);
      return;
    }
    const tooLong = run.defer(sub.id, error, deferLimitMs(this.ctx.settings.str('app.defer_limit')));
    if (kind === 'unusable') {
      run.logFailure(log, `message to subscriber ${sub.id} could not be handed to the mail server: ${e.message}`);
      if (++run.unusableInRow >= LIMITS.campaignConnectionFailures && !run.stopped) {
        run.stop(`the mail server could not be used (${run.unusableInRow} sends failed in a row; last: ${e.message}); the recipients of those sends get the campaign when it is resumed`);
      }
    } else run.logDeferral(log, `message to subscriber ${sub.id} deferred: ${e.message}`);
    if (tooLong && !run.stopped) run.stop(tooLong);
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
      this.notify(id, 'Paused', reason);
    } else {
      log.info(`campaign ${id} "${name}" finished: ${counts}`);
      this.notify(id, 'Finished', '');
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

  /**
   * Mails the admins (not waited for: a relay that defers it must not keep the run, and so the
   * campaign's next start, waiting).
   */
  private notify(id: number, verb: string, reason: string): void {
    const c = this.campaigns.get(id);
    if (!c) return;
    notifyAdmins(this.ctx, `${verb}: ${c.name}`, { ID: c.id, Name: c.name, Status: c.status, Sent: c.sent, ToSend: c.to_send, Reason: reason })
      .catch((e: Error) => this.ctx.log.error(`campaign ${id}: admin notification failed: ${e.message}`));
  }
}
