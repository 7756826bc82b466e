// Signing in to the admin: the password, then the TOTP code for users with two-factor
// authentication; forgotten and reset passwords; and the current password a signed-in user
// confirms a sensitive change with. Sign-ins are limited per username and client address, and
// slowed down per username (its password checks one at a time), so that nobody can lock an
// account's owner out by failing on purpose (docs/decisions.md §59, §91); 2FA codes are limited
// per client address and per account, reset requests per client address, current-password
// checks per user. The sign-in pages (login-routes.ts) show the outcomes; sessions are the user
// store's.
import { setTimeout as sleep } from 'node:timers/promises';
import type { AppContext } from '../context.ts';
import { LIMITS } from '../core/limits.ts';
import { systemMessage } from '../mail/system.ts';
import { AttemptLimiter } from './attempts.ts';
import { passwordHashFor } from './rules.ts';
import { randomString, sha256Hex } from './secrets.ts';
import { PASSWORD_MIN, type UserStore } from './store.ts';
import { totpCodeStep } from './totp.ts';

/**
 * Sign-ins allowed per username from one client address in the window (counted when they
 * start, so parallel requests cannot overrun it; a success clears them), and 2FA codes per
 * client address.
 */
const LOGIN_LIMIT = { max: 10, windowMs: 15 * 60 * 1000 };
/** Failed sign-ins allowed per client address for all usernames together (trying many names from one place). */
const ADDRESS_LIMIT = { max: 30, windowMs: 15 * 60 * 1000 };
/**
 * Failed sign-ins for one username, from any address, after which every sign-in for it waits
 * before its password is checked: `firstMs`, doubling with each further failure up to `maxMs`.
 * A wait, never a refusal: the right password from another address still signs in.
 */
const USER_DELAY = { freeFailures: 5, firstMs: 250, maxMs: 4000, windowMs: 15 * 60 * 1000 };
/**
 * Password checks for one username run one at a time, so parallel guesses wait for each other's
 * slow-down; at most this many more wait their turn, the rest are refused at once.
 */
const NAME_QUEUE = 3;
/** Wrong TOTP codes allowed per account in the window, from any address (NIST SP 800-63B §5.2.2). */
const TWOFA_ACCOUNT_LIMIT = { max: 10, windowMs: 15 * 60 * 1000 };
/**
 * Current-password checks allowed per user in the window (counted when they start; a right one
 * clears them): a stolen session must not become a password oracle. The check that uses up the
 * allowance ends the session that made it.
 */
const CONFIRM_LIMIT = { max: 5, windowMs: 15 * 60 * 1000 };
/** Forgot-password requests allowed per client address in the window. */
const FORGOT_LIMIT = { max: 5, windowMs: 15 * 60 * 1000 };
/** A password-checked login waits this long for its TOTP code, with this many tries. */
const TWOFA_TTL_MS = 5 * 60 * 1000;
const TWOFA_MAX_TRIES = 5;

interface TwofaChallenge {
  userId: number;
  next: string;
  expires: number;
  tries: number;
}

export type LoginOutcome =
  | { kind: 'too-many' }
  | { kind: 'wrong' }
  /** The password was right; the TOTP code is asked for with this token. */
  | { kind: 'twofa'; token: string }
  | { kind: 'signed-in'; userId: number };

export type TwofaOutcome =
  /** No such challenge, or it expired: sign in again. */
  | { kind: 'no-challenge' }
  | { kind: 'too-many' }
  | { kind: 'wrong'; next: string }
  /** Too many wrong codes for this challenge: it is void, sign in again. */
  | { kind: 'start-over'; next: string }
  | { kind: 'signed-in'; userId: number; next: string };

export type ConfirmOutcome =
  | { kind: 'right' }
  | { kind: 'wrong' }
  /** Too many checks for this user in the window; `ended` when this one ended the caller's session. */
  | { kind: 'too-many'; ended: boolean; retryAfter: number };

export type ResetOutcome =
  /** The link's token is unknown, used or expired. */
  | { kind: 'unusable' }
  | { kind: 'refused'; message: string }
  /** The password is set; the user has two-factor on, so the TOTP code is asked for with this token. */
  | { kind: 'twofa'; token: string }
  | { kind: 'done'; userId: number };

/** How a username appears in the log: a sign-in form's username may be a password typed in the wrong field. */
export function loggedUsername(username: string): string {
  return `#${sha256Hex(username.toLowerCase()).slice(0, 12)}`;
}

/** The wait before checking a password for a username with `failures` recent failures. */
export function signInDelayMs(failures: number): number {
  if (failures < USER_DELAY.freeFailures) return 0;
  return Math.min(USER_DELAY.maxMs, USER_DELAY.firstMs * 2 ** (failures - USER_DELAY.freeFailures));
}

