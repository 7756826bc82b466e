// Keeps the change log to events.retention_days: once a day (first a minute after start, so a
// server restarted daily still prunes) its older events are deleted, with their webhook
// deliveries, in batches. The setting is read on each run, so a change applies without a restart.
import type { AppContext } from '../context.ts';
import type { EventStore } from './store.ts';

const DAY_MS = 86_400_000;
const CHECK_MS = 60_000;
/** Events per DELETE: each takes a few milliseconds, so requests get the write lock in between. */
const BATCH = 1000;

export class EventRetention {
  private timer: NodeJS.Timeout | null = null;
  private lastRun = 0;
  private running: Promise<number> | null = null;
  private stopping = false;

  constructor(private readonly ctx: AppContext, private readonly store: EventStore) {}

  /** Deletes the events older than the retention, batch by batch; returns how many. */
  async prune(now = new Date()): Promise<number> {
    const days = this.ctx.settings.num('events.retention_days');
    const before = new Date(now.getTime() - days * DAY_MS).toISOString();
    let pruned = 0;
    for (let n = this.store.pruneBatch(before, BATCH); n > 0 && !this.stopping; n = this.store.pruneBatch(before, BATCH)) {
      pruned += n;
      await new Promise((resolve) => setImmediate(resolve));
    }
    this.ctx.log.info(`events: pruned ${pruned} event(s) older than ${days} days (events.retention_days)`);
    return pruned;
  }

  /** Checks once a minute whether a day has passed since the last run. */
  start(): void {
    this.stopping = false;
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.check(Date.now());
      this.schedule();
    }, CHECK_MS);
    this.timer.unref();
  }

  private check(now: number): void {
    if (now - this.lastRun < DAY_MS || this.running) return;
    this.lastRun = now;
    this.running = this.prune(new Date(now))
      .catch((e: Error) => (this.ctx.log.error(`events: pruning the change log failed: ${e.message}`), 0))
      .finally(() => (this.running = null));
  }

  /** Stops the schedule, and a prune under way after its current batch. */
  async stop(): Promise<void> {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.running;
  }
}
