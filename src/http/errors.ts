// The one error type handlers throw. The app's error handler turns it into {"message": ...}.
import type { ContentfulStatusCode } from 'hono/utils/http-status';

export class HttpError extends Error {
  /** `retryAfter`: seconds for the `Retry-After` header (a 503 for a moment's overload). */
  constructor(readonly status: ContentfulStatusCode, message: string, readonly retryAfter?: number) {
    super(message);
  }
}

export const badRequest = (message: string) => new HttpError(400, message);
export const forbidden = (message: string) => new HttpError(403, message);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
export const tooManyRequests = (message: string) => new HttpError(429, message);