export class SignIn {
  private readonly loginAttempts = new AttemptLimiter(LOGIN_LIMIT.max, LOGIN_LIMIT.windowMs);
  private readonly addressFailures = new AttemptLimiter(ADDRESS_LIMIT.max, ADDRESS_LIMIT.windowMs);
  /** Failed sign-ins per username; kept up to the count at which the wait stops growing. */
  private readonly userFailures = new AttemptLimiter(USER_DELAY.freeFailures + Math.ceil(Math.log2(USER_DELAY.maxMs / USER_DELAY.firstMs)), USER_DELAY.windowMs);
  private readonly forgotAttempts = new AttemptLimiter(FORGOT_LIMIT.max, FORGOT_LIMIT.windowMs);
  private readonly twofaFailures = new AttemptLimiter(TWOFA_ACCOUNT_LIMIT.max, TWOFA_ACCOUNT_LIMIT.windowMs);
  private readonly confirmAttempts = new AttemptLimiter(CONFIRM_LIMIT.max, CONFIRM_LIMIT.windowMs);
  /** Per username, the password checks running or waiting: how many, and the last one's end. */
  private readonly nameQueues = new Map<string, { size: number; last: Promise<unknown> }>();
  /** Password-checked logins waiting for their TOTP code, by the hash of their token. */
  private readonly challenges = new Map<string, TwofaChallenge>();

  constructor(private readonly ctx: AppContext, private readonly users: UserStore) {}

  /**
   * Checks a username and password from `address` (a rate-limit bucket: see clientBucket); `next`
   * is where the user goes after the 2FA step.
   */
  async login(username: string, password: string, next: string, address: string): Promise<LoginOutcome> {
    const name = username.toLowerCase();
    const pairKey = `pair:${address} ${name}`;
    const userKey = `user:${name}`;
    if (this.loginAttempts.blocked(pairKey) || this.addressFailures.blocked(address)) {
      this.ctx.log.warn(`sign-in refused for user name ${loggedUsername(name)} from ${address}: too many attempts from this address`);
      return { kind: 'too-many' };
    }
    this.loginAttempts.record(pairKey);
    const checked = await this.oneAtATime(name, async () => {
      const wait = signInDelayMs(this.userFailures.count(userKey));
      if (wait) await sleep(wait);
      return { account: await this.users.checkLogin(username, password) };
    });
    if (!checked) {
      this.ctx.log.warn(`sign-in refused for user name ${loggedUsername(name)} from ${address}: too many sign-ins for this name at once`);
      return { kind: 'too-many' };
    }
    const { account } = checked;
    if (!account) {
      this.ctx.log.warn(`sign-in failed for user name ${loggedUsername(name)} from ${address}`);
      this.userFailures.record(userKey);
      this.addressFailures.record(address);
      return { kind: 'wrong' };
    }
    this.loginAttempts.clear(pairKey);
    this.userFailures.clear(userKey);
    if (account.twofaSecret) return { kind: 'twofa', token: this.challenge(account.id, next) };
    this.ctx.log.info(`user "${account.username}" signed in`);
    return { kind: 'signed-in', userId: account.id };
  }

  /**
   * Runs a password check for a username after the ones already running or waiting for it, so
   * that the slow-down each waits holds for parallel guesses too; null (not run) when NAME_QUEUE
   * checks already wait.
   */
  private async oneAtATime<T>(name: string, check: () => Promise<T>): Promise<T | null> {
    const queue = this.nameQueues.get(name) ?? { size: 0, last: Promise.resolve() };
    if (queue.size > NAME_QUEUE) return null;
    queue.size++;
    this.nameQueues.set(name, queue);
    const mine = queue.last.then(check);
    queue.last = mine.catch(() => undefined);
    try {
      return await mine;
    } finally {
      if (--queue.size === 0) this.nameQueues.delete(name);
    }
  }

  /**
   * Checks a signed-in user's own password, confirming a sensitive change (a new password or
   * e-mail, turning two-factor on or off). Wrong ones count against the user's sign-ins too;
   * the check that uses up CONFIRM_LIMIT ends `session` (the caller's, when it came with one).
   */
  async confirmPassword(user: { id: number; username: string }, password: string, session: string | null): Promise<ConfirmOutcome> {
    const key = `confirm:${user.id}`;
    if (this.confirmAttempts.blocked(key)) return { kind: 'too-many', ended: false, retryAfter: this.confirmAttempts.retryAfter(key) };
    this.confirmAttempts.record(key);
    if (await this.users.checkPassword(user.id, password)) {
      this.confirmAttempts.clear(key);
      return { kind: 'right' };
    }
    this.userFailures.record(`user:${user.username.toLowerCase()}`);
    if (!this.confirmAttempts.blocked(key)) return { kind: 'wrong' };
    if (session) this.users.endSession(session);
    this.ctx.log.warn(`user ${user.id} typed a wrong current password ${CONFIRM_LIMIT.max} times${session ? '; the session was ended' : ''}`);
    return { kind: 'too-many', ended: session !== null, retryAfter: this.confirmAttempts.retryAfter(key) };
  }

