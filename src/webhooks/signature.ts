// Standard Webhooks signatures (https://www.standardwebhooks.com): `v1,` + base64 of the
// HMAC-SHA256 of "<webhook-id>.<webhook-timestamp>.<body>", keyed with the bytes of the secret
// (whsec_ + base64). While a rotated-out secret still signs, both signatures are sent, space
// separated, so a receiver that has not switched to the new secret yet keeps verifying.
import { createHmac } from 'node:crypto';

const PREFIX = 'whsec_';

/** The key of a `whsec_…` secret: the bytes its base64 part decodes to. */
function secretKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
}

/** One `v1,<base64>` signature of the message. */
export function signature(secret: string, id: string, timestamp: number, body: string): string {
  return `v1,${createHmac('sha256', secretKey(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** A webhook's secrets: the current one, and the one it replaced while that still signs. */
export interface WebhookSecrets {
  secret: string;
  previous_secret: string | null;
  previous_secret_until: string | null;
}

/** The `webhook-signature` header: the current secret's signature, then the previous secret's until its overlap ends. */
export function signatureHeader(s: WebhookSecrets, id: string, timestamp: number, body: string, now = Date.now()): string {
  const sigs = [signature(s.secret, id, timestamp, body)];
  if (s.previous_secret && s.previous_secret_until && Date.parse(s.previous_secret_until) > now) sigs.push(signature(s.previous_secret, id, timestamp, body));
  return sigs.join(' ');
}
