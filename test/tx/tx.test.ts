// POST /api/tx: recipients by e-mail or id, modes, per-recipient subjects, attachments as
// multipart, and errors that name the field.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';
import { addList, addSubscriber } from '../campaigns/fixtures.ts';

let t: TestServer;
let sink: SmtpSink;
let tpl: number;
let annId: number;

before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  assert.equal((await t.request('PUT', '/api/settings', { smtp: [sink.settingsBlock()] })).status, 200);
  const db = t.server.ctx.db;
  tpl = fixtures(db).template({ name: 'Order', type: 'tx', subject: 'Order {{ .Tx.Data.order }} for {{ .Subscriber.Name }}', body: '<p>Thanks {{ .Subscriber.Name }}, order {{ .Tx.Data.order }}</p>' });
  const list = addList(db, 'L', 'single');
  annId = addSubscriber(db, 'ann@example.com', 'Ann', [[list, 'confirmed']]);
  addSubscriber(db, 'bob@example.com', 'Bob', []);
});
after(async () => {
  await t.stop();
  await sink.close();
});

const newMail = async (before: number, n = 1) => (await sink.waitFor(before + n)).slice(before);

describe('POST /api/tx', () => {
  it('sends to several recipients, subject rendered for each', async () => {
    const n = sink.messages.length;
    const r = await t.request('POST', '/api/tx', { subscriber_emails: ['ann@example.com', 'bob@example.com'], template_id: tpl, data: { order: 'A-1' }, headers: [{ 'Reply-To': 'help@example.com' }] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.body, { data: true });
    const mails = await newMail(n, 2);
    assert.deepEqual(mails.map((m) => m.parsed.subject).sort(), ['Order A-1 for Ann', 'Order A-1 for Bob']);
    const ann = mails.find((m) => m.to[0] === 'ann@example.com')!;
    assert.match(String(ann.parsed.html), /Thanks Ann, order A-1/);
    assert.match(String(ann.parsed.text), /Thanks Ann/);
    assert.equal(ann.parsed.headers.get('reply-to') && (ann.parsed.headers.get('reply-to') as { text: string }).text, 'help@example.com');
    assert.equal(ann.parsed.headers.get('x-listmonk-campaign'), undefined);
  });

  it('renders a template that defines its own "content" block and calls it, as listmonk client libraries send', async () => {
    const created = await t.request('POST', '/api/templates', {
      name: 'Defines content', type: 'tx', subject: 'Hello {{ .Subscriber.Name }}',
      body: '{{ define "content" }}<p>Order {{ .Tx.Data.order }} for {{ .Subscriber.Name }}</p>{{ end }}{{ template "content" . }}',
    });
    assert.equal(created.status, 200, created.text);
    const n = sink.messages.length;
    const r = await t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: created.body.data.id, data: { order: 'B-7' } });
    assert.equal(r.status, 200, r.text);
    const [mail] = await newMail(n);
    assert.equal(mail.parsed.subject, 'Hello Ann');
    assert.match(String(mail.parsed.html), /<p>Order B-7 for Ann<\/p>/);
  });

  it('sends by id, and to unknown addresses in fallback/external modes', async () => {
    const n = sink.messages.length;
    assert.equal((await t.request('POST', '/api/tx', { subscriber_id: annId, template_id: tpl, data: { order: 'B' } })).status, 200);
    assert.equal((await t.request('POST', '/api/tx', { subscriber_mode: 'fallback', subscriber_emails: ['new@example.com'], template_id: tpl, subject: 'Custom {{ .Tx.Data.order }}', data: { order: 'C' } })).status, 200);
    const mails = await newMail(n, 2);
    assert.deepEqual(mails.map((m) => [m.to[0], m.parsed.subject]), [['ann@example.com', 'Order B for Ann'], ['new@example.com', 'Custom C']]);
  });

  it('attaches uploaded files (multipart)', async () => {
    const n = sink.messages.length;
    const form = new FormData();
    form.append('data', JSON.stringify({ subscriber_email: 'ann@example.com', template_id: tpl, data: { order: 'D' } }));
    form.append('file', new Blob(['hello,world\n'], { type: 'text/csv' }), 'report.csv');
    form.append('file', new Blob([Buffer.from([1, 2, 3])], { type: 'application/octet-stream' }), 'blob.bin');
    const r = await t.request('POST', '/api/tx', undefined, { raw: form });
    assert.equal(r.status, 200, r.text);
    const [m] = await newMail(n);
    assert.deepEqual(m.parsed.attachments.map((a) => [a.filename, a.contentType, a.content.toString('base64')]), [
      ['report.csv', 'text/csv', Buffer.from('hello,world\n').toString('base64')],
      ['blob.bin', 'application/octet-stream', Buffer.from([1, 2, 3]).toString('base64')],
    ]);
  });

  const errors: [string, Record<string, unknown> | null, RegExp][] = [
    ['no recipient', { template_id: 1 }, /subscriber_emails/],
    ['both forms', { subscriber_email: 'ann@example.com', subscriber_emails: ['bob@example.com'], template_id: 1 }, /subscriber_email/],
    ['emails and ids', { subscriber_emails: ['ann@example.com'], subscriber_ids: [1], template_id: 1 }, /not both/],
    ['ids in external mode', { subscriber_mode: 'external', subscriber_ids: [1], template_id: 1 }, /subscriber_ids/],
    ['bad mode', { subscriber_mode: 'any', subscriber_emails: ['a@example.com'], template_id: 1 }, /subscriber_mode/],
    ['bad address', { subscriber_emails: ['not-an-address'], template_id: 1 }, /subscriber_emails/],
    ['no template', { subscriber_emails: ['ann@example.com'] }, /template_id/],
    ['unknown template', { subscriber_emails: ['ann@example.com'], template_id: 999 }, /template_id/],
    ['unknown messenger', { subscriber_emails: ['ann@example.com'], template_id: 0, messenger: 'pigeon' }, /template_id|messenger/],
    ['unknown subscriber', { subscriber_emails: ['ghost@example.com'], template_id: 0 }, /not found|template_id/],
  ];
  for (const [name, body, msg] of errors) {
    it(`refuses: ${name}`, async () => {
      const n = sink.messages.length;
      const b = { ...body, ...(body && body.template_id === 0 ? { template_id: tpl } : {}) };
      const r = await t.request('POST', '/api/tx', b);
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, msg);
      assert.equal(sink.messages.length, n);
    });
  }

  it('with tx:send alone, a failing subject shows neither the recipient\'s e-mail nor their attributes, and sends nothing', async () => {
    const f = fixtures(t.server.ctx.db);
    const secretId = f.subscriber({ email: 'hidden-7c1@example.com', name: 'Hidden Person', attribs: { ssn: '078-05-1120', city: 'Quito' } }).id;
    const txOnly = f.apiUser('tx-only', { permissions: ['tx:send'] });
    const n = sink.messages.length;
    for (const subject of ['{{ fail (printf "%v" .Subscriber.Attribs) }}', '{{ fail .Subscriber.Email }}', '{{ range .Subscriber.Attribs.ssn }}{{ end }}', '{{ index .Subscriber.Attribs.city 99 }}']) {
      const r = await t.request('POST', '/api/tx', { subscriber_id: secretId, template_id: tpl, subject }, { auth: txOnly });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, new RegExp(`^the template does not render for subscriber ${secretId}: subject: template: base:1:\\d+: executing "base" at <`));
      for (const secret of ['hidden-7c1', '078-05-1120', 'Quito', 'Hidden']) assert.ok(!r.text.includes(secret), `${r.text} shows ${secret}`);
    }
    await new Promise((done) => setTimeout(done, 100));
    assert.equal(sink.messages.length, n);
  });

  it('answers an unknown recipient the same way whatever the id or address, naming neither', async () => {
    // One that existed: deleted since.
    const goneId = addSubscriber(t.server.ctx.db, 'gone@example.com', 'Gone', []);
    assert.equal((await t.request('DELETE', `/api/subscribers/${goneId}`)).status, 200);
    const answers = [];
    for (const who of [{ subscriber_id: 987654 }, { subscriber_id: goneId }, { subscriber_email: 'gone@example.com' }, { subscriber_email: 'ghost-2@example.com' }]) {
      const r = await t.request('POST', '/api/tx', { ...who, template_id: tpl, data: { order: 'Z' } });
      assert.equal(r.status, 400, r.text);
      answers.push(r.text);
    }
    assert.deepEqual(new Set(answers), new Set([JSON.stringify({ message: 'Subscriber not found' })]));
    // Several missing: counted, not named; the ones found are still sent (listmonk's partial success).
    const n = sink.messages.length;
    const r = await t.request('POST', '/api/tx', { subscriber_ids: [987654, annId, 987655], template_id: tpl, data: { order: 'Y' } });
    assert.equal(r.status, 400, r.text);
    assert.equal(r.body.message, 'Subscriber not found; Subscriber not found');
    assert.deepEqual((await newMail(n)).map((m) => m.to[0]), ['ann@example.com']);
  });

  it('applies the subscriber address rules: the domain blocklist and allowlist', async () => {
    const set = async (over: Record<string, unknown>) => assert.equal((await t.request('PUT', '/api/settings', over)).status, 200);
    const send = (email: string) => t.request('POST', '/api/tx', { subscriber_mode: 'external', subscriber_emails: [email], template_id: tpl });
    const n = sink.messages.length;
    try {
      await set({ 'privacy.domain_blocklist': ['*.blocked.example'] });
      for (const email of ['x@blocked.example', 'x@mail.blocked.example']) {
        const r = await send(email);
        assert.equal(r.status, 400, email);
        assert.match(r.body.message, /subscriber_emails.*blocked\.example.*domain are not accepted/);
      }
      assert.equal(sink.messages.length, n);
      await set({ 'privacy.domain_blocklist': [], 'privacy.domain_allowlist': ['allowed.example'] });
      assert.equal((await send('x@other.example')).status, 400);
      assert.equal((await send('x@allowed.example')).status, 200);
      await newMail(n);
    } finally {
      await set({ 'privacy.domain_blocklist': [], 'privacy.domain_allowlist': [] });
    }
  });

  it('refuses a from_email that is not an address, sending nothing', async () => {
    const n = sink.messages.length;
    for (const from of ['bad', 'Name <bad>', 'a@b@c.d']) {
      const r = await t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: tpl, from_email: from });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, /invalid "from_email"/);
    }
    const ok = await t.request('POST', '/api/tx', { subscriber_email: 'ann@example.com', template_id: tpl, from_email: 'Shop <shop@example.com>', data: { order: 'F' } });
    assert.equal(ok.status, 200, ok.text);
    const [mail] = await newMail(n);
    assert.match(mail.raw, /^From: Shop <shop@example\.com>/m);
  });

  it('refuses a multipart request without a data part', async () => {
    const form = new FormData();
    form.append('file', new Blob(['x']), 'x.txt');
    const r = await t.request('POST', '/api/tx', undefined, { raw: form });
    assert.equal(r.status, 400);
    assert.match(r.body.message, /"data"/);
  });
  const message = JSON.stringify({ subscriber_email: 'ann@example.com', template_id: 1, data: { order: 'E' } });
  const multipartRefusals: [string, (f: FormData) => void, RegExp][] = [
    ['an attachment over 25 MB', (f) => f.append('file', new Blob([Buffer.alloc(25 * 1024 * 1024 + 1, 1)]), 'big.bin'), /"big\.bin" is larger than 25 MB/],
    ['more than 10 attachments', (f) => { for (let i = 0; i < 11; i++) f.append('file', new Blob(['x']), `f${i}.txt`); }, /at most 10 file/],
    ['attachments over 25 MB in total', (f) => { for (let i = 0; i < 2; i++) f.append('file', new Blob([Buffer.alloc(13 * 1024 * 1024, 1)]), `half${i}.bin`); }, /larger than 25 MB in total/],
    ['a file in another field', (f) => f.append('attachment', new Blob(['x']), 'x.txt'), /unexpected file in the form field "attachment"/],
    ['"data" that is not JSON', (f) => f.set('data', '{nope'), /invalid "data"/],
  ];
  for (const [name, build, msg] of multipartRefusals) {
    it(`refuses a multipart request with ${name}`, async () => {
      const n = sink.messages.length;
      const form = new FormData();
      form.append('data', message.replace('"template_id":1', `"template_id":${tpl}`));
      build(form);
      const r = await t.request('POST', '/api/tx', undefined, { raw: form });
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, msg);
      assert.equal(sink.messages.length, n);
    });
  }
});
