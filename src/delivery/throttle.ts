// The send throttles shared by every running campaign: at most app.concurrency messages in
// flight, at most app.concurrency × app.message_rate started per second (a token bucket:
// listmonk's per-worker "message_rate then sleep 1 s" cap, without its sleep overshoot), and
// the optional process-wide fixed window (app.message_sliding_window*).
import { parseDuration } from '../duration.ts';
import type { SettingsService } from '../settings/service.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class Throttle {
  private inFlight = 0;
  private waiters: (() => void)[] = [];
  private tokens = 0;
  private refilledAt = Date.now();
  private windowStart = 0;
  private windowCount = 0;

  constructor(private readonly settings: SettingsService) {}

  private concurrency(): number {
    return Math.max(1, Math.floor(this.settings.num('app.concurrency')) || 1);
  }

  private perSecond(): number {
    return this.concurrency() * Math.max(1, Math.floor(this.settings.num('app.message_rate')) || 1);
  }

  /** Waits for a free slot and a token; the caller must call release() when the send ends. */
  async acquire(isStopped: () => boolean): Promise<boolean> {
    while (this.inFlight >= this.concurrency()) {
      await new Promise<void>((r) => this.waiters.push(r));
      if (isStopped()) return false;
    }
    for (;;) {
      const rate = this.perSecond();
      const now = Date.now();
      this.tokens = Math.min(rate, this.tokens + ((now - this.refilledAt) / 1000) * rate);
      this.refilledAt = now;
      if (this.tokens >= 1) break;
      await sleep(Math.min(250, Math.ceil(((1 - this.tokens) / rate) * 1000)));
      if (isStopped()) return false;
    }
    if (!(await this.window(isStopped))) return false;
    this.tokens -= 1;
    this.inFlight++;
    return true;
  }

  release(): void {
    this.inFlight--;
    this.waiters.shift()?.();
  }

  private async window(isStopped: () => boolean): Promise<boolean> {
    if (!this.settings.bool('app.message_sliding_window')) return true;
    const duration = parseDuration(this.settings.str('app.message_sliding_window_duration')) ?? 0;
    const limit = Math.floor(this.settings.num('app.message_sliding_window_rate'));
    if (duration <= 1000 || limit <= 0) return true;
    for (;;) {
      const now = Date.now();
      if (now - this.windowStart >= duration) {
        this.windowStart = now;
        this.windowCount = 0;
      }
      if (this.windowCount < limit) {
        this.windowCount++;
        return true;
      }
      // Sleep in short steps so pause/cancel still act within a second.
      await sleep(Math.min(500, this.windowStart + duration - now));
      if (isStopped()) return false;
    }
  }

  /** Wakes waiters so stopped runs can notice. */
  nudge(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}
