// The admin notice when a campaign finishes or the engine pauses it (app.notify_emails, one
// message to all of them, through the "email" messenger, as listmonk), rendered from the
// `campaign-status` system mail template.
import type { AppContext } from '../context.ts';
import { buildTxMessage } from '../mail/message.ts';
import { renderSystemMail } from '../mail/system.ts';
import type { SystemMailData } from '../mail/templates/index.ts';

export type CampaignStatusData = SystemMailData['campaign-status'];

export async function notifyAdmins(ctx: AppContext, subject: string, d: CampaignStatusData): Promise<void> {
  const to = (ctx.settings.get<string[]>('app.notify_emails') ?? []).filter((e) => typeof e === 'string' && e.trim());
  if (!to.length || !ctx.mailer.has('email')) return;
  const msg = buildTxMessage({
    from: ctx.settings.str('app.from_email'), to: to[0], contentType: 'html', subject, body: renderSystemMail('campaign-status', d, ctx),
    altbody: null, headers: [], attachments: [],
    meta: { content_type: 'html', recipient: { uuid: '', email: to[0], name: '', attribs: {}, status: 'enabled' }, campaign: null },
  });
  await ctx.mailer.send('email', { ...msg, to: to.map((e) => e.trim()) });
}
