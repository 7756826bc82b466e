// The admin notice when a campaign finishes or the engine pauses it (app.notify_emails, one
// message to all of them, through the "email" messenger, as listmonk).
import type { AppContext } from '../context.ts';
import { escapeHtml } from '../http/page.ts';
import { buildTxMessage } from '../mail/message.ts';

export interface CampaignStatusData {
  ID: number;
  Name: string;
  Status: string;
  Sent: number;
  ToSend: number;
  Reason: string;
}

export async function notifyAdmins(ctx: AppContext, subject: string, d: CampaignStatusData): Promise<void> {
  const to = (ctx.settings.get<string[]>('app.notify_emails') ?? []).filter((e) => typeof e === 'string' && e.trim());
  if (!to.length || !ctx.mailer.has('email')) return;
  const rows: [string, string | number][] = [['Campaign', d.Name], ['Status', d.Status], ['Sent', `${d.Sent} / ${d.ToSend}`]];
  if (d.Reason) rows.push(['Reason', d.Reason]);
  const html = `<h2>${escapeHtml(subject)}</h2><table>${rows.map(([k, v]) => `<tr><td><strong>${k}</strong></td><td>${escapeHtml(v)}</td></tr>`).join('')}</table>` +
    `<p><a href="${escapeHtml(ctx.settings.rootUrl())}/admin/campaigns/${d.ID}">View campaign</a></p>`;
  const msg = buildTxMessage({
    from: ctx.settings.str('app.from_email'), to: to[0], contentType: 'html', subject, body: html, altbody: null, headers: [], attachments: [],
    meta: { content_type: 'html', recipient: { uuid: '', email: to[0], name: '', attribs: {}, status: 'enabled' }, campaign: null },
  });
  await ctx.mailer.send('email', { ...msg, to: to.map((e) => e.trim()) });
}
