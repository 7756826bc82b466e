// The captcha of the public subscription form (docs/decisions.md §32): Altcha, a self-hosted
// proof of work, or hCaptcha; Altcha when both are on. Altcha challenges are signed with a key
// made at start (a restart voids those outstanding) and expire after 5 minutes; a solved one is
// accepted once. An hCaptcha token is checked with hCaptcha's siteverify, and anything but a
// clear success (an error, a timeout, a reply that is not JSON) refuses the form.
import { randomBytes } from 'node:crypto';
import { createChallenge, verifySolution } from 'altcha-lib/v1';
import type { Challenge, Payload } from 'altcha-lib/v1/types';
import { readDependencyFile } from '../paths.ts';

/** The `security.captcha` setting. */
export interface CaptchaSettings {
  altcha: { enabled: boolean; complexity: number };
  hcaptcha: { enabled: boolean; key: string; secret: string };
}

export type CaptchaProvider = 'altcha' | 'hcaptcha';

/** The widget the form shows (pages.tsx renders it). */
export type CaptchaWidget = { provider: 'altcha' } | { provider: 'hcaptcha'; siteKey: string };

/** The fields of a form that carry a captcha's proof (either provider's). */
export interface CaptchaProof {
  altcha?: unknown;
  'h-captcha-response'?: unknown;
}

export function captchaProvider(c: CaptchaSettings): CaptchaProvider | null {
  return c.altcha.enabled ? 'altcha' : c.hcaptcha.enabled ? 'hcaptcha' : null;
}

/** Where the form page loads the Altcha widget from (served from the altcha package). */
export const ALTCHA_SCRIPT_PATH = '/public/static/altcha.umd.js';
export const ALTCHA_CHALLENGE_PATH = '/api/public/captcha/altcha';
const HCAPTCHA_SCRIPT = 'https://js.hcaptcha.com/1/api.js';

const CHALLENGE_TTL_MS = 5 * 60_000;
const HCAPTCHA_TIMEOUT_MS = 5000;

let altchaScript: string | null = null;

/** The Altcha widget script, read once from the altcha package. */
export function altchaWidgetScript(): string {
  altchaScript ??= readDependencyFile('altcha');
  return altchaScript;
}

export class Captcha {
  private readonly hmacKey = randomBytes(32).toString('hex');
  /** Solved Altcha challenges not to accept again, with when they may be forgotten. */
  private readonly spent = new Map<string, number>();
  /** hCaptcha's verification endpoint; tests point it at a local server. */
  hcaptchaVerifyUrl = 'https://api.hcaptcha.com/siteverify';

  /**
   * `config` reads the setting at each use, so a change applies at once. (The setting, not the
   * settings service: that service imports CaptchaSettings to check a change.)
   */
  constructor(private readonly config: () => CaptchaSettings) {}

  /** The captcha the form asks for, if any. */
  provider(): CaptchaProvider | null {
    return captchaProvider(this.config());
  }

  altchaChallenge(): Promise<Challenge> {
    return createChallenge({ hmacKey: this.hmacKey, maxnumber: this.config().altcha.complexity, expires: new Date(Date.now() + CHALLENGE_TTL_MS) });
  }

  /** The form's widget and the script it needs, or nothing when no captcha is on. */
  widget(): { widget: CaptchaWidget | null; scripts: string[] } {
    switch (this.provider()) {
      case 'altcha':
        return { widget: { provider: 'altcha' }, scripts: [ALTCHA_SCRIPT_PATH] };
      case 'hcaptcha':
        return { widget: { provider: 'hcaptcha', siteKey: this.config().hcaptcha.key }, scripts: [HCAPTCHA_SCRIPT] };
      default:
        return { widget: null, scripts: [] };
    }
  }

  /** Whether the form carries a valid proof (true when no captcha is on). */
  async passes(form: CaptchaProof): Promise<boolean> {
    switch (this.provider()) {
      case 'altcha':
        return this.altchaPasses(typeof form.altcha === 'string' ? form.altcha : '');
      case 'hcaptcha':
        return this.hcaptchaPasses(typeof form['h-captcha-response'] === 'string' ? form['h-captcha-response'] : '');
      default:
        return true;
    }
  }

  private async altchaPasses(payload: string): Promise<boolean> {
    let solution: Payload;
    try {
      solution = JSON.parse(Buffer.from(payload, 'base64').toString('utf8')) as Payload;
    } catch {
      return false; // not base64 JSON of a solution
    }
    // Spent by challenge, not by payload text: the same solution with another `took` is a replay.
    const challenge = typeof solution?.challenge === 'string' ? solution.challenge : '';
    const now = Date.now();
    for (const [c, until] of this.spent) if (until < now) this.spent.delete(c);
    if (!challenge || this.spent.has(challenge)) return false;
    let ok: boolean;
    try {
      ok = await verifySolution(solution, this.hmacKey, true);
    } catch {
      ok = false;
    }
    if (ok) this.spent.set(challenge, now + CHALLENGE_TTL_MS);
    return ok;
  }

  private async hcaptchaPasses(token: string): Promise<boolean> {
    if (!token) return false;
    const { secret, key } = this.config().hcaptcha;
    try {
      const res = await fetch(this.hcaptchaVerifyUrl, {
        method: 'POST',
        body: new URLSearchParams({ secret, response: token, sitekey: key }),
        signal: AbortSignal.timeout(HCAPTCHA_TIMEOUT_MS),
      });
      const reply = (await res.json()) as { success?: unknown };
      return res.ok && reply.success === true;
    } catch {
      return false;
    }
  }
}
