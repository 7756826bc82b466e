// The in-process campaign sender. A scheduler (every second, and at once when woken) picks up
// running campaigns and scheduled ones whose send_at has passed; each is walked in subscriber
// id order in batches, every recipient recorded in campaign_sends (queued → sent | failed).
//
// Exactly-once: a recipient is queued in the DB before its message is handed to the
// messenger and marked sent only after the server accepted it; the walk skips everyone
// marked sent. Outcomes are written in small batches (every FLUSH_MS or FLUSH_EVERY results),
// so the one window for a repeat is a crash between acceptance and that write.
import type { AppContext } from '../context.ts';
import type { Logger } from '../log.ts';
import type { CampaignRow, CampaignStore } from '../campaigns/store.ts';
import { RenderError } from '../campaigns/render.ts';
import { composer, loadAttachments, type Composer, type TrackedLinks } from '../campaigns/compose.ts';
import { DeliveryStore, type SendResult } from './store.ts';
import { Throttle } from './throttle.ts';
import { notifyAdmins } from './notify.ts';

const SCAN_MS = 1000;
const FLUSH_MS = 200;
const FLUSH_EVERY = 500;
/** Messages composed between yields to the event loop, so the API stays responsive. */
const YIELD_EVERY = 32;

const tick = () => new Promise<void>((r) => setImmediate(r));

/** Failed messages logged in full per run; the rest are counted (each is stored with its recipient). */
const LOGGED_FAILURES = 20;

/** One campaign being sent by this process. */
class Run {
  stopped = false;
  errors = 0;
  /** Messages that failed to render or to send. */
  failures = 0;
  private pending: SendResult[] = [];
  /** Fetched ids in order, and which of them are done: the low-water mark is the done prefix. */
  private order: number[] = [];
  private head = 0;
  private done = new Set<number>();
  lowWater: number;
  private inFlight = 0;
  private drained: (() => void) | null = null;
  private flushTimer: NodeJS.Timeout | null = null;
  /** Sends per second over the last minute, for running stats. */
  private perSecond = new Map<number, number>();

  constructor(readonly campaign: CampaignRow, private readonly store: DeliveryStore, start: number) {
    this.lowWater = start;
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

  /** Recipients whose message was never handed over (stop) count as done for the cursor only if sent; so just stop advancing. */
  flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    while (this.head < this.order.length && this.done.has(this.order[this.head])) {
      this.done.delete(this.order[this.head]);
      this.lowWater = this.order[this.head++];
    }
    if (this.head > 4096) {
      this.order = this.order.slice(this.head);
      this.head = 0;
    }
    const batch = this.pending;
    this.pending = [];
    if (batch.length || this.lowWater > 0) this.store.record(this.campaign.id, batch, this.lowWater);
  }

