// TOTP two-factor authentication (RFC 6238: SHA-1, 6 digits, 30 s), as authenticator apps and
// listmonk use it. otpauth does the algorithm, qrcode draws the enrolment QR code.
import { Secret, TOTP } from 'otpauth';

const DIGITS = 6;
const PERIOD_S = 30;

function totp(secretBase32: string, issuer = '', account = ''): TOTP {
  return new TOTP({ issuer, label: account, algorithm: 'SHA1', digits: DIGITS, period: PERIOD_S, secret: Secret.fromBase32(secretBase32) });
}

/** A fresh random secret (160 bits) and its QR code, a 200×200 PNG in base64. */
export async function newTotpEnrolment(issuer: string, account: string): Promise<{ secret: string; qr: string }> {
  const secret = new Secret({ size: 20 }).base32;
  const { default: QRCode } = await import('qrcode'); // loaded on first use
  const png = await QRCode.toBuffer(totp(secret, issuer, account).toString(), { type: 'png', width: 200, margin: 1 });
  return { secret, qr: png.toString('base64') };
}

/**
 * The time step (Unix time / 30 s) the code belongs to when it is valid for the secret now (one
 * step of clock drift allowed either way), else null. Callers accept a step once (see
 * UserStore.useTotpStep), so a code cannot be replayed within its window.
 */
export function totpCodeStep(secretBase32: string, code: string, now = Date.now()): number | null {
  if (!/^\d{6}$/.test(code)) return null;
  try {
    const delta = totp(secretBase32).validate({ token: code, window: 1, timestamp: now });
    return delta === null ? null : Math.floor(now / 1000 / PERIOD_S) + delta;
  } catch {
    return null; // not a base32 secret
  }
}

/** A well-formed base32 TOTP secret of at least 80 bits. */
export function isTotpSecret(s: string): boolean {
  return /^[A-Z2-7]{16,128}=*$/.test(s);
}
