// Builders for the data listmonk exposes to templates (.Subscriber, .Campaign, .Tx, the message):
// Go structs with the same member names, integer IDs as Go ints, nullable times with
// .Time/.Valid, and the FirstName/LastName methods.

import { localTime, zeroTime } from './gotime.ts';
import { struct } from './value.ts';

/** null.Time: {Time, Valid}; `iso` null or undefined gives an invalid (zero) time. */
export function nullTime(iso: string | null | undefined): { Time: unknown; Valid: boolean } {
  const ms = iso ? Date.parse(iso) : NaN;
  const valid = !Number.isNaN(ms);
  return struct('null.Time', { Time: valid ? localTime(ms) : zeroTime(), Valid: valid });
}

/** s[from, to) is longer than two bytes in UTF-8 (counted without encoding). */
function overTwoBytes(s: string, from: number, to: number): boolean {
  if (to - from > 2) return true; // every UTF-16 unit takes at least one byte
  let bytes = 0;
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    // A surrogate counts 3: a pair (4 bytes) and a lone one (U+FFFD, 3 bytes) both exceed 2.
    bytes += c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
  }
  return bytes > 2;
}

/** First space-separated chunk longer than two UTF-8 bytes (listmonk's Subscriber.FirstName). */
export function firstName(name: string): string {
  let from = 0;
  for (;;) {
    const sp = name.indexOf(' ', from);
    const to = sp < 0 ? name.length : sp;
    if (overTwoBytes(name, from, to)) return name.slice(from, to);
    if (sp < 0) return name;
    from = sp + 1;
  }
}

/** Same as firstName, scanning from the end. */
export function lastName(name: string): string {
  let to = name.length;
  for (;;) {
    // lastIndexOf clamps a negative start to 0, which would find a leading space again.
    const sp = to > 0 ? name.lastIndexOf(' ', to - 1) : -1;
    const from = sp + 1;
    if (overTwoBytes(name, from, to)) return name.slice(from, to);
    if (sp < 0) return name;
    to = sp;
  }
}

export interface SubscriberInput {
  id?: number;
  uuid: string;
  email: string;
  name: string;
  attribs?: Record<string, unknown>;
  status?: string;
  created_at?: string | null;
  updated_at?: string | null;
  /** Raw JSON text of the subscriber's lists (empty during campaign sends, as in listmonk). */
  lists?: string;
}

export function subscriberData(s: SubscriberInput): object {
  return struct('models.Subscriber', {
    ID: BigInt(s.id ?? 0),
    CreatedAt: nullTime(s.created_at),
    UpdatedAt: nullTime(s.updated_at),
    UUID: s.uuid,
    Email: s.email,
    Name: s.name,
    Attribs: s.attribs ?? {},
    Status: s.status ?? 'enabled',
    Lists: s.lists ?? '',
    FirstName: () => firstName(s.name),
    LastName: () => lastName(s.name),
  });
}

export interface CampaignInput {
  id?: number;
  uuid: string;
  name: string;
  subject: string;
  from_email?: string;
  type?: string;
  tags?: string[];
  attribs?: Record<string, unknown>;
  content_type?: string;
  messenger?: string;
  headers?: Record<string, string>[];
  body?: string;
  alt_body?: string | null;
  template_id?: number | null;
  archive?: boolean;
  archive_slug?: string | null;
  to_send?: number;
  sent?: number;
  send_at?: string | null;
  created_at?: string | null;
  updated_at?: string | null;
  started_at?: string | null;
}

export function campaignData(c: CampaignInput): object {
  return struct('models.Campaign', {
    ID: BigInt(c.id ?? 0),
    CreatedAt: nullTime(c.created_at),
    UpdatedAt: nullTime(c.updated_at),
    UUID: c.uuid,
    Type: c.type ?? 'regular',
    Name: c.name,
    Subject: c.subject,
    FromEmail: c.from_email ?? '',
    Body: c.body ?? '',
    AltBody: c.alt_body ?? null,
    SendAt: nullTime(c.send_at),
    StartedAt: nullTime(c.started_at),
    ContentType: c.content_type ?? 'richtext',
    Tags: c.tags ?? [],
    Headers: c.headers ?? [],
    TemplateID: BigInt(c.template_id ?? 0),
    Messenger: c.messenger ?? 'email',
    Archive: c.archive ?? false,
    ArchiveSlug: c.archive_slug ?? null,
    Attribs: c.attribs ?? {},
    ToSend: BigInt(c.to_send ?? 0),
    Sent: BigInt(c.sent ?? 0),
  });
}

/** The campaign message passed as `.` to campaign templates, bodies, subjects and headers. */
export function campaignMessageData(campaign: object, subscriber: object, rendered: { subject?: string; body?: string; altBody?: string } = {}): object {
  return struct('*manager.CampaignMessage', {
    Campaign: campaign,
    Subscriber: subscriber,
    Subject: () => rendered.subject ?? (campaign as { Subject: string }).Subject,
    Body: () => rendered.body ?? '',
    AltBody: () => rendered.altBody ?? '',
  });
}

/** The data of a transactional message: {Subscriber, Tx}. */
export function txMessageData(subscriber: object, tx: { data?: Record<string, unknown>; subject?: string; from_email?: string; template_id?: number; headers?: unknown; content_type?: string; messenger?: string; altbody?: string; subscriber_emails?: string[]; subscriber_ids?: number[]; subscriber_mode?: string }): object {
  return struct('manager.TxMessage', {
    Subscriber: subscriber,
    Tx: struct('models.TxMessage', {
      SubscriberEmails: tx.subscriber_emails ?? [],
      SubscriberIDs: (tx.subscriber_ids ?? []).map((n) => BigInt(n)),
      SubscriberMode: tx.subscriber_mode ?? 'default',
      TemplateID: BigInt(tx.template_id ?? 0),
      Data: tx.data ?? {},
      FromEmail: tx.from_email ?? '',
      Headers: tx.headers ?? [],
      ContentType: tx.content_type ?? 'html',
      Messenger: tx.messenger ?? 'email',
      Subject: tx.subject ?? '',
      AltBody: tx.altbody ?? '',
    }),
  });
}
