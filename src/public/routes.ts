// The subscriber-facing surface: /api/public/* and the server-rendered /subscription/* pages.
// Nothing here changes state on a GET (mail scanners follow links); one click (a POST) does.
// Answers never reveal whether an address was already subscribed. Rate-limited per client.
import type { Context } from 'hono';
import { isDatabaseBusy } from '../db/connection.ts';
import { readBody } from '../http/body.ts';
import { ok } from '../http/envelope.ts';
import { invalid, isRefusal, notFound } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';
import { Message, sendPage, type PageOptions } from '../http/layout.tsx';
import { clientAddress } from '../http/rate-limit.ts';
import { routesFor, type Handler, type Input } from '../http/routes.ts';
import { f, isUuid, parseBool, parseInput, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { SelfServiceRefusal, type LinkedSubscriber, type OptinClient, type SubscriberSelfService } from '../subscribers/self-service.ts';
import { ALTCHA_SCRIPT_PATH, altchaWidgetScript, type Captcha, type CaptchaProof } from './captcha.ts';
import { subscriberLanguage, subscriberTranslator } from './i18n.ts';
import { linkUuid, linkValue } from './link.ts';
import { publicLook } from './look.ts';
import { perClient, perClientPage, perSubscriberPage, type PublicLimitDeps } from './rate-limits.ts';
import { ManagePreferences, OptinConfirm, Outcome, SubscriptionForm, Unsubscribe, WipeConfirm, type FormValues, type NextLink } from './pages.tsx';
import { ZERO_UUID } from '../rendering/message.ts';

interface Deps extends PublicLimitDeps {
  selfService: SubscriberSelfService;
  captcha: Captcha;
}
type C = Context<AppEnv>;

const route = routesFor<Deps>();
export const PUBLIC_ROUTES = [
  route({ method: 'GET', path: '/public/lists', access: 'public', limit: perClient, handler: publicLists, raw: 'application/json', summary: 'The lists anyone may subscribe to: an array of {uuid, name}' }),
  // The Altcha widget fetches its challenge here (bare JSON, as the widget expects).
  route({ method: 'GET', path: '/public/captcha/altcha', access: 'public', limit: perClient, handler: altchaChallenge, raw: 'application/json', summary: 'A new Altcha challenge for the subscription form (404 when Altcha is off)' }),
  route({ method: 'POST', path: '/public/subscription', access: 'public', limit: perClient, bodyBytes: LIMITS.formBodyBytes, handler: subscribe, body: subscriptionInput, bodyKind: 'json-or-form', summary: 'Subscribes an address to public lists; the answer is the same for new and known addresses' }),
];

/**
 * Served from the site root. Page handlers are wrapped in `pageRoute`, so their errors are
 * answered with pages, and read their forms themselves (`readForm`) for the same reason; their
 * queries are read with readers that never refuse.
 */
export const PUBLIC_PAGES = [
  route({ method: 'GET', path: ALTCHA_SCRIPT_PATH, access: 'public', handler: altchaScript, raw: 'application/javascript', summary: 'The Altcha widget script (from the altcha package)' }),
  route({ method: 'GET', path: '/subscription/form', access: 'public', limit: perClientPage, handler: pageRoute(subscriptionFormPage), query: formQuery, raw: 'text/html', summary: 'The public subscription form; `l` (list UUIDs, repeatable) ticks only those lists' }),
  route({ method: 'POST', path: '/subscription/form', access: 'public', limit: perClientPage, handler: subscribeByForm, raw: 'text/html', summary: 'Subscribes from the form (captcha and honeypot checked); redirects to a trusted `next`' }),
  route({ method: 'GET', path: '/subscription/optin/:subUUID', access: 'public', limit: perClientPage, handler: pageRoute(optinPage), query: optinQuery, raw: 'text/html', summary: 'The double opt-in question for the lists pending confirmation (a GET never confirms)' }),
  route({ method: 'POST', path: '/subscription/optin/:subUUID', access: 'public', limit: perClientPage, handler: pageRoute(confirmOptin), query: optinQuery, raw: 'text/html', summary: 'Confirms the pending subscriptions when `confirm` is true' }),
  route({ method: 'POST', path: '/subscription/export/:subUUID', access: 'public', limit: perClientPage, handler: pageRoute(mailExport), raw: 'text/html', summary: 'Mails the subscriber their data' }),
  // "Delete my data" asks first (the pages run no scripts, so the question is a page).
  route({ method: 'GET', path: '/subscription/wipe/:subUUID', access: 'public', limit: perClientPage, handler: pageRoute(wipeQuestion), raw: 'text/html', summary: 'Asks before deleting the subscriber\'s data' }),
  route({ method: 'POST', path: '/subscription/wipe/:subUUID', access: 'public', limit: perClientPage, handler: pageRoute(wipe), raw: 'text/html', summary: 'Deletes the subscriber and their data' }),
  route({ method: 'GET', path: '/subscription/:campUUID/:subUUID', access: 'public', limit: perClientPage, handler: pageRoute(unsubscribePage), query: manageQuery, raw: 'text/html', summary: 'The unsubscribe page, or with `manage` the preferences page' }),
  // Also the RFC 8058 one-click target (body List-Unsubscribe=One-Click: no `manage`).
  route({ method: 'POST', path: '/subscription/:campUUID/:subUUID', access: 'public', limit: perSubscriberPage, handler: pageRoute(unsubscribe), raw: 'text/html', summary: 'Unsubscribes (from the campaign\'s lists, else all), blocklists, or saves preferences' }),
];

// ---- the API ----

function publicLists(c: C, s: Deps) {
  return c.json(s.selfService.publicLists().map((l) => ({ uuid: l.uuid, name: l.name })));
}

async function altchaChallenge(c: C, s: Deps) {
  if (s.captcha.provider() !== 'altcha') throw notFound('the Altcha captcha is not enabled');
  c.header('Cache-Control', 'no-store');
  return c.json(await s.captcha.altchaChallenge());
}

async function subscribe(c: C, s: Deps, { body }: Input<ReturnType<typeof subscriptionInput>, undefined>) {
  if (!s.settings.bool('app.enable_public_subscription_page')) throw invalid('public subscriptions are disabled');
  // The same proof as the form asks for, or the captcha would be skipped by posting here.
  if (!(await s.captcha.passes(body))) throw invalid(`captcha required: a missing or invalid "${captchaField(s.captcha)}" field`);
  const { hasOptin } = await s.selfService.subscribe({ email: body.email, name: body.name, listUuids: body.list_uuids ?? body.l ?? [] });
  return ok(c, { has_optin: hasOptin });
}

/** Checked by the subscriber rules (validateEmail, with their messages), so any value is taken here. */
function emailField() {
  return f.any().meta({ type: 'string', format: 'email' });
}

function subscriptionInput() {
  return z.object({
    list_uuids: f.optStringArray(),
    /** The form's name for list_uuids. */
    l: f.optStringArray(),
    name: f.optString({ maxBytes: LIMITS.publicName }),
    email: emailField(),
    ...captchaFields(),
  }).meta({ id: 'PublicSubscription' });
}

/** The captcha's proof, as the form sends it; required (one or the other) when security.captcha is on. */
function captchaFields() {
  return {
    altcha: f.any().meta({ type: 'string', description: 'The Altcha solution (base64 JSON), when the Altcha captcha is on' }),
    'h-captcha-response': f.any().meta({ type: 'string', description: 'The hCaptcha token, when hCaptcha is on' }),
  };
}

/** The field carrying the proof of the captcha that is on. */
function captchaField(captcha: Captcha): keyof CaptchaProof {
  return captcha.provider() === 'hcaptcha' ? 'h-captcha-response' : 'altcha';
}

// ---- the pages ----

/** Renders a page error; thrown by page handlers and turned into a page by `pageRoute`. */
class PageError extends Error {
  constructor(readonly status: 400 | 404 | 500, message: string) {
    super(message);
  }
}

type Status = 200 | 400 | 404 | 413 | 429 | 500;

function page(c: Context, s: Deps, title: string, body: PageOptions['body'], status: Status = 200, extra: Partial<PageOptions> = {}) {
  return sendPage(c, { ...publicLook(s.settings), title, body, lang: subscriberLanguage(s)['_.code'], ...extra }, status);
}

function message(c: Context, s: Deps, title: string, text: string, status: Status = 200) {
  return page(c, s, title, Message({ title, text }), status);
}

/** The page after a reader's action: what happened, and links onwards. */
function outcome(c: Context, s: Deps, title: string, text: string, links: NextLink[]) {
  return page(c, s, title, Outcome({ title, text, links }));
}

/**
 * Where a reader can go after confirming or unsubscribing: back to the site (app.site_url,
 * else the root URL), and, as the settings allow, their preferences and the subscription form.
 */
function nextLinks(s: Deps, sub: { uuid: string; status: string }, campUuid: string, offer: { manage?: boolean; subscribe?: boolean }): NextLink[] {
  const t = subscriberTranslator(s);
  const site = s.settings.str('app.site_name').trim();
  const links: NextLink[] = [{ href: s.settings.str('app.site_url') || `${s.settings.rootUrl()}/`, label: site ? t('public.backToSite', { site }) : t('public.backToSiteDefault') }];
  if (sub.status === 'blocklisted') return links;
  if (offer.manage && s.settings.bool('privacy.allow_preferences')) links.push({ href: `/subscription/${campUuid}/${sub.uuid}?manage=true`, label: t('public.managePrefs') });
  if (offer.subscribe && s.settings.bool('app.enable_public_subscription_page')) links.push({ href: '/subscription/form', label: t('public.subAgain') });
  return links;
}

/** Wraps a page handler: errors become message pages with their status, never JSON. */
function pageRoute<B, Q>(fn: Handler<Deps, B, Q>): Handler<Deps, B, Q> {
  return async (c, s, input) => {
    try {
      return await fn(c, s, input);
    } catch (e) {
      if (isDatabaseBusy(e)) throw e; // 503 with Retry-After from app.ts, as for the API
      const t = subscriberTranslator(s);
      if (e instanceof PageError) return message(c, s, t('public.errorTitle'), e.message, e.status);
      if (e instanceof SelfServiceRefusal) return refusalPage(c, s, e);
      if (isRefusal(e)) return message(c, s, t('public.errorTitle'), e.message, e.kind === 'not-found' ? 404 : e.kind === 'too-large' ? 413 : 400);
      s.log.error(`${c.req.method} ${c.req.path} failed: ${(e as Error).stack ?? e}`);
      return message(c, s, t('public.errorTitle'), t('public.errorProcessingRequest'), 500);
    }
  };
}

/** A refusal of the self-service, in the subscriber's words. */
function refusalPage(c: C, s: Deps, e: SelfServiceRefusal) {
  const t = subscriberTranslator(s);
  switch (e.reason) {
    case 'off': return message(c, s, t('public.errorTitle'), t('public.invalidFeature'), 400);
    case 'too-many': return message(c, s, t('public.errorTitle'), t('public.tooManyRequests'), 429);
    case 'name-length': return message(c, s, t('public.errorTitle'), t('public.invalidNameLength', { max: LIMITS.preferencesNameChars }), 400);
  }
}

/** A page's form (JSON is taken too), read inside `pageRoute` so that a bad one gets a page. */
async function readForm<S extends z.ZodType>(c: C, schema: S): Promise<z.output<S>> {
  return parseInput(schema, await readBody(c));
}

/** The subscriber the link names (`:subUUID`). */
function subscriberOf(c: C, s: Deps): LinkedSubscriber {
  const t = subscriberTranslator(s);
  const uuid = linkUuid(c.req.param('subUUID'));
  if (!isUuid(uuid)) throw new PageError(400, t('public.invalidLink'));
  const sub = s.selfService.byLink(uuid);
  if (!sub) throw new PageError(404, t('public.subNotFound'));
  return sub;
}

/** The campaign the link names (`:campUUID`): only its shape is checked here. */
function campaignUuidOf(c: C, s: Deps): string {
  const uuid = linkUuid(c.req.param('campUUID'));
  if (!isUuid(uuid)) throw new PageError(400, subscriberTranslator(s)('public.invalidLink'));
  return uuid;
}

function altchaScript(c: C) {
  return c.body(altchaWidgetScript(), 200, { 'Content-Type': 'application/javascript; charset=utf-8', 'Cache-Control': 'public, max-age=86400' });
}

function formQuery() {
  return z.object({ l: q.all() });
}

function subscriptionFormPage(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof formQuery>>) {
  const t = subscriberTranslator(s);
  if (!s.settings.bool('app.enable_public_subscription_page')) return message(c, s, t('public.subTitle'), t('public.invalidFeature'), 404);
  // A link from a list's page or an archive issue ticks that lists (when it names any on offer).
  const offered = new Set(s.selfService.publicLists().map((l) => l.uuid.toLowerCase()));
  const ticked = (query.l ?? []).map((u) => linkUuid(u).toLowerCase()).filter((u) => offered.has(u));
  return formPage(c, s, undefined, ticked.length ? ticked : undefined);
}

/** The form; after a refused submission, with the reason and what the reader typed, and status 400. */
function formPage(c: C, s: Deps, refused?: { error: string; values: FormValues }, ticked?: string[]) {
  const t = subscriberTranslator(s);
  const lists = s.selfService.publicLists();
  if (!lists.length) return message(c, s, t('public.subTitle'), refused ? refused.error : t('public.noListsAvailable'), refused ? 400 : 200);
  const captcha = s.captcha.widget();
  const form = SubscriptionForm({ t, lists, captcha: captcha.widget, archiveLink: s.settings.bool('app.enable_public_archive'), error: refused?.error, values: refused?.values ?? (ticked ? { email: '', name: '', lists: ticked } : undefined) });
  return page(c, s, t('public.subTitle'), form, refused ? 400 : 200, { indexable: !refused, scripts: [...publicLook(s.settings).scripts ?? [], ...captcha.scripts] });
}

/** What the reader typed, as the form gives it back (only strings; the lists the form offers are ticked by UUID). */
function typedValues(form: { email?: unknown; name?: unknown; l?: unknown }): FormValues {
  const str = (v: unknown) => (typeof v === 'string' ? v.slice(0, LIMITS.publicName) : '');
  const lists = [form.l].flat().filter((u): u is string => typeof u === 'string');
  return { email: str(form.email), name: str(form.name), lists };
}

function subscriptionForm() {
  return z.object({
    /** The honeypot: people never see it, bots fill it in. */
    nonce: f.optString(),
    ...captchaFields(),
    l: f.optStringArray(),
    name: f.optString({ maxBytes: LIMITS.publicName }),
    email: emailField(),
    /** Where to go after subscribing, if it is one of security.trusted_urls. */
    next: f.optString(),
  });
}

function subscribeByForm(c: C, s: Deps, input: Input<undefined, undefined>) {
  // With the feature off the form POST answers JSON, as listmonk (docs/decisions.md §33).
  if (!s.settings.bool('app.enable_public_subscription_page')) return c.json({ message: 'public subscriptions are disabled' }, 404);
  return pageRoute(submitForm)(c, s, input);
}

async function submitForm(c: C, s: Deps) {
  const t = subscriberTranslator(s);
  const raw = await readBody(c);
  let form: z.output<ReturnType<typeof subscriptionForm>>;
  try {
    form = parseInput(subscriptionForm(), raw);
  } catch (e) {
    if (!isRefusal(e)) throw e;
    return formPage(c, s, { error: e.message, values: typedValues(typeof raw === 'object' && raw && !Array.isArray(raw) ? raw as Record<string, unknown> : {}) });
  }
  // A filled honeypot is a bot: refuse without subscribing anyone.
  if (form.nonce) return message(c, s, t('public.errorTitle'), t('public.errorProcessingRequest'), 400);
  // A refusal gives the form back with the reason and what the reader typed.
  const refuse = (error: string) => formPage(c, s, { error, values: typedValues(form) });
  if (!(await s.captcha.passes(form))) return refuse(t('public.invalidCaptcha'));
  let hasOptin: boolean;
  try {
    ({ hasOptin } = await s.selfService.subscribe({ email: form.email, name: form.name, listUuids: form.l ?? [] }));
  } catch (e) {
    if (isRefusal(e)) return refuse(e.message);
    throw e;
  }
  const trusted = (s.settings.get<unknown>('security.trusted_urls') as string[] | undefined) ?? [];
  if (form.next && form.next !== '*' && trusted.includes(form.next)) return c.redirect(form.next, 303);
  return message(c, s, t('public.subTitle'), hasOptin ? t('public.subOptinPending') : t('public.subConfirmed'));
}

/** The lists an opt-in link names (`l`, repeated). */
function optinQuery() {
  return z.object({ l: q.all() });
}

function optinForm() {
  return z.object({ l: f.optStringArray(), confirm: f.checkbox() });
}

type OptinQuery = ReturnType<typeof optinQuery>;

function optinPage(c: C, s: Deps, { query }: Input<undefined, OptinQuery>) {
  return optin(c, s, subscriberOf(c, s), query.l.map(linkUuid), false);
}

async function confirmOptin(c: C, s: Deps, { query }: Input<undefined, OptinQuery>) {
  const sub = subscriberOf(c, s);
  const form = await readForm(c, optinForm());
  return optin(c, s, sub, [...query.l.map(linkUuid), ...(form.l ?? [])], form.confirm);
}

/** Double opt-in: the question for the pending lists among `listUuids`, or with `confirm` their confirmation. */
function optin(c: C, s: Deps, sub: LinkedSubscriber, listUuids: string[], confirm: boolean) {
  const t = subscriberTranslator(s);
  if (listUuids.some((u) => !isUuid(u))) throw new PageError(400, t('public.invalidLink'));
  const named = [...new Set(listUuids.map((u) => u.toLowerCase()))];
  const links = nextLinks(s, sub, ZERO_UUID, { manage: true });
  if (confirm && s.selfService.confirm(sub, named, () => optinClient(c, s)).length) return outcome(c, s, t('public.subConfirmedTitle'), t('public.subConfirmed'), links);
  const pending = s.selfService.pendingOptin(sub, named);
  if (pending.length) return page(c, s, t('public.confirmOptinSubTitle'), OptinConfirm({ t, subUuid: sub.uuid, lists: pending }));
  // A second click on the link.
  if (s.selfService.alreadyConfirmed(sub, named)) return outcome(c, s, t('public.alreadyConfirmedTitle'), t('public.alreadyConfirmed'), links);
  return outcome(c, s, t('public.noSubTitle'), t('public.noSubInfo'), nextLinks(s, sub, ZERO_UUID, {}));
}

/** Where a confirmation comes from: the client's address and user agent. */
function optinClient(c: C, s: Deps): OptinClient {
  const trusted = (s.settings.get<unknown>('security.trusted_proxies') as string[] | undefined) ?? [];
  return { address: clientAddress(c, trusted, s.log), userAgent: c.req.header('user-agent') ?? '' };
}

async function mailExport(c: C, s: Deps) {
  const t = subscriberTranslator(s);
  await s.selfService.mailExport(subscriberOf(c, s));
  return message(c, s, t('public.dataSentTitle'), t('public.dataSent'));
}

function wipeQuestion(c: C, s: Deps) {
  const t = subscriberTranslator(s);
  const sub = subscriberOf(c, s);
  s.selfService.assertWipeAllowed();
  return page(c, s, t('public.privacyWipe'), WipeConfirm({ t, subUuid: sub.uuid }));
}

function wipe(c: C, s: Deps) {
  const t = subscriberTranslator(s);
  s.selfService.wipe(subscriberOf(c, s));
  return message(c, s, t('public.dataRemovedTitle'), t('public.dataRemoved'));
}

function manageQuery() {
  // `manage=true)`: the punctuation a linkifier took lands on the query's last value.
  return z.object({ manage: q.first({ type: 'boolean' }, (v) => parseBool(linkValue(v))) });
}

function unsubscribePage(c: C, s: Deps, { query }: Input<undefined, ReturnType<typeof manageQuery>>) {
  const t = subscriberTranslator(s);
  const campUuid = campaignUuidOf(c, s);
  const sub = subscriberOf(c, s);
  if (sub.status === 'blocklisted') return outcome(c, s, t('public.unsubTitle'), t('public.blocklisted'), nextLinks(s, sub, campUuid, {}));
  const action = `/subscription/${campUuid}/${sub.uuid}`;
  const allow = s.selfService.rights();
  if (query.manage === true && allow.preferences) {
    const lists = s.selfService.preferenceLists(sub);
    return page(c, s, t('public.managePrefs'), ManagePreferences({ t, action, subUuid: sub.uuid, name: sub.name, maxName: LIMITS.preferencesNameChars, lists, allow }));
  }
  return page(c, s, t('public.unsubTitle'), Unsubscribe({ t, action, subUuid: sub.uuid, allow }));
}

function unsubscribeForm() {
  return z.object({
    manage: f.checkbox(),
    blocklist: f.checkbox(),
    name: f.optString(),
    /** The lists to stay on (the preferences form); `list_uuids` from JSON clients. */
    l: f.optStringArray(),
    list_uuids: f.optStringArray(),
  });
}

async function unsubscribe(c: C, s: Deps) {
  const t = subscriberTranslator(s);
  const campUuid = campaignUuidOf(c, s);
  const sub = subscriberOf(c, s);
  const form = await readForm(c, unsubscribeForm());
  if (form.blocklist && s.selfService.blocklist(sub, campUuid)) {
    return outcome(c, s, t('public.unsubTitle'), t('public.blocklisted'), nextLinks(s, { ...sub, status: 'blocklisted' }, campUuid, {}));
  }
  if (!form.manage) {
    const { fromCampaign } = s.selfService.unsubscribe(sub, campUuid);
    return outcome(c, s, t('public.unsubbedTitle'), t('public.unsubbedInfo'), nextLinks(s, sub, campUuid, { manage: fromCampaign, subscribe: true }));
  }
  s.selfService.savePreferences(sub, form.name ?? '', (form.l ?? form.list_uuids ?? []).map((u) => u.toLowerCase()));
  return outcome(c, s, t('public.managePrefs'), t('public.prefsSaved'), nextLinks(s, sub, campUuid, { manage: true, subscribe: true }));
}
