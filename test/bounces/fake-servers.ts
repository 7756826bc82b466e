// Tiny POP3 and IMAP servers over node:net for the mailbox scanning tests: they speak just
// enough of each protocol for a client to log in, list, fetch and delete messages, and they
// record what was deleted.
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

export interface FakeMailbox {
  port: number;
  /** Messages still in the mailbox (deletions applied at QUIT / EXPUNGE). */
  messages: Buffer[];
  /** Commands received, for failure messages. */
  log: string[];
  close(): Promise<void>;
}

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function lines(socket: Socket, onLine: (line: string) => void): void {
  let buf = '';
  socket.setEncoding('latin1');
  socket.on('data', (d: string) => {
    buf += d;
    let i;
    while ((i = buf.indexOf('\r\n')) >= 0) {
      const line = buf.slice(0, i);
      buf = buf.slice(i + 2);
      onLine(line);
    }
  });
  socket.on('error', () => undefined);
}

const crlf = (b: Buffer) => Buffer.from(b.toString('latin1').replace(/\r?\n/g, '\r\n'), 'latin1');

export async function startFakePop3(initial: Buffer[], creds = { user: 'bounces', pass: 'secret' }): Promise<FakeMailbox> {
  const box: FakeMailbox = { port: 0, messages: initial.map(crlf), log: [], close: async () => undefined };
  const server = createServer((socket) => {
    let user = '';
    let authed = false;
    const deleted = new Set<number>();
    const send = (s: string) => socket.write(s + '\r\n');
    send('+OK fake POP3 ready');
    lines(socket, (line) => {
      box.log.push(line.startsWith('PASS') ? 'PASS ***' : line);
      const [cmd, arg] = [line.split(' ')[0].toUpperCase(), line.split(' ').slice(1).join(' ')];
      const n = Number(arg);
      const exists = Number.isInteger(n) && n >= 1 && n <= box.messages.length && !deleted.has(n);
      if (cmd === 'USER') return (user = arg), send('+OK');
      if (cmd === 'PASS') return user === creds.user && arg === creds.pass ? ((authed = true), send('+OK logged in')) : send('-ERR [AUTH] invalid credentials');
      if (cmd === 'QUIT') {
        box.messages = box.messages.filter((_, i) => !deleted.has(i + 1));
        send('+OK bye');
        return socket.end();
      }
      if (!authed) return send('-ERR not logged in');
      if (cmd === 'STAT') return send(`+OK ${box.messages.length} ${box.messages.reduce((s, m) => s + m.length, 0)}`);
      if (cmd === 'UIDL') {
        send('+OK');
        box.messages.forEach((_, i) => !deleted.has(i + 1) && send(`${i + 1} uid-${i + 1}`));
        return send('.');
      }
      if (cmd === 'RETR') {
        if (!exists) return send('-ERR no such message');
        const body = box.messages[n - 1].toString('latin1').split('\r\n').map((l) => (l.startsWith('.') ? '.' + l : l)).join('\r\n');
        socket.write(`+OK ${box.messages[n - 1].length} octets\r\n`);
        socket.write(body.endsWith('\r\n') ? body : body + '\r\n', 'latin1');
        return send('.');
      }
      if (cmd === 'DELE') return exists ? (deleted.add(n), send('+OK deleted')) : send('-ERR no such message');
      send('-ERR unknown command');
    });
  });
  box.port = await listen(server);
  box.close = () => new Promise((resolve) => server.close(() => resolve()));
  return box;
}

export async function startFakeImap(initial: Buffer[], creds = { user: 'bounces', pass: 'secret' }): Promise<FakeMailbox> {
  const box: FakeMailbox = { port: 0, messages: initial.map(crlf), log: [], close: async () => undefined };
  let nextUid = 1;
  const uids = box.messages.map(() => nextUid++);
  const server = createServer((socket) => {
    const flagged = new Set<number>(); // uids marked \Deleted
    const send = (s: string) => socket.write(s + '\r\n');
    send('* OK [CAPABILITY IMAP4rev1 UIDPLUS] fake IMAP ready');
    lines(socket, (line) => {
      box.log.push(line.replace(/^(\S+ LOGIN \S+) .*/i, '$1 ***'));
      const m = /^(\S+) (?:(UID) )?(\S+)\s*(.*)$/i.exec(line);
      if (!m) return;
      const [, tag, uidMode, rawCmd, args] = m;
      const cmd = rawCmd.toUpperCase();
      const setOf = (spec: string, byUid: boolean): number[] => {
        const max = byUid ? Math.max(0, ...uids) : box.messages.length;
        const out: number[] = [];
        for (const part of spec.split(',')) {
          const [a, b] = part.split(':').map((x) => (x === '*' ? max : Number(x)));
          for (let i = Math.min(a, b ?? a); i <= Math.max(a, b ?? a); i++) out.push(i);
        }
        return out;
      };
      switch (cmd) {
        case 'CAPABILITY':
          send('* CAPABILITY IMAP4rev1 UIDPLUS');
          return send(`${tag} OK done`);
        case 'LOGIN': {
          const [u, p] = args.split(' ').map((s) => s.replace(/^"|"$/g, ''));
          return u === creds.user && p === creds.pass ? send(`${tag} OK logged in`) : send(`${tag} NO [AUTHENTICATIONFAILED] invalid credentials`);
        }
        case 'SELECT':
        case 'EXAMINE':
          send('* FLAGS (\\Deleted \\Seen)');
          send(`* ${box.messages.length} EXISTS`);
          send('* OK [UIDVALIDITY 1] ok');
          send(`* OK [UIDNEXT ${nextUid}] ok`);
          return send(`${tag} OK [READ-WRITE] selected`);
        case 'FETCH': {
          const spec = args.split(' ')[0];
          for (const x of setOf(spec, Boolean(uidMode))) {
            const seq = uidMode ? uids.indexOf(x) + 1 : x;
            if (seq < 1 || seq > box.messages.length) continue;
            const msg = box.messages[seq - 1];
            socket.write(`* ${seq} FETCH (UID ${uids[seq - 1]} BODY[] {${msg.length}}\r\n`);
            socket.write(msg);
            socket.write(')\r\n');
          }
          return send(`${tag} OK fetched`);
        }
        case 'STORE': {
          const [spec] = args.split(' ');
          for (const x of setOf(spec, Boolean(uidMode))) flagged.add(uidMode ? x : uids[x - 1]);
          return send(`${tag} OK stored`);
        }
        case 'EXPUNGE': {
          const only = uidMode && args ? new Set(setOf(args.trim(), true)) : null;
          for (let i = box.messages.length - 1; i >= 0; i--) {
            if (flagged.has(uids[i]) && (!only || only.has(uids[i]))) {
              box.messages.splice(i, 1);
              uids.splice(i, 1);
              send(`* ${i + 1} EXPUNGE`);
            }
          }
          return send(`${tag} OK expunged`);
        }
        case 'LOGOUT':
          send('* BYE bye');
          send(`${tag} OK logged out`);
          return socket.end();
        default:
          return send(`${tag} OK`);
      }
    });
  });
  box.port = await listen(server);
  box.close = () => new Promise((resolve) => server.close(() => resolve()));
  return box;
}
