// Turning a rendered campaign or transactional message into an OutgoingMessage: the text
// alternative, listmonk's X-Listmonk-* and List-Unsubscribe headers, custom
// headers (first value of a name wins; Cc/Bcc move to the envelope) and attachments.
import { randomInt } from 'node:crypto';
import MimeNode from 'nodemailer/lib/mime-node/index.js';
import { htmlToPlainText } from '../content/convert.ts';
import type { Attachment, OutgoingMessage } from './types.ts';

export type HeaderList = Record<string, string>[];

/**
 * Custom headers as given (campaign, tx and SMTP headers): a list of {"Header-Name": "value"}
 * objects. Names must be header tokens and values one line, so no input can add a header of its
 * own; the first problem is thrown as `refuse(rule)`, which names the field.
 */
export function readHeaderList(v: unknown, refuse: (rule: string) => Error): HeaderList {
  const shape = () => refuse('expected an array of {"Header-Name": "value"} objects');
  if (!Array.isArray(v)) throw shape();
  return v.map((h) => {
    if (h === null || typeof h !== 'object' || Array.isArray(h)) throw shape();
    const out: Record<string, string> = {};
    for (const [name, value] of Object.entries(h)) {
      if (!/^[!-9;-~]+$/.test(name)) throw refuse(`"${name}" is not a valid header name`);
      if (typeof value !== 'string' || /[\r\n]/.test(value)) throw refuse(`the value of "${name}" must be a one-line string`);
      out[name] = value;
    }
    return out;
  });
}

/** What a postback messenger needs beyond the MIME message: the recipient and campaign of listmonk's payload. */
export interface MessageMeta {
  content_type: string;
  recipient: { uuid: string; email: string; name: string; attribs: Record<string, unknown>; status: string };
  campaign: { from_email: string; uuid: string; name: string; headers: HeaderList; tags: string[] } | null;
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

const ADDRESS = /^[^\s@<>()",;:]+@[^\s@<>()",;:]+\.[^\s@<>()",;:]+$/;

/** Whether a From value is an e-mail address or "Name <address>". */
export function isValidFrom(from: string): boolean {
  const m = /^(.*?)\s*<([^<>]+)>$/.exec(from);
  return m ? ADDRESS.test(m[2].trim()) : ADDRESS.test(from);
}

/** The address of "Name <address>" or of a bare address, as written. */
export function bareAddress(value: string): string {
  return (/<([^>]+)>/.exec(value)?.[1] ?? value).trim();
}

/** `<24 random alphanumerics@domain of the From address>`, as listmonk. */
export function messageId(from: string): string {
  let id = '';
  for (let i = 0; i < 24; i++) id += ALNUM[randomInt(ALNUM.length)];
  const domain = /@([^\s@>]+)$/.exec(bareAddress(from))?.[1] ?? 'localhost';
  return `<${id}@${domain.toLowerCase()}>`;
}

/** nodemailer's own choice of transfer encoding for `sample` (undefined when it would send 7bit). */
export function textEncodingFor(sample: string): OutgoingMessage['textEncoding'] {
  const encoding = new MimeNode('text/html').setContent(sample).getTransferEncoding();
  return encoding === 'quoted-printable' || encoding === 'base64' ? encoding : undefined;
}

interface Envelope {
  headers: Record<string, string>;
  cc: string[];
  bcc: string[];
}

/** Adds custom headers under the fixed ones: existing names (any case) are kept, Cc/Bcc go to the envelope. */
function withCustomHeaders(fixed: Record<string, string>, custom: HeaderList): Envelope {
  const headers = { ...fixed };
  const seen = new Set(Object.keys(headers).map((k) => k.toLowerCase()));
  const cc: string[] = [];
  const bcc: string[] = [];
  const split = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean);
  for (const h of custom) {
    for (const [name, value] of Object.entries(h)) {
      const key = name.toLowerCase();
      if (key === 'bcc') bcc.push(...split(value));
      else if (key === 'cc') cc.push(...split(value));
      else if (!seen.has(key)) {
        seen.add(key);
        headers[name] = value;
      }
    }
  }
  return { headers, cc, bcc };
}

export interface CampaignMessageInput {
  from: string;
  to: string;
  campaignUuid: string;
  subscriberUuid: string;
  contentType: string;
  subject: string;
  html: string;
  altbody: string | null;
  headers: HeaderList;
  /** The unsubscribe URL for List-Unsubscribe, or null when privacy.unsubscribe_header is off. */
  unsubscribeUrl: string | null;
  /** Optional mailto: address added to List-Unsubscribe. */
  unsubscribeMailto: string;
  attachments: Attachment[];
  meta: MessageMeta;
}

export function buildCampaignMessage(m: CampaignMessageInput): OutgoingMessage {
  const fixed: Record<string, string> = { 'X-Listmonk-Campaign': m.campaignUuid, 'X-Listmonk-Subscriber': m.subscriberUuid };
  if (m.unsubscribeUrl) {
    const targets = [`<${m.unsubscribeUrl}>`];
    if (m.unsubscribeMailto) targets.push(`<mailto:${m.unsubscribeMailto}?subject=unsubscribe>`);
    fixed['List-Unsubscribe'] = targets.join(', ');
    fixed['List-Unsubscribe-Post'] = 'List-Unsubscribe=One-Click';
  }
  return assemble(fixed, { ...m, body: m.html });
}

export interface TxMessageInput {
  from: string;
  to: string;
  contentType: string;
  subject: string;
  body: string;
  altbody: string | null;
  headers: HeaderList;
  attachments: Attachment[];
  meta: MessageMeta;
}

export function buildTxMessage(m: TxMessageInput): OutgoingMessage {
  return assemble({}, m);
}

/** The message: fixed headers, then the custom ones (Cc/Bcc moved to the envelope), the body parts. */
function assemble(fixed: Record<string, string>, m: TxMessageInput): OutgoingMessage {
  const env = withCustomHeaders(fixed, m.headers);
  return {
    from: m.from,
    to: [m.to],
    subject: m.subject,
    ...bodyParts(m.contentType, m.body, m.altbody),
    headers: env.headers,
    cc: env.cc.length ? env.cc : undefined,
    bcc: env.bcc.length ? env.bcc : undefined,
    attachments: m.attachments.length ? m.attachments : undefined,
    meta: m.meta as unknown as Record<string, unknown>,
  };
}

/**
 * plain: text only; anything else: HTML plus a text alternative: the altbody, else one
 * derived from the HTML (docs/decisions.md §44; campaigns usually pass one derived in advance).
 */
function bodyParts(contentType: string, body: string, altbody: string | null): { html?: string; text: string } {
  if (contentType === 'plain') return { text: body };
  return { html: body, text: altbody ?? htmlToPlainText(body) };
}
