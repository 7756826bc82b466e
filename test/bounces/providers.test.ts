// Provider webhooks: each request must carry its provider's signature or credentials; forged
// or unsigned calls are refused and record nothing.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createSign, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { bounceService } from '../../src/bounces/service.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { addCampaign, addSubscriber, bounceCount, type Seeded } from './seed.ts';

const fixture = (f: string) => readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8');
const CERT = fixture('sns-test-cert.pem');
const KEY = fixture('sns-test-key.pem');
const CERT_URL = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem';

let t: TestServer;
let sub: Seeded;
let camp: Seeded;
const fetchedCerts: string[] = [];
const visited: string[] = [];

const sendgridKeys = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
const sendgridPublic = sendgridKeys.publicKey.export({ format: 'der', type: 'spki' }).toString('base64');

before(async () => {
  t = await startTestServer();
  const res = await t.request('PUT', '/api/settings', {
    'bounce.enabled': true, 'bounce.webhooks_enabled': true,
    'bounce.actions': { soft: { count: 100, action: 'none' }, hard: { count: 100, action: 'none' }, complaint: { count: 100, action: 'none' } },
    'bounce.ses_enabled': true, 'bounce.sendgrid_enabled': true, 'bounce.sendgrid_key': sendgridPublic,
    'bounce.postmark': { enabled: true, username: 'pm-user', password: 'pm-pass' },
    'bounce.forwardemail': { enabled: true, key: 'fe-secret' },
  });
  assert.equal(res.status, 200, res.text);
  sub = addSubscriber(t, 'bounced@example.net');
  camp = addCampaign(t, 'March digest');
  const sns = bounceService(t.server.ctx).sns;
  sns.fetchCert = async (url) => {
    fetchedCerts.push(url);
    return CERT;
  };
  sns.visit = async (url) => {
    visited.push(url);
  };
});
after(() => t.stop());
beforeEach(() => {
  t.server.ctx.db.prepare('DELETE FROM bounces').run();
});

const lastBounce = () => t.server.ctx.db.prepare('SELECT * FROM bounces ORDER BY id DESC LIMIT 1').get() as any;
const call = (service: string, body: string, headers: Record<string, string>) =>
  t.request('POST', `/webhooks/service/${service}`, undefined, { raw: body, headers: { 'content-type': 'application/json', ...headers }, auth: null });

// --- SES ---

function snsSigned(fields: Record<string, string>, version: '1' | '2' = '1'): Record<string, string> {
  const m: Record<string, string> = { MessageId: 'msg-1', TopicArn: 'arn:aws:sns:eu-west-1:123456789012:bounces', Timestamp: '2025-03-03T09:20:45.000Z', SignatureVersion: version, SigningCertURL: CERT_URL, ...fields };
  const keys = m.Type === 'Notification' ? ['Message', 'MessageId', 'Subject', 'Timestamp', 'TopicArn', 'Type'] : ['Message', 'MessageId', 'SubscribeURL', 'Timestamp', 'Token', 'TopicArn', 'Type'];
  const text = keys.filter((k) => m[k] !== undefined).map((k) => `${k}\n${m[k]}\n`).join('');
  m.Signature = createSign(version === '1' ? 'RSA-SHA1' : 'RSA-SHA256').update(text).sign(KEY, 'base64');
  return m;
}

function sesNotification(inner: unknown, version: '1' | '2' = '1') {
  return snsSigned({ Type: 'Notification', Message: JSON.stringify(inner) }, version);
}

const sesBounce = (bounceType: string, status = '5.1.1') => ({
  notificationType: 'Bounce',
  bounce: { bounceType, bounceSubType: 'General', bouncedRecipients: [{ emailAddress: 'Bounced@example.net', status }] },
  mail: { timestamp: '2025-03-03T09:20:44.123Z', destination: ['Bounced@example.net', 'other@example.net'], headersTruncated: false, headers: [{ name: 'X-Listmonk-Campaign', value: camp.uuid }] },
});

