// Bounce notifications of e-mail providers: each request is authenticated the way its provider
// documents (signature, credentials or shared secret), then mapped to bounces. Refusals throw an
// HttpError (400; Postmark's failed Basic auth 401); refusals caused by our own configuration are
// NotConfigured, which the service also logs (the provider's sender never shows them to anyone).
// PROVIDERS is the table the webhook route dispatches on; each entry reads its settings at every
// request.
import { createHash, createHmac, createPublicKey, timingSafeEqual, verify as verifySignature } from 'node:crypto';
import { DomainError, invalid, unauthenticated } from '../core/errors.ts';
import type { SettingsService } from '../settings/service.ts';
import type { BounceInput, BounceType } from './store.ts';
import { classifyFailureText } from './dsn.ts';
import { SnsError, type SnsVerifier } from './sns.ts';

/** What a provider handler needs from the request. */
export interface ProviderRequest {
  raw: Buffer;
  header(name: string): string | undefined;
  query(name: string): string | undefined;
}

/** The bounces a notification reports, and the body to answer with when it is not `{"data": true}`. */
export interface ProviderResult {
  bounces: BounceInput[];
  reply?: Record<string, string>;
}

interface Provider {
  enabled(settings: SettingsService): boolean;
  receive(req: ProviderRequest, settings: SettingsService, sns: SnsVerifier): ProviderResult | Promise<ProviderResult>;
}

const CAMPAIGN_HEADER = 'X-Listmonk-Campaign';

/** A refusal because a setting is missing: the operator must act, so the service logs it. */
export class NotConfigured extends DomainError {
  constructor(message: string) {
    super('invalid', message);
  }
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

function parseJson(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    throw invalid('the notification body is not valid JSON');
  }
}

/** Provider time as an ISO timestamp; now when missing or unreadable. */
function timestamp(v: unknown): string {
  const d = typeof v === 'number' ? new Date(v * 1000) : typeof v === 'string' ? new Date(v) : null;
  return d && !Number.isNaN(d.getTime()) ? d.toISOString() : new Date().toISOString();
}

const str = (v: unknown) => (typeof v === 'string' ? v : '');
const email = (v: unknown) => str(v).trim().toLowerCase();

/** Constant-time comparison that does not reveal the secret's length either. */
function sameSecret(given: string, want: string): boolean {
  const digest = (v: string) => createHash('sha256').update(v).digest();
  return timingSafeEqual(digest(given), digest(want));
}

/** The value of a header named in a list of {name, value} objects (any case), or "". */
function headerValue(headers: unknown, name: string): string {
  if (!Array.isArray(headers)) return '';
  const h = headers.find((x: unknown) => isObject(x) && str(x.name).toLowerCase() === name.toLowerCase()) as Json | undefined;
  return str(h?.value).trim();
}

// --- Amazon SES (through SNS) ---------------------------------------------------------------

/**
 * Only messages of the topics in bounce.ses_topic_arns are taken (any AWS account can sign an
 * SNS message, for its own topic); with none configured, everything is refused, subscription
 * handshakes included. The topic is checked after the signature, so only genuine SNS messages
 * reach the log. SNS subscription handshakes are confirmed and record nothing.
 */
