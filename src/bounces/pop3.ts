// A small POP3 client (RFC 1939) over TCP or TLS: USER/PASS, STAT, UIDL/LIST, RETR, DELE, QUIT.
// Just what bounce scanning needs; there is no well-kept POP3 library to use instead.
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';

export interface Pop3Options {
  host: string;
  port: number;
  tls: boolean;
  tlsSkipVerify?: boolean;
  /** Time limit of connecting and of each command. */
  timeoutMs: number;
}

export class Pop3Error extends Error {}
/** The server answered "-ERR". */
export class Pop3ReplyError extends Pop3Error {}

/** Largest single response accepted (a message); a server sending more is refused. */
const MAX_RESPONSE_BYTES = 50 * 1024 * 1024;

export class Pop3Client {
  private buf: Buffer = Buffer.alloc(0);
  private waiter: (() => void) | null = null;
  private failure: Error | null = null;

  private constructor(private readonly socket: Socket, private readonly timeoutMs: number) {
    socket.on('data', (d: Buffer) => {
      this.buf = this.buf.length ? Buffer.concat([this.buf, d]) : d;
      if (this.buf.length > MAX_RESPONSE_BYTES) this.fail(new Pop3Error('POP3 response too large'));
      this.wake();
    });
    socket.on('error', (e) => this.fail(e));
    socket.on('close', () => this.fail(new Pop3Error('POP3 connection closed')));
  }

  /** Connects and reads the greeting, each within the time limit. */
  static async connect(o: Pop3Options): Promise<Pop3Client> {
    const { timeoutMs } = o;
    const socket = await new Promise<Socket>((resolve, reject) => {
      const s: Socket = o.tls
        ? tlsConnect({ host: o.host, port: o.port, servername: o.host, rejectUnauthorized: !o.tlsSkipVerify }, () => done())
        : tcpConnect({ host: o.host, port: o.port }, () => done());
      const timer = setTimeout(() => {
        s.destroy();
        reject(new Pop3Error(`no connection to ${o.host}:${o.port} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      const done = () => {
        clearTimeout(timer);
        resolve(s);
      };
      s.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    const client = new Pop3Client(socket, timeoutMs);
    try {
      await client.status(); // greeting
    } catch (e) {
      client.close();
      throw e;
    }
    return client;
  }

  async login(user: string, pass: string): Promise<void> {
    await this.command(`USER ${user}`);
    await this.command(`PASS ${pass}`);
  }

  /** Number of messages and their total size. */
  async stat(): Promise<{ count: number; size: number }> {
    const [count, size] = (await this.command('STAT')).split(/\s+/).map(Number);
    return { count: count || 0, size: size || 0 };
  }

  /** Message numbers with their unique ids (UIDL), or with their numbers when UIDL is not supported. */
  async list(): Promise<{ n: number; id: string }[]> {
    let lines: string[];
    let hasUidl = true;
    try {
      lines = await this.multiline('UIDL');
    } catch (e) {
      if (!(e instanceof Pop3ReplyError)) throw e;
      hasUidl = false;
      lines = await this.multiline('LIST');
    }
    return lines.map((l) => l.trim().split(/\s+/)).filter((p) => /^\d+$/.test(p[0] ?? ''))
      .map((p) => ({ n: Number(p[0]), id: hasUidl ? p[1] ?? p[0] : p[0] }));
  }

  async retr(n: number): Promise<Buffer> {
    return Buffer.from((await this.multiline(`RETR ${n}`)).join('\r\n') + '\r\n', 'latin1');
  }

  async dele(n: number): Promise<void> {
    await this.command(`DELE ${n}`);
  }

  /** Ends the session; the server removes messages marked with DELE only now. */
  async quit(): Promise<void> {
    try {
      await this.command('QUIT');
    } finally {
      this.socket.end();
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private fail(e: Error): void {
    this.failure ??= e;
    this.wake();
  }

  private wake(): void {
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  private async command(line: string): Promise<string> {
    this.socket.write(line + '\r\n');
    return this.status(line.split(' ')[0]);
  }

  /** Reads a "+OK ..." line (returns the rest) or throws on "-ERR". */
  private async status(cmd = 'greeting'): Promise<string> {
    const line = await this.readUntil((b) => {
      const i = b.indexOf('\r\n');
      return i < 0 ? -1 : i + 2;
    });
    const text = line.toString('latin1').replace(/\r\n$/, '');
    if (text.startsWith('+OK')) return text.slice(3).trim();
    throw new Pop3ReplyError(`POP3 ${cmd} failed: ${text.replace(/^-ERR\s*/, '') || 'no reason given'}`);
  }

  /** A command with a multi-line answer: lines up to the lone ".", dot-stuffing undone. */
  private async multiline(line: string): Promise<string[]> {
    await this.command(line);
    const body = await this.readUntil((b) => {
      if (b.length >= 3 && b.subarray(0, 3).toString('latin1') === '.\r\n') return 3;
      const i = b.indexOf('\r\n.\r\n');
      return i < 0 ? -1 : i + 5;
    });
    const lines = body.toString('latin1').split('\r\n');
    lines.splice(-2); // the "." and the empty string after the final CRLF
    return lines.map((l) => (l.startsWith('..') ? l.slice(1) : l));
  }

  /** Waits until `end(buffer)` finds a complete response, and takes it off the buffer. */
  private async readUntil(end: (b: Buffer) => number): Promise<Buffer> {
    const deadline = Date.now() + this.timeoutMs;
    for (;;) {
      const n = end(this.buf);
      if (n >= 0) {
        const out = this.buf.subarray(0, n);
        this.buf = this.buf.subarray(n);
        return out;
      }
      if (this.failure) throw this.failure;
      const left = deadline - Date.now();
      if (left <= 0) throw new Pop3Error('POP3 server did not answer in time');
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiter = () => {
          clearTimeout(t);
          resolve();
        };
      });
    }
  }
}
