// Throttling of sign-in, 2FA and password-reset attempts: a sliding window per key (a username
// with a client address, a username, an address), kept in memory (one process). Unlike the
// per-minute request limit of src/http/rate-limit.ts, the window is long (15 minutes).

/** Keys kept before expired entries are swept, so a flood of addresses cannot grow memory forever. */
const SWEEP_AT = 10_000;

export class AttemptLimiter {
  private readonly hits = new Map<string, number[]>();

  /** `max` attempts per key in the window; only the latest `max` are kept, so a key's memory is bounded. */
  constructor(readonly max: number, readonly windowMs: number) {}

  /** True when the key used up its attempts in the current window. */
  blocked(key: string): boolean {
    return this.count(key) >= this.max;
  }

  /** Attempts recorded for the key in the current window (at most `max`). */
  count(key: string): number {
    return this.recent(key).length;
  }

  /** Seconds until the key's oldest attempt leaves the window (at least 1). */
  retryAfter(key: string): number {
    const [oldest] = this.recent(key);
    return oldest === undefined ? 1 : Math.max(1, Math.ceil((oldest + this.windowMs - Date.now()) / 1000));
  }

  record(key: string): void {
    if (this.hits.size >= SWEEP_AT) for (const k of [...this.hits.keys()]) if (!this.recent(k).length) this.hits.delete(k);
    this.hits.set(key, [...this.recent(key), Date.now()].slice(-this.max));
  }

  clear(key: string): void {
    this.hits.delete(key);
  }

  private recent(key: string): number[] {
    const since = Date.now() - this.windowMs;
    const kept = (this.hits.get(key) ?? []).filter((t) => t > since);
    if (kept.length) this.hits.set(key, kept);
    else this.hits.delete(key);
    return kept;
  }
}
