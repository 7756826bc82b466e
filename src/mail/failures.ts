// What a failed send means: the relay deferring it for now (try again later), the mail server
// not usable as set up (nothing can be sent until someone acts), or a refusal of this one
// message or recipient (the others still go out). docs/decisions.md §97.
import { parseDuration } from '../duration.ts';

/** The error code of a send to a messenger that is not configured (a failure of the setup, not of the recipient). */
export const NO_MESSENGER = 'ENOMESSENGER';

/**
 * - `transient`: a 4xx reply at any stage (greeting, EHLO, MAIL FROM, RCPT TO, DATA, after the
 *   data), a connection dropped or reset, a timeout: the same message may well go through later.
 * - `unusable`: the mail server cannot be reached or used as set up (connection refused, DNS,
 *   TLS, authentication, a greeting or EHLO refused with a 5xx, the transport's settings, a
 *   messenger no longer configured): it is not the recipient's failure, but retrying will not
 *   help until someone acts.
 * - `refused`: a 5xx for this message or recipient, or any other failure of this message.
 */
export type SendFailure = 'transient' | 'unusable' | 'refused';

/** nodemailer's codes (and node's and undici's, for postback messengers) of a connection that dropped or timed out. */
const TRANSIENT_CODES = new Set(['ETIMEDOUT', 'ECONNRESET', 'EPIPE', 'ECONNABORTED', 'EAI_AGAIN', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

/** Codes of a server that cannot be reached or used as set up. */
const UNUSABLE_CODES = new Set([
  'EDNS', 'ETLS', 'EREQUIRETLS', 'EAUTH', 'ENOAUTH', 'EOAUTH2', 'EPROTOCOL', 'EPROXY', 'ECONFIG',
  'ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', NO_MESSENGER,
]);

/**
 * nodemailer's wrappers of a socket's failure: ESOCKET keeps the system code in originalCode
 * (ECONNREFUSED: unusable; ECONNRESET, EPIPE: transient); ECONNECTION is a connection closed
 * unexpectedly (transient), or one that cannot be used (EHLO without the STARTTLS required).
 */
const WRAPPERS = new Set(['ESOCKET', 'ECONNECTION']);

interface SendError {
  code?: unknown;
  originalCode?: unknown;
  responseCode?: unknown;
  command?: unknown;
  cause?: unknown;
}

export function classifySendFailure(e: unknown): SendFailure {
  for (let err = e as SendError | undefined, depth = 0; err && depth < 3; err = err.cause as SendError | undefined, depth++) {
    const reply = typeof err.responseCode === 'number' ? err.responseCode : 0;
    if (reply >= 400 && reply < 500) return 'transient';
    const code = typeof err.code === 'string' ? err.code : '';
    if (reply >= 500) return code === 'EENVELOPE' || code === 'EMESSAGE' ? 'refused' : 'unusable';
    if (TRANSIENT_CODES.has(code)) return 'transient';
    if (UNUSABLE_CODES.has(code)) return 'unusable';
    if (WRAPPERS.has(code)) {
      const original = typeof err.originalCode === 'string' ? err.originalCode : '';
      return UNUSABLE_CODES.has(original) || (code === 'ECONNECTION' && err.command === 'EHLO') ? 'unusable' : 'transient';
    }
  }
  return 'refused';
}

/** How long mail may be deferred before it is given up (app.defer_limit; 30 minutes when unset or unreadable). */
export function deferLimitMs(setting: unknown): number {
  const ms = parseDuration(String(setting ?? ''));
  return ms && ms > 0 ? ms : 30 * 60_000;
}

/**
 * The wait before the nth try after a deferral: 1 s doubling (seconds, then minutes), at most a
 * sixth of the limit and 5 minutes, so that a relay deferring for the whole limit is tried
 * about a dozen times (a shortened limit shortens the waits with it).
 */
export function deferBackoff(n: number, limitMs: number): number {
  const cap = Math.max(250, Math.min(5 * 60_000, limitMs / 6));
  return Math.min(cap, 1000 * 2 ** Math.max(0, n - 1));
}

/** "30 min", "45 s": a limit as a reason names it. */
export function spokenDuration(ms: number): string {
  return ms >= 60_000 && ms % 60_000 === 0 ? `${ms / 60_000} min` : `${Math.round(ms / 100) / 10} s`;
}
