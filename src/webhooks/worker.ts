// The webhook dispatcher and delivery worker. The dispatcher reads the change log after its
// cursor and writes one delivery per event and subscribed webhook, a batch per transaction,
// never in a request's path: it polls the log's last id, which costs one index lookup. The
// worker leases due deliveries (deliveries.ts), signs and sends them (Standard Webhooks), and
// writes their outcomes in batches: a 2xx delivers, anything else retries on the backoff
// schedule, then fails; an endpoint failing for the whole disable window is disabled.
// Concurrency is capped globally and per webhook, so one slow or dead endpoint holds at most its
// own share of the requests and never delays another's.
import type { WebhookTiming } from '../config.ts';
import type { Logger } from '../log.ts';
import { eventBody, unsignedHeaders } from './body.ts';
import type { AttemptResult, DeliveryRequest, Failure, Outcome, WebhookDeliveryStore } from './deliveries.ts';
import type { WebhookSender } from './send.ts';
import { signatureHeader } from './signature.ts';

export interface WorkerOptions extends WebhookTiming {
  /** Requests in flight at once, all webhooks together. */
  maxInFlight: number;
  /** Requests in flight at once to one webhook. */
  maxPerWebhook: number;
  /** How often the log's last id and the due deliveries are looked at. */
  pollMs: number;
}

/**
 * 8 at a time to one webhook reached 1,500-2,000 deliveries/s to a local receiver on a 2-core
 * machine at load 11 (16 at a time was no faster); 64 in all lets 8 endpoints go at full speed.
 */
export const WEBHOOK_WORKER_DEFAULTS: Omit<WorkerOptions, keyof WebhookTiming> = { maxInFlight: 64, maxPerWebhook: 8, pollMs: 250 };

/** Events fanned out per transaction: a 1,000-event batch to a few webhooks takes a few milliseconds. */
const DISPATCH_BATCH = 1000;
/** Outcomes are written together, up to this long after the first of them, or at once when this many wait. */
const FLUSH_MS = 20;
const FLUSH_AT = 200;
/** What is stored of a response's body (the sender reads at most 64 KB). */
const STORED_BODY = 2048;
/** How long stop() waits for requests in flight; the leases of those still out then run out and they are sent again. */
const STOP_WAIT_MS = 3000;

const iso = (ms: number) => new Date(ms).toISOString();

/** "24 hours", "90 seconds": the disable window as a reason gives it. */
function span(ms: number): string {
  const [n, unit] = ms >= 3_600_000 ? [ms / 3_600_000, 'hour'] : ms >= 60_000 ? [ms / 60_000, 'minute'] : [ms / 1000, 'second'];
  const rounded = Math.round(n * 10) / 10;
  return `${rounded} ${unit}${rounded === 1 ? '' : 's'}`;
}

/** The reason a webhook is disabled with, kept on it for the admin (it holds no URL: a URL may carry a token). */
function disabledReason(now: number, windowMs: number, last: AttemptResult): string {
  const date = `${iso(now).slice(0, 16).replace('T', ' ')} UTC`;
  return `Disabled on ${date}: every delivery failed for ${span(windowMs)} (last: ${last.error || `HTTP ${last.status}`})`;
}

/** The signed request of one attempt. */
function request(d: DeliveryRequest, now: number): { headers: Record<string, string>; body: string } {
  const body = eventBody(d);
  const timestamp = Math.floor(now / 1000);
  return {
    body,
    headers: { ...unsignedHeaders(d.uuid, timestamp), 'webhook-signature': signatureHeader(d, d.uuid, timestamp, body, now) },
  };
}

interface PendingOutcome {
  outcome: Outcome;
  written: () => void;
}

