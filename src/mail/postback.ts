// HTTP "postback" messengers (settings `messengers`): each message is POSTed as JSON to the
// messenger's root_url, in listmonk's payload. Success is HTTP 200 exactly, as listmonk;
// max_msg_retries is honoured (listmonk reads it but never retries; docs/decisions.md §50).
// Connections go through the outbound guard (private addresses refused unless
// security.allow_private_outbound) and redirects are not followed (docs/decisions.md §93).
import { parseDuration } from '../duration.ts';
import type { Settings } from '../settings/defaults.ts';
import type { MessageMeta } from './message.ts';
import { GuardedClient, OutboundRefused } from './outbound.ts';
import type { Messenger, OutgoingMessage } from './types.ts';

export interface PostbackSettings {
  enabled: boolean;
  name: string;
  root_url: string;
  username: string;
  password?: string;
  max_conns: number;
  timeout: string;
  max_msg_retries: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export class PostbackMessenger implements Messenger {
  readonly name: string;
  private readonly auth: string | null;
  private readonly timeout: number;
  private inFlight = 0;
  private readonly waiters: (() => void)[] = [];
  private readonly client: GuardedClient;

  constructor(private readonly s: PostbackSettings, allowPrivate: boolean) {
    this.name = s.name.toLowerCase().replace(/[^a-z0-9-]/g, '');
    this.auth = s.username && s.password ? 'Basic ' + Buffer.from(`${s.username}:${s.password}`).toString('base64') : null;
    this.timeout = parseDuration(s.timeout ?? '') || 5000;
    this.client = new GuardedClient(new URL(s.root_url), { allowPrivate, maxSockets: s.max_conns || 1 });
  }

  /** The listmonk payload, field order as listmonk sends it. */
  static payload(msg: OutgoingMessage): string {
    const meta = msg.meta as unknown as MessageMeta | undefined;
    return JSON.stringify({
      subject: msg.subject,
      from_email: msg.from,
      content_type: meta?.content_type ?? (msg.html ? 'html' : 'plain'),
      body: msg.html ?? msg.text ?? '',
      recipients: [meta?.recipient ?? { uuid: '', email: msg.to[0], name: '', attribs: {}, status: '' }],
      campaign: meta?.campaign ?? null,
      attachments: msg.attachments?.length
        ? msg.attachments.map((a) => ({
          name: a.filename,
          header: { 'Content-Type': [a.contentType ?? 'application/octet-stream'], 'Content-Disposition': [`attachment; filename="${a.filename}"`] },
          content: a.content.toString('base64'),
        }))
        : null,
    });
  }

  async send(msg: OutgoingMessage): Promise<void> {
    while (this.inFlight >= Math.max(1, this.s.max_conns || 1)) await new Promise<void>((r) => this.waiters.push(r));
    this.inFlight++;
    try {
      const body = PostbackMessenger.payload(msg);
      const attempts = Math.max(1, (this.s.max_msg_retries ?? 0) + 1);
      for (let i = 1; ; i++) {
        try {
          const status = await this.client.post(
            { 'content-type': 'application/json', 'user-agent': 'listmonk', ...(this.auth ? { authorization: this.auth } : {}) },
            body,
            this.timeout,
          );
          if (status === 200) return;
          throw new Error(`postback ${this.name}: HTTP ${status}${status >= 300 && status < 400 ? ' (redirects are not followed)' : ''}`);
        } catch (e) {
          // A refused address stays refused: no retry, and the reason names the messenger.
          if (e instanceof OutboundRefused) throw new Error(`postback ${this.name}: ${e.message}`);
          if (i >= attempts) throw e;
          await sleep(100 * i);
        }
      }
    } finally {
      this.inFlight--;
      this.waiters.shift()?.();
    }
  }

  async close(): Promise<void> {
    this.client.close();
  }
}

/** Mailer factory: one messenger per enabled `messengers` entry. */
export function postbackMessengers(settings: Settings): Messenger[] {
  const list = (settings.messengers as PostbackSettings[] | undefined) ?? [];
  const allowPrivate = settings['security.allow_private_outbound'] === true;
  return list.filter((m) => m.enabled && m.name && URL.canParse(m.root_url)).map((m) => new PostbackMessenger(m, allowPrivate));
}
