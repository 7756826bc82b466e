// Scanning the bounce mailbox (the first enabled entry of bounce.mailboxes) over POP3 or IMAP
// on its scan_interval: every message that reads as a bounce is recorded and then deleted;
// other messages stay in the mailbox. Settings are read again before every scan, so changes
// apply without a restart.
import { ImapFlow } from 'imapflow';
import type { Logger } from '../log.ts';
import type { SettingsService } from '../settings/service.ts';
import { parseDuration } from '../settings/duration.ts';
import { Pop3Client } from './pop3.ts';

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

/** Handles one message; true when it was a bounce (it is then deleted). */
export type MessageHandler = (source: Buffer) => Promise<boolean>;

export interface ScanResult {
  seen: number;
  bounces: number;
  deleted: number;
}

const credentials = (m: MailboxSettings) => m.auth_protocol !== 'none';

async function scanPop(m: MailboxSettings, handle: MessageHandler): Promise<ScanResult> {
  const pop = await Pop3Client.connect({ host: m.host, port: m.port, tls: m.tls_enabled, tlsSkipVerify: m.tls_skip_verify });
  const result: ScanResult = { seen: 0, bounces: 0, deleted: 0 };
  try {
    if (credentials(m)) await pop.login(m.username, m.password);
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

async function scanImap(m: MailboxSettings, handle: MessageHandler): Promise<ScanResult> {
  const client = new ImapFlow({
    host: m.host, port: m.port, secure: m.tls_enabled, tls: { rejectUnauthorized: !m.tls_skip_verify },
    ...(credentials(m) ? { auth: { user: m.username, pass: m.password } } : {}),
    logger: false, disableAutoIdle: true,
  });
  const result: ScanResult = { seen: 0, bounces: 0, deleted: 0 };
  try {
    await client.connect();
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
export function scanMailbox(m: MailboxSettings, handle: MessageHandler): Promise<ScanResult> {
  return m.type === 'imap' ? scanImap(m, handle) : scanPop(m, handle);
}

/** The mailbox to scan: the first enabled one, when bounce processing is on. */
export function activeMailbox(settings: SettingsService): MailboxSettings | null {
  if (!settings.bool('bounce.enabled')) return null;
  return settings.get<MailboxSettings[]>('bounce.mailboxes').find((m) => m.enabled) ?? null;
}

/** Runs scans on the mailbox's interval; re-plans when settings change. */
export class MailboxScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<ScanResult | null> | null = null;
  private stopped = false;

  constructor(
    private readonly settings: SettingsService,
    private readonly log: Logger,
    private readonly handle: MessageHandler,
  ) {}

  start(): void {
    this.plan();
    this.settings.onChange(() => this.plan());
  }

  /** Scans now (one scan at a time); null when no mailbox is active. */
  scanNow(): Promise<ScanResult | null> {
    this.running ??= (async () => {
      const m = activeMailbox(this.settings);
      if (!m) return null;
      try {
        const r = await scanMailbox(m, this.handle);
        if (r.seen) this.log.info(`bounce mailbox ${m.host}: ${r.seen} message(s), ${r.bounces} bounce(s) recorded and deleted`);
        return r;
      } catch (e) {
        this.log.error(`bounce mailbox ${m.host}:${m.port} (${m.type}): ${(e as Error).message}`);
        throw e;
      }
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running?.catch(() => null);
  }

  private plan(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const m = activeMailbox(this.settings);
    if (this.stopped || !m) return;
    const every = Math.max(parseDuration(m.scan_interval) ?? 15 * 60_000, 60_000);
    this.timer = setTimeout(() => {
      this.scanNow().catch(() => null).finally(() => this.plan());
    }, every);
    this.timer.unref();
  }
}
