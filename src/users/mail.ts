// The forgot-password e-mail.
import { escapeHtml } from '../http/page.ts';
import type { OutgoingMessage } from '../mail/types.ts';

export interface ResetMailData {
  from: string;
  to: string;
  username: string;
  resetUrl: string;
  siteName: string;
}

export function resetPasswordMessage(d: ResetMailData): OutgoingMessage {
  const subject = `Reset your ${d.siteName} password`;
  const text = `Hello ${d.username},\n\nSomeone asked to reset the password of your account. To choose a new password, open this link within 30 minutes (it works once):\n\n${d.resetUrl}\n\nIf you did not ask for this, ignore this message; your password stays as it is.\n`;
  const html = `<p>Hello ${escapeHtml(d.username)},</p>
<p>Someone asked to reset the password of your account. To choose a new password, open this link within 30 minutes (it works once):</p>
<p><a href="${escapeHtml(d.resetUrl)}">Reset your password</a></p>
<p>If you did not ask for this, ignore this message; your password stays as it is.</p>`;
  return { from: d.from, to: [d.to], subject, html, text };
}
