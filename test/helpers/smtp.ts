// A real SMTP server (smtp-server) on an ephemeral port that records every message it accepts.
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { simpleParser, type ParsedMail } from 'mailparser';
import type { AddressInfo } from 'node:net';
import { after, before } from 'node:test';

export interface ReceivedMail {
  from: string;
  to: string[];
  raw: string;
  parsed: ParsedMail;
}

export interface SmtpSink {
  port: number;
  messages: ReceivedMail[];
  /** Every AUTH attempt, accepted or not. */
  auths: { username: string; password: string }[];
  /** Resolves when at least n messages have arrived (rejects after timeoutMs). */
  waitFor(n: number, timeoutMs?: number): Promise<ReceivedMail[]>;
  /** The smtp settings block that points at this sink. */
  settingsBlock(over?: Record<string, unknown>): Record<string, unknown>;
  close(): Promise<void>;
}

export interface SmtpSinkOptions {
  /** Require AUTH with these credentials. */
  auth?: { user: string; pass: string };
  /** Reject every RCPT with this SMTP error (e.g. to test failures). */
  rejectWith?: { code: number; message: string };
  /** Refuse RCPT of these addresses with the given error, for as long as they are in the map. */
  refuse?: Map<string, { code: number; message: string }>;
  /** Listen on this port (e.g. to come back where a closed sink was); default: any free one. */
  port?: number;
}

