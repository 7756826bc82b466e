// POST /api/tx: listmonk's transactional message (a tx template, recipients by e-mail or id in
// three subscriber modes, `data` as .Tx.Data). Every recipient is resolved and rendered before
// anything is sent, so a bad recipient or template sends nothing; the subject and altbody are
// rendered per recipient (docs/decisions.md §48); the call answers once the messenger accepted
// every message.
import type { AppContext } from '../context.ts';
import { compileTx, renderEnv, RenderError, toRenderSubscriber, ZERO_UUID, type RenderSubscriber } from '../rendering/message.ts';
import type { TrackingStore } from '../tracking/store.ts';
import { denied, invalid, upstreamFailed } from '../core/errors.ts';
import { can, type Actor } from '../core/authz.ts';
import { buildTxMessage, isValidFrom, type HeaderList } from '../mail/message.ts';
import { domainRules, emailProblem } from '../mail/address.ts';
import type { SubscriberStore } from '../subscribers/store.ts';
import type { Attachment } from '../mail/types.ts';
import type { TxStore } from './store.ts';

/** default: subscribers only; fallback: unknown addresses get it too; external: addresses only, no lookup. */
export const TX_MODES = ['default', 'fallback', 'external'] as const;

/** A transactional message as the request gives it. */
export interface TxInput {
  subscriber_mode?: (typeof TX_MODES)[number];
  subscriber_emails?: string[];
  subscriber_ids?: number[];
  /** One address (instead of subscriber_emails). */
  subscriber_email?: string;
  /** One id (instead of subscriber_ids). */
  subscriber_id?: number;
  template_id?: number;
  messenger?: string;
  content_type?: string;
  from_email?: string;
  /** The template's `.Tx.Data`. */
  data?: Record<string, unknown>;
  headers?: HeaderList;
  /** Instead of the template's subject. */
  subject?: string;
  altbody?: string;
}

/** listmonk's answer per recipient not found (globals.messages.notFound with the subscriber term). */
const SUBSCRIBER_NOT_FOUND = 'Subscriber not found';

export class TxService {
  constructor(
    private readonly ctx: AppContext,
    private readonly store: TxStore,
    private readonly subscribers: SubscriberStore,
    private readonly tracking: TrackingStore,
  ) {}

  async send(actor: Actor, input: TxInput, attachments: Attachment[]): Promise<void> {
    if (!can(actor, 'tx:send')) throw denied('permission denied: tx:send');
    const mode = input.subscriber_mode ?? 'default';
    const emails = [...(input.subscriber_emails ?? [])];
    const ids = [...(input.subscriber_ids ?? [])];
    const oneEmail = input.subscriber_email;
    const oneId = input.subscriber_id;
    if (oneEmail && emails.length) throw invalid('give either "subscriber_email" or "subscriber_emails", not both');
    if (oneId !== undefined && ids.length) throw invalid('give either "subscriber_id" or "subscriber_ids", not both');
    if (oneEmail) emails.push(oneEmail);
    if (oneId !== undefined) ids.push(oneId);
    if (mode === 'default') {
      if (!emails.length && !ids.length) throw invalid('"subscriber_emails" or "subscriber_ids" is required');
      if (emails.length && ids.length) throw invalid('give either "subscriber_emails" or "subscriber_ids", not both');
    } else {
      if (ids.length) throw invalid(`"subscriber_ids" cannot be used with subscriber_mode "${mode}": give "subscriber_emails"`);
      if (!emails.length) throw invalid('"subscriber_emails" is required');
    }
    // The address rules of subscribers: syntax, length and the privacy.domain_allowlist/blocklist.
    const rules = domainRules(this.ctx.settings);
    const cleanEmails = emails.map((e) => {
      const email = e.trim().toLowerCase();
      const problem = emailProblem(email, rules);
      if (problem) throw invalid(`invalid "subscriber_emails" entry "${e.slice(0, 100)}": ${problem}`);
      return email;
    });

    const templateId = input.template_id;
    if (templateId === undefined) throw invalid('"template_id" is required');
    const tpl = this.store.template(templateId);
    if (!tpl) throw invalid(`invalid "template_id": template ${templateId} not found or not a tx template`);
    const messenger = input.messenger || 'email';
    const unavailable = this.ctx.mailer.unavailable(messenger);
    if (unavailable) throw invalid(`invalid "messenger": ${unavailable}`);
    const contentType = input.content_type || 'html';
    const from = input.from_email || this.ctx.settings.str('app.from_email');
    if (!isValidFrom(from)) throw invalid(`invalid "from_email": "${from.slice(0, 200)}" is not an e-mail address or "Name <address>"`);
    const data = input.data ?? {};
    const hdrs = input.headers ?? [];
    const { subject, altbody } = input;

    const compiled = RenderError.describing('the template does not compile', () =>
      compileTx(subject || tpl.subject, tpl.body, altbody || null, renderEnv(this.ctx, this.tracking, 'send')));

    // Recipients not found are counted, not named, with listmonk's text: the answer must not
    // tell which ids or addresses exist (docs/decisions.md §90). Errors name a recipient as the
    // request did (`label`), never by data the caller did not give.
    let missing = 0;
    const recipients: { sub: RenderSubscriber; label: string }[] = [];
    const bare = (email: string): RenderSubscriber => ({ id: 0, uuid: ZERO_UUID, email, name: '', attribs: {}, status: 'enabled', created_at: null, updated_at: null });
    if (mode === 'external') recipients.push(...cleanEmails.map((email) => ({ sub: bare(email), label: email })));
    else {
      for (const email of cleanEmails) {
        const s = this.subscribers.rowByEmail(email);
        if (s) recipients.push({ sub: toRenderSubscriber(s), label: email });
        else if (mode === 'fallback') recipients.push({ sub: bare(email), label: email });
        else missing++;
      }
      for (const id of ids) {
        const s = this.subscribers.rowById(id);
        if (s) recipients.push({ sub: toRenderSubscriber(s), label: `subscriber ${id}` });
        else missing++;
      }
    }

    const tx = { data, subject: subject ?? '', from_email: from, template_id: templateId, headers: hdrs, content_type: contentType, messenger, altbody: altbody ?? '', subscriber_emails: cleanEmails, subscriber_ids: ids, subscriber_mode: mode };
    const messages = recipients.map(({ sub, label }) => {
      const r = RenderError.describing(`the template does not render for ${label}`, () => compiled.render(sub, tx));
      return { label, message: buildTxMessage({
        from, to: sub.email, contentType, subject: r.subject, body: r.body, altbody: r.altbody, headers: hdrs, attachments,
        meta: { content_type: contentType, recipient: { uuid: sub.uuid, email: sub.email, name: sub.name, attribs: sub.attribs, status: sub.status }, campaign: null },
      }) };
    });
    // A message the relay defers is tried again; past the wait the answer goes out and the
    // retries go on (as listmonk answers once messages are queued).
    for (const { label, message } of messages) {
      try {
        await this.ctx.mailer.deliverWithin(messenger, message, `tx message to ${message.to[0]}`);
      } catch (e) {
        // The messenger's text may quote the address (an SMTP rejection does): it goes to the log only.
        this.ctx.log.error(`tx message to ${message.to[0]} failed: ${(e as Error).message}`);
        throw upstreamFailed(`sending to ${label} failed: the messenger refused the message (see the server log)`);
      }
    }
    if (missing) throw invalid(Array<string>(missing).fill(SUBSCRIBER_NOT_FOUND).join('; '));
  }
}
