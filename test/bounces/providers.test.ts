// Provider webhooks: each request must carry its provider's signature or credentials; forged
// or unsigned calls are refused and record nothing.
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac, createSign, generateKeyPairSync, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { startTestServer, withSettings, type TestServer } from '../helpers/server.ts';
import { addCampaign, addSubscriber, bounceCount } from './seed.ts';
import { fixtures, type Seeded } from '../helpers/fixtures.ts';

const fixture = (f: string) => readFileSync(new URL(`./fixtures/${f}`, import.meta.url), 'utf8');
const CERT = fixture('sns-test-cert.pem');
const KEY = fixture('sns-test-key.pem');
const CERT_URL = 'https://sns.eu-west-1.amazonaws.com/SimpleNotificationService-0123456789abcdef.pem';
const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:bounces';

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
    'bounce.ses_enabled': true, 'bounce.ses_topic_arns': [TOPIC], 'bounce.sendgrid_enabled': true, 'bounce.sendgrid_key': sendgridPublic,
    'bounce.postmark': { enabled: true, username: 'pm-user', password: 'pm-pass' },
    'bounce.forwardemail': { enabled: true, key: 'fe-secret' },
    // Secrets of these two are set by their first tests, which check the refusal without one.
    'bounce.azure': { enabled: true, shared_secret: '', shared_secret_header: '' },
    'bounce.lettermint': { enabled: true, key: '' },
  });
  assert.equal(res.status, 200, res.text);
  sub = addSubscriber(t, 'bounced@example.net');
  camp = addCampaign(t, 'March digest');
  const sns = t.server.ctx.bounces.sns;
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
  fixtures(t.server.ctx.db).clearBounces();
});

const lastBounce = () => t.server.ctx.db.prepare('SELECT * FROM bounces ORDER BY id DESC LIMIT 1').get() as any;
const call = (service: string, body: string, headers: Record<string, string>, query = '') =>
  t.request('POST', `/webhooks/service/${service}${query}`, undefined, { raw: body, headers: { 'content-type': 'application/json', ...headers }, auth: null });
const setSettings = async (s: Record<string, unknown>) => assert.equal((await t.request('PUT', '/api/settings', s)).status, 200);

// --- SES ---

function snsSigned(fields: Record<string, string>, version: '1' | '2' = '1'): Record<string, string> {
  const m: Record<string, string> = { MessageId: 'msg-1', TopicArn: TOPIC, Timestamp: '2025-03-03T09:20:45.000Z', SignatureVersion: version, SigningCertURL: CERT_URL, ...fields };
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

describe('SES (SNS) topics', () => {
  const logged = (re: RegExp) => t.server.ctx.log.recent().some((l) => re.test(l));
  const subscription = (topic: string) => snsSigned({ Type: 'SubscriptionConfirmation', TopicArn: topic, Message: 'x', Token: 't', SubscribeURL: 'https://sns.eu-west-1.amazonaws.com/?Action=ConfirmSubscription&Token=t' });

  it('refuses a genuine notification of a topic not in bounce.ses_topic_arns, and logs why', async () => {
    const other = 'arn:aws:sns:eu-west-1:999999999999:someone-elses';
    const res = await call('ses', JSON.stringify(snsSigned({ Type: 'Notification', TopicArn: other, Message: JSON.stringify(sesBounce('Permanent')) })), { 'x-amz-sns-message-type': 'Notification' });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /someone-elses" is not in bounce\.ses_topic_arns/);
    assert.equal(bounceCount(t), 0);
    assert.ok(logged(/WARN .*bounce webhook ses: SES Notification refused: SNS topic ".*someone-elses" is not in bounce\.ses_topic_arns/));
  });

  it('with no topic configured, refuses to confirm a subscription (nothing visited) and logs why', () => withSettings(t, { 'bounce.ses_topic_arns': [] }, async () => {
    const visits = visited.length;
    const res = await call('ses', JSON.stringify(subscription(TOPIC)), { 'x-amz-sns-message-type': 'SubscriptionConfirmation' });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /bounce\.ses_topic_arns is empty/);
    assert.equal(visited.length, visits);
    assert.ok(logged(/WARN .*SES SubscriptionConfirmation refused: bounce\.ses_topic_arns is empty/));
    const note = await call('ses', JSON.stringify(sesNotification(sesBounce('Permanent'))), { 'x-amz-sns-message-type': 'Notification' });
    assert.equal(note.status, 400);
    assert.equal(bounceCount(t), 0);
  }));

  it('refuses a setting value that is not an SNS topic ARN', async () => {
    const res = await t.request('PUT', '/api/settings', { 'bounce.ses_topic_arns': ['https://sns.example.com/topic'] });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /bounce\.ses_topic_arns.*is not an SNS topic ARN/);
  });
});

