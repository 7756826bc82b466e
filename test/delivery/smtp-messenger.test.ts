// The SMTP messenger against a real server: messages beyond the pool's connections wait their
// turn and all arrive; a transient (4xx) rejection is retried up to max_msg_retries, a
// permanent (5xx) one is not.
import { after, before, it } from 'node:test';
import assert from 'node:assert/strict';
import { SmtpMessenger, type SmtpServerSettings } from '../../src/mail/smtp.ts';
import type { OutgoingMessage } from '../../src/mail/types.ts';
import { startScriptedSmtp } from '../helpers/smtp.ts';

/** Rejects the first DATA of each "retry-*" recipient with 451 and every "never-*" one with 550. */
let server: Awaited<ReturnType<typeof startScriptedSmtp>>;
let port = 0;
const attempts = new Map<string, number>();
const accepted: string[] = [];

before(async () => {
  server = await startScriptedSmtp(([to], reply) => {
    const n = (attempts.get(to) ?? 0) + 1;
    attempts.set(to, n);
    const fail = (code: number) => reply(Object.assign(new Error(`rejected ${to}`), { responseCode: code }));
    if (to.startsWith('never-')) return fail(550);
    if (to.startsWith('retry-') && n === 1) return fail(451);
    accepted.push(to);
    reply();
  });
  port = server.port;
});
after(() => server.close());

function settings(over: Partial<SmtpServerSettings>): SmtpServerSettings {
  return {
    name: '', uuid: '', enabled: true, host: '127.0.0.1', hello_hostname: '', port, auth_protocol: 'none', username: '',
    email_headers: [], max_conns: 1, max_msg_retries: 1, msg_retry_delay: '10ms', idle_timeout: '15s', wait_timeout: '5s',
    tls_type: 'none', tls_skip_verify: false, from_addresses: [], ...over,
  };
}

const message = (to: string): OutgoingMessage => ({ from: 'News <news@example.com>', to: [to], subject: 'Hi', text: 'Hello' });

it('sends more messages than connections, retrying a transient rejection once', async () => {
  const m = new SmtpMessenger('email', [settings({ max_conns: 2 })]);
  try {
    const to = ['a@example.com', 'retry-b@example.com', 'c@example.com', 'retry-d@example.com', 'e@example.com'];
    await Promise.all(to.map((addr) => m.send(message(addr))));
    assert.deepEqual([...accepted].sort(), [...to].sort());
    assert.equal(attempts.get('retry-b@example.com'), 2);
    assert.equal(attempts.get('a@example.com'), 1);
  } finally {
    await m.close();
  }
});

it('does not retry a permanent rejection, and the next message still goes out', async () => {
  const m = new SmtpMessenger('email', [settings({ max_msg_retries: 3 })]);
  try {
    const [never, after] = await Promise.allSettled([m.send(message('never-x@example.com')), m.send(message('f@example.com'))]);
    assert.equal(never.status, 'rejected');
    assert.equal(attempts.get('never-x@example.com'), 1);
    assert.equal(after.status, 'fulfilled');
    assert.ok(accepted.includes('f@example.com'));
  } finally {
    await m.close();
  }
});