export class WebhookWorker {
  /** The attempts under way, by delivery id, until their outcome is written. */
  private readonly inFlight = new Map<number, Promise<void>>();
  /** Requests out, all together and per webhook (the caps count these: a slot is free again once the answer is in). */
  private sending = 0;
  private readonly perWebhook = new Map<number, number>();
  private outcomes: PendingOutcome[] = [];
  private flushTimer: NodeJS.Timeout | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private pumpQueued = false;
  private pumping = false;
  private readonly disabledListeners: (() => void)[] = [];
  /** A wake that came while a pump was under way: pump again after it. */
  private pumpAgain = false;
  /** The outcome writes, one after another (a success and a failure of one webhook keep their order). */
  private writes: Promise<void> = Promise.resolve();
  /** Rotates which webhook claims first, so the global cap is shared. */
  private firstWebhook = 0;
  private running = false;
  /** After stop(): outcomes that come later are not written (the database closes); their leases run out. */
  private closed = false;

  constructor(private readonly log: Logger, private readonly store: WebhookDeliveryStore, private readonly sender: WebhookSender, private readonly o: WorkerOptions) {}

  start(): void {
    this.running = true;
    this.poll();
  }

  /** Stops taking work, waits a little for the requests in flight and writes what they got back. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.pollTimer) clearTimeout(this.pollTimer);
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, STOP_WAIT_MS)));
    await Promise.race([Promise.allSettled([...this.inFlight.values()]), waited]);
    clearTimeout(timer);
    this.flush();
    await this.writes;
    this.closed = true;
  }

  /** Sends this delivery now, due or not (the test endpoint); resolves once its outcome is written. */
  onDisabled(listener: () => void): void {
    this.disabledListeners.push(listener);
  }

  async deliverNow(id: number): Promise<void> {
    const running = this.inFlight.get(id);
    if (running) return running;
    await this.store.writable();
    const now = Date.now();
    const d = this.store.claimOne(id, iso(now), iso(now + this.o.leaseMs));
    if (d) await this.attempt(d);
  }

  private poll(): void {
    if (!this.running) return;
    void this.dispatch().then(() => this.pump()).finally(() => {
      if (this.running) this.pollTimer = setTimeout(() => this.poll(), this.o.pollMs).unref();
    });
  }

  /** Fans the unread events out, a batch per transaction, giving way to other work between batches. */
  private async dispatch(): Promise<void> {
    try {
      while (this.running && this.store.behind() && (await this.store.writable()) && this.store.dispatch(DISPATCH_BATCH) > 0) {
        await new Promise((resolve) => setImmediate(resolve));
      }
    } catch (e) {
      this.log.error(`webhooks: could not read the change log: ${(e as Error).message}`);
    }
  }

  /** Claims more work soon (once, however many attempts end in the meantime). */
  private wake(): void {
    if (this.pumpQueued || !this.running) return;
    this.pumpQueued = true;
    setImmediate(() => {
      this.pumpQueued = false;
      void this.pump();
    });
  }

  /** Leases due deliveries of each enabled webhook, as many as the caps leave room for, and sends them. */
  private async pump(): Promise<void> {
    if (!this.running) return;
    if (this.pumping) {
      this.pumpAgain = true;
      return;
    }
    this.pumping = true;
    try {
      if (!(await this.store.writable())) return;
      const webhooks = this.store.enabledWebhooks();
      this.firstWebhook = (this.firstWebhook + 1) % Math.max(1, webhooks.length);
      for (let i = 0; i < webhooks.length; i++) {
        const webhook = webhooks[(this.firstWebhook + i) % webhooks.length];
        const room = Math.min(this.o.maxInFlight - this.sending, this.o.maxPerWebhook - (this.perWebhook.get(webhook) ?? 0));
        if (this.sending >= this.o.maxInFlight) break;
        if (room <= 0) continue;
        for (const d of this.claim(webhook, room)) void this.attempt(d);
      }
    } catch (e) {
      this.log.error(`webhooks: could not take due deliveries: ${(e as Error).message}`);
    } finally {
      this.pumping = false;
      if (this.pumpAgain) {
        this.pumpAgain = false;
        this.wake();
      }
    }
  }

