// The UUIDs in the links we mail. A mail client's linkifier may take the punctuation after a
// link into it ("…/subscription/optin/<uuid>)" or "…<uuid>."), so the subscriber-facing routes
// read a UUID followed by such characters as the UUID (and a query value the same way: the
// last one of a URL is what the punctuation lands on).
import { isUuid } from '../http/schema.ts';

/** What a linkifier may leave at the end of a URL: closing brackets, sentence punctuation, quotes. */
const TRAILING = /[)\]}>.,;:!'"]+$/;

/** A link's path segment or query value, less trailing punctuation if that leaves a UUID. */
export function linkUuid(value: string | undefined): string {
  const v = value ?? '';
  if (isUuid(v)) return v;
  const trimmed = v.replace(TRAILING, '');
  return isUuid(trimmed) ? trimmed : v;
}

/** A query value (`manage=true)`), less trailing punctuation. */
export function linkValue(value: string | undefined): string | undefined {
  return value?.replace(TRAILING, '');
}