// --- SendGrid ---

const nowSeconds = () => Math.floor(Date.now() / 1000);

function sendgridHeaders(body: string, ts = String(nowSeconds())) {
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
    // Correctly signed, but captured long ago (a replay) or dated ahead.
    { name: 'signed 605 s ago', headers: () => sendgridHeaders(events, String(nowSeconds() - 605)), message: /timestamp is more than 600 s old/ },
    { name: 'signed 305 s ahead', headers: () => sendgridHeaders(events, String(nowSeconds() + 305)), message: /300 s ahead/ },
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

// --- Azure (Event Grid) ---

const azureReport = (status: string, statusMessage: string, eventType = 'Microsoft.Communication.EmailDeliveryReportReceived') => ({
  id: 'e1', topic: '/subscriptions/x/resourceGroups/y/providers/Microsoft.Communication/communicationServices/news',
  subject: 'sender/news@example.org/message/abc', eventType, dataVersion: '1.0', metadataVersion: '1', eventTime: '2025-03-03T09:20:50Z',
  data: { sender: 'news@example.org', recipient: 'Bounced@example.net', messageId: 'abc', status, deliveryStatusDetails: { statusMessage }, deliveryAttemptTimeStamp: '2025-03-03T09:20:44.123Z' },
});

describe('Azure (Event Grid) webhook', () => {
  const report = JSON.stringify([azureReport('Bounced', '550 5.1.1 user unknown')]);
  const secretHeader = { 'x-listmonk-webhook-secret': 'az-secret' };

  it('refuses everything while no shared secret is configured (listmonk accepts anything)', async () => {
    for (const headers of [{}, { 'aeg-event-type': 'SubscriptionValidation' }] as Record<string, string>[]) {
      const res = await call('azure', report, headers);
      assert.equal(res.status, 400);
      assert.match(res.body.message, /shared secret \(bounce.azure.shared_secret\) is not set/);
    }
    assert.equal(bounceCount(t), 0);
    await setSettings({ 'bounce.azure': { enabled: true, shared_secret: 'az-secret', shared_secret_header: '' } });
  });

  it('answers the subscription validation handshake with its code', async () => {
    const body = JSON.stringify([{ id: 'v1', eventType: 'Microsoft.EventGrid.SubscriptionValidationEvent', data: { validationCode: 'CODE-123', validationUrl: 'https://x' } }]);
    const res = await call('azure', body, { 'aeg-event-type': 'SubscriptionValidation' });
    assert.equal(res.status, 200, res.text);
    assert.deepEqual(res.body, { validationResponse: 'CODE-123' });
    const empty = await call('azure', JSON.stringify([{ data: {} }]), { 'aeg-event-type': 'SubscriptionValidation' });
    assert.equal(empty.status, 400);
    assert.match(empty.body.message, /validationCode/);
    assert.equal(bounceCount(t), 0);
  });

  const statuses = [
    { status: 'Bounced', details: '550 5.1.1 user unknown', type: 'hard' },
    { status: 'Suppressed', details: 'on the suppression list', type: 'hard' },
    { status: 'Failed', details: '452 4.2.2 over quota', type: 'soft' },
    { status: 'Failed', details: 'Remote server said 5.7.1 rejected', type: 'hard' },
    { status: 'Failed', details: 'The mailbox does not exist', type: 'hard' },
    { status: 'Failed', details: 'Connection timeout', type: 'soft' },
    { status: 'Failed', details: 'Something odd', type: 'soft' },
    { status: 'FilteredSpam', details: 'Spam complaint by the recipient', type: 'complaint' },
    { status: 'Quarantined', details: 'Held by the recipient filter', type: 'soft' },
  ];
  for (const s of statuses) {
    it(`${s.status} "${s.details}" → ${s.type}`, async () => {
      const res = await call('azure', JSON.stringify([azureReport(s.status, s.details)]), secretHeader);
      assert.equal(res.status, 200, res.text);
      assert.deepEqual(res.body, { data: true });
      const b = lastBounce();
      assert.equal(b.type, s.type);
      assert.equal(b.subscriber_id, sub.id);
      assert.equal(b.source, 'azure');
      assert.equal(b.created_at, '2025-03-03T09:20:44.123Z');
      assert.equal(bounceCount(t), 1);
    });
  }

  it('ignores deliveries and other event types', async () => {
    const body = JSON.stringify([azureReport('Delivered', ''), azureReport('Bounced', '5.1.1', 'Microsoft.Communication.EmailEngagementTrackingReportReceived')]);
    const res = await call('azure', body, secretHeader);
    assert.equal(res.status, 200, res.text);
    assert.equal(bounceCount(t), 0);
  });

  it('takes the secret from the query "code" too', async () => {
    const res = await call('azure', report, {}, '?code=az-secret');
    assert.equal(res.status, 200, res.text);
    assert.equal(bounceCount(t), 1);
  });

  const forged: { name: string; headers: Record<string, string>; query: string }[] = [
    { name: 'no secret', headers: {}, query: '' },
    { name: 'wrong secret in the header', headers: { 'x-listmonk-webhook-secret': 'az-secreT' }, query: '' },
    { name: 'wrong secret in the query', headers: {}, query: '?code=nope' },
    { name: 'secret prefix', headers: { 'x-listmonk-webhook-secret': 'az-' }, query: '' },
    { name: 'secret in another header', headers: { 'x-webhook-secret': 'az-secret' }, query: '' },
  ];
  for (const s of forged) {
    it(`refuses: ${s.name}`, async () => {
      const res = await call('azure', report, s.headers, s.query);
      assert.equal(res.status, 400);
      assert.match(res.body.message, /invalid or missing Azure webhook shared secret/);
      assert.equal(bounceCount(t), 0);
    });
  }

  it('reads the secret from the header named in bounce.azure.shared_secret_header', async () => {
    await setSettings({ 'bounce.azure': { enabled: true, shared_secret: '', shared_secret_header: 'X-Azure-Key' } });
    assert.equal((await call('azure', report, secretHeader)).status, 400);
    const res = await call('azure', report, { 'x-azure-key': 'az-secret' });
    assert.equal(res.status, 200, res.text);
    assert.equal(bounceCount(t), 1);
  });

  it('refuses (400, not 500) while the configured header name is not a valid one', async () => {
    await setSettings({ 'bounce.azure': { enabled: true, shared_secret: '', shared_secret_header: 'X Azure Key' } });
    const res = await call('azure', report, { 'x-azure-key': 'az-secret' });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /"X Azure Key" is not a valid header name/);
    assert.equal(bounceCount(t), 0);
    await setSettings({ 'bounce.azure': { enabled: true, shared_secret: '', shared_secret_header: 'X-Azure-Key' } });
  });

  it('refuses a body that is not an array of events', async () => {
    const res = await call('azure', JSON.stringify(azureReport('Bounced', '5.1.1')), { 'x-azure-key': 'az-secret' });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /not an array of events/);
  });
});