describe('SES (SNS) webhook', () => {
  const ok = [
    { name: 'Permanent → hard (SignatureVersion 1)', inner: () => sesBounce('Permanent'), version: '1' as const, type: 'hard' },
    { name: 'Transient → soft (SignatureVersion 2)', inner: () => sesBounce('Transient', '4.4.7'), version: '2' as const, type: 'soft' },
    { name: 'Transient with 5.4.4 → hard', inner: () => sesBounce('Transient', '5.4.4'), version: '1' as const, type: 'hard' },
    { name: 'Complaint → complaint', inner: () => ({ notificationType: 'Complaint', complaint: {}, mail: sesBounce('x').mail }), version: '2' as const, type: 'complaint' },
  ];
  for (const s of ok) {
    it(s.name, async () => {
      const inner = s.inner();
      const res = await call('ses', JSON.stringify(sesNotification(inner, s.version)), { 'x-amz-sns-message-type': 'Notification' });
      assert.equal(res.status, 200, res.text);
      const b = lastBounce();
      assert.equal(b.type, s.type);
      assert.equal(b.subscriber_id, sub.id);
      assert.equal(b.campaign_id, camp.id);
      assert.equal(b.source, 'ses');
      assert.equal(b.created_at, '2025-03-03T09:20:44.123Z');
      assert.equal(JSON.parse(b.meta).notificationType, inner.notificationType);
    });
  }

  it('fetches the certificate from the signed URL once and caches it', () => {
    assert.deepEqual([...new Set(fetchedCerts)], [CERT_URL]);
    assert.equal(fetchedCerts.length, 1);
  });

  it('confirms a subscription by visiting the SNS SubscribeURL', async () => {
    const url = 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&TopicArn=x&Token=abc';
    const m = snsSigned({ Type: 'SubscriptionConfirmation', Message: 'You have chosen to subscribe', Token: 'abc', SubscribeURL: url });
    const res = await call('ses', JSON.stringify(m), { 'x-amz-sns-message-type': 'SubscriptionConfirmation' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(visited, [url]);
    assert.equal(bounceCount(t), 0);
  });

  const forged = [
    { name: 'tampered message', make: () => ({ ...sesNotification(sesBounce('Permanent')), Message: JSON.stringify(sesBounce('Transient')) }), header: 'Notification', message: /invalid SNS signature/ },
    { name: 'unsigned', make: () => { const m = sesNotification(sesBounce('Permanent')); delete (m as any).Signature; return m; }, header: 'Notification', message: /no Signature/ },
    { name: 'certificate not on an SNS host', make: () => snsSigned({ Type: 'Notification', Message: '{}', SigningCertURL: 'https://evil.example.com/SimpleNotificationService-1.pem' }), header: 'Notification', message: /not an Amazon SNS address/ },
    { name: 'certificate over http', make: () => snsSigned({ Type: 'Notification', Message: '{}', SigningCertURL: CERT_URL.replace('https', 'http') }), header: 'Notification', message: /not an Amazon SNS address/ },
    { name: 'unknown SignatureVersion', make: () => ({ ...sesNotification(sesBounce('Permanent')), SignatureVersion: '3' }), header: 'Notification', message: /SignatureVersion/ },
    { name: 'header and type disagree', make: () => sesNotification(sesBounce('Permanent')), header: 'SubscriptionConfirmation', message: /does not match/ },
    { name: 'missing message-type header', make: () => sesNotification(sesBounce('Permanent')), header: '', message: /X-Amz-Sns-Message-Type/ },
    { name: 'subscription URL off SNS', make: () => snsSigned({ Type: 'SubscriptionConfirmation', Message: 'x', Token: 't', SubscribeURL: 'https://evil.example.com/?confirm' }), header: 'SubscriptionConfirmation', message: /confirmation URL/ },
  ];
  for (const s of forged) {
    it(`refuses: ${s.name}`, async () => {
      const visits = visited.length;
      const res = await call('ses', JSON.stringify(s.make()), s.header ? { 'x-amz-sns-message-type': s.header } : {});
      assert.equal(res.status, 400);
      assert.match(res.body.message, s.message);
      assert.equal(bounceCount(t), 0);
      assert.equal(visited.length, visits);
    });
  }
});

// --- SendGrid ---

function sendgridHeaders(body: string, ts = '1741080044') {
  const signature = sign('sha256', Buffer.from(ts + body), sendgridKeys.privateKey).toString('base64');
  return { 'x-twilio-email-event-webhook-signature': signature, 'x-twilio-email-event-webhook-timestamp': ts };
}

describe('SendGrid webhook', () => {
  const events = JSON.stringify([
    { email: 'Bounced@example.net', event: 'bounce', bounce_classification: 'invalid', timestamp: 1741080044 },
    { email: 'bounced@example.net', event: 'bounce', bounce_classification: 'technical', timestamp: 1741080045 },
    { email: 'bounced@example.net', event: 'delivered', timestamp: 1741080046 },
  ]);

  it('records the signed bounce events (technical → soft, others hard)', async () => {
    const withCampaign = JSON.stringify(JSON.parse(events).map((e: any, i: number) => (i === 0 ? { ...e, XListmonkCampaign: camp.uuid } : e)));
    const res = await call('sendgrid', withCampaign, sendgridHeaders(withCampaign));
    assert.equal(res.status, 200, res.text);
    const rows = t.server.ctx.db.prepare('SELECT type, campaign_id, created_at FROM bounces ORDER BY id').all() as any[];
    assert.deepEqual(rows, [
      { type: 'hard', campaign_id: camp.id, created_at: '2025-03-04T09:20:44.000Z' },
      { type: 'soft', campaign_id: null, created_at: '2025-03-04T09:20:45.000Z' },
    ]);
  });

  const forged = [
    { name: 'no signature headers', headers: () => ({}), message: /missing SendGrid signature/ },
    { name: 'signature of another body', headers: () => sendgridHeaders('[]'), message: /invalid SendGrid signature/ },
    { name: 'other timestamp', headers: () => ({ ...sendgridHeaders(events), 'x-twilio-email-event-webhook-timestamp': '1' }), message: /invalid SendGrid signature/ },
    { name: 'garbage signature', headers: () => ({ ...sendgridHeaders(events), 'x-twilio-email-event-webhook-signature': 'AAAA' }), message: /invalid SendGrid signature/ },
  ];
  for (const s of forged) {
    it(`refuses: ${s.name}`, async () => {
      const res = await call('sendgrid', events, s.headers());
      assert.equal(res.status, 400);
      assert.match(res.body.message, s.message);
      assert.equal(bounceCount(t), 0);
    });
  }
});

// --- Postmark ---

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

describe('Postmark webhook', () => {
  const bounce = (type: string, record = 'Bounce') => JSON.stringify({ RecordType: record, Type: type, Email: 'bounced@example.net', BouncedAt: '2025-03-03T09:20:44Z', Metadata: { 'X-Listmonk-Campaign': camp.uuid } });
  const ok = [
    { name: 'HardBounce → hard', body: () => bounce('HardBounce'), type: 'hard' },
    { name: 'DnsError → soft', body: () => bounce('DnsError'), type: 'soft' },
    { name: 'SpamComplaint → complaint', body: () => bounce('SpamComplaint', 'SpamComplaint'), type: 'complaint' },
  ];
  for (const s of ok) {
    it(s.name, async () => {
      const res = await call('postmark', s.body(), { authorization: basic('pm-user', 'pm-pass') });
      assert.equal(res.status, 200, res.text);
      assert.equal(lastBounce().type, s.type);
      assert.equal(lastBounce().campaign_id, camp.id);
      assert.equal(lastBounce().source, 'postmark');
    });
  }

  it('ignores other record types', async () => {
    const res = await call('postmark', JSON.stringify({ RecordType: 'Delivery', Email: 'bounced@example.net' }), { authorization: basic('pm-user', 'pm-pass') });
    assert.equal(res.status, 200);
    assert.equal(bounceCount(t), 0);
  });

  const refused = [
    { name: 'no credentials', headers: {} as Record<string, string>, status: 401 },
    { name: 'wrong password', headers: { authorization: basic('pm-user', 'wrong') }, status: 401 },
    { name: 'wrong user', headers: { authorization: basic('someone', 'pm-pass') }, status: 401 },
    { name: 'unknown bounce type', headers: { authorization: basic('pm-user', 'pm-pass') }, type: 'Weird', status: 400 },
  ];
  for (const s of refused) {
    it(`refuses: ${s.name} (${s.status})`, async () => {
      const res = await call('postmark', bounce(s.type ?? 'HardBounce'), s.headers);
      assert.equal(res.status, s.status);
      assert.equal(bounceCount(t), 0);
    });
  }
});

// --- Forward Email ---

describe('Forward Email webhook', () => {
  const body = () => JSON.stringify({ recipient: 'Bounced@example.net', bounce: { category: 'recipient', message: 'User unknown' }, headers: { 'X-Listmonk-Campaign': camp.uuid }, bounced_at: '2025-03-03T09:20:44.000Z' });
  const hmac = (b: string, key = 'fe-secret') => createHmac('sha256', key).update(b).digest('hex');

  it('records a signed bounce (recipient category → hard)', async () => {
    const b = body();
    const res = await call('forwardemail', b, { 'x-webhook-signature': hmac(b) });
    assert.equal(res.status, 200, res.text);
    assert.equal(lastBounce().type, 'hard');
    assert.equal(lastBounce().subscriber_id, sub.id);
    assert.equal(lastBounce().campaign_id, camp.id);
  });

  const refused = [
    { name: 'unsigned', headers: () => ({}) },
    { name: 'signed with another key', headers: () => ({ 'x-webhook-signature': hmac(body(), 'other') }) },
    { name: 'signature of another body', headers: () => ({ 'x-webhook-signature': hmac('{}') }) },
  ];
  for (const s of refused) {
    it(`refuses: ${s.name}`, async () => {
      const res = await call('forwardemail', body(), s.headers());
      assert.equal(res.status, 400);
      assert.match(res.body.message, /Forward Email signature/);
      assert.equal(bounceCount(t), 0);
    });
  }
});

describe('provider switches', () => {
  it('refuses unknown and disabled services with 400, read at each request', async () => {
    assert.equal((await call('mailchimp', '{}', {})).status, 400);
    await t.request('PUT', '/api/settings', { 'bounce.forwardemail': { enabled: false, key: 'fe-secret' } });
    const b = '{}';
    const res = await call('forwardemail', b, { 'x-webhook-signature': createHmac('sha256', 'fe-secret').update(b).digest('hex') });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /unknown or disabled/);
  });

  it('refuses Postmark when no credentials are configured', async () => {
    await t.request('PUT', '/api/settings', { 'bounce.postmark': { enabled: true, username: '', password: '' } });
    // An empty password keeps the stored one, so clear the user name only.
    const res = await call('postmark', '{}', { authorization: basic('', 'pm-pass') });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /credentials .* not set/);
  });
});
