// TOTP two-factor authentication (RFC 6238: SHA-1, 6 digits, 30 s), as authenticator apps and
// listmonk use it. otpauth does the algorithm, qrcode draws the enrolment QR code.
import { Secret, TOTP } from 'otpauth';

const DIGITS = 6;

function totp(secretBase32: string, issuer = '', account = ''): TOTP {
  return new TOTP({ issuer, label: account, algorithm: 'SHA1', digits: DIGITS, period: 30, secret: Secret.fromBase32(secretBase32) });
}

/** A fresh random secret (160 bits) and its QR code, a 200×200 PNG in base64. */
export async function newTotpEnrolment(issuer: string, account: string): Promise<{ secret: string; qr: string }> {
  const secret = new Secret({ size: 20 }).base32;
  const { default: QRCode } = await import('qrcode'); // loaded on first use
  const png = await QRCode.toBuffer(totp(secret, issuer, account).toString(), { type: 'png', width: 200, margin: 1 });
  return { secret, qr: png.toString('base64') };
}

/** True when the code is valid for the secret now (one step of clock drift allowed either way). */
export function totpCodeValid(secretBase32: string, code: string): boolean {
  if (!/^\d{6}$/.test(code)) return false;
  try {
    return totp(secretBase32).validate({ token: code, window: 1 }) !== null;
  } catch {
    return false; // not a base32 secret
  }
}

/** A well-formed base32 TOTP secret of at least 80 bits. */
export function isTotpSecret(s: string): boolean {
  return /^[A-Z2-7]{16,128}=*$/.test(s);
}
