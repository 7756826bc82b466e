// Scanning the bounce mailbox (the first enabled entry of bounce.mailboxes) over POP3 or IMAP
// on its scan_interval: every message that reads as a bounce is recorded and then deleted;
// other messages stay in the mailbox. Settings are read again before every scan, so changes
// apply without a restart. A failing mailbox (refused login, host down, silent server) is
// logged and tried again at the next interval; every network step has a time limit.
import type { Logger } from '../log.ts';
import type { SettingsService } from '../settings/service.ts';
import { parseDuration } from '../duration.ts';
import { Pop3Client, Pop3ReplyError } from './pop3.ts';

export interface MailboxSettings {
  uuid: string;
  enabled: boolean;
  type: 'pop' | 'imap';
  host: string;
  port: number;
  auth_protocol: string;
  return_path: string;
  username: string;
  password: string;
  tls_enabled: boolean;
  tls_skip_verify: boolean;
  scan_interval: string;
}

/** Messages taken per scan, as listmonk. */
export const MAX_MESSAGES_PER_SCAN = 1000;
/** Time limit of each network step (connecting, each command). */
export const MAILBOX_TIMEOUT_MS = 30_000;

/** The server refused the configured credentials. */
export class MailboxLoginError extends Error {}

/** Handles one message; true when it was a bounce (it is then deleted). */
export type MessageHandler = (source: Buffer) => Promise<boolean>;

export interface ScanResult {
  seen: number;
  bounces: number;
  deleted: number;
}

/** The outcome of the last scan since the server started (GET/POST /api/bounces/scan). */
export interface ScanRecord extends ScanResult {
  /** When the scan ended (ISO 8601). */
  at: string;
  /** type://host:port of the mailbox scanned. */
  mailbox: string;
  ok: boolean;
  /** What went wrong, in the words the log uses; null when the scan worked. */
  error: string | null;
}

const credentials = (m: MailboxSettings) => m.auth_protocol !== 'none';

async function scanPop(m: MailboxSettings, handle: MessageHandler, timeoutMs: number): Promise<ScanResult> {
  const pop = await Pop3Client.connect({ host: m.host, port: m.port, tls: m.tls_enabled, tlsSkipVerify: m.tls_skip_verify, timeoutMs });
  const result: ScanResult = { seen: 0, bounces: 0, deleted: 0 };
  try {
    if (credentials(m)) {
      await pop.login(m.username, m.password).catch((e: unknown) => {
        throw e instanceof Pop3ReplyError ? new MailboxLoginError(e.message) : e;
      });
    }
    const { count } = await pop.stat();
    if (count > 0) {
      for (const { n } of (await pop.list()).slice(0, MAX_MESSAGES_PER_SCAN)) {
        result.seen++;
        if (await handle(await pop.retr(n))) {
          result.bounces++;
          await pop.dele(n);
          result.deleted++;
        }
      }
    }
    await pop.quit();
    return result;
  } catch (e) {
    pop.close(); // without QUIT the server keeps every message
    throw e;
  }
}

async function scanImap(m: MailboxSettings, handle: MessageHandler, timeoutMs: number): Promise<ScanResult> {
  const { ImapFlow } = await import('imapflow'); // loaded on first use: large, and rarely needed
  const client = new ImapFlow({
    host: m.host, port: m.port, secure: m.tls_enabled, tls: { rejectUnauthorized: !m.tls_skip_verify },
    ...(credentials(m) ? { auth: { user: m.username, pass: m.password } } : {}),
    connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
    logger: false, disableAutoIdle: true,
  });
  // ImapFlow also emits socket failures as 'error' events: unheard, they would end the process.
  // The pending command rejects with them anyway, which is where they are handled.
  client.on('error', () => undefined);
  const result: ScanResult = { seen: 0, bounces: 0, deleted: 0 };
  try {
    try {
      await client.connect();
    } catch (e) {
      const err = e as Error & { authenticationFailed?: boolean; response?: string };
      throw err.authenticationFailed ? new MailboxLoginError(`IMAP LOGIN failed: ${err.response || err.message}`) : e;
    }
    const lock = await client.getMailboxLock('INBOX');
    try {
      const exists = client.mailbox ? client.mailbox.exists : 0;
      const processed: number[] = [];
      if (exists > 0) {
        const messages = await client.fetchAll(`1:${Math.min(exists, MAX_MESSAGES_PER_SCAN)}`, { uid: true, source: true });
        for (const msg of messages) {
          result.seen++;
          if (msg.source && (await handle(msg.source))) processed.push(msg.uid);
        }
      }
      if (processed.length) {
        await client.messageDelete(processed, { uid: true });
        result.bounces = result.deleted = processed.length;
      }
    } finally {
      lock.release();
    }
    await client.logout();
    return result;
  } catch (e) {
    client.close();
    throw e;
  }
}

