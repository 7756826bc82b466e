// The SMTP messenger: one nodemailer pool per enabled server, messages spread round-robin, a
// From address listed in a server's from_addresses routed to that server.
import nodemailer, { type Transporter } from 'nodemailer';
import type SMTPPool from 'nodemailer/lib/smtp-pool/index.js';
import type { Messenger, OutgoingMessage } from './types.ts';
import { bareAddress, messageId } from './message.ts';
import { parseDuration } from '../duration.ts';
import { allowedAddresses, OutboundRefused } from './outbound.ts';

export interface SmtpServerSettings {
  name: string;
  uuid: string;
  enabled: boolean;
  host: string;
  hello_hostname: string;
  port: number;
  auth_protocol: 'none' | 'plain' | 'login' | 'cram';
  username: string;
  password?: string;
  email_headers: Record<string, string>[];
  max_conns: number;
  max_msg_retries: number;
  msg_retry_delay: string;
  idle_timeout: string;
  wait_timeout: string;
  tls_type: 'none' | 'STARTTLS' | 'TLS';
  tls_skip_verify: boolean;
  from_addresses: string[];
}

const AUTH_METHOD = { plain: 'PLAIN', login: 'LOGIN', cram: 'CRAM-MD5' } as const;

export function transportOptions(s: SmtpServerSettings, pool: boolean): SMTPPool.Options {
  const wait = parseDuration(s.wait_timeout) ?? 5000;
  return {
    pool,
    maxConnections: Math.max(1, s.max_conns),
    maxMessages: Infinity,
    host: s.host,
    port: s.port,
    name: s.hello_hostname || undefined,
    secure: s.tls_type === 'TLS',
    requireTLS: s.tls_type === 'STARTTLS',
    ignoreTLS: s.tls_type === 'none',
    tls: { rejectUnauthorized: !s.tls_skip_verify },
    auth: s.auth_protocol === 'none' ? undefined : { user: s.username, pass: s.password ?? '', method: AUTH_METHOD[s.auth_protocol] },
    authMethod: s.auth_protocol === 'none' ? undefined : AUTH_METHOD[s.auth_protocol],
    connectionTimeout: wait,
    greetingTimeout: wait,
    socketTimeout: Math.max(parseDuration(s.idle_timeout) ?? 15000, 30000),
  };
}

function headerMap(list: Record<string, string>[]): Record<string, string> {
  return Object.assign({}, ...list);
}

/**
 * The server's email_headers under the message's own (a message header replaces a server one
 * of the same name, in any case); a Return-Path header leaves the message to become the
 * envelope sender, as in listmonk (docs/decisions.md §51).
 */
