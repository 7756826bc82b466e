// Telling a failure of the way to the mail server (nothing can be sent until it passes) from a
// refusal of one message or recipient (the others still go out). docs/decisions.md §97.
import { NO_MESSENGER } from './mailer.ts';

/**
 * nodemailer's codes for a connection that could not be made or kept (refused, DNS, timeout,
 * TLS, a greeting or EHLO that is not 2xx, authentication, a proxy, the transport's settings), node's for sockets (postback
 * messengers), and ours for a messenger that is not configured.
 */
const CONNECTION_CODES = new Set([
  'ECONNECTION', 'ETIMEDOUT', 'EDNS', 'ESOCKET', 'ETLS', 'EREQUIRETLS', 'EAUTH', 'ENOAUTH', 'EOAUTH2', 'EPROTOCOL', 'EPROXY', 'ECONFIG',
  'ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'EPIPE',
  'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_SOCKET', NO_MESSENGER,
]);

/** SMTP replies that speak of the server, not of the message: 421 service not available. */
const CONNECTION_REPLIES = new Set([421]);

/** Whether a send failed because the mail server could not be reached or used (not because of the message). */
export function isConnectionFailure(e: unknown): boolean {
  for (let err = e as { code?: unknown; responseCode?: unknown; cause?: unknown } | undefined, depth = 0; err && depth < 3; err = err.cause as typeof err, depth++) {
    if (typeof err.responseCode === 'number' && CONNECTION_REPLIES.has(err.responseCode)) return true;
    if (typeof err.code === 'string' && CONNECTION_CODES.has(err.code)) return true;
  }
  return false;
}
