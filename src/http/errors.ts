// The edge's one mapping from a domain error to its HTTP status. The app's error handler answers
// {"message": ...} with it; nothing else in the code names a status for an error.
import type { ContentfulStatusCode } from 'hono/utils/http-status';
import type { DomainError, ErrorKind } from '../core/errors.ts';

const STATUS: Record<ErrorKind, ContentfulStatusCode> = {
  invalid: 400,
  unauthenticated: 401,
  denied: 403,
  'not-found': 404,
  conflict: 409,
  'too-large': 413,
  'too-many': 429,
  'upstream-failed': 502,
  unavailable: 503,
  'no-space': 507,
};

export function httpStatus(err: DomainError): ContentfulStatusCode {
  return STATUS[err.kind];
}