  async drain(): Promise<void> {
    if (this.inFlight > 0) await new Promise<void>((r) => (this.drained = r));
    this.flush();
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

  constructor(private readonly ctx: AppContext, private readonly store: DeliveryStore, private readonly campaigns: CampaignStore, private readonly tracking: TrackedLinks) {
    this.throttle = new Throttle(ctx.settings);
  }

  start(): void {
    this.timer = setInterval(() => this.scan(), SCAN_MS);
    this.timer.unref();
    setImmediate(() => this.scan());
  }

  /** Scan now (a campaign was set running). */
  wake(): void {
    if (!this.stopping) setImmediate(() => this.scan());
  }

  /** Stops sending a campaign (pause, cancel, delete); queued messages are dropped. */
  halt(id: number): void {
    const run = this.runs.get(id);
    if (!run) return;
    run.stopped = true;
    this.throttle.nudge();
  }

  isSending(id: number): boolean {
    return this.runs.has(id);
  }

  /** Messages sent for the campaign by this process in the last minute. */
  rate(id: number): number {
    return this.runs.get(id)?.rate() ?? 0;
  }

  /** Graceful stop: no new messages, in-flight ones finish and are recorded; status stays running. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearInterval(this.timer);
    for (const run of this.runs.values()) run.stopped = true;
    this.throttle.nudge();
    await Promise.all([...this.tasks]);
  }

  private scan(): void {
    if (this.stopping) return;
    for (const id of this.store.due(new Date().toISOString())) {
      if (this.runs.has(id)) continue;
      const c = this.campaigns.get(id);
      if (!c) continue;
      const task = this.send(c).catch((e) => this.ctx.log.error(`campaign ${id}: ${(e as Error).stack ?? e}`));
      this.tasks.add(task);
      void task.finally(() => this.tasks.delete(task));
    }
  }

  private async send(c: CampaignRow): Promise<void> {
    const log = this.ctx.log;
    const optin = c.type === 'optin';
    if (!this.ctx.mailer.has(c.messenger)) {
      this.store.holdBack(c.id, `messenger "${c.messenger}" is not configured`);
      log.error(`campaign ${c.id}: messenger "${c.messenger}" is not configured; paused`);
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
    const { max, start } = this.store.pickUp(c.id, optin, c.last_subscriber_id);
    const run = new Run(c, this.store, start);
    this.runs.set(c.id, run);
    log.info(`campaign ${c.id} "${c.name}": sending from subscriber ${start} up to ${max}`);
    const maxErrors = Math.max(0, Math.floor(this.ctx.settings.num('app.max_send_errors')));
    const batchSize = Math.max(1, Math.floor(this.ctx.settings.num('app.batch_size')) || 1000);
    let pauseReason = '';
    try {
      let cursor = start;
      outer: while (!run.stopped) {
        const batch = this.store.nextBatch(c.id, optin, cursor, max, batchSize);
        if (!batch.length) break;
        run.fetched(batch.map((s) => s.id));
        for (let i = 0; i < batch.length; i++) {
          const sub = batch[i];
          if (i % YIELD_EVERY === 0) await tick();
          if (run.stopped || !(await this.throttle.acquire(() => run.stopped))) break outer;
          let msg;
          try {
            msg = compose.message(sub);
          } catch (e) {
            this.throttle.release();
            run.started();
            run.finished({ subscriberId: sub.id, ok: false, error: `render: ${(e as Error).message}` });
            run.logFailure(log, `message to subscriber ${sub.id} does not render: ${(e as Error).message}`);
            continue;
          }
          run.started();
          this.ctx.mailer.send(c.messenger, msg).then(
            () => run.finished({ subscriberId: sub.id, ok: true, error: '' }),
            (e: Error) => {
              run.finished({ subscriberId: sub.id, ok: false, error: String(e.message).slice(0, 500) });
              run.logFailure(log, `message to subscriber ${sub.id} failed: ${e.message}`);
              run.errors++;
              if (maxErrors > 0 && run.errors >= maxErrors && !run.stopped) {
                pauseReason = `Too many errors (${run.errors}); last: ${e.message}`;
                run.stopped = true;
                this.throttle.nudge();
              }
            },
          ).finally(() => this.throttle.release());
        }
        cursor = batch[batch.length - 1].id;
      }
      await run.drain();
    } finally {
      this.runs.delete(c.id);
    }
    if (run.failures > LOGGED_FAILURES) log.error(`campaign ${c.id}: ${run.failures} messages failed in this run`);
    if (pauseReason) {
      if (this.store.pause(c.id, pauseReason)) {
        log.error(`campaign ${c.id}: ${pauseReason}; paused`);
        await this.notify(c.id, 'Paused', pauseReason);
      }
      return;
    }
    if (run.stopped) return; // paused, cancelled, deleted or shutting down
    if (this.store.finish(c.id)) {
      log.info(`campaign ${c.id} "${c.name}" finished`);
      await this.notify(c.id, 'Finished', '');
    }
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