/** One scan of a mailbox with the given message handler. */
export function scanMailbox(m: MailboxSettings, handle: MessageHandler, timeoutMs = MAILBOX_TIMEOUT_MS): Promise<ScanResult> {
  return m.type === 'imap' ? scanImap(m, handle, timeoutMs) : scanPop(m, handle, timeoutMs);
}

/** What went wrong, in words an administrator can act on (never the password). */
function describeFailure(e: unknown): string {
  if (e instanceof MailboxLoginError) return `login refused, check the user name and password: ${e.message}`;
  const err = e as NodeJS.ErrnoException;
  const unreachable = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ECONNRESET'];
  if (err?.code && unreachable.includes(err.code)) return `cannot connect (${err.code}): ${err.message}`;
  return err?.message ?? String(e);
}

/** The mailbox to scan: the first enabled one, when bounce processing is on. */
export function activeMailbox(settings: SettingsService): MailboxSettings | null {
  if (!settings.bool('bounce.enabled')) return null;
  return settings.get<MailboxSettings[]>('bounce.mailboxes').find((m) => m.enabled) ?? null;
}

/** How the scheduler waits; replaceable so that tests can fire the next scan themselves. */
export interface SchedulerClock {
  setTimer(fn: () => Promise<void>, ms: number): { cancel(): void };
}

const realClock: SchedulerClock = {
  setTimer(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
};

const DEFAULT_INTERVAL_MS = 15 * 60_000;
const MIN_INTERVAL_MS = 60_000;
/** The mailbox's scan_interval: 15 min when unreadable, at least 1 min. */
const intervalOf = (m: MailboxSettings) => Math.max(parseDuration(m.scan_interval) ?? DEFAULT_INTERVAL_MS, MIN_INTERVAL_MS);

/**
 * Runs scans on the mailbox's interval; re-plans when settings change. A failed scan is logged
 * (once per scan, with the time of the next attempt) and the next one is planned as usual.
 */
export class MailboxScheduler {
  private timer: { cancel(): void } | null = null;
  private running: Promise<ScanResult | null> | null = null;
  private stopped = false;
  private failing = false;
  private last: ScanRecord | null = null;

  constructor(
    private readonly settings: SettingsService,
    private readonly log: Logger,
    private readonly handle: MessageHandler,
    private readonly opts: { clock?: SchedulerClock; timeoutMs?: number } = {},
  ) {}

  start(): void {
    this.plan();
    this.settings.onChange(() => this.plan());
  }

  /** Scans now (one scan at a time); null when no mailbox is active. Failures are logged and rethrown. */
  scanNow(): Promise<ScanResult | null> {
    this.running ??= this.scan().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  /** The last scan's outcome since the server started; null before the first. */
  lastScan(): ScanRecord | null {
    return this.last;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.timer?.cancel();
    await this.running?.catch(() => null);
  }

  private async scan(): Promise<ScanResult | null> {
    const m = activeMailbox(this.settings);
    if (!m) return null;
    const mailbox = `${m.type}://${m.host}:${m.port}`;
    const name = `bounce mailbox ${mailbox}`;
    try {
      const r = await scanMailbox(m, this.handle, this.opts.timeoutMs);
      this.last = { ...r, at: new Date().toISOString(), mailbox, ok: true, error: null };
      if (this.failing) this.log.info(`${name}: scanned again after failing`);
      this.failing = false;
      if (r.seen) this.log.info(`${name}: ${r.seen} message(s), ${r.bounces} bounce(s) recorded and deleted`);
      return r;
    } catch (e) {
      this.failing = true;
      this.last = { seen: 0, bounces: 0, deleted: 0, at: new Date().toISOString(), mailbox, ok: false, error: describeFailure(e) };
      this.log.error(`${name}: scan failed, ${describeFailure(e)}; next attempt in ${intervalOf(m) / 60_000} min`);
      throw e;
    }
  }

  private plan(): void {
    this.timer?.cancel();
    this.timer = null;
    const m = activeMailbox(this.settings);
    if (this.stopped || !m) return;
    this.timer = (this.opts.clock ?? realClock).setTimer(async () => {
      await this.scanNow().catch(() => null); // logged in scan()
      this.plan();
    }, intervalOf(m));
  }
}
