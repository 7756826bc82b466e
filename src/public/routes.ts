// The subscriber-facing surface: /api/public/* and the server-rendered /subscription/* pages.
// Nothing here changes state on a GET (mail scanners follow links); one click (a POST) does.
// Answers never reveal whether an address was already subscribed. Rate-limited per client.
import type { Context, Hono } from 'hono';
import type { AppContext } from '../context.ts';
import type { Services } from '../services.ts';
import { isDatabaseBusy } from '../db/connection.ts';
import { readBody, type Body } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { badRequest, HttpError } from '../http/errors.ts';
import { Message, sendPage, type PageOptions } from '../http/layout.tsx';
import { clientAddress, RateLimiter, rateLimit } from '../http/rate-limit.ts';
import type { AppEnv } from '../http/types.ts';
import { isUuid, optString, optStringArray, parseBool } from '../http/validate.ts';
import { exportableSections } from '../subscribers/routes.ts';
import { domainRules, nameFromEmail, validateEmail } from '../subscribers/email.ts';
import { sendOptinQuietly } from '../subscribers/optin.ts';
import type { Audience } from '../subscribers/service.ts';
import type { SubscriberRow } from '../subscribers/store.ts';
import { ALTCHA_SCRIPT_PATH, altchaWidgetScript, Captcha, captchaProvider } from './captcha.ts';
import { subscriberLanguage, subscriberTranslator } from './i18n.ts';
import { publicLook } from './look.ts';
import { ManagePreferences, OptinConfirm, SubscriptionForm, Unsubscribe, WipeConfirm, type SelfService } from './pages.tsx';
import { AttemptLimiter } from '../users/attempts.ts';

const MAX_PUBLIC_NAME_BYTES = 2000;
const MAX_PREFS_NAME_CHARS = 256;

/** Renders a page error; thrown by page handlers and turned into a page by `pageRoute`. */
class PageError extends Error {
  constructor(readonly status: 400 | 404 | 500, message: string) {
    super(message);
  }
}

function publicLimiter(ctx: AppContext, limiter: RateLimiter, onLimited?: (c: Context, retry: number) => Response, key?: (c: Context) => string) {
  return rateLimit({
    limiter,
    scope: 'public',
    key,
    perMinute: () => ctx.settings.num('security.public_rate_limit'),
    trustedProxies: () => (ctx.settings.get<unknown>('security.trusted_proxies') as string[] | undefined) ?? [],
    onLimited,
  });
}

/** `/subscription/{campaign uuid}/{subscriber uuid}`: the unsubscribe page and one-click target. */
function isUnsubscribePath(path: string): boolean {
  const parts = path.split('/');
  return parts.length === 4 && !['optin', 'export', 'wipe'].includes(parts[2]);
}

/** Self-service exports mailed per subscriber: each mail carries the whole profile. */
const EXPORTS_PER_HOUR = 3;

/** The one subscription path of the public API and the form. */
async function subscribePublic(ctx: AppContext, a: Audience, email: unknown, rawName: string | undefined, listUuids: string[]): Promise<{ hasOptin: boolean }> {
  if (!listUuids.length) throw badRequest('no lists given: choose one or more lists');
  const address = validateEmail(email, domainRules(ctx.settings));
  const name = rawName?.trim() || nameFromEmail(address, 'local');
  if (Buffer.byteLength(name) > MAX_PUBLIC_NAME_BYTES) throw badRequest(`invalid "name": longer than ${MAX_PUBLIC_NAME_BYTES} bytes`);
  // Only public, active lists can be joined here; unknown, private and archived UUIDs are ignored.
  const lists = a.lists.rowsByUuids(listUuids.filter((u) => isUuid(u)).map((u) => u.toLowerCase()))
    .filter((l) => l.type === 'public' && l.status === 'active');
  if (!lists.length) throw badRequest('none of the given lists can be subscribed to');
  const { id } = a.subscribers.subscribePublic(address, name, lists.map((l) => l.id));
  await sendOptinQuietly(ctx, a.subscribers, id, lists.map((l) => l.id));
  // Derived from the request alone, so the answer is the same for new and known addresses.
  return { hasOptin: ctx.settings.bool('app.send_optin_confirmation') && lists.some((l) => l.optin === 'double') };
}

