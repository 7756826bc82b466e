// The errors services, stores and the edge throw: what went wrong, in the domain's words. The
// edge (http/errors.ts) maps each kind to its HTTP status in one place; the message is what the
// caller reads ({"message": ...}).

export type ErrorKind =
  /** The input is wrong: the message says which field and why. */
  | 'invalid'
  /** No valid credentials came with the request. */
  | 'unauthenticated'
  /** The caller may not do this. */
  | 'denied'
  | 'not-found'
  /** The change clashes with what exists (a taken name, a campaign in the wrong state). */
  | 'conflict'
  /** The input is larger than allowed. */
  | 'too-large'
  /** Too many attempts; try again after `retryAfter` seconds. */
  | 'too-many'
  /** A server we depend on (SMTP, a messenger) refused or failed. */
  | 'upstream-failed'
  /** Busy or shutting down for a moment; try again after `retryAfter` seconds. */
  | 'unavailable'
  /** The disk is full. */
  | 'no-space';

export class DomainError extends Error {
  /** `retryAfter`: seconds until trying again makes sense (too-many, unavailable). */
  constructor(readonly kind: ErrorKind, message: string, readonly retryAfter?: number) {
    super(message);
  }
}

export const invalid = (message: string) => new DomainError('invalid', message);
export const unauthenticated = (message: string) => new DomainError('unauthenticated', message);
export const denied = (message: string) => new DomainError('denied', message);
export const notFound = (message: string) => new DomainError('not-found', message);
export const conflict = (message: string) => new DomainError('conflict', message);
export const tooLarge = (message: string) => new DomainError('too-large', message);
export const tooMany = (message: string, retryAfter?: number) => new DomainError('too-many', message, retryAfter);
export const upstreamFailed = (message: string) => new DomainError('upstream-failed', message);
export const unavailable = (message: string, retryAfter?: number) => new DomainError('unavailable', message, retryAfter);
export const noSpace = (message: string) => new DomainError('no-space', message);

/** A refusal of the caller's request (their input, rights or timing), not a fault of ours. */
export function isRefusal(err: unknown): err is DomainError {
  return err instanceof DomainError && !['upstream-failed', 'unavailable', 'no-space'].includes(err.kind);
}