// --- Lettermint ---

function lettermintHeaders(body: string, opts: { key?: string; t?: number } = {}) {
  const ts = String(opts.t ?? Math.floor(Date.now() / 1000));
  const v1 = createHmac('sha256', opts.key ?? 'lm-key').update(`${ts}.${body}`).digest('hex');
  return { 'x-lettermint-signature': `t=${ts},v1=${v1}` };
}

describe('Lettermint webhook', () => {
  const event = (name: string, data: Record<string, unknown> = {}) => JSON.stringify({
    id: 'evt-1', event: name, timestamp: '2025-03-03T09:20:44.000Z',
    data: { message_id: 'm-1', recipient: 'Bounced@example.net', headers: [{ name: 'x-listmonk-campaign', value: camp.uuid }], ...data },
  });

  it('refuses while no key is configured', async () => {
    const b = event('message.hard_bounced');
    const res = await call('lettermint', b, lettermintHeaders(b, { key: '' }));
    assert.equal(res.status, 400);
    assert.match(res.body.message, /bounce.lettermint.key\) is not set/);
    assert.equal(bounceCount(t), 0);
    await setSettings({ 'bounce.lettermint': { enabled: true, key: 'lm-key' } });
  });

  const ok = [
    { name: 'message.hard_bounced → hard (campaign from the headers)', body: () => event('message.hard_bounced'), type: 'hard' },
    { name: 'message.soft_bounced → soft (campaign from the metadata)', body: () => event('message.soft_bounced', { headers: [], metadata: { 'X-Listmonk-Campaign': camp.uuid } }), type: 'soft' },
    { name: 'message.spam_complaint → complaint', body: () => event('message.spam_complaint'), type: 'complaint' },
  ];
  for (const s of ok) {
    it(s.name, async () => {
      const b = s.body();
      const res = await call('lettermint', b, lettermintHeaders(b));
      assert.equal(res.status, 200, res.text);
      const row = lastBounce();
      assert.equal(row.type, s.type);
      assert.equal(row.subscriber_id, sub.id);
      assert.equal(row.campaign_id, camp.id);
      assert.equal(row.source, 'lettermint');
      assert.equal(row.created_at, '2025-03-03T09:20:44.000Z');
    });
  }

  it('ignores other events', async () => {
    const b = event('webhook.test');
    assert.equal((await call('lettermint', b, lettermintHeaders(b))).status, 200);
    assert.equal(bounceCount(t), 0);
  });

  const now = () => Math.floor(Date.now() / 1000);
  const refused = [
    { name: 'unsigned', headers: (_body: string) => ({}), message: /missing or malformed X-Lettermint-Signature/ },
    { name: 'malformed header', headers: () => ({ 'x-lettermint-signature': 'sha256=abc' }), message: /missing or malformed/ },
    { name: 'signed with another key', headers: (body: string) => lettermintHeaders(body, { key: 'other' }), message: /invalid Lettermint signature/ },
    { name: 'signature of another body', headers: () => lettermintHeaders(event('message.soft_bounced')), message: /invalid Lettermint signature/ },
    { name: 'timestamp changed after signing', headers: (body: string) => ({ 'x-lettermint-signature': lettermintHeaders(body)['x-lettermint-signature'].replace(/t=\d+/, `t=${now() - 1}`) }), message: /invalid Lettermint signature/ },
    { name: 'stale timestamp (301 s old)', headers: (body: string) => lettermintHeaders(body, { t: now() - 301 }), message: /timestamp is more than 300 s away/ },
    { name: 'timestamp from the future (301 s ahead)', headers: (body: string) => lettermintHeaders(body, { t: now() + 301 }), message: /timestamp is more than 300 s away/ },
  ];
  for (const s of refused) {
    it(`refuses: ${s.name}`, async () => {
      const body = event('message.hard_bounced');
      const res = await call('lettermint', body, s.headers(body));
      assert.equal(res.status, 400);
      assert.match(res.body.message, s.message);
      assert.equal(bounceCount(t), 0);
    });
  }
});

describe('provider switches', () => {
  it('refuses unknown and disabled services with 400, read at each request', async () => {
    assert.equal((await call('mailchimp', '{}', {})).status, 400);
    await withSettings(t, { 'bounce.forwardemail': { enabled: false, key: 'fe-secret' } }, async () => {
      const b = '{}';
      const res = await call('forwardemail', b, { 'x-webhook-signature': createHmac('sha256', 'fe-secret').update(b).digest('hex') });
      assert.equal(res.status, 400);
      assert.match(res.body.message, /unknown or disabled/);
    });
  });

  // An empty password keeps the stored one, so clear the user name only.
  it('refuses Postmark when no credentials are configured', () => withSettings(t, { 'bounce.postmark': { enabled: true, username: '', password: '' } }, async () => {
    const res = await call('postmark', '{}', { authorization: basic('', 'pm-pass') });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /credentials .* not set/);
  }));
});
