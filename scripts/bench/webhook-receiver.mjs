// bench:webhooks' receiver, in its own process so that its work does not delay the bench's API
// timings: answers every POST with 200, checks each delivery's Standard Webhooks signature with
// the secret it is given, and counts deliveries, distinct webhook-ids and bad signatures.
// Prints {"port": N} once listening; on stdin, "secret <whsec_…>" sets the secret, "stats"
// answers {"received", "unique", "bad", "first", "last"} (first and last: Date.now() of the
// first and latest delivery) and "reset" starts the counts again (the ids seen are kept).
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';

let key = Buffer.alloc(0);
const seen = new Set();
let received = 0;
let bad = 0;
let first = 0;
let last = 0;

/** Whether one of the v1 signatures of the delivery is the HMAC of "id.timestamp.body" with the key. */
function signed(headers, body) {
  const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.`).update(body).digest();
  return String(headers['webhook-signature'] ?? '').split(' ').some((s) => {
    const given = Buffer.from(s.slice(3), 'base64');
    return s.startsWith('v1,') && given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const server = createServer({ keepAliveTimeout: 60_000 }, (req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    const now = Date.now();
    if (!first) first = now;
    last = now;
    received++;
    if (!signed(req.headers, Buffer.concat(chunks))) bad++;
    seen.add(req.headers['webhook-id']);
    res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));

createInterface({ input: process.stdin }).on('line', (line) => {
  const [command, arg] = line.trim().split(' ');
  if (command === 'secret') key = Buffer.from(arg.replace(/^whsec_/, ''), 'base64');
  if (command === 'reset') [received, bad, first, last] = [0, 0, 0, 0];
  if (command === 'stats') process.stdout.write(`${JSON.stringify({ received, unique: seen.size, bad, first, last })}\n`);
  if (command === 'exit') process.exit(0);
});
