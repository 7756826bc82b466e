// Per-client request limits (public subscription endpoints, login). A fixed one-minute window
// per key, in memory: enough for one process, and forgetting on restart is harmless.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context, MiddlewareHandler } from 'hono';
import { createMiddleware } from 'hono/factory';
import { isIP } from 'node:net';
import type { Logger } from '../log.ts';
import { tooMany } from '../core/errors.ts';

const WINDOW_MS = 60_000;

export class RateLimiter {
  private windows = new Map<string, { start: number; count: number }>();

  /** Counts a hit for `key`; false when the key is over `perMinute` in the current window. */
  hit(key: string, perMinute: number, now = Date.now()): boolean {
    if (perMinute <= 0) return true;
    if (this.windows.size > 10_000) this.sweep(now);
    const w = this.windows.get(key);
    if (!w || now - w.start >= WINDOW_MS) {
      this.windows.set(key, { start: now, count: 1 });
      return true;
    }
    w.count++;
    return w.count <= perMinute;
  }

  /** Seconds until the key's window ends. */
  retryAfter(key: string, now = Date.now()): number {
    const w = this.windows.get(key);
    return w ? Math.max(1, Math.ceil((w.start + WINDOW_MS - now) / 1000)) : 1;
  }

  private sweep(now: number): void {
    for (const [k, w] of this.windows) if (now - w.start >= WINDOW_MS) this.windows.delete(k);
  }
}

/** "::ffff:1.2.3.4" and "1.2.3.4" are the same client. */
function normaliseIp(ip: string): string {
  const s = ip.trim();
  return s.startsWith('::ffff:') && isIP(s.slice(7)) === 4 ? s.slice(7) : s;
}

/** Logs already warned about forwarded requests from untrusted peers: once per server. */
const warnedUntrustedForward = new WeakSet<Logger>();

/**
 * The client's address: the direct peer, unless the peer is a trusted proxy, in which case
 * the right-most `X-Forwarded-For` entry that is not itself a trusted proxy. The first request
 * that carries `X-Forwarded-For` from a peer not in `security.trusted_proxies` is logged: behind
 * an unlisted proxy every client has the proxy's address and shares its rate-limit buckets.
 */
export function clientAddress(c: Context, trustedProxies: readonly string[], log: Logger): string {
  let peer = '';
  try {
    peer = normaliseIp(getConnInfo(c).remote.address ?? '');
  } catch {
    peer = '';
  }
  const trusted = new Set(trustedProxies.map(normaliseIp));
  if (!trusted.has(peer)) {
    if (c.req.header('x-forwarded-for') !== undefined && !warnedUntrustedForward.has(log)) {
      warnedUntrustedForward.add(log);
      log.warn(`a request from ${peer || 'an unknown peer'} carries X-Forwarded-For, but that peer is not in security.trusted_proxies: the header is ignored, and if a proxy sends it every client shares the proxy's rate-limit buckets (add the proxy's address to the setting)`);
    }
    return peer || 'unknown';
  }
  const chain = (c.req.header('x-forwarded-for') ?? '').split(',').map(normaliseIp).filter((s) => isIP(s) !== 0);
  for (let i = chain.length - 1; i >= 0; i--) if (!trusted.has(chain[i])) return chain[i];
  return peer;
}

/**
 * The rate-limit bucket of a client address: an IPv4 address itself, an IPv6 address its /64
 * (one subscriber line or host usually holds a whole /64, so counting single IPv6 addresses
 * would let one client take 2^64 of them).
 */
export function clientBucket(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail = ''] = address.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  // An embedded IPv4 tail (::ffff:1.2.3.4 is normalised before) takes two groups.
  const groups = right.length && right[right.length - 1].includes('.') ? 2 : 1;
  const missing = 8 - left.length - right.length - (groups - 1);
  const full = address.includes('::') ? [...left, ...Array<string>(missing).fill('0'), ...right] : left;
  return `${full.slice(0, 4).map((g) => g.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}

export interface RateLimitOptions {
  limiter: RateLimiter;
  /** Requests per minute per client (read per request, so settings changes apply at once); 0 = off. */
  perMinute: () => number;
  trustedProxies: () => readonly string[];
  log: Logger;
  /** Keys are prefixed so several limits can share one limiter. */
  scope: string;
  /** What is limited; default the client's bucket (clientBucket). */
  key?: (c: Context) => string;
  /** The answer when over the limit; default a JSON 429. */
  onLimited?: (c: Context, retryAfter: number) => Response;
}

export function rateLimit(o: RateLimitOptions): MiddlewareHandler {
  return createMiddleware(async (c, next) => {
    const key = `${o.scope}:${o.key ? o.key(c) : clientBucket(clientAddress(c, o.trustedProxies(), o.log))}`;
    if (!o.limiter.hit(key, o.perMinute())) {
      const retry = o.limiter.retryAfter(key);
      c.header('Retry-After', String(retry));
      if (o.onLimited) return o.onLimited(c, retry);
      throw tooMany('too many requests: try again in a minute');
    }
    await next();
  });
}
