// Whether the public root URL can be right: every link in mail (opt-in confirmation,
// unsubscribe, web view, tracked links) is built on it, and a wrong one fails only at the
// reader's end. The warning is logged at start-up and when opt-in or campaign mail goes out,
// and GET /api/config shows it for the admin UI's banner, until the root URL is set.
import type { Logger } from '../log.ts';
import { DEFAULT_SETTINGS } from './defaults.ts';
import type { SettingsService } from './service.ts';

const LOOPBACK = /^(localhost|127(?:\.\d{1,3}){3}|\[?::1\]?)$/i;
/** Opt-in mails are sent one by one: their warning is logged at most this often. */
const OPTIN_WARNING_EVERY_MS = 60_000;

const defaultPort = (protocol: string) => (protocol === 'https:' ? 443 : 80);

/** host:port of an http(s) URL, the port always written out; null for anything else. */
function hostPort(url: string): { host: string; port: number } | null {
  try {
    const u = new URL(url);
    return { host: u.hostname.replace(/^\[|\]$/g, '').toLowerCase(), port: Number(u.port) || defaultPort(u.protocol) };
  } catch {
    return null;
  }
}

export class RootUrlCheck {
  /** Where the server listens (set once it does); null in processes that do not serve. */
  private listening: { host: string; port: number } | null = null;
  /** The Host the last signed-in browser request arrived with. */
  private seenHost: string | null = null;
  private lastOptinWarning = 0;

  /** rootUrlOverridden: --root-url or LISTMGR_ROOT_URL was given. */
  constructor(private readonly settings: SettingsService, private readonly rootUrlOverridden: boolean, private readonly log: Logger) {}

  listeningOn(host: string, port: number): void {
    this.listening = { host: host.toLowerCase(), port };
  }

  /** A Host header (host[:port]) of a signed-in request. */
  sawHost(host: string): void {
    this.seenHost = host.trim().toLowerCase() || null;
  }

  /** What is wrong with the root URL and where to set it; null when nothing looks wrong. */
  warning(): string | null {
    const root = this.settings.rootUrl();
    const problem = this.problem(root);
    return problem ? `The root URL ${root} ${problem}, so links in mail (opt-in confirmation, unsubscribe, web view, tracked links) may not reach readers. Set it under Settings → General (app.root_url), or start the server with --root-url https://lists.example.com.` : null;
  }

  /** Logs the warning, if any (at start-up and when a campaign starts sending). */
  logWarning(when: string): void {
    const w = this.warning();
    if (w) this.log.warn(`${when}: ${w}`);
  }

  /** Logs the warning for an opt-in mail, at most once a minute. */
  logOptinWarning(): void {
    const now = Date.now();
    if (now - this.lastOptinWarning < OPTIN_WARNING_EVERY_MS) return;
    const w = this.warning();
    if (!w) return;
    this.lastOptinWarning = now;
    this.log.warn(`sending opt-in mail: ${w}`);
  }

  private problem(root: string): string | null {
    if (!this.rootUrlOverridden && this.settings.str('app.root_url').replace(/\/+$/, '') === DEFAULT_SETTINGS['app.root_url']) return 'is still the default';
    const at = hostPort(root);
    if (!at) return 'is not an http(s) URL';
    const listening = this.listening;
    if (listening && LOOPBACK.test(at.host) && (!LOOPBACK.test(listening.host) || at.port !== listening.port)) {
      return `points at this machine's loopback address while the server listens on ${listening.host.includes(':') ? `[${listening.host}]` : listening.host}:${listening.port}`;
    }
    const seen = this.seenHost ? hostPort(`http://${this.seenHost}`) : null;
    // A loopback Host is a reverse proxy that does not pass the public host on: not a sign of a wrong root URL.
    if (seen && !LOOPBACK.test(seen.host) && seen.host !== at.host) return `is not the host signed-in requests arrive at (${this.seenHost})`;
    return null;
  }
}
