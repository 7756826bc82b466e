// The rate limits of the public surface (the subscription API and pages, the archive, the
// tracking pixel and link redirects): per client address, in one limiter shared by them, at
// `security.public_rate_limit` requests per minute (0 turns them all off). Tracking counts in
// its own, larger bucket (LIMITS.trackingRateMultiple times the setting): a mail client or an
// image proxy fetches a pixel per message opened.
import type { Context, MiddlewareHandler } from 'hono';
import type { AppContext } from '../context.ts';
import { Message, sendPage } from '../http/layout.tsx';
import { LIMITS } from '../core/limits.ts';
import { rateLimit, type RateLimiter } from '../http/rate-limit.ts';
import { subscriberLanguage, subscriberTranslator } from './i18n.ts';
import { linkUuid } from './link.ts';
import { publicLook } from './look.ts';

export interface PublicLimitDeps extends AppContext {
  /** Per-address counts of public requests (the API and the pages share them). */
  publicLimiter: RateLimiter;
}

interface Options {
  /** What the bucket counts; routes with the same scope share it. */
  scope: 'public' | 'tracking';
  onLimited?: (c: Context, retry: number) => Response;
  key?: (c: Context) => string;
}

function publicLimit(s: PublicLimitDeps, o: Options): MiddlewareHandler {
  const multiple = o.scope === 'tracking' ? LIMITS.trackingRateMultiple : 1;
  return rateLimit({
    limiter: s.publicLimiter,
    scope: o.scope,
    key: o.key,
    perMinute: () => s.settings.num('security.public_rate_limit') * multiple,
    trustedProxies: () => (s.settings.get<unknown>('security.trusted_proxies') as string[] | undefined) ?? [],
    log: s.log,
    onLimited: o.onLimited,
  });
}

/** The 429 page of the public pages (Retry-After is set by the limiter). */
function tooManyRequestsPage(s: PublicLimitDeps) {
  const t = subscriberTranslator(s);
  return (c: Context) => {
    const title = t('public.errorTitle');
    return sendPage(c, { ...publicLook(s.settings), title, body: Message({ title, text: t('public.tooManyRequests') }), lang: subscriberLanguage(s)['_.code'] }, 429);
  };
}

/** Per client address; a JSON 429. */
export function perClient(s: PublicLimitDeps) {
  return publicLimit(s, { scope: 'public' });
}

/** Per client address; a 429 page. */
export function perClientPage(s: PublicLimitDeps) {
  return publicLimit(s, { scope: 'public', onLimited: tooManyRequestsPage(s) });
}

/**
 * Per subscriber: RFC 8058 one-click unsubscribes come from a few mail providers' addresses in
 * bursts after each campaign, so a per-address limit would refuse them.
 */
export function perSubscriberPage(s: PublicLimitDeps) {
  return publicLimit(s, { scope: 'public', onLimited: tooManyRequestsPage(s), key: (c) => `unsubscribe:${linkUuid(c.req.param('subUUID')).toLowerCase()}` });
}

/** The view pixel: per client address in the tracking bucket; a bare 429 (no page for an image). */
export function perClientTracking(s: PublicLimitDeps) {
  return publicLimit(s, { scope: 'tracking', onLimited: (c) => c.body(null, 429) });
}

/** Link redirects: per client address in the tracking bucket; a 429 page (a person clicked). */
export function perClientTrackingPage(s: PublicLimitDeps) {
  return publicLimit(s, { scope: 'tracking', onLimited: tooManyRequestsPage(s) });
}
