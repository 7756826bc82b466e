// Headers and envelope (delivery.md §8, §9): the SMTP server's email_headers are saved and sent
// under each message's own, a Return-Path header becomes the envelope sender and leaves the
// message, and every message carries listmonk's Message-Id shape.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { keepSettings, startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, useSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addSubscriber } from '../campaigns/fixtures.ts';

let t: TestServer;
let sink: SmtpSink;
let tpl: number;

const SERVER_HEADERS = [{ 'X-Server': 'from-settings' }, { 'X-Mailer': 'server' }];

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  await useSmtpSink(t, sink);
  const db = t.server.ctx.db;
  tpl = fixtures(db).template({ name: 'Note', type: 'tx', subject: 'Note', body: '<p>Hi {{ .Subscriber.Name }}</p>' });
  addSubscriber(db, 'ann@example.com', 'Ann', [[addList(db, 'L', 'single'), 'confirmed']]);
});
after(async () => {
  await t.stop();
  await sink.close();
});

const newMail = async (before: number, n = 1) => (await sink.waitFor(before + n)).slice(before);
const headerNames = (raw: string) => raw.split(/\r\n\r\n/)[0].split(/\r\n/).filter((l) => /^\S/.test(l)).map((l) => l.slice(0, l.indexOf(':')).toLowerCase());

describe('smtp[].email_headers', () => {
  keepSettings(() => t, ['smtp']);
  it('are saved and read back', async () => {
    const res = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ email_headers: SERVER_HEADERS })] });
    assert.equal(res.status, 200, res.text);
    const smtp = (await t.request('GET', '/api/settings')).body.data.smtp;
    assert.deepEqual(smtp[0].email_headers, SERVER_HEADERS);
  });

  for (const [name, headers, message] of [
    ['a string', ['X-A: b'], /invalid "smtp\[0\]\.email_headers": expected an array of \{"Header-Name": "value"\} objects/],
    ['a name with a space', [{ 'X A': 'b' }], /"X A" is not a valid header name/],
    ['a value with a line break', [{ 'X-A': 'b\r\nBcc: evil@example.com' }], /the value of "X-A" must be a one-line string/],
    ['a number as value', [{ 'X-A': 1 }], /the value of "X-A" must be a one-line string/],
  ] as const) {
    it(`refuses ${name}, changing nothing`, async () => {
      const res = await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock({ email_headers: headers })] });
      assert.equal(res.status, 400);
      assert.match(res.body.message, message);
      assert.deepEqual((await t.request('GET', '/api/settings')).body.data.smtp[0].email_headers, SERVER_HEADERS);
    });
  }

  it('go out under the message headers, which replace same-named ones in any case', async () => {
    const n = sink.messages.length;
    const res = await t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: tpl, headers: [{ 'x-mailer': 'message' }] });
    assert.equal(res.status, 200, res.text);
    const [mail] = await newMail(n);
    assert.equal(mail.parsed.headers.get('x-server'), 'from-settings');
    assert.equal(mail.parsed.headers.get('x-mailer'), 'message');
    assert.equal(headerNames(mail.raw).filter((h) => h === 'x-mailer').length, 1);
  });
});

describe('envelope', () => {
  it('a Return-Path header becomes the envelope sender and is removed', async () => {
    const n = sink.messages.length;
    const res = await t.request('POST', '/api/tx', {
      subscriber_email: 'ann@example.com', template_id: tpl, from_email: 'News <news@example.com>',
      headers: [{ 'Return-Path': '<Bounces@example.net>' }, { Bcc: 'audit@example.com' }],
    });
    assert.equal(res.status, 200, res.text);
    const [mail] = await newMail(n);
    assert.equal(mail.from, 'Bounces@example.net');
    assert.deepEqual(mail.to.sort(), ['ann@example.com', 'audit@example.com']);
    assert.ok(!headerNames(mail.raw).includes('return-path'), mail.raw);
    assert.ok(!headerNames(mail.raw).includes('bcc'), mail.raw);
    assert.equal((mail.parsed.from as { text: string }).text, '"News" <news@example.com>');
  });

  it('without Return-Path the envelope sender is the From address', async () => {
    const n = sink.messages.length;
    assert.equal((await t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: tpl, from_email: 'News <news@example.com>' })).status, 200);
    const [mail] = await newMail(n);
    assert.equal(mail.from, 'news@example.com');
    assert.deepEqual(mail.to, ['ann@example.com']);
  });
});

describe('Message-Id', () => {
  it('is 24 alphanumerics at the From domain on tx and opt-in mail alike', async () => {
    const list = (await t.request('POST', '/api/lists', { name: 'Double', type: 'public', optin: 'double' })).body.data.id;
    const n = sink.messages.length;
    assert.equal((await t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: tpl, from_email: 'news@Example.com' })).status, 200);
    assert.equal((await t.request('POST', '/api/subscribers', { email: 'optin@example.com', name: 'Opt', lists: [list] })).status, 200);
    const mails = await newMail(n, 2);
    const [tx, optin] = [mails.find((m) => m.to[0] === 'ann@example.com')!, mails.find((m) => m.to[0] === 'optin@example.com')!];
    assert.match(tx.parsed.messageId ?? '', /^<[0-9A-Za-z]{24}@example\.com>$/);
    assert.match(optin.parsed.messageId ?? '', /^<[0-9A-Za-z]{24}@listmgr\.yoursite\.com>$/);
  });
});
