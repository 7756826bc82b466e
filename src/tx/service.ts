// POST /api/tx: listmonk's transactional message (api-resources §17). Every recipient is
// resolved and rendered before anything is sent, so a bad recipient or template sends nothing;
// the subject and altbody are rendered per recipient (DECISIONS 16); the call answers once the
// messenger accepted every message.
import type { AppContext } from '../context.ts';
import { compileTx, RenderError, ZERO_UUID, type RenderSubscriber } from '../campaigns/render.ts';
import { renderEnv, toRenderSubscriber } from '../campaigns/compose.ts';
import type { TrackingStore } from '../tracking/store.ts';
import { badRequest, HttpError } from '../http/errors.ts';
import type { Body } from '../http/body.ts';
import { optEnum, optHeaderList, optInt, optObject, optString, optStringArray, optIntArray } from '../http/validate.ts';
import { buildTxMessage, isValidFrom } from '../mail/message.ts';
import { domainRules, emailProblem } from '../subscribers/email.ts';
import type { Attachment, OutgoingMessage } from '../mail/types.ts';
import type { TxStore } from './store.ts';

const MODES = ['default', 'fallback', 'external'] as const;

export class TxService {
  constructor(private readonly ctx: AppContext, private readonly store: TxStore, private readonly tracking: TrackingStore) {}

  async send(b: Body, attachments: Attachment[]): Promise<void> {
    const mode = optEnum(b, 'subscriber_mode', MODES) ?? 'default';
    const emails = optStringArray(b, 'subscriber_emails') ?? [];
    const ids = optIntArray(b, 'subscriber_ids') ?? [];
    const oneEmail = optString(b, 'subscriber_email');
    const oneId = optInt(b, 'subscriber_id', { min: 1 });
    if (oneEmail && emails.length) throw badRequest('give either "subscriber_email" or "subscriber_emails", not both');
    if (oneId !== undefined && ids.length) throw badRequest('give either "subscriber_id" or "subscriber_ids", not both');
    if (oneEmail) emails.push(oneEmail);
    if (oneId !== undefined) ids.push(oneId);
    if (mode === 'default') {
      if (!emails.length && !ids.length) throw badRequest('"subscriber_emails" or "subscriber_ids" is required');
      if (emails.length && ids.length) throw badRequest('give either "subscriber_emails" or "subscriber_ids", not both');
    } else {
      if (ids.length) throw badRequest(`"subscriber_ids" cannot be used with subscriber_mode "${mode}": give "subscriber_emails"`);
      if (!emails.length) throw badRequest('"subscriber_emails" is required');
    }
    // The address rules of subscribers, including the domain allow/blocklist (delivery.md §20).
    const rules = domainRules(this.ctx.settings);
    const cleanEmails = emails.map((e) => {
      const email = e.trim().toLowerCase();
      const problem = emailProblem(email, rules);
      if (problem) throw badRequest(`invalid "subscriber_emails" entry "${e.slice(0, 100)}": ${problem}`);
      return email;
    });

    const templateId = optInt(b, 'template_id');
    if (templateId === undefined) throw badRequest('"template_id" is required');
    const tpl = this.store.template(templateId);
    if (!tpl) throw badRequest(`invalid "template_id": template ${templateId} not found or not a tx template`);
    const messenger = optString(b, 'messenger') || 'email';
    if (!this.ctx.mailer.has(messenger)) throw badRequest(`invalid "messenger": "${messenger}" is not configured`);
    const contentType = optString(b, 'content_type') || 'html';
    const from = optString(b, 'from_email') || this.ctx.settings.str('app.from_email');
    if (!isValidFrom(from)) throw badRequest(`invalid "from_email": "${from.slice(0, 200)}" is not an e-mail address or "Name <address>"`);
    const data = optObject(b, 'data') ?? {};
    const hdrs = optHeaderList(b, 'headers') ?? [];
    const subject = optString(b, 'subject', { trim: false });
    const altbody = optString(b, 'altbody', { trim: false });

    let compiled;
    try {
      compiled = compileTx(subject || tpl.subject, tpl.body, altbody || null, renderEnv(this.ctx, this.tracking));
    } catch (e) {
      if (e instanceof RenderError) throw badRequest(`the template does not compile: ${e.message}`);
      throw e;
    }

    const missing: string[] = [];
    const recipients: RenderSubscriber[] = [];
    const bare = (email: string): RenderSubscriber => ({ id: 0, uuid: ZERO_UUID, email, name: '', attribs: {}, status: 'enabled', created_at: null, updated_at: null });
    if (mode === 'external') recipients.push(...cleanEmails.map(bare));
    else {
      for (const email of cleanEmails) {
        const s = this.store.subscriberByEmail(email);
        if (s) recipients.push(toRenderSubscriber(s));
        else if (mode === 'fallback') recipients.push(bare(email));
        else missing.push(`subscriber ${email} not found`);
      }
      for (const id of ids) {
        const s = this.store.subscriberById(id);
        if (s) recipients.push(toRenderSubscriber(s));
        else missing.push(`subscriber ${id} not found`);
      }
    }

    const tx = { data, subject: subject ?? '', from_email: from, template_id: templateId, headers: hdrs, content_type: contentType, messenger, altbody: altbody ?? '', subscriber_emails: cleanEmails, subscriber_ids: ids, subscriber_mode: mode };
    const messages: OutgoingMessage[] = recipients.map((sub) => {
      let r;
      try {
        r = compiled.render(sub, tx);
      } catch (e) {
        if (e instanceof RenderError) throw badRequest(`the template does not render for ${sub.email}: ${e.message}`);
        throw e;
      }
      return buildTxMessage({
        from, to: sub.email, contentType, subject: r.subject, body: r.body, altbody: r.altbody, headers: hdrs, attachments,
        meta: { content_type: contentType, recipient: { uuid: sub.uuid, email: sub.email, name: sub.name, attribs: sub.attribs, status: sub.status }, campaign: null },
      });
    });
    for (const m of messages) {
      try {
        await this.ctx.mailer.send(messenger, m);
      } catch (e) {
        throw new HttpError(502, `sending to ${m.to[0]} failed: ${(e as Error).message}`);
      }
    }
    if (missing.length) throw badRequest(missing.join('; '));
  }
}
