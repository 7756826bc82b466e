// Reading a bounce mail: delivery status notifications (RFC 3464, multipart/report with
// message/delivery-status), abuse feedback reports (RFC 5965, message/feedback-report) and,
// as a fallback, free-form bounces (an enhanced status code or known wording). The returned
// original message (message/rfc822 or text/rfc822-headers) names the campaign and subscriber
// in the X-Listmonk-* headers we send.
import type { Attachment } from 'mailparser';
import { isUuid } from '../http/schema.ts';
import type { BounceType } from './store.ts';

export interface ParsedBounce {
  /** The failed recipient (lower-cased), or '' when only the subscriber UUID is known. */
  email: string;
  subscriberUuid: string;
  campaignUuid: string;
  type: BounceType;
  meta: Record<string, unknown>;
}

const STATUS_RE = /\b([245])\.(\d{1,3})\.(\d{1,3})\b/;
/** Wording of permanent failures in bounces that carry no status code. */
const HARD_WORDS = [
  'user unknown', 'unknown user', 'mailbox not found', 'mailbox unavailable', 'does not exist', 'no such user',
  'no such recipient', 'invalid recipient', 'recipient rejected', 'address rejected', 'undeliverable',
  'permanent failure', 'permanent error', 'nxdomain', 'account disabled', 'account has been disabled',
];

/** Groups of "Field: value" lines separated by blank lines (continuation lines folded in). */
export function parseReportFields(text: string): Map<string, string>[] {
  const groups: Map<string, string>[] = [];
  for (const block of text.replace(/\r\n/g, '\n').split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    let last = '';
    for (const line of block.split('\n')) {
      if (/^[ \t]/.test(line) && last) fields.set(last, `${fields.get(last)} ${line.trim()}`);
      else {
        const i = line.indexOf(':');
        if (i <= 0) continue;
        last = line.slice(0, i).trim().toLowerCase();
        fields.set(last, line.slice(i + 1).trim());
      }
    }
    if (fields.size) groups.push(fields);
  }
  return groups;
}

/** "rfc822; <Jane@Example.com>" → "jane@example.com". */
function address(v: string | undefined): string {
  if (!v) return '';
  const raw = v.includes(';') ? v.slice(v.indexOf(';') + 1) : v;
  const m = /<([^>]*)>/.exec(raw);
  const a = (m ? m[1] : raw).trim().toLowerCase();
  return a.includes('@') && !/\s/.test(a) ? a : '';
}

const typeOfStatus = (status: string): BounceType | null => (status.startsWith('5.') ? 'hard' : status.startsWith('4.') ? 'soft' : null);

/**
 * How a free-text failure reason reads: its first enhanced status code (5.x.x hard, 4.x.x
 * soft), else known wording of permanent failures (hard), else soft.
 */
export function classifyFailureText(text: string): { type: BounceType; status: string; word: string } {
  const status = STATUS_RE.exec(text)?.[0] ?? '';
  const lower = text.toLowerCase();
  const word = HARD_WORDS.find((w) => lower.includes(w)) ?? '';
  return { type: typeOfStatus(status) ?? (word ? 'hard' : 'soft'), status, word };
}

function headerText(h: unknown): string {
  if (typeof h === 'string') return h;
  if (h && typeof h === 'object' && 'text' in h) return String((h as { text: unknown }).text);
  return '';
}

/** The headers of the returned original message, or null when it is not attached. */
async function originalHeaders(parts: Attachment[]): Promise<Map<string, unknown> | null> {
  const part = parts.find((a) => a.contentType === 'message/rfc822' || a.contentType === 'text/rfc822-headers');
  if (!part) return null;
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(part.content, { skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  return mail.headers as Map<string, unknown>;
}

/** A header of the embedded original found anywhere in the raw text (listmonk's fallback). */
function rawHeader(raw: string, name: string): string {
  const m = new RegExp(`^${name}:[ \\t]*([^\\r\\n]+)`, 'im').exec(raw);
  return m ? m[1].trim() : '';
}

/** Parses a message from a bounce mailbox; null when it is not a bounce we can attribute. */
export async function parseBounceMail(source: Buffer): Promise<ParsedBounce | null> {
  // Loaded on first use: large, and only bounce processing needs it.
  const { simpleParser } = await import('mailparser');
  const mail = await simpleParser(source, { keepDeliveryStatus: true, skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  const raw = source.toString('utf8');
  const parts = mail.attachments;
  const original = await originalHeaders(parts);
  const fromOriginal = (name: string) => headerText(original?.get(name.toLowerCase())).trim() || rawHeader(raw, name);
  const uuidOrEmpty = (v: string) => (isUuid(v) ? v.toLowerCase() : '');

  const campaignUuid = uuidOrEmpty(fromOriginal('X-Listmonk-Campaign'));
  const subscriberUuid = uuidOrEmpty(fromOriginal('X-Listmonk-Subscriber'));
  const originalTo = address(headerText(original?.get('to')));
  const meta: Record<string, unknown> = {
    from: mail.from?.text ?? '',
    subject: mail.subject ?? '',
    message_id: mail.messageId ?? '',
    date: mail.date?.toISOString() ?? '',
  };

  let email = '';
  let type: BounceType;
  const feedback = parts.find((a) => a.contentType === 'message/feedback-report');
  const dsn = parts.find((a) => a.contentType === 'message/delivery-status');
  if (feedback) {
    const f = parseReportFields(feedback.content.toString('utf8'))[0] ?? new Map<string, string>();
    email = address(f.get('original-rcpt-to')) || address(f.get('removal-recipient')) || originalTo;
    type = 'complaint';
    meta.feedback_type = f.get('feedback-type') ?? '';
    meta.reason = 'feedback report';
  } else if (dsn) {
    const recipients = parseReportFields(dsn.content.toString('utf8')).filter((g) => g.has('final-recipient') || g.has('original-recipient'));
    const action = (g: Map<string, string>) => (g.get('action') ?? '').toLowerCase();
    const rcpt = recipients.find((g) => action(g) === 'failed') ?? recipients.find((g) => action(g) === 'delayed');
    if (!rcpt) return null; // delivered, relayed or expanded: not a bounce
    const status = STATUS_RE.exec(rcpt.get('status') ?? '')?.[0] ?? '';
    email = address(rcpt.get('final-recipient')) || address(rcpt.get('original-recipient')) || originalTo;
    type = typeOfStatus(status) ?? (action(rcpt) === 'failed' ? 'hard' : 'soft');
    Object.assign(meta, { action: action(rcpt), status, diagnostic: rcpt.get('diagnostic-code') ?? '', reason: 'delivery status notification' });
  } else {
    // No report part: accept only what looks like a bounce, then classify by its text.
    const failed = address(headerText(mail.headers.get('x-failed-recipients')));
    const looksLikeBounce = failed !== '' || /mailer-daemon|postmaster/i.test(meta.from as string)
      || /undeliver|returned mail|delivery (status|failure|has failed)|failure notice/i.test(meta.subject as string);
    if (!looksLikeBounce) return null;
    email = failed || originalTo;
    const { type: guessed, status, word } = classifyFailureText(`${mail.subject ?? ''}\n${mail.text ?? ''}`);
    type = guessed;
    Object.assign(meta, { status, reason: status ? `status ${status}` : word ? `"${word}"` : 'unclassified bounce' });
  }
  if (!email && !subscriberUuid) return null;
  meta.recipient = email;
  return { email, subscriberUuid, campaignUuid, type, meta };
}
