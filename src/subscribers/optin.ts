// The double opt-in e-mail: the system template optin.html (with base.html's header and
// footer) rendered by the template engine in the subscriber language, sent through the
// `email` messenger. The text part is derived from the HTML, as for every system mail.
import type { AppContext } from '../context.ts';
import { LIMITS } from '../core/limits.ts';
import { RepeatedFailures, type Logger } from '../log.ts';
import { templateCatalog, translate } from '../i18n/index.ts';
import { htmlToPlainText } from '../content/convert.ts';
import { loadSystemMailTemplates } from '../mail/templates/index.ts';
import type { OutgoingMessage } from '../mail/types.ts';
import { compileTemplate, type BrandInfo, type CompiledTemplate } from '../templating/index.ts';
import { brandOf } from '../mail/brand.ts';
import type { SubscriberStore } from './store.ts';

/** The placeholder campaign UUID of links in mails that belong to no campaign. */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

export interface OptinMail {
  fromEmail: string;
  rootUrl: string;
  /** The newsletter's name, logo, accent colour and address (the mail's header and footer). */
  brand: BrandInfo;
  /** Language code (app.lang); English when there is no such pack. */
  lang: string;
  subscriber: { uuid: string; name: string; email: string };
  /** Private lists are named only as "private list" (the subscriber may not know their names). */
  lists: { uuid: string; name: string; type: string }[];
  unsubscribeHeader: boolean;
}

export function optinUrl(rootUrl: string, subUuid: string, listUuids: string[]): string {
  return `${rootUrl}/subscription/optin/${subUuid}?${listUuids.map((u) => `l=${encodeURIComponent(u)}`).join('&')}`;
}

export function unsubscribeUrl(rootUrl: string, campUuid: string, subUuid: string): string {
  return `${rootUrl}/subscription/${campUuid}/${subUuid}`;
}

/** What the opt-in mail reads (and records) of the subscriber store. */
export type OptinStore = Pick<SubscriberStore, 'get' | 'pendingDoubleOptin' | 'recordOptinSent'>;

let optinTemplate: CompiledTemplate | undefined;

/** base.html and optin.html in one set whose body runs "optin"; compiled on first use. */
function compiledOptin(): CompiledTemplate {
  if (!optinTemplate) {
    const sources = loadSystemMailTemplates();
    optinTemplate = compileTemplate(`${sources.base}${sources.optin}{{ template "optin" . }}`, { mode: 'html', funcs: 'system', name: 'optin-mail' });
  }
  return optinTemplate;
}

export function buildOptinMessage(m: OptinMail): OutgoingMessage {
  const catalog = templateCatalog(m.lang);
  const L = catalog.messages;
  const confirm = optinUrl(m.rootUrl, m.subscriber.uuid, m.lists.map((l) => l.uuid));
  const html = compiledOptin().render({
    Subscriber: { Name: m.subscriber.name, Email: m.subscriber.email, UUID: m.subscriber.uuid },
    Lists: m.lists.map((l) => ({ Name: l.type === 'private' ? translate(L, 'email.optin.privateList') : l.name })),
    OptinURL: confirm,
  }, { rootURL: m.rootUrl, logoURL: m.brand.logoURL, brand: m.brand, i18n: catalog }).trim();
  const headers: Record<string, string> = { 'X-Listmonk-Subscriber': m.subscriber.uuid };
  if (m.unsubscribeHeader) {
    headers['List-Unsubscribe'] = `<${unsubscribeUrl(m.rootUrl, ZERO_UUID, m.subscriber.uuid)}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return { from: m.fromEmail, to: [m.subscriber.email], subject: translate(L, 'subscribers.optinSubject'), html, text: htmlToPlainText(html), headers };
}

/**
 * Sends the opt-in mail for the subscriber's unconfirmed double opt-in subscriptions (among
 * `lists` when given) and records it in optin_mails, unless `record` is false (the sending
 * engine's queued mails have their row). Returns the number of lists it was about (0: nothing
 * to send). Throws when the mail cannot be sent; one the relay defers is tried again
 * (Mailer.deliverWithin).
 */
export async function sendOptin(ctx: AppContext, store: OptinStore, subscriberId: number, lists: number[] | null, record = true): Promise<number> {
  const sub = store.get(subscriberId);
  if (!sub) return 0;
  const pending = store.pendingDoubleOptin(subscriberId, lists);
  if (!pending.length) return 0;
  ctx.rootUrlCheck.logOptinWarning();
  const what = `opt-in mail to subscriber ${subscriberId}`;
  await ctx.mailer.deliverWithin('email', buildOptinMessage({
    fromEmail: ctx.settings.str('app.from_email'),
    rootUrl: ctx.settings.rootUrl(),
    brand: brandOf(ctx.settings),
    lang: ctx.settings.str('app.lang'),
    subscriber: { uuid: sub.uuid, name: sub.name, email: sub.email },
    lists: pending.map((l) => ({ uuid: l.uuid, name: l.name, type: l.type })),
    unsubscribeHeader: ctx.settings.bool('privacy.unsubscribe_header'),
  }), what, (e) => optinFailures(ctx.log).add(what, e.message));
  if (record) {
    try {
      store.recordOptinSent(subscriberId, pending.map((l) => l.id));
    } catch (e) {
      // The mail is sent: only the 24-hour rule of the lists' opt-in action misses it.
      ctx.log.error(`opt-in mail to subscriber ${subscriberId}: sent, but could not be recorded: ${(e as Error).message}`);
    }
  }
  return pending.length;
}

/**
 * The automatic opt-in after a subscription change: only if enabled; failures are logged once
 * per cause with a count (a mail server that is down fails them all alike).
 */
export async function sendOptinQuietly(ctx: AppContext, store: OptinStore, subscriberId: number, lists: number[] | null): Promise<boolean> {
  if (!ctx.settings.bool('app.send_optin_confirmation')) return false;
  try {
    return (await sendOptin(ctx, store, subscriberId, lists)) > 0;
  } catch (e) {
    optinFailures(ctx.log).add(`opt-in mail to subscriber ${subscriberId}`, (e as Error).message);
    return false;
  }
}

const failureLogs = new WeakMap<Logger, RepeatedFailures>();

/** The process's tally of opt-in mails that could not be sent (one per log, i.e. per server). */
function optinFailures(log: Logger): RepeatedFailures {
  let f = failureLogs.get(log);
  if (!f) failureLogs.set(log, (f = new RepeatedFailures(log, 'opt-in mails', LIMITS.optinFailureLogMs)));
  return f;
}
