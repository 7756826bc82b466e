// The verification snippets the admin shows beside a new secret (src/webhooks/snippets.ts) are
// run here against signed deliveries: each accepts a good one (one signature, or two while a
// rotated secret still signs) and refuses a wrong signature, a changed body, another secret and
// an old timestamp. Node's runs in-process; Python's and PHP's where the interpreter is installed
// (always under CI=true).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { describe, it } from 'node:test';
import { VERIFY_SNIPPETS, type VerifySnippet } from '../../src/webhooks/snippets.ts';

/** The Standard Webhooks signature of a delivery, computed here as the specification says. */
function sign(secret: string, id: string, timestamp: string, body: string): string {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

interface Case {
  name: string;
  body: string;
  headers: Record<string, string>;
  secret: string;
  accepted: boolean;
}

/** Deliveries to verify, and whether each must be accepted. */
function cases(): Case[] {
  const secret = newSecret();
  const old = newSecret();
  const id = `msg_${randomBytes(8).toString('hex')}`;
  const now = String(Math.floor(Date.now() / 1000));
  const body = JSON.stringify({ type: 'subscriber.created', timestamp: new Date().toISOString(), data: { subscriber: { id: 1, email: 'ada@example.com', name: 'Ada “Countess” Lovelace' } } });
  const headers = (signature: string, timestamp = now) => ({ 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature });
  const stale = String(Number(now) - 10 * 60);
  return [
    { name: 'one good signature', body, headers: headers(sign(secret, id, now, body)), secret, accepted: true },
    { name: 'two signatures, the current secret second', body, headers: headers(`${sign(old, id, now, body)} ${sign(secret, id, now, body)}`), secret, accepted: true },
    { name: 'two signatures, checked with the old secret', body, headers: headers(`${sign(secret, id, now, body)} ${sign(old, id, now, body)}`), secret: old, accepted: true },
    { name: 'another secret', body, headers: headers(sign(newSecret(), id, now, body)), secret, accepted: false },
    { name: 'a changed body', body: body.replace('Ada', 'Eve'), headers: headers(sign(secret, id, now, body)), secret, accepted: false },
    { name: 'another id', body, headers: { ...headers(sign(secret, id, now, body)), 'webhook-id': 'msg_other' }, secret, accepted: false },
    { name: 'a timestamp ten minutes old', body, headers: headers(sign(secret, id, stale, body), stale), secret, accepted: false },
    { name: 'no signature', body, headers: headers(''), secret, accepted: false },
    { name: 'an unknown signature version', body, headers: headers(sign(secret, id, now, body).replace('v1,', 'v2,')), secret, accepted: false },
  ];
}

const snippet = (lang: VerifySnippet['lang']) => VERIFY_SNIPPETS.find((s) => s.lang === lang)!;

/** Runs `program` with the cases as JSON on stdin; it prints one line per case: the event's type, or "refused". */
function runInterpreter(command: string, args: string[], input: Case[]): string[] {
  const res = spawnSync(command, args, { input: JSON.stringify(input), encoding: 'utf8' });
  assert.equal(res.status, 0, res.stderr);
  return res.stdout.trim().split('\n');
}

const installed = (command: string) => spawnSync(command, ['--version']).status === 0;
/** Skipped where the interpreter is missing, except under CI=true (.ci/run installs it): there it runs, and fails. */
const unlessMissing = (command: string): false | string => (installed(command) || process.env.CI === 'true' ? false : `no ${command}`);
const expected = (input: Case[]) => input.map((c) => (c.accepted ? 'subscriber.created' : 'refused'));

describe('the signature verification snippets', () => {
  it('sign as the specification\'s own example does', () => {
    assert.equal(sign('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', 'msg_p5jXN8AQM9LWM0D4loKWxJek', '1614265330', '{"test": 2432232314}'), 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('are Node, Python and PHP, each read from the environment', () => {
    assert.deepEqual(VERIFY_SNIPPETS.map((s) => s.lang), ['node', 'python', 'php']);
    for (const s of VERIFY_SNIPPETS) assert.ok(s.usage.includes('LISTMGR_WEBHOOK_SECRET'), s.lang);
  });

  it('Node: accepts the good deliveries and refuses the others', () => {
    const input = cases();
    const verify = new Function('require', `${snippet('node').verify}\nreturn verifyWebhook;`)(createRequire(import.meta.url)) as (body: Buffer, headers: Record<string, string>, secret: string) => { type: string };
    const got = input.map((c) => {
      try {
        return verify(Buffer.from(c.body), c.headers, c.secret).type;
      } catch {
        return 'refused';
      }
    });
    assert.deepEqual(got, expected(input));
  });

  it('Python: accepts the good deliveries and refuses the others', { skip: unlessMissing('python3') }, () => {
    const input = cases();
    const program = `${snippet('python').verify}
import sys
for c in json.load(sys.stdin):
    try:
        print(verify_webhook(c["body"].encode(), c["headers"], c["secret"])["type"])
    except ValueError:
        print("refused")
`;
    assert.deepEqual(runInterpreter('python3', ['-c', program], input), expected(input));
  });

  it('PHP: accepts the good deliveries and refuses the others', { skip: unlessMissing('php') }, () => {
    const input = cases();
    const program = `${snippet('php').verify.replace('<?php', '')}
foreach (json_decode(file_get_contents('php://stdin'), true) as $c) {
    try {
        echo verify_webhook($c['body'], $c['headers'], $c['secret'])['type'], "\\n";
    } catch (RuntimeException $e) {
        echo "refused\\n";
    }
}
`;
    assert.deepEqual(runInterpreter('php', ['-r', program], input), expected(input));
  });
});
