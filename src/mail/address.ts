// E-mail addresses as listmonk accepts them (trimmed, whole address lower-cased, a bare
// address only, domain allow/block lists), and the name derived from an address. Shared by
// subscribers, the public surface, import, tx, bounces, settings and users.
import { DomainError, invalid } from '../core/errors.ts';
import { LIMITS } from '../core/limits.ts';

export interface DomainRules {
  allow: string[];
  block: string[];
}

/** The domain rules from settings (`privacy.domain_allowlist` / `privacy.domain_blocklist`). */
export function domainRules(settings: { get<T>(key: string): T }): DomainRules {
  const clean = (v: unknown) => (Array.isArray(v) ? v : []).map((d) => String(d).trim().toLowerCase()).filter((d) => d !== '');
  return { allow: clean(settings.get('privacy.domain_allowlist')), block: clean(settings.get('privacy.domain_blocklist')) };
}

// RFC 5322 dot-atom: what a bare address may hold (no display name, brackets, quotes or
// comments). Letters and digits of any script are accepted, as Go's parser does.
const ATOM = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const ADDRESS = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${ATOM}(?:\\.${ATOM})*$`, 'u');

/** Why the address is unacceptable, or null. `email` must already be normalised. */
export function emailProblem(email: string, rules: DomainRules, checkLength = true): string | null {
  if (email === '') return 'the e-mail address is required';
  if (checkLength && Buffer.byteLength(email) > LIMITS.email) return `the e-mail address is longer than ${LIMITS.email} bytes`;
  if (!ADDRESS.test(email)) return `"${email.slice(0, 100)}" is not a valid e-mail address`;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (rules.allow.length) {
    if (!domainListed(domain, rules.allow)) return 'e-mail addresses on this domain are not accepted';
  } else if (domainListed(domain, rules.block)) return 'e-mail addresses on this domain are not accepted';
  return null;
}

/** Trims and lower-cases; throws an `invalid` DomainError naming the problem. */
export function validateEmail(raw: unknown, rules: DomainRules, opts: { checkLength?: boolean } = {}): string {
  if (typeof raw !== 'string') throw invalid(raw === undefined || raw === null ? 'the e-mail address is required' : 'invalid "email": expected a string');
  const email = raw.trim().toLowerCase();
  const problem = emailProblem(email, rules, opts.checkLength ?? true);
  if (problem) throw invalid(problem);
  return email;
}

/**
 * `example.com` matches only itself; `*.example.com` matches example.com and any domain one
 * level below it (its first label replaced by `*` gives the entry).
 */
function domainListed(domain: string, entries: string[]): boolean {
  if (entries.includes(domain)) return true;
  if (entries.includes(`*.${domain}`)) return true;
  const dot = domain.indexOf('.');
  return dot > 0 && entries.includes(`*${domain.slice(dot)}`);
}

/**
 * The name for a subscriber created without one. `title` (admin create, import): local part,
 * dots to spaces, each word capitalised (`jane.doe` → `Jane Doe`). `local` (public forms):
 * the local part as it is.
 */
export function nameFromEmail(email: string, style: 'title' | 'local'): string {
  const local = email.slice(0, email.lastIndexOf('@'));
  if (style === 'local') return local;
  return local.replace(/\./g, ' ').split(/\s+/).filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}