async function sesBounces(req: ProviderRequest, sns: SnsVerifier, topicArns: string[]): Promise<BounceInput[]> {
  const kind = req.header('x-amz-sns-message-type') ?? '';
  if (!['SubscriptionConfirmation', 'UnsubscribeConfirmation', 'Notification'].includes(kind)) {
    throw invalid(`invalid X-Amz-Sns-Message-Type "${kind}"`);
  }
  let msg;
  try {
    msg = await sns.verify(req.raw.toString('utf8'));
    if (msg.Type !== kind) throw new SnsError('the message type does not match X-Amz-Sns-Message-Type');
    if (!topicArns.includes(msg.TopicArn)) {
      const topic = `SNS topic "${msg.TopicArn.slice(0, 300)}"`;
      throw new NotConfigured(topicArns.length
        ? `SES ${kind} refused: ${topic} is not in bounce.ses_topic_arns`
        : `SES ${kind} refused: bounce.ses_topic_arns is empty, so no SNS topic is accepted (add ${topic} if it is yours)`);
    }
    if (kind !== 'Notification') {
      await sns.confirm(msg);
      return [];
    }
  } catch (e) {
    if (e instanceof SnsError) throw invalid(e.message);
    throw e;
  }

  let n: unknown;
  try {
    n = JSON.parse(msg.Message);
  } catch {
    throw invalid('the SES notification is not JSON');
  }
  if (!isObject(n)) throw invalid('the SES notification is not an object');
  const kindOf = str(n.notificationType) || str(n.eventType);
  // Deliveries, sends and other events are not bounces: accepted and ignored.
  if (kindOf !== 'Bounce' && kindOf !== 'Complaint') return [];
  const mail = isObject(n.mail) ? n.mail : {};
  const to = Array.isArray(mail.destination) ? email(mail.destination[0]) : '';
  if (!to) throw invalid('the SES notification names no destination');

  let type: BounceType = 'complaint';
  if (kindOf === 'Bounce') {
    const bounce = isObject(n.bounce) ? n.bounce : {};
    const first = Array.isArray(bounce.bouncedRecipients) && isObject(bounce.bouncedRecipients[0]) ? bounce.bouncedRecipients[0] : {};
    type = bounce.bounceType === 'Permanent' || str(first.status) === '5.4.4' ? 'hard' : 'soft';
  }
  const campaignUuid = mail.headersTruncated ? '' : headerValue(mail.headers, CAMPAIGN_HEADER);
  return [{ email: to, campaignUuid, type, source: 'ses', meta: n, createdAt: timestamp(mail.timestamp) }];
}

// --- SendGrid ---------------------------------------------------------------------------------

/** How old a signed SendGrid timestamp may be (replays of a captured request are refused after it). */
export const SENDGRID_MAX_AGE_SECONDS = 600;
/** How far ahead of our clock a SendGrid timestamp may be (clock skew). */
export const SENDGRID_MAX_AHEAD_SECONDS = 300;

