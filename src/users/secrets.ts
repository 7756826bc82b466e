// Password hashing (scrypt from node:crypto, salted, slow) and API tokens (random, stored as
// SHA-256: a 48-character random token needs no slow hash, and auth stays fast). scrypt runs on
// libuv's thread pool: one hash takes ~40 ms of CPU, which must not hold the event loop.
import bcrypt from 'bcryptjs';
import { createHash, randomBytes, randomInt, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/**
 * Hashes computed at once. Each takes a core (and 16 MB) for ~40 ms: a flood of sign-ins must
 * leave the event loop a core, and libuv's other threads (file writes) their pool.
 */
const HASHING_AT_ONCE = 1;
let hashing = 0;
const waiting: (() => void)[] = [];

async function scryptAsync(password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> {
  if (hashing >= HASHING_AT_ONCE) await new Promise<void>((resolve) => waiting.push(resolve));
  else hashing++;
  try {
    return await new Promise((resolve, reject) => scrypt(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));
  } finally {
    // The slot passes to the next waiter, or is freed.
    const next = waiting.shift();
    if (next) next();
    else hashing--;
  }
}

/** A bcrypt hash as listmonk stores login passwords (users migrated from listmonk until they sign in). */
export function isBcryptHash(stored: string | null): boolean {
  return /^\$2[aby]\$/.test(stored ?? '');
}

/** A password's hash, as stored: "scrypt$N$r$p$salt$hash" (base64 salt and hash), the format since the first release. */
export type PasswordHash = string & { readonly __passwordHash: true };

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, SCRYPT.keylen, { N: SCRYPT.N, r: SCRYPT.r, p: SCRYPT.p });
  return `scrypt$${SCRYPT.N}$${SCRYPT.r}$${SCRYPT.p}$${salt.toString('base64')}$${hash.toString('base64')}` as PasswordHash;
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  if (isBcryptHash(stored)) return bcrypt.compare(password, stored!);
  const parts = stored?.split('$') ?? [];
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false;
  const [N, r, p] = parts.slice(1, 4).map(Number);
  const salt = Buffer.from(parts[4], 'base64');
  const want = Buffer.from(parts[5], 'base64');
  const got = await scryptAsync(password, salt, want.length, { N, r, p, maxmem: 256 * N * r });
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
