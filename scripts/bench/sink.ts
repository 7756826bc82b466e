// The bench's SMTP sink: accepts every message, counts it, discards the data. Runs in its own
// process; prints {"port": N} once listening and answers "count" on stdin with {"count": N}.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';

let count = 0;
const server = new SMTPServer({
  disabledCommands: ['STARTTLS', 'AUTH'],
  authOptional: true,
  logger: false,
  maxClients: 1000,
  onData(stream, _session, cb) {
    stream.on('data', () => {});
    stream.on('end', () => {
      count++;
      cb();
    });
  },
});
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(JSON.stringify({ port: (server.server.address() as AddressInfo).port }) + '\n');
});
createInterface({ input: process.stdin }).on('line', (line) => {
  if (line.trim() === 'count') process.stdout.write(JSON.stringify({ count }) + '\n');
  if (line.trim() === 'reset') count = 0;
  if (line.trim() === 'exit') server.close(() => process.exit(0));
});
