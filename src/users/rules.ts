// The account rules: what a username, a password, a staff e-mail address and a role name must
// be. The users service applies them to API input; the store's entry points for the command
// line and the installer check names and addresses too, and passwords reach the store only
// through passwordHashFor, as nothing checks their input before them.
import { invalid } from '../core/errors.ts';
import { hashPassword, type PasswordHash } from './secrets.ts';
import { LIMITS } from '../core/limits.ts';
import { validateEmail } from '../mail/address.ts';

export const PASSWORD_MIN = LIMITS.passwordMinChars;
const USERNAME_RE = new RegExp(`^[a-zA-Z0-9_\\-.@]{3,${LIMITS.name}}$`);

export function assertUsername(username: string): void {
  if (!USERNAME_RE.test(username)) throw invalid(`invalid username "${username.slice(0, 40)}": 3 to ${LIMITS.name} of letters, digits, _ - . @`);
}

export function assertPassword(password: string): void {
  if (password.length < PASSWORD_MIN || Buffer.byteLength(password) > LIMITS.name) {
    throw invalid(`the password must be ${PASSWORD_MIN} to ${LIMITS.name} characters long`);
  }
}

/**
 * A new password, checked, as the hash the store keeps. Hashed off the main thread before any
 * transaction: the store's writes take the hash.
 */
export async function passwordHashFor(password: string): Promise<PasswordHash> {
  assertPassword(password);
  return hashPassword(password);
}

/** Trimmed, lower-cased bare address, or a 400 (the subscribers' syntax rules; no domain lists for staff). */
export function normaliseEmail(raw: string): string {
  return validateEmail(raw, { allow: [], block: [] });
}

/** A role's name, or the name users give themselves on their profile: not empty. */
export function assertName(name: string): void {
  if (name === '' || Buffer.byteLength(name) > LIMITS.name) throw invalid(`invalid "name": 1 to ${LIMITS.name} characters`);
}
