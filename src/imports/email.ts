// E-mail checks for import rows (trimmed, lower-cased, a bare RFC 5322 address, domain
// allow/block lists) and the name derived from an address. A stand-in with the same rules as
// the subscribers module's shared sanitiser, which replaces it when that lands in main.
export const MAX_EMAIL_BYTES = 1000;

export interface DomainRules {
  allow: string[];
  block: string[];
}

export function domainRules(settings: { get<T>(key: string): T }): DomainRules {
  const clean = (v: unknown) => (Array.isArray(v) ? v : []).map((d) => String(d).trim().toLowerCase()).filter((d) => d !== '');
  return { allow: clean(settings.get('privacy.domain_allowlist')), block: clean(settings.get('privacy.domain_blocklist')) };
}

// RFC 5322 dot-atom on both sides: no display name, brackets, quotes or comments.
const ATOM = "[\\p{L}\\p{N}!#$%&'*+/=?^_`{|}~-]+";
const ADDRESS = new RegExp(`^${ATOM}(?:\\.${ATOM})*@${ATOM}(?:\\.${ATOM})*$`, 'u');

/** Why the address is unacceptable, or null. `email` must already be trimmed and lower-cased. */
export function emailProblem(email: string, rules: DomainRules): string | null {
  if (email === '') return 'the e-mail address is required';
  if (Buffer.byteLength(email) > MAX_EMAIL_BYTES) return `the e-mail address is longer than ${MAX_EMAIL_BYTES} bytes`;
  if (!ADDRESS.test(email)) return `"${email.slice(0, 100)}" is not a valid e-mail address`;
  const domain = email.slice(email.lastIndexOf('@') + 1);
  if (rules.allow.length ? !domainListed(domain, rules.allow) : domainListed(domain, rules.block)) {
    return 'e-mail addresses on this domain are not accepted';
  }
  return null;
}

/** `example.com` matches itself; `*.example.com` matches example.com and one level below it. */
function domainListed(domain: string, entries: string[]): boolean {
  if (entries.includes(domain) || entries.includes(`*.${domain}`)) return true;
  const dot = domain.indexOf('.');
  return dot > 0 && entries.includes(`*${domain.slice(dot)}`);
}

/** The name for a row without one: local part, dots to spaces, each word capitalised. */
export function nameFromEmail(email: string): string {
  return email.slice(0, email.lastIndexOf('@')).replace(/\./g, ' ').split(/\s+/).filter((w) => w !== '')
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join(' ');
}
