// Bounce notifications of e-mail providers: each request is authenticated the way its provider
// documents (signature or credentials), then mapped to bounces. Refusals throw an HttpError
// (400; Postmark's failed Basic auth 401).
import { createHmac, createPublicKey, timingSafeEqual, verify as verifySignature } from 'node:crypto';
import { HttpError, badRequest } from '../http/errors.ts';
import type { BounceInput, BounceType } from './store.ts';
import { SnsError, type SnsVerifier } from './sns.ts';

export const PROVIDERS = ['ses', 'sendgrid', 'postmark', 'forwardemail'] as const;
export type Provider = (typeof PROVIDERS)[number];

/** What a provider handler needs from the request. */
export interface ProviderRequest {
  raw: Buffer;
  header(name: string): string | undefined;
}

const CAMPAIGN_HEADER = 'X-Listmonk-Campaign';

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw badRequest('the notification body is not valid JSON');
  }
}

/** Provider time as an ISO timestamp; now when missing or unreadable. */
function timestamp(v: unknown): string {
  const d = typeof v === 'number' ? new Date(v * 1000) : typeof v === 'string' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : new Date().toISOString();
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const email = (v: unknown) => str(v).trim().toLowerCase();

function sameSecret(given: string, want: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(want);
  return a.length === b.length && timingSafeEqual(a, b);
}

// --- Amazon SES (through SNS) ---------------------------------------------------------------

/** SNS subscription handshakes are confirmed and record nothing. */
export async function sesBounces(req: ProviderRequest, sns: SnsVerifier): Promise<BounceInput[]> {
  const kind = req.header('x-amz-sns-message-type') ?? '';
  if (!['SubscriptionConfirmation', 'UnsubscribeConfirmation', 'Notification'].includes(kind)) {
    throw badRequest(`invalid X-Amz-Sns-Message-Type "${kind}"`);
  }
  let msg;
  try {
    msg = await sns.verify(req.raw.toString('utf8'));
    if (msg.Type !== kind) throw new SnsError('the message type does not match X-Amz-Sns-Message-Type');
    if (kind !== 'Notification') {
      await sns.confirm(msg);
      return [];
    }
  } catch (e) {
    if (e instanceof SnsError) throw badRequest(e.message);
    throw e;
  }

  let n: unknown;
  try {
    n = JSON.parse(msg.Message);
  } catch {
    throw badRequest('the SES notification is not JSON');
  }
  if (!isObject(n)) throw badRequest('the SES notification is not an object');
  const kindOf = str(n.notificationType) || str(n.eventType);
  // Deliveries, sends and other events are not bounces: accepted and ignored.
  if (kindOf !== 'Bounce' && kindOf !== 'Complaint') return [];
  const mail = isObject(n.mail) ? n.mail : {};
  const to = Array.isArray(mail.destination) ? email(mail.destination[0]) : '';
  if (!to) throw badRequest('the SES notification names no destination');

  let type: BounceType = 'complaint';
  if (kindOf === 'Bounce') {
    const bounce = isObject(n.bounce) ? n.bounce : {};
    const first = Array.isArray(bounce.bouncedRecipients) && isObject(bounce.bouncedRecipients[0]) ? bounce.bouncedRecipients[0] : {};
    type = bounce.bounceType === 'Permanent' || str(first.status) === '5.4.4' ? 'hard' : 'soft';
  }
  let campaignUuid = '';
  if (!mail.headersTruncated && Array.isArray(mail.headers)) {
    const h = mail.headers.find((x: unknown) => isObject(x) && str(x.name).toLowerCase() === CAMPAIGN_HEADER.toLowerCase()) as Json | undefined;
    campaignUuid = str(h?.value);
  }
  return [{ email: to, campaignUuid, type, source: 'ses', meta: n, createdAt: timestamp(mail.timestamp) }];
}

// --- SendGrid ---------------------------------------------------------------------------------

/** Signed event webhook: ECDSA P-256 / SHA-256 over timestamp + raw body. */
export function sendgridBounces(req: ProviderRequest, publicKeyB64: string): BounceInput[] {
  if (!publicKeyB64.trim()) throw badRequest('the SendGrid verification key (bounce.sendgrid_key) is not set');
  const sig = req.header('x-twilio-email-event-webhook-signature') ?? '';
  const ts = req.header('x-twilio-email-event-webhook-timestamp') ?? '';
  if (!sig || !ts) throw badRequest('missing SendGrid signature headers');
  let ok = false;
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeyB64.trim(), 'base64'), format: 'der', type: 'spki' });
    ok = verifySignature('sha256', Buffer.concat([Buffer.from(ts, 'utf8'), req.raw]), key, Buffer.from(sig, 'base64'));
  } catch {
    ok = false;
  }
  if (!ok) throw badRequest('invalid SendGrid signature');

  const events = parseJson(req.raw);
  if (!Array.isArray(events)) throw badRequest('the SendGrid notification is not an array of events');
  return events.filter((e): e is Json => isObject(e) && e.event === 'bounce' && email(e.email) !== '').map((e) => ({
    email: email(e.email),
    campaignUuid: str(e.XListmonkCampaign),
    type: e.bounce_classification === 'technical' || e.bounce_classification === 'content' ? 'soft' : 'hard',
    source: 'sendgrid',
    meta: e,
    createdAt: timestamp(e.timestamp),
  }));
}