/** Signed event webhook: ECDSA P-256 / SHA-256 over timestamp + raw body; the timestamp must be recent. */
function sendgridBounces(req: ProviderRequest, publicKeyB64: string): BounceInput[] {
  if (!publicKeyB64.trim()) throw new NotConfigured('the SendGrid verification key (bounce.sendgrid_key) is not set');
  const sig = req.header('x-twilio-email-event-webhook-signature') ?? '';
  const ts = req.header('x-twilio-email-event-webhook-timestamp') ?? '';
  if (!sig || !ts) throw invalid('missing SendGrid signature headers');
  let ok = false;
  try {
    const key = createPublicKey({ key: Buffer.from(publicKeyB64.trim(), 'base64'), format: 'der', type: 'spki' });
    ok = verifySignature('sha256', Buffer.concat([Buffer.from(ts, 'utf8'), req.raw]), key, Buffer.from(sig, 'base64'));
  } catch {
    ok = false;
  }
  if (!ok) throw invalid('invalid SendGrid signature');
  const age = Date.now() / 1000 - Number(ts);
  if (!/^\d{1,12}$/.test(ts) || age > SENDGRID_MAX_AGE_SECONDS || age < -SENDGRID_MAX_AHEAD_SECONDS) {
    throw invalid(`the SendGrid signature timestamp is more than ${SENDGRID_MAX_AGE_SECONDS} s old or ${SENDGRID_MAX_AHEAD_SECONDS} s ahead (a replay?)`);
  }

  const events = parseJson(req.raw);
  if (!Array.isArray(events)) throw invalid('the SendGrid notification is not an array of events');
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
function postmarkBounces(req: ProviderRequest, creds: { username: string; password: string }): BounceInput[] {
  if (!creds.username || !creds.password) throw new NotConfigured('the Postmark webhook credentials (bounce.postmark) are not set');
  const m = /^Basic\s+([A-Za-z0-9+/]+=*)$/.exec((req.header('authorization') ?? '').trim());
  const pair = m ? Buffer.from(m[1], 'base64').toString('utf8') : '';
  const i = pair.indexOf(':');
  const okUser = i > 0 && sameSecret(pair.slice(0, i), creds.username);
  const okPass = i > 0 && sameSecret(pair.slice(i + 1), creds.password);
  if (!okUser || !okPass) throw unauthenticated('invalid Postmark webhook credentials');

  const n = parseJson(req.raw);
  if (!isObject(n)) throw invalid('the Postmark notification is not an object');
  if (n.RecordType !== 'Bounce' && n.RecordType !== 'SpamComplaint') return [];
  const type = POSTMARK_TYPES[str(n.Type)];
  if (!type) throw invalid(`unsupported Postmark bounce type "${str(n.Type)}"`);
  if (!email(n.Email)) throw invalid('the Postmark notification has no Email');
  const metadata = isObject(n.Metadata) ? n.Metadata : {};
  return [{ email: email(n.Email), campaignUuid: str(metadata[CAMPAIGN_HEADER]), type, source: 'postmark', meta: n, createdAt: timestamp(n.BouncedAt) }];
}

// --- Forward Email ------------------------------------------------------------------------------

const FORWARDEMAIL_HARD = ['block', 'recipient', 'virus', 'spam'];

/** Hex HMAC-SHA256 of the raw body with the configured key, in X-Webhook-Signature. */
function forwardemailBounces(req: ProviderRequest, key: string): BounceInput[] {
  if (!key) throw new NotConfigured('the Forward Email webhook key (bounce.forwardemail.key) is not set');
  const given = (req.header('x-webhook-signature') ?? '').trim().toLowerCase();
  const want = createHmac('sha256', key).update(req.raw).digest('hex');
  if (!/^[0-9a-f]{64}$/.test(given) || !sameSecret(given, want)) throw invalid('invalid Forward Email signature');

  const n = parseJson(req.raw);
  if (!isObject(n)) throw invalid('the Forward Email notification is not an object');
  if (!email(n.recipient)) throw invalid('the Forward Email notification has no recipient');
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

// --- Azure Communication Services (Event Grid) ------------------------------------------------

interface AzureSettings {
  enabled: boolean;
  shared_secret: string;
  shared_secret_header: string;
}

const AZURE_SECRET_HEADER = 'X-Listmonk-Webhook-Secret';
/** An HTTP field name (RFC 9110 token): anything else would make the header lookup throw. */
const HEADER_NAME_RE = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const AZURE_DELIVERY_REPORT = 'Microsoft.Communication.EmailDeliveryReportReceived';

/** The bounce type of a delivery report status, or null when it is not a bounce (Delivered, Expanded…). */
function azureBounceType(status: string, details: string): BounceType | null {
  switch (status.toLowerCase()) {
    case 'bounced':
    case 'suppressed':
      return 'hard';
    case 'failed':
      return classifyFailureText(details).type;
    case 'filteredspam':
    case 'quarantined':
      return /complaint|abuse/i.test(details) ? 'complaint' : 'soft';
    default:
      return null;
  }
}

function azureEvents(raw: Buffer): Json[] {
  const events = parseJson(raw);
  if (!Array.isArray(events) || !events.every(isObject)) throw invalid('the Event Grid notification is not an array of events');
  return events;
}

/**
 * Event Grid first proves the endpoint by a validation event whose code is echoed back; that
 * answer records nothing and needs no secret (Event Grid may not send custom headers with it).
 * Events must carry the shared secret in the query `code` or in the configured header. Unlike
 * listmonk, a missing secret refuses everything: otherwise anyone could report bounces.
 */
function azureReceive(req: ProviderRequest, cfg: AzureSettings): ProviderResult {
  const secret = cfg.shared_secret.trim();
  if (!secret) throw new NotConfigured('the Azure webhook shared secret (bounce.azure.shared_secret) is not set');

  if (/^SubscriptionValidation(Event)?$/i.test(req.header('aeg-event-type') ?? '')) {
    const data = azureEvents(req.raw)[0]?.data;
    const code = isObject(data) ? str(data.validationCode).trim() : '';
    if (!code) throw invalid('the Event Grid validation event has no validationCode');
    return { bounces: [], reply: { validationResponse: code } };
  }

  const headerName = cfg.shared_secret_header.trim() || AZURE_SECRET_HEADER;
  if (!HEADER_NAME_RE.test(headerName)) throw invalid(`bounce.azure.shared_secret_header "${headerName.slice(0, 100)}" is not a valid header name`);
  const given = [req.query('code'), req.header(headerName)].map((v) => (v ?? '').trim()).filter((v) => v !== '');
  if (!given.some((v) => sameSecret(v, secret))) throw invalid('invalid or missing Azure webhook shared secret');

  const bounces: BounceInput[] = [];
  for (const ev of azureEvents(req.raw)) {
    if (ev.eventType !== AZURE_DELIVERY_REPORT || !isObject(ev.data)) continue;
    const data = ev.data;
    const details = isObject(data.deliveryStatusDetails) ? str(data.deliveryStatusDetails.statusMessage) : '';
    const type = azureBounceType(str(data.status), details);
    const to = email(data.recipient);
    if (!type || !to) continue;
    // Azure echoes no custom header, and our Message-IDs name no campaign: no campaign link.
    bounces.push({ email: to, type, source: 'azure', meta: ev, createdAt: timestamp(data.deliveryAttemptTimeStamp ?? data.deliveryAttemptTimestamp ?? ev.eventTime) });
  }
  return { bounces };
}

// --- Lettermint ---------------------------------------------------------------------------------

/** How far the signed timestamp may be from our clock. */
export const LETTERMINT_TOLERANCE_SECONDS = 300;
const LETTERMINT_TYPES: Record<string, BounceType> = {
  'message.hard_bounced': 'hard',
  'message.soft_bounced': 'soft',
  'message.spam_complaint': 'complaint',
};

/** `X-Lettermint-Signature: t=<unix>,v1=<hex>`: HMAC-SHA256 of "<t>.<body>" with the key. */
function lettermintBounces(req: ProviderRequest, key: string): BounceInput[] {
  if (!key) throw new NotConfigured('the Lettermint webhook key (bounce.lettermint.key) is not set');
  const parts = new Map<string, string>();
  for (const part of (req.header('x-lettermint-signature') ?? '').split(',')) {
    const i = part.indexOf('=');
    if (i > 0) parts.set(part.slice(0, i).trim(), part.slice(i + 1).trim());
  }
  const t = parts.get('t') ?? '';
  const v1 = (parts.get('v1') ?? '').toLowerCase();
  if (!/^\d{1,12}$/.test(t) || !/^[0-9a-f]{64}$/.test(v1)) throw invalid('missing or malformed X-Lettermint-Signature');
  if (Math.abs(Date.now() / 1000 - Number(t)) > LETTERMINT_TOLERANCE_SECONDS) {
    throw invalid(`the Lettermint signature timestamp is more than ${LETTERMINT_TOLERANCE_SECONDS} s away from now`);
  }
  const want = createHmac('sha256', key).update(`${t}.`).update(req.raw).digest();
  if (!timingSafeEqual(want, Buffer.from(v1, 'hex'))) throw invalid('invalid Lettermint signature');

  const n = parseJson(req.raw);
  if (!isObject(n)) throw invalid('the Lettermint notification is not an object');
  const type = LETTERMINT_TYPES[str(n.event)];
  if (!type) return []; // deliveries, opens, webhook.test…
  const data = isObject(n.data) ? n.data : {};
  if (!email(data.recipient)) throw invalid('the Lettermint notification has no data.recipient');
  const metadata = isObject(data.metadata) ? data.metadata : {};
  return [{
    email: email(data.recipient),
    campaignUuid: headerValue(data.headers, CAMPAIGN_HEADER) || str(metadata[CAMPAIGN_HEADER]),
    type,
    source: 'lettermint',
    meta: n,
    createdAt: timestamp(n.timestamp),
  }];
}

// --- the table the webhook route dispatches on -------------------------------------------------

const bouncesOnly = (bounces: BounceInput[]): ProviderResult => ({ bounces });
const switchOf = (key: string) => (s: SettingsService) => s.get<{ enabled: boolean }>(key).enabled === true;

export const PROVIDERS: Record<string, Provider> = {
  ses: {
    enabled: (s) => s.bool('bounce.ses_enabled'),
    receive: async (req, s, sns) => bouncesOnly(await sesBounces(req, sns, s.get<string[]>('bounce.ses_topic_arns'))),
  },
  sendgrid: {
    enabled: (s) => s.bool('bounce.sendgrid_enabled'),
    receive: (req, s) => bouncesOnly(sendgridBounces(req, s.str('bounce.sendgrid_key'))),
  },
  postmark: {
    enabled: switchOf('bounce.postmark'),
    receive: (req, s) => bouncesOnly(postmarkBounces(req, s.get<{ username: string; password: string }>('bounce.postmark'))),
  },
  forwardemail: {
    enabled: switchOf('bounce.forwardemail'),
    receive: (req, s) => bouncesOnly(forwardemailBounces(req, s.get<{ key: string }>('bounce.forwardemail').key)),
  },
  azure: {
    enabled: switchOf('bounce.azure'),
    receive: (req, s) => azureReceive(req, s.get<AzureSettings>('bounce.azure')),
  },
  lettermint: {
    enabled: switchOf('bounce.lettermint'),
    receive: (req, s) => bouncesOnly(lettermintBounces(req, s.get<{ key: string }>('bounce.lettermint').key)),
  },
};