function envelopeHeaders(server: Record<string, string>, own: Record<string, string>): { headers: Record<string, string>; returnPath: string | undefined } {
  const ownNames = new Set(Object.keys(own).map((k) => k.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(server)) if (!ownNames.has(name.toLowerCase())) headers[name] = value;
  Object.assign(headers, own);
  let returnPath: string | undefined;
  for (const name of Object.keys(headers)) {
    if (name.toLowerCase() !== 'return-path') continue;
    returnPath = bareAddress(headers[name]) || undefined;
    delete headers[name];
  }
  return { headers, returnPath };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class SmtpServer {
  readonly transport: Transporter;
  readonly headers: Record<string, string>;
  /**
   * At most one message per pool connection is handed to nodemailer; the others (when
   * app.concurrency exceeds max_conns) wait here as a small OutgoingMessage. nodemailer builds
   * a message's MIME tree and streams as soon as it is given one, and those queued inside its
   * pool lived long enough to be promoted to V8's old space.
   */
  private readonly slots: number;
  private busy = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(readonly settings: SmtpServerSettings) {
    this.transport = nodemailer.createTransport(transportOptions(settings, true));
    this.headers = headerMap(settings.email_headers ?? []);
    this.slots = Math.max(1, settings.max_conns);
  }

  async send(msg: OutgoingMessage): Promise<void> {
    const retries = Math.max(0, this.settings.max_msg_retries);
    const delay = parseDuration(this.settings.msg_retry_delay) ?? 10;
    const { headers, returnPath } = envelopeHeaders(this.headers, msg.headers ?? {});
    const id = messageId(msg.from); // nodemailer's own shape is not listmonk's; one id for every attempt
    for (let attempt = 0; ; attempt++) {
      await this.acquire();
      try {
        await this.transport.sendMail({
          from: msg.from,
          to: msg.to,
          cc: msg.cc,
          bcc: msg.bcc,
          subject: msg.subject,
          html: msg.html,
          text: msg.text,
          textEncoding: msg.textEncoding,
          headers,
          // Return-Path names the bounce mailbox: nodemailer then takes the recipients from the envelope.
          envelope: returnPath ? { from: returnPath, to: [...msg.to, ...(msg.cc ?? []), ...(msg.bcc ?? [])] } : undefined,
          attachments: msg.attachments?.map((a) => ({ filename: a.filename, content: a.content, contentType: a.contentType })),
          messageId: id,
        });
        return;
      } catch (e) {
        // Only transient failures are worth another try; a 5xx rejection will not change.
        const code = (e as { responseCode?: number }).responseCode ?? 0;
        if (attempt >= retries || (code >= 500 && code < 600)) throw e;
      } finally {
        this.release();
      }
      await sleep(delay);
    }
  }

  private async acquire(): Promise<void> {
    if (this.busy < this.slots) this.busy++;
    else await new Promise<void>((r) => this.waiting.push(r)); // release() hands its slot over
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) next();
    else this.busy--;
  }
}

export class SmtpMessenger implements Messenger {
  private readonly servers: SmtpServer[];
  private next = 0;

  constructor(readonly name: string, settings: SmtpServerSettings[]) {
    this.servers = settings.filter((s) => s.enabled).map((s) => new SmtpServer(s));
    if (!this.servers.length) throw new Error(`messenger ${name}: no enabled SMTP server`);
  }

  private pick(from: string): SmtpServer {
    const addr = bareAddress(from).toLowerCase();
    const domain = addr.split('@')[1] ?? '';
    const routed = this.servers.find((s) => s.settings.from_addresses?.some((f) => f === addr || f === domain));
    if (routed) return routed;
    const s = this.servers[this.next % this.servers.length];
    this.next = (this.next + 1) % this.servers.length;
    return s;
  }

  send(msg: OutgoingMessage): Promise<void> {
    return this.pick(msg.from).send(msg);
  }

  async close(): Promise<void> {
    for (const s of this.servers) s.transport.close();
  }
}

/** POST /settings/smtp/test: one real connection, one real message; throws the server's error. */
/**
 * Tests an SMTP server: sends a test message to `to`, or without a recipient only connects,
 * negotiates TLS and authenticates (nodemailer's verify). Fails with a SmtpTestError.
 * With `guard` (a server typed for the test, not a saved one), s.host must resolve to addresses
 * postback messengers may reach (outbound.ts), and the connection goes to the address checked,
 * TLS still verifying the certificate for s.host. A failure before the remote has spoken SMTP is
 * answered no sooner than the server's wait_timeout after the start, whatever it was (a name
 * that does not resolve, a closed port, a silent one, another service): neither the words nor
 * the time tell them apart.
 */
export async function testSmtpServer(s: SmtpServerSettings, from: string, to: string | null, siteName: string, guard?: { allowPrivate: boolean }): Promise<void> {
  const started = Date.now();
  let transport: Transporter | undefined;
  const { headers, returnPath } = envelopeHeaders(headerMap(s.email_headers ?? []), {});
  try {
    const options = transportOptions({ ...s, max_conns: 1 }, false);
    const address = guard ? (await allowedAddresses(s.host, guard.allowPrivate))[0] : undefined;
    transport = nodemailer.createTransport(address ? { ...options, host: address, servername: s.host } : options);
    if (!to) await transport.verify();
    else {
      await transport.sendMail({
        from,
        to,
        subject: `${siteName}: SMTP test`,
        text: `This is a test message from ${siteName}. Your SMTP settings for ${s.host}:${s.port} work.`,
        headers,
        envelope: returnPath ? { from: returnPath, to } : undefined,
        messageId: messageId(from),
      });
    }
  } catch (e) {
    if (e instanceof OutboundRefused) throw new SmtpTestError(e.message);
    if (!spokeSmtp(e as SmtpError)) await sleep(started + (parseDuration(s.wait_timeout) ?? 5000) - Date.now());
    throw new SmtpTestError(smtpTestFailure(e as SmtpError, `${s.host}:${s.port}`));
  } finally {
    transport?.close();
  }
}

export class SmtpTestError extends Error {}

interface SmtpError extends Error {
  code?: string;
  responseCode?: number;
  /** The server's reply line (nodemailer). */
  response?: string;
  /** The SMTP command it failed at (nodemailer): CONN before the greeting. */
  command?: string;
}

/** Whether the remote had greeted and answered EHLO as an SMTP server when it failed. */
function spokeSmtp(e: SmtpError): boolean {
  return ['EAUTH', 'ENOAUTH', 'EENVELOPE', 'EMESSAGE'].includes(e.code ?? '') || (e.code === 'ETLS' && e.command === 'STARTTLS');
}

/**
 * The relay's own reply to a refused sign-in or message ("535 5.7.8 Username and Password not
 * accepted"), on one line, at most 300 characters. Only these stages quote it: by then the
 * remote has greeted and answered EHLO as an SMTP server, so the text says nothing about other
 * services on internal ports.
 */
function relayReply(e: SmtpError): string {
  const text = (e.response ?? '').replace(/[\x00-\x1f\x7f]+/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 300);
  return text ? `: the relay answered "${text}"` : '';
}

/**
 * What went wrong. Before the remote has spoken SMTP, one answer whatever happened: the SMTP test
 * can be pointed at any host and port, and "refused", "timed out", a banner or an error text
 * would tell what listens on an internal port. Refusals of the sign-in or of the message quote
 * the relay's reply, which is what says why (a wrong password, an unverified sender).
 */
function smtpTestFailure(e: SmtpError, where: string): string {
  if (!spokeSmtp(e)) return `could not talk SMTP with ${where} (check the host, the port and the TLS setting)`;
  const reply = e.responseCode ? ` (SMTP ${e.responseCode})` : '';
  switch (e.code) {
    case 'ETLS':
      return `TLS with ${where} failed (STARTTLS)`;
    case 'EAUTH':
      return `${where} refused the user name or password${reply}${relayReply(e)}`;
    case 'ENOAUTH':
      return `${where} asks for authentication, and no user name or password is set`;
    default: // EENVELOPE, EMESSAGE
      return `${where} refused the test message${reply}${relayReply(e)}`;
  }
}