export async function startSmtpSink(opts: SmtpSinkOptions = {}): Promise<SmtpSink> {
  const messages: ReceivedMail[] = [];
  const auths: SmtpSink['auths'] = [];
  const waiters: (() => void)[] = [];
  const options: SMTPServerOptions = {
    disabledCommands: opts.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.auth,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      auths.push({ username: auth.username ?? '', password: auth.password ?? '' });
      if (opts.auth && auth.username === opts.auth.user && auth.password === opts.auth.pass) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onRcptTo(addr, _session, cb) {
      const refusal = opts.rejectWith ?? opts.refuse?.get(addr.address);
      if (refusal) {
        const err = new Error(refusal.message) as Error & { responseCode: number };
        err.responseCode = refusal.code;
        cb(err);
      } else cb();
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', async () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          parsed: await simpleParser(raw),
        });
        waiters.splice(0).forEach((w) => w());
        cb();
      });
    },
  };
  const server = new SMTPServer(options);
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;

  return {
    port,
    messages,
    auths,
    async waitFor(n, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (messages.length < n) {
        if (Date.now() > deadline) throw new Error(`expected ${n} messages, got ${messages.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return messages;
    },
    settingsBlock(over = {}) {
      return {
        enabled: true, host: '127.0.0.1', port, hello_hostname: '', auth_protocol: opts.auth ? 'login' : 'none',
        username: opts.auth?.user ?? '', password: opts.auth?.pass ?? '', email_headers: [], max_conns: 4,
        max_msg_retries: 0, msg_retry_delay: '10ms', idle_timeout: '15s', wait_timeout: '5s', tls_type: 'none',
        tls_skip_verify: false, from_addresses: [], name: '', uuid: '', ...over,
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * An SMTP server whose answer to each message's DATA is decided by `onMessage` (accept with
 * `reply()`, reject with `reply(error)` carrying a `responseCode`, or hold the reply for later).
 */
export async function startScriptedSmtp(onMessage: (rcptTo: string[], reply: (err?: Error) => void) => void): Promise<{ port: number; close(): Promise<void> }> {
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onData(stream, session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => onMessage(session.envelope.rcptTo.map((r) => r.address), (err) => cb(err ?? null)));
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Points the server's SMTP settings at the sink (the only enabled server). */
export async function useSmtpSink(t: { request: (m: string, p: string, b?: unknown) => Promise<{ status: number }> }, sink: SmtpSink): Promise<void> {
  const res = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock()] });
  if (res.status !== 200) throw new Error(`could not configure SMTP: ${res.status}`);
}

/** A sink for the enclosing describe(): started before its tests, closed after them. */
export function useSink(): () => SmtpSink {
  let sink: SmtpSink | undefined;
  before(async () => {
    sink = await startSmtpSink();
  });
  after(async () => {
    await sink?.close();
  });
  return () => {
    if (!sink) throw new Error('the SMTP sink has not started');
    return sink;
  };
}

/** An SMTP reply refusing a command: `{ code: 451, message: 'Try again later' }`. */
export interface SmtpRefusal {
  code: number;
  message: string;
}

/**
 * How a faulty relay answers, decided per event (return nothing to go on as a working relay).
 * Connections are numbered from 1.
 */
export interface SmtpFaults {
  /** 'drop': the connection is closed at once, before any greeting; a number: the greeting waits that many ms. */
  connect?(n: number): 'drop' | number | void;
  /** A refusal, or 'drop': the connection is closed without a reply. */
  mailFrom?(from: string): SmtpRefusal | 'drop' | void;
  rcptTo?(to: string): SmtpRefusal | 'drop' | void;
  /** The reply to the message's data (after it was sent; 'drop' then leaves the client not knowing whether it went through). */
  data?(to: string[]): SmtpRefusal | 'drop' | void;
}

export interface FaultySmtp {
  port: number;
  /** The recipients of every message the relay accepted (answered 250 to), one entry per acceptance. */
  accepted: string[];
  /** Every reply of the faults that refused something (and every dropped or stalled connection). */
  faults: number;
  /** Closes every open connection (its client must connect again). */
  dropAll(): void;
  close(): Promise<void>;
}

/** A relay (smtp-server) that fails as `faults` says. */
export async function startFaultySmtp(faults: SmtpFaults): Promise<FaultySmtp> {
  let connections = 0;
  const state = { accepted: [] as string[], faults: 0 };
  /** Answers `cb` as the fault says: accepted (true), refused, or the connection dropped unanswered. */
  const answer = (r: SmtpRefusal | 'drop' | void, sessionId: string, cb: (err?: Error | null) => void): boolean => {
    if (!r) {
      cb();
      return true;
    }
    state.faults++;
    if (r === 'drop') connection(sessionId)?._socket.destroy();
    else cb(Object.assign(new Error(r.message), { responseCode: r.code }));
    return false;
  };
  // smtp-server's open connections (not in its typings): closed to drop or end a session.
  interface Connection {
    id: string;
    _socket: { destroy(): void };
  }
  const open = () => (server as unknown as { connections: Set<Connection> }).connections;
  const connection = (id: string) => [...open()].find((c) => c.id === id);
  const server = new SMTPServer({
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    disableReverseLookup: true,
    logger: false,
    onConnect(session, cb) {
      const what = faults.connect?.(++connections);
      if (what === 'drop') {
        state.faults++;
        connection(session.id)?._socket.destroy();
      } else if (typeof what === 'number') {
        state.faults++;
        setTimeout(() => cb(), what);
      } else cb();
    },
    onMailFrom(addr, session, cb) {
      answer(faults.mailFrom?.(addr.address), session.id, cb);
    },
    onRcptTo(addr, session, cb) {
      answer(faults.rcptTo?.(addr.address), session.id, cb);
    },
    onData(stream, session, cb) {
      stream.on('data', () => {});
      stream.on('end', () => {
        const to = session.envelope.rcptTo.map((r) => r.address);
        if (answer(faults.data?.(to), session.id, cb)) state.accepted.push(...to);
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.server.address() as AddressInfo).port,
    get accepted() {
      return state.accepted;
    },
    get faults() {
      return state.faults;
    },
    dropAll() {
      for (const c of open()) c._socket.destroy();
    },
    close: () => new Promise<void>((resolve) => {
      for (const c of open()) c._socket.destroy();
      server.close(() => resolve());
    }),
  };
}
