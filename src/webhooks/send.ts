// Sends webhook deliveries: one POST per call, never throwing (the worker records what happened
// and decides on a retry). SSRF-safe through the outbound guard (src/mail/outbound.ts): http and
// https only; the name resolved at each send and refused when any address is loopback, private,
// link-local, CGNAT, multicast, unspecified or a metadata address (IPv4-mapped and NAT64 forms
// too), the private ones allowed by security.webhooks_allow_private (a receiver on this machine
// or its LAN), the others never; connected to the address checked; no redirect followed; 64 KB
// of the answer kept.
import { GuardedClient, type Resolver } from '../mail/outbound.ts';

/** What a send gave: status null when no answer came (refused, timed out, connection failed). */
export interface SendResult {
  status: number | null;
  ms: number;
  body: string;
  error: string;
}

export interface SenderOptions {
  /** security.webhooks_allow_private, read at each send. */
  allowPrivate: () => boolean;
  /** The whole send's limit, resolution included (the 10 s; tests shorten it). */
  timeoutMs?: number;
  /** Connections kept to one origin. */
  maxSockets?: number;
  /** The host names' resolver (tests inject one). */
  resolve?: Resolver;
}

const SETTING = 'security.webhooks_allow_private';
/** The part of a receiver's answer kept (and stored with the delivery). */
export const MAX_RESPONSE_BODY = 64 * 1024;
const TIMEOUT_MS = 10_000;
// Connections per origin: with 64 deliveries in flight to a local node:http receiver, 16 gave
// about 3,500 deliveries/s on a loaded 2-core machine (4: 2,200 to 3,400; 64: no more than 16),
// past the worker's 2,000/s, and a slow receiver holds no more than 16 sockets.
const MAX_SOCKETS = 16;

/** The URL to send to; throws the reason when it is not an http(s) URL. */
function httpUrl(url: string): URL {
  // The URL itself is not repeated: it may carry credentials.
  if (!URL.canParse(url)) throw new Error('the webhook URL is not a valid URL');
  const parsed = new URL(url);
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new Error(`only http and https URLs are sent to, not ${parsed.protocol}`);
  }
  return parsed;
}

export class WebhookSender {
  /** Keep-alive connections per origin, all made under `clientsAllowPrivate`. */
  private readonly clients = new Map<string, GuardedClient>();
  private clientsAllowPrivate: boolean | null = null;
  private readonly timeoutMs: number;

  constructor(private readonly o: SenderOptions) {
    this.timeoutMs = o.timeoutMs ?? TIMEOUT_MS;
  }

  async post(url: string, headers: Record<string, string>, body: string): Promise<SendResult> {
    const started = performance.now();
    const ms = () => Math.round(performance.now() - started);
    const signal = AbortSignal.timeout(this.timeoutMs);
    try {
      const target = httpUrl(url);
      const answer = await this.client(target).exchange(target, headers, body, { signal, maxBody: MAX_RESPONSE_BODY });
      const redirect = answer.status >= 300 && answer.status < 400;
      return { status: answer.status, ms: ms(), body: answer.body, error: redirect ? `HTTP ${answer.status}: redirects are not followed` : '' };
    } catch (e) {
      const error = signal.aborted ? `timed out after ${this.timeoutMs} ms` : e instanceof Error ? e.message : String(e);
      return { status: null, ms: ms(), body: '', error };
    }
  }

  close(): void {
    for (const client of this.clients.values()) client.close();
    this.clients.clear();
  }

  /**
   * The origin's client. When the setting has changed since the clients were made, they are
   * closed first: no connection opened under the old setting carries another delivery (one in
   * flight fails, and is retried).
   */
  private client(url: URL): GuardedClient {
    const allowPrivate = this.o.allowPrivate();
    if (allowPrivate !== this.clientsAllowPrivate) {
      this.close();
      this.clientsAllowPrivate = allowPrivate;
    }
    let client = this.clients.get(url.origin);
    if (!client) {
      client = new GuardedClient(url, { allowPrivate, maxSockets: this.o.maxSockets ?? MAX_SOCKETS, setting: SETTING, resolve: this.o.resolve });
      this.clients.set(url.origin, client);
    }
    return client;
  }
}
