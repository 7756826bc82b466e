// Amazon SNS message verification (for SES bounce notifications): the signature over the
// canonical string of the message, checked with Amazon's signing certificate. The certificate
// is fetched only from an SNS host and cached; the fetcher is injectable (tests, no network).
import { X509Certificate, createVerify } from 'node:crypto';

/** Amazon's SNS signing certificates, e.g. https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-abc123.pem */
const CERT_URL_RE = /^https:\/\/sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?\/SimpleNotificationService-[A-Za-z0-9]+\.pem$/;
/** Subscription confirmation links point at the SNS API of a region. */
const SNS_URL_RE = /^https:\/\/sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?\/\?/;

export type CertificateFetcher = (url: string) => Promise<string>;
/** Visits a SubscribeURL / UnsubscribeURL (confirms the SNS subscription). */
export type UrlVisitor = (url: string) => Promise<void>;

export interface SnsMessage {
  Type: string;
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  Subject?: string;
  Token?: string;
  SubscribeURL?: string;
  UnsubscribeURL?: string;
}

export class SnsError extends Error {}

export const fetchCertificate: CertificateFetcher = async (url) => {
  const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new SnsError(`fetching the SNS certificate failed: HTTP ${res.status}`);
  return res.text();
};

export const visitUrl: UrlVisitor = async (url) => {
  const res = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new SnsError(`confirming the SNS subscription failed: HTTP ${res.status}`);
};

/** The string SNS signs: chosen keys in alphabetical order, each as "Key\nValue\n". */
function canonical(m: SnsMessage): string {
  const keys = m.Type === 'Notification'
    ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type']
    : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  let out = '';
  for (const k of keys) {
    const v = (m as unknown as Record<string, unknown>)[k];
    if (k === 'Subject' && (v === undefined || v === null)) continue;
    out += `${k}\n${String(v ?? '')}\n`;
  }
  return out;
}

export class SnsVerifier {
  private readonly certs = new Map<string, X509Certificate>();

  constructor(public fetchCert: CertificateFetcher = fetchCertificate, public visit: UrlVisitor = visitUrl) {}

  /** Parses and verifies an SNS message body; throws SnsError saying why it is refused. */
  async verify(body: string): Promise<SnsMessage> {
    let m: SnsMessage;
    try {
      m = JSON.parse(body);
    } catch {
      throw new SnsError('the body is not JSON');
    }
    if (!m || typeof m !== 'object') throw new SnsError('the body is not an SNS message');
    for (const k of ['Type', 'MessageId', 'TopicArn', 'Message', 'Timestamp', 'Signature', 'SigningCertURL'] as const) {
      if (typeof m[k] !== 'string') throw new SnsError(`the SNS message has no ${k}`);
    }
    const algorithm = m.SignatureVersion === '1' ? 'RSA-SHA1' : m.SignatureVersion === '2' ? 'RSA-SHA256' : null;
    if (!algorithm) throw new SnsError(`unsupported SNS SignatureVersion "${String(m.SignatureVersion)}"`);
    if (!CERT_URL_RE.test(m.SigningCertURL)) throw new SnsError('the SNS signing certificate URL is not an Amazon SNS address');
    const cert = await this.certificate(m.SigningCertURL);
    const ok = createVerify(algorithm).update(canonical(m), 'utf8').verify(cert.publicKey, m.Signature, 'base64');
    if (!ok) throw new SnsError('invalid SNS signature');
    return m;
  }

  /** Confirms a (un)subscription by visiting its URL, which must be an SNS address. */
  async confirm(m: SnsMessage): Promise<void> {
    const url = m.Type === 'UnsubscribeConfirmation' ? m.UnsubscribeURL : m.SubscribeURL;
    if (!url || !SNS_URL_RE.test(url)) throw new SnsError('the SNS confirmation URL is not an Amazon SNS address');
    await this.visit(url);
  }

  private async certificate(url: string): Promise<X509Certificate> {
    let cert = this.certs.get(url);
    if (!cert) {
      try {
        cert = new X509Certificate(await this.fetchCert(url));
      } catch (e) {
        throw new SnsError(e instanceof SnsError ? e.message : `unusable SNS certificate: ${(e as Error).message}`);
      }
      this.certs.set(url, cert);
    }
    return cert;
  }
}