export function registerPublicRoutes(api: Hono<AppEnv>, ctx: Services): void {
  const a = { subscribers: ctx.subscribers, lists: ctx.listStore };
  api.use('/public/*', publicLimiter(ctx, ctx.publicLimiter));

  api.get('/public/lists', (c) => c.json(a.lists.publicLists().map((l) => ({ uuid: l.uuid, name: l.name }))));

  // The Altcha widget fetches its challenge here (bare JSON, as the widget expects).
  api.get('/public/captcha/altcha', async (c) => {
    if (captchaProvider(ctx.settings) !== 'altcha') return c.json({ message: 'the Altcha captcha is not enabled' }, 404);
    c.header('Cache-Control', 'no-store');
    return c.json(await ctx.captcha.altchaChallenge());
  });

  api.post('/public/subscription', async (c) => {
    if (!ctx.settings.bool('app.enable_public_subscription_page')) throw badRequest('public subscriptions are disabled');
    const b = await readBody(c);
    const uuids = optStringArray(b, 'list_uuids') ?? optStringArray(b, 'l') ?? [];
    const { hasOptin } = await subscribePublic(ctx, a, b.email, optString(b, 'name'), uuids);
    return ok(c, { has_optin: hasOptin });
  });
}

export function registerPublicPages(app: Hono<AppEnv>, ctx: Services): void {
  const a = { subscribers: ctx.subscribers, lists: ctx.listStore };
  const exportsSent = new AttemptLimiter(EXPORTS_PER_HOUR, 3_600_000);
  app.get(ALTCHA_SCRIPT_PATH, (c) => c.body(altchaWidgetScript(), 200, { 'Content-Type': 'application/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' }));
  const s = ctx.settings;
  const t = subscriberTranslator(ctx);

  const page = (c: Context, title: string, body: PageOptions['body'], status: 200 | 400 | 404 | 429 | 500 = 200, extra: Partial<PageOptions> = {}) =>
    sendPage(c, { ...publicLook(s), title, body, lang: subscriberLanguage(ctx)['_.code'], ...extra }, status);
  const message = (c: Context, title: string, text: string, status: 200 | 400 | 404 | 429 | 500 = 200) =>
    page(c, title, Message({ title, text }), status);

  /** Wraps a page handler: errors become message pages with their status, never JSON. */
  const pageRoute = (fn: (c: Context<AppEnv>) => Response | Promise<Response>) => async (c: Context<AppEnv>) => {
    try {
      return await fn(c);
    } catch (e) {
      if (isDatabaseBusy(e)) throw e; // 503 with Retry-After from app.ts, as for the API
      if (e instanceof PageError) return message(c, t('public.errorTitle'), e.message, e.status);
      if (e instanceof HttpError && e.status < 500) return message(c, t('public.errorTitle'), e.message, e.status === 404 ? 404 : 400);
      ctx.log.error(`${c.req.method} ${c.req.path} failed: ${(e as Error).stack ?? e}`);
      return message(c, t('public.errorTitle'), t('public.errorProcessingRequest'), 500);
    }
  };

  const subscriberOf = (c: Context): SubscriberRow => {
    const uuid = c.req.param('subUUID') ?? '';
    if (!isUuid(uuid)) throw new PageError(400, t('public.invalidLink'));
    const sub = a.subscribers.rowByUuid(uuid.toLowerCase());
    if (!sub) throw new PageError(404, t('public.subNotFound'));
    return sub;
  };

  // Per client address; but RFC 8058 one-click unsubscribes come from a few mail providers'
  // addresses in bursts after each campaign, so those are limited per subscriber instead.
  const limited = (c: Context) => message(c, t('public.errorTitle'), t('public.tooManyRequests'), 429);
  const perAddress = publicLimiter(ctx, ctx.publicLimiter, limited);
  const perSubscriber = publicLimiter(ctx, ctx.publicLimiter, limited, (c) => `unsubscribe:${c.req.path.split('/')[3]}`);
  app.use('/subscription/*', (c, next) => (c.req.method === 'POST' && isUnsubscribePath(c.req.path) ? perSubscriber(c, next) : perAddress(c, next)));

  // Subscription form ---------------------------------------------------------------------
  app.get('/subscription/form', pageRoute((c) => {
    if (!s.bool('app.enable_public_subscription_page')) return message(c, t('public.subTitle'), t('public.invalidFeature'), 404);
    const lists = a.lists.publicLists();
    if (!lists.length) return message(c, t('public.subTitle'), t('public.noListsAvailable'));
    const captcha = ctx.captcha.widget();
    const form = SubscriptionForm({ t, lists, captcha: captcha.widget, archiveLink: s.bool('app.enable_public_archive') });
    return page(c, t('public.subTitle'), form, 200, { indexable: true, scripts: [...publicLook(s).scripts ?? [], ...captcha.scripts] });
  }));

  const subscribeByForm = pageRoute(async (c) => {
    const b = await readBody(c);
    // A filled honeypot is a bot: refuse without subscribing anyone.
    if (optString(b, 'nonce')) return message(c, t('public.errorTitle'), t('public.errorProcessingRequest'), 400);
    if (!(await ctx.captcha.passes(b))) return message(c, t('public.errorTitle'), t('public.invalidCaptcha'), 400);
    const { hasOptin } = await subscribePublic(ctx, a, b.email, optString(b, 'name'), optStringArray(b, 'l') ?? []);
    const next = optString(b, 'next');
    const trusted = (s.get<unknown>('security.trusted_urls') as string[] | undefined) ?? [];
    if (next && next !== '*' && trusted.includes(next)) return c.redirect(next, 303);
    return message(c, t('public.subTitle'), hasOptin ? t('public.subOptinPending') : t('public.subConfirmed'));
  });
  // With the feature off the form POST answers JSON, as listmonk (docs/decisions.md §33).
  app.post('/subscription/form', async (c) => {
    if (!s.bool('app.enable_public_subscription_page')) return c.json({ message: 'public subscriptions are disabled' }, 404);
    return subscribeByForm(c);
  });

  // Double opt-in confirmation: GET shows the page, POST with confirm=true confirms.
  const optin = pageRoute(async (c) => {
    const sub = subscriberOf(c);
    const b: Body = c.req.method === 'POST' ? await readBody(c) : {};
    const uuids = [...(c.req.queries('l') ?? []), ...(optStringArray(b, 'l') ?? [])];
    if (uuids.some((u) => !isUuid(u))) throw new PageError(400, t('public.invalidLink'));
    const pending = a.subscribers.pendingConfirmation(sub.id, [...new Set(uuids.map((u) => u.toLowerCase()))]);
    if (!pending.length) return message(c, t('public.noSubTitle'), t('public.noSubInfo'));
    const confirm = c.req.method === 'POST' && (parseBool(typeof b.confirm === 'string' ? b.confirm : undefined) ?? b.confirm === true);
    if (confirm) {
      a.subscribers.confirm(sub.id, pending.map((l) => l.id), optinEvidence(c, ctx));
      return message(c, t('public.subConfirmedTitle'), t('public.subConfirmed'));
    }
    return page(c, t('public.confirmOptinSubTitle'), OptinConfirm({ t, subUuid: sub.uuid, lists: pending }));
  });
  app.get('/subscription/optin/:subUUID', optin);
  app.post('/subscription/optin/:subUUID', optin);

  // Self-service export (mailed to the subscriber) and wipe.
  app.post('/subscription/export/:subUUID', pageRoute(async (c) => {
    const sub = subscriberOf(c);
    if (!s.bool('privacy.allow_export')) throw new PageError(400, t('public.invalidFeature'));
    // Anyone with a link from a mail can ask, so each subscriber gets a few exports an hour.
    if (exportsSent.blocked(sub.uuid)) return message(c, t('public.errorTitle'), t('public.tooManyRequests'), 429);
    exportsSent.record(sub.uuid);
    const data = a.subscribers.exportData(sub.id, exportableSections(ctx));
    await ctx.mailer.send('email', {
      from: s.str('app.from_email'), to: [sub.email], subject: t('email.data.title'), text: t('email.data.info'),
      attachments: [{ filename: 'data.json', content: Buffer.from(JSON.stringify(data, null, 2)), contentType: 'application/json' }],
    });
    return message(c, t('public.dataSentTitle'), t('public.dataSent'));
  }));

  // The page's "delete my data" asks first (the pages run no scripts, so the question is a page).
  app.get('/subscription/wipe/:subUUID', pageRoute((c) => {
    const sub = subscriberOf(c);
    if (!s.bool('privacy.allow_wipe')) throw new PageError(400, t('public.invalidFeature'));
    return page(c, t('public.privacyWipe'), WipeConfirm({ t, subUuid: sub.uuid }));
  }));

  app.post('/subscription/wipe/:subUUID', pageRoute((c) => {
    const sub = subscriberOf(c);
    if (!s.bool('privacy.allow_wipe')) throw new PageError(400, t('public.invalidFeature'));
    a.subscribers.delete([sub.id]);
    return message(c, t('public.dataRemovedTitle'), t('public.dataRemoved'));
  }));

  // Unsubscribe and preferences.
  app.get('/subscription/:campUUID/:subUUID', pageRoute((c) => {
    const campUuid = c.req.param('campUUID') ?? '';
    if (!isUuid(campUuid)) throw new PageError(400, t('public.invalidLink'));
    const sub = subscriberOf(c);
    if (sub.status === 'blocklisted') return message(c, t('public.unsubTitle'), t('public.blocklisted'));
    const action = `/subscription/${campUuid}/${sub.uuid}`;
    const allow: SelfService = {
      blocklist: s.bool('privacy.allow_blocklist'), export: s.bool('privacy.allow_export'),
      wipe: s.bool('privacy.allow_wipe'), preferences: s.bool('privacy.allow_preferences'),
    };
    if (parseBool(c.req.query('manage')) === true && allow.preferences) {
      const subs = a.subscribers.get(sub.id)?.lists.filter((l) => l.type !== 'private' && l.subscription_status !== 'unsubscribed') ?? [];
      return page(c, t('public.managePrefs'), ManagePreferences({ t, action, subUuid: sub.uuid, name: sub.name, maxName: MAX_PREFS_NAME_CHARS, lists: subs, allow }));
    }
    return page(c, t('public.unsubTitle'), Unsubscribe({ t, action, subUuid: sub.uuid, allow }));
  }));

  // Also the RFC 8058 one-click target (body List-Unsubscribe=One-Click: no `manage`).
  app.post('/subscription/:campUUID/:subUUID', pageRoute(async (c) => {
    const campUuid = c.req.param('campUUID') ?? '';
    if (!isUuid(campUuid)) throw new PageError(400, t('public.invalidLink'));
    const sub = subscriberOf(c);
    const b = await readBody(c);
    const manage = flag(b.manage);
    const blocklist = s.bool('privacy.allow_blocklist') && flag(b.blocklist);
    if (blocklist) {
      a.subscribers.blocklist([sub.id]);
      return message(c, t('public.unsubTitle'), t('public.blocklisted'));
    }
    if (!manage) {
      // The campaign's lists; for opt-in mails (zero UUID) or unknown campaigns, every list.
      const lists = a.subscribers.campaignLists(campUuid.toLowerCase());
      if (lists.length) a.subscribers.unsubscribe(sub.id, lists);
      else a.subscribers.unsubscribeAll(sub.id);
      return message(c, t('public.unsubbedTitle'), t('public.unsubbedInfo'));
    }
    if (!s.bool('privacy.allow_preferences')) throw new PageError(400, t('public.invalidFeature'));
    const name = (optString(b, 'name') ?? '').trim();
    if ([...name].length < 1 || [...name].length > MAX_PREFS_NAME_CHARS) throw new PageError(400, t('public.invalidNameLength', { max: MAX_PREFS_NAME_CHARS }));
    const keep = (optStringArray(b, 'l') ?? optStringArray(b, 'list_uuids') ?? []).map((u) => u.toLowerCase());
    a.subscribers.savePreferences(sub.id, name, keep);
    return message(c, t('public.managePrefs'), t('public.prefsSaved'));
  }));
}

/** A form or JSON boolean ("true", "on", true). */
function flag(v: unknown): boolean {
  if (v === true) return true;
  if (Array.isArray(v)) return v.some(flag);
  return typeof v === 'string' && (parseBool(v) === true || v === 'on');
}

/** What an opt-in confirmation records: when, and (if the privacy setting allows) from where. */
function optinEvidence(c: Context, ctx: Services): Record<string, string> {
  const evidence: Record<string, string> = { confirmed_at: new Date().toISOString() };
  if (ctx.settings.bool('privacy.record_optin_ip')) {
    evidence.optin_ip = clientAddress(c, (ctx.settings.get<unknown>('security.trusted_proxies') as string[] | undefined) ?? []);
    evidence.optin_user_agent = (c.req.header('user-agent') ?? '').slice(0, 500);
  }
  return evidence;
}