// --- Postmark -----------------------------------------------------------------------------------

const POSTMARK_TYPES: Record<string, BounceType> = {
  HardBounce: 'hard', BadEmailAddress: 'hard', ManuallyDeactivated: 'hard',
  SoftBounce: 'soft', Transient: 'soft', DnsError: 'soft', SpamNotification: 'soft', VirusNotification: 'soft', DMARCPolicy: 'soft',
  SpamComplaint: 'complaint',
};

/** HTTP Basic with the configured user and password (both required). */
export function postmarkBounces(req: ProviderRequest, creds: { username: string; password: string }): BounceInput[] {
  if (!creds.username || !creds.password) throw badRequest('the Postmark webhook credentials (bounce.postmark) are not set');
  const m = /^Basic\s+([A-Za-z0-9+/]+=*)$/.exec((req.header('authorization') ?? '').trim());
  const pair = m ? Buffer.from(m[1], 'base64').toString('utf8') : '';
  const i = pair.indexOf(':');
  const okUser = i > 0 && sameSecret(pair.slice(0, i), creds.username);
  const okPass = i > 0 && sameSecret(pair.slice(i + 1), creds.password);
  if (!okUser || !okPass) throw new HttpError(401, 'invalid Postmark webhook credentials');

  const n = parseJson(req.raw);
  if (!isObject(n)) throw badRequest('the Postmark notification is not an object');
  if (n.RecordType !== 'Bounce' && n.RecordType !== 'SpamComplaint') return [];
  const type = POSTMARK_TYPES[str(n.Type)];
  if (!type) throw badRequest(`unsupported Postmark bounce type "${str(n.Type)}"`);
  if (!email(n.Email)) throw badRequest('the Postmark notification has no Email');
  const metadata = isObject(n.Metadata) ? n.Metadata : {};
  return [{ email: email(n.Email), campaignUuid: str(metadata[CAMPAIGN_HEADER]), type, source: 'postmark', meta: n, createdAt: timestamp(n.BouncedAt) }];
}

// --- Forward Email ------------------------------------------------------------------------------

const FORWARDEMAIL_HARD = ['block', 'recipient', 'virus', 'spam'];

/** Hex HMAC-SHA256 of the raw body with the configured key, in X-Webhook-Signature. */
export function forwardemailBounces(req: ProviderRequest, key: string): BounceInput[] {
  if (!key) throw badRequest('the Forward Email webhook key (bounce.forwardemail.key) is not set');
  const given = (req.header('x-webhook-signature') ?? '').trim().toLowerCase();
  const want = createHmac('sha256', key).update(req.raw).digest('hex');
  if (!/^[0-9a-f]{64}$/.test(given) || !sameSecret(given, want)) throw badRequest('invalid Forward Email signature');

  const n = parseJson(req.raw);
  if (!isObject(n)) throw badRequest('the Forward Email notification is not an object');
  if (!email(n.recipient)) throw badRequest('the Forward Email notification has no recipient');
  const bounce = isObject(n.bounce) ? n.bounce : {};
  const headers = isObject(n.headers) ? n.headers : {};
  return [{
    email: email(n.recipient),
    campaignUuid: str(headers[CAMPAIGN_HEADER]),
    type: FORWARDEMAIL_HARD.includes(str(bounce.category)) ? 'hard' : 'soft',
    source: 'forwardemail',
    meta: n,
    createdAt: timestamp(n.bounced_at),
  }];
}
