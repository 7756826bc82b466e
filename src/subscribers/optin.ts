// The double opt-in e-mail: built by one clean function (to be switched to the system
// template `optin.html` when it lands) and sent through the `email` messenger.
import type { AppContext } from '../context.ts';
import { escapeHtml } from '../http/page.ts';
import type { OutgoingMessage } from '../mail/types.ts';
import { t } from '../public/i18n.ts';
import type { SubscriberStore } from './store.ts';

/** The placeholder campaign UUID of links in mails that belong to no campaign. */
export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

export interface OptinMail {
  fromEmail: string;
  rootUrl: string;
  subscriber: { uuid: string; name: string; email: string };
  lists: { uuid: string; name: string }[];
  unsubscribeHeader: boolean;
}

export function optinUrl(rootUrl: string, subUuid: string, listUuids: string[]): string {
  return `${rootUrl}/subscription/optin/${subUuid}?${listUuids.map((u) => `l=${encodeURIComponent(u)}`).join('&')}`;
}

export function unsubscribeUrl(rootUrl: string, campUuid: string, subUuid: string): string {
  return `${rootUrl}/subscription/${campUuid}/${subUuid}`;
}

export function buildOptinMessage(m: OptinMail): OutgoingMessage {
  const confirm = optinUrl(m.rootUrl, m.subscriber.uuid, m.lists.map((l) => l.uuid));
  const unsubscribe = unsubscribeUrl(m.rootUrl, ZERO_UUID, m.subscriber.uuid);
  const greeting = t('optin.mailGreeting', { name: m.subscriber.name });
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;max-width:36rem">
<p>${escapeHtml(greeting)}</p>
<p>${escapeHtml(t('optin.mailIntro'))}</p>
<ul>${m.lists.map((l) => `<li>${escapeHtml(l.name)}</li>`).join('')}</ul>
<p><a href="${escapeHtml(confirm)}" style="display:inline-block;padding:.6rem 1.2rem;background:#2456d3;color:#fff;text-decoration:none;border-radius:.4rem">${escapeHtml(t('optin.mailButton'))}</a></p>
<p style="color:#5b6474;font-size:.9rem">${escapeHtml(t('optin.mailIgnore'))}</p>
</body></html>`;
  const text = `${greeting}\n\n${t('optin.mailIntro')}\n${m.lists.map((l) => `- ${l.name}`).join('\n')}\n\n${t('optin.mailButton')}: ${confirm}\n\n${t('optin.mailIgnore')}\n`;
  const headers: Record<string, string> = { 'X-Listmonk-Subscriber': m.subscriber.uuid };
  if (m.unsubscribeHeader) {
    headers['List-Unsubscribe'] = `<${unsubscribe}>`;
    headers['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return { from: m.fromEmail, to: [m.subscriber.email], subject: t('optin.mailSubject'), html, text, headers };
}

/**
 * Sends the opt-in mail for the subscriber's unconfirmed double opt-in subscriptions (among
 * `lists` when given). Returns the number of lists it was about (0: nothing to send).
 * Throws when the mail cannot be sent.
 */
export async function sendOptin(ctx: AppContext, store: SubscriberStore, subscriberId: number, lists: number[] | null): Promise<number> {
  const sub = store.get(subscriberId);
  if (!sub) return 0;
  const pending = store.pendingDoubleOptin(subscriberId, lists);
  if (!pending.length) return 0;
  await ctx.mailer.send('email', buildOptinMessage({
    fromEmail: ctx.settings.str('app.from_email'),
    rootUrl: ctx.settings.rootUrl(),
    subscriber: { uuid: sub.uuid, name: sub.name, email: sub.email },
    lists: pending.map((l) => ({ uuid: l.uuid, name: l.name })),
    unsubscribeHeader: ctx.settings.bool('privacy.unsubscribe_header'),
  }));
  return pending.length;
}

/** The automatic opt-in after a subscription change: only if enabled; failures are logged. */
export async function sendOptinQuietly(ctx: AppContext, store: SubscriberStore, subscriberId: number, lists: number[] | null): Promise<boolean> {
  if (!ctx.settings.bool('app.send_optin_confirmation')) return false;
  try {
    return (await sendOptin(ctx, store, subscriberId, lists)) > 0;
  } catch (e) {
    ctx.log.error(`opt-in mail to subscriber ${subscriberId} failed: ${(e as Error).message}`);
    return false;
  }
}
