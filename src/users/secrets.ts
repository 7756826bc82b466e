// Password hashing (scrypt from node:crypto, salted, slow) and API tokens (random, stored as
// SHA-256: a 48-character random token needs no slow hash, and auth stays fast).
import bcrypt from 'bcryptjs';
import { createHash, randomBytes, randomInt, scryptSync, timingSafeEqual } from 'node:crypto';

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

export function hashPassword(password: string): string {
  const salt = randomBytes(16);
  const hash = scryptSync(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}`;
}

/** A bcrypt hash as listmonk stores login passwords (users migrated from listmonk until they sign in). */
export function isBcryptHash(stored: string | null): boolean {
  return /^\$2[aby]\$/.test(stored ?? '');
}

export function verifyPassword(password: string, stored: string | null): boolean {
  if (isBcryptHash(stored)) return bcrypt.compareSync(password, stored!);
  const parts = stored?.split('$') ?? [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const want = Buffer.from(parts[5], 'base64');
  const got = scryptSync(password, salt, want.length, { N, r, p, maxmem: 256 * N * r });
  return timingSafeEqual(got, want);
}

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** A random alphanumeric string (tokens, generated passwords). */
export function randomString(length: number): string {
  let s = '';
  for (let i = 0; i < length; i++) s += ALNUM[randomInt(ALNUM.length)];
  return s;
}

export function sha256Hex(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