  /** Whether the token names a 2FA challenge still waiting for its code. */
  awaitsCode(token: string): boolean {
    return this.liveChallenge(token) !== null;
  }

  /**
   * Checks the TOTP code for a challenge. A code already used (by anyone) counts as wrong: it may
   * have been seen or captured. Wrong codes are limited per challenge, per client address and
   * per account: past the account's limit no code is checked for it (from anywhere) until the
   * window has room again.
   */
  twofa(token: string, code: string, address: string): TwofaOutcome {
    const challenge = this.liveChallenge(token);
    if (!challenge) return { kind: 'no-challenge' };
    const addrKey = `twofa:${address}`;
    const accountKey = `account:${challenge.userId}`;
    if (this.loginAttempts.blocked(addrKey)) return { kind: 'too-many' };
    if (this.twofaFailures.blocked(accountKey)) {
      this.ctx.log.warn(`two-factor code for user ${challenge.userId} from ${address} refused: too many wrong codes for this account`);
      return { kind: 'too-many' };
    }
    const secret = this.users.totpSecret(challenge.userId);
    const step = secret ? totpCodeStep(secret, code) : null;
    if (step === null || !this.users.useTotpStep(challenge.userId, step)) {
      this.loginAttempts.record(addrKey);
      this.twofaFailures.record(accountKey);
      challenge.tries++;
      if (challenge.tries >= TWOFA_MAX_TRIES) {
        this.challenges.delete(sha256Hex(token));
        return { kind: 'start-over', next: challenge.next };
      }
      return { kind: 'wrong', next: challenge.next };
    }
    this.challenges.delete(sha256Hex(token));
    this.twofaFailures.clear(accountKey);
    this.ctx.log.info(`user ${challenge.userId} signed in with two-factor authentication`);
    return { kind: 'signed-in', userId: challenge.userId, next: challenge.next };
  }

  /** Counts a forgot-password request from `address`; false when it is over the limit. */
  mayRequestReset(address: string): boolean {
    const key = `addr:${address}`;
    if (this.forgotAttempts.blocked(key)) return false;
    this.forgotAttempts.record(key);
    return true;
  }

  /**
   * Mails a reset link if the address belongs to a user (a deferral by the relay is tried again).
   * Not awaited: the answer must not take longer for addresses that exist.
   */
  requestReset(email: string): void {
    const reset = this.users.createPasswordReset(email);
    if (!reset) return;
    const { settings, log } = this.ctx;
    const url = `${settings.rootUrl()}/admin/reset?token=${reset.token}`;
    const msg = systemMessage(this.ctx, 'forgot-password', { Username: reset.username, ResetURL: url }, [reset.email], `Reset your ${settings.str('app.site_name')} password`);
    this.ctx.mailer.deliver('email', msg, `password reset mail to user "${reset.username}"`).then(
      () => log.info(`password reset mail sent to user "${reset.username}"`),
      (e: Error) => log.error(`password reset mail to user "${reset.username}" failed: ${e.message}`),
    );
  }

  /** Whether a reset link's token can still be used. */
  resetUsable(token: string): boolean {
    return this.users.resetTokenUser(token) !== null;
  }

  /**
   * Sets a new password from a reset link; the user's sessions end. A reset proves only access to
   * the mailbox: a user with two-factor on still answers the TOTP challenge before any session.
   */
  async resetPassword(token: string, password: string, repeated: string): Promise<ResetOutcome> {
    if (!this.resetUsable(token)) return { kind: 'unusable' };
    if (password.length < PASSWORD_MIN || Buffer.byteLength(password) > LIMITS.name) return { kind: 'refused', message: `The password must be ${PASSWORD_MIN} to ${LIMITS.name} characters long.` };
    if (password !== repeated) return { kind: 'refused', message: 'The passwords do not match.' };
    // The token is checked again, in the store's transaction, after the hash is made.
    const userId = this.users.resetPassword(token, await passwordHashFor(password));
    if (userId === null) return { kind: 'unusable' };
    this.ctx.log.info(`user ${userId} reset their password; their other sessions were ended`);
    if (this.users.totpSecret(userId)) return { kind: 'twofa', token: this.challenge(userId, '/admin') };
    return { kind: 'done', userId };
  }

  /** A new TOTP challenge for a user whose first factor is proven; answers its token. */
  private challenge(userId: number, next: string): string {
    const token = randomString(64);
    this.challenges.set(sha256Hex(token), { userId, next, expires: Date.now() + TWOFA_TTL_MS, tries: 0 });
    return token;
  }

  private liveChallenge(token: string): TwofaChallenge | null {
    const now = Date.now();
    for (const [k, ch] of this.challenges) if (ch.expires <= now) this.challenges.delete(k);
    return this.challenges.get(sha256Hex(token)) ?? null;
  }
}