  /** Up to `room` due deliveries of the webhook: new ones first, then retries. */
  private claim(webhook: number, room: number): DeliveryRequest[] {
    const now = Date.now();
    const [at, lease] = [iso(now), iso(now + this.o.leaseMs)];
    const due = this.store.claimDue(webhook, 'pending', room, at, lease);
    if (due.length === room) return due;
    return [...due, ...this.store.claimDue(webhook, 'retrying', room - due.length, at, lease)];
  }

  private attempt(d: DeliveryRequest): Promise<void> {
    // Made due again (a retry from the API) while its attempt is still out: that attempt stands.
    const running = this.inFlight.get(d.id);
    if (running) return running;
    this.sending++;
    this.perWebhook.set(d.webhook_id, (this.perWebhook.get(d.webhook_id) ?? 0) + 1);
    let answered = false;
    // The slot is given back when the answer is in, not after the outcome's batched write (up to
    // FLUSH_MS later): the lease keeps the row from being taken again meanwhile.
    const answer = () => {
      if (answered) return;
      answered = true;
      this.sending--;
      const left = (this.perWebhook.get(d.webhook_id) ?? 1) - 1;
      if (left) this.perWebhook.set(d.webhook_id, left);
      else this.perWebhook.delete(d.webhook_id);
      this.wake();
    };
    const attempt = this.send(d, answer)
      .catch((e: unknown) => this.log.error(`webhooks: delivery ${d.id} failed in the worker: ${(e as Error).message}`))
      .finally(() => {
        answer();
        this.inFlight.delete(d.id);
      });
    this.inFlight.set(d.id, attempt);
    return attempt;
  }

  private async send(d: DeliveryRequest, answered: () => void): Promise<void> {
    const now = Date.now();
    const { headers, body } = request(d, now);
    const res = await this.sender.post(d.url, headers, body);
    answered();
    const result: AttemptResult = { attempted_at: iso(now), status: res.status, ms: res.ms, body: res.body.slice(0, STORED_BODY), error: res.error };
    const delivered = res.status !== null && res.status >= 200 && res.status < 300;
    if (delivered) return this.written({ delivery: d, delivered, result });
    // attempts counts the ones before this: the first failure waits backoff[0].
    const wait = this.o.backoffMs[d.attempts];
    const failure: Failure = { ...result, next: wait === undefined ? null : iso(Date.now() + wait) };
    return this.written({ delivery: d, delivered, result: failure });
  }

  /** Queues an outcome for the next batched write; resolves once it is written. */
  private written(outcome: Outcome): Promise<void> {
    if (this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      this.outcomes.push({ outcome, written: resolve });
      if (this.outcomes.length >= FLUSH_AT) this.flush();
      else this.flushTimer ??= setTimeout(() => this.flush(), FLUSH_MS);
    });
  }

  /** Writes the queued outcomes after those already being written. */
  private flush(): void {
    if (this.flushTimer) clearTimeout(this.flushTimer);
    this.flushTimer = null;
    const batch = this.outcomes;
    this.outcomes = [];
    if (batch.length) this.writes = this.writes.then(() => this.write(batch));
  }

  private async write(batch: PendingOutcome[]): Promise<void> {
    try {
      // Past the busy timeout the write is tried all the same: it fails, and the leases run out.
      await this.store.writable();
      const now = Date.now();
      const disabled = this.store.record(batch.map((b) => b.outcome), iso(now), iso(now - this.o.disableAfterMs), (f) => disabledReason(now, this.o.disableAfterMs, f));
      for (const w of disabled) this.log.warn(`webhooks: webhook ${w.id} "${w.name}" disabled: ${w.reason}`);
      if (disabled.length) for (const listener of this.disabledListeners) listener();
    } catch (e) {
      // Their leases run out and they are sent again.
      this.log.error(`webhooks: could not record ${batch.length} delivery outcome(s): ${(e as Error).message}`);
    } finally {
      for (const b of batch) b.written();
    }
  }
}
