// The admin notice when a campaign finishes or the engine pauses it (app.notify_emails, one
// message to all of them, through the "email" messenger, as listmonk), rendered from the
// `campaign-status` system mail template. A relay's deferral is tried again (Mailer.deliver).
import type { AppContext } from '../context.ts';
import { systemMessage } from '../mail/system.ts';
import type { SystemMailData } from '../mail/templates/index.ts';

export type CampaignStatusData = SystemMailData['campaign-status'];

export async function notifyAdmins(ctx: AppContext, subject: string, d: CampaignStatusData): Promise<void> {
  const to = (ctx.settings.get<string[]>('app.notify_emails') ?? []).map((e) => String(e).trim()).filter(Boolean);
  if (!to.length || !ctx.mailer.has('email')) return;
  await ctx.mailer.deliver('email', systemMessage(ctx, 'campaign-status', d, to, subject), `campaign ${d.ID}: the notice "${subject}"`);
}
