// docs/webhooks.md is checked against the code: every event type has its section with a JSON
// example, every JSON block parses, the example delivery is signed as listmgr signs it, and the
// guide's verification code (the Node receiver, the Python verify(), the PHP receiver) is run
// against deliveries signed by listmgr's own signer: it accepts them (two signatures while a
// rotated secret still signs) and refuses another secret, a changed body and an old timestamp.
// Python and PHP run where the interpreter is installed.
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { freePort } from '../helpers/ports.ts';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { docAnchors } from '../../src/help/docs.ts';
import { EVENT_TYPES } from '../../src/events/types.ts';
import { eventBody } from '../../src/webhooks/body.ts';
import { signatureHeader } from '../../src/webhooks/signature.ts';

const doc = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');

/** The guide's fenced code blocks of a language, in order. */
const blocks = (lang: string) => [...doc.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]);
const block = (lang: string, marker: string) => {
  const found = blocks(lang).filter((b) => b.includes(marker));
  assert.equal(found.length, 1, `one ${lang} block with ${marker}`);
  return found[0];
};

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const unixNow = () => Math.floor(Date.now() / 1000);
const ONE_DAY = 24 * 3600_000;

interface Delivery {
  name: string;
  body: string;
  headers: Record<string, string>;
  accepted: boolean;
}

/**
 * Deliveries signed by listmgr's signer for a receiver holding `secret`, and whether each must
 * be accepted. `old` is a secret rotated out: while it still signs, a receiver with either verifies.
 */
function deliveries(secret: string): Delivery[] {
  const old = newSecret();
  const event = { type: 'subscriber.created', occurred_at: new Date().toISOString(), data: JSON.stringify({ subscriber: { id: 1, email: 'ana@example.com', name: 'Ana “Nana” Silva' } }) };
  const body = eventBody(event);
  const id = randomUUID();
  const now = unixNow();
  const signed = (s: { secret: string; previous_secret?: string; until?: number }, o: { ts?: number; body?: string; id?: string } = {}) => {
    const ts = o.ts ?? now;
    const secrets = { secret: s.secret, previous_secret: s.previous_secret ?? null, previous_secret_until: s.until ? new Date(s.until).toISOString() : null };
    return { 'webhook-id': o.id ?? id, 'webhook-timestamp': String(ts), 'webhook-signature': signatureHeader(secrets, o.id ?? id, ts, o.body ?? body) };
  };
  return [
    { name: 'signed with its secret', body, headers: signed({ secret }), accepted: true },
    { name: 'rotated: signed with a new secret and its secret', body, headers: signed({ secret: newSecret(), previous_secret: secret, until: Date.now() + ONE_DAY }), accepted: true },
    { name: 'rotated: signed with its new secret and an old one', body, headers: signed({ secret, previous_secret: old, until: Date.now() + ONE_DAY }), accepted: true },
    { name: 'another secret', body, headers: signed({ secret: old }), accepted: false },
    { name: 'a rotation whose overlap ended', body, headers: signed({ secret: old, previous_secret: secret, until: Date.now() - 1000 }), accepted: false },
    { name: 'a changed body', body: body.replace('Ana', 'Eve'), headers: signed({ secret }), accepted: false },
    { name: 'another webhook-id', body, headers: { ...signed({ secret }), 'webhook-id': randomUUID() }, accepted: false },
    { name: 'signed ten minutes ago', body, headers: signed({ secret }, { ts: now - 600 }), accepted: false },
    { name: 'no signature', body, headers: { ...signed({ secret }), 'webhook-signature': '' }, accepted: false },
  ];
}


/** Starts a receiver program on a free port; resolves once it accepts connections. */
async function startReceiver(command: string, args: (port: number) => string[], env: Record<string, string>): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const child = spawn(command, args(port), { env: { ...process.env, ...env, PORT: String(port) }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
  const url = `http://127.0.0.1:${port}/`;
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`${command} exited: ${output}`);
    const up = await fetch(url, { method: 'POST', body: '' }).then((r) => r.arrayBuffer(), () => null);
    if (up) break;
    assert.ok(i < 200, `${command} did not listen: ${output}`);
    await new Promise((r) => setTimeout(r, 25));
  }
  return { url, child, output: () => output };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  child.kill('SIGTERM');
  await once(child, 'exit');
}

/** Posts each delivery; the statuses the receiver answered. */
async function post(url: string, list: Delivery[]): Promise<number[]> {
  const out: number[] = [];
  for (const d of list) {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...d.headers }, body: d.body });
    await res.arrayBuffer();
    out.push(res.status);
  }
  return out;
}

const installed = (command: string) => spawnSync(command, ['--version']).status === 0;

describe('docs/webhooks.md', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'listmgr-webhooks-doc-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has a section with a JSON example for every event type, and every JSON block parses', () => {
    const anchors = docAnchors(doc);
    for (const type of Object.keys(EVENT_TYPES)) {
      assert.ok(anchors.has(type.replace('.', '')), `a "### ${type}" section`);
      const section = doc.split(`\n### ${type}\n`)[1]?.split('\n#')[0] ?? '';
      assert.match(section, /```json\n\{/, `${type} has an example`);
      assert.ok(doc.includes(`| [\`${type}\`](#${type.replace('.', '')}) |`), `${type} in the table of types`);
    }
    for (const json of blocks('json')) assert.doesNotThrow(() => JSON.parse(json), json.slice(0, 200));
  });

  it('shows a delivery signed as listmgr signs it, which the Standard Webhooks library verifies', () => {
    const request = block('http', 'webhook-signature');
    const header = (name: string) => new RegExp(`^${name}: (.+)$`, 'm').exec(request)![1];
    const body = request.slice(request.indexOf('\n\n') + 2).trim();
    const secret = /with the secret `(whsec_[^`]+)`/.exec(doc)![1];
    const event = JSON.parse(body) as { type: string; timestamp: string; data: unknown };
    assert.equal(eventBody({ type: event.type, occurred_at: event.timestamp, data: JSON.stringify(event.data) }), body);
    const ts = Number(header('webhook-timestamp'));
    assert.equal(header('webhook-signature'), signatureHeader({ secret, previous_secret: null, previous_secret_until: null }, header('webhook-id'), ts, body));
    assert.equal(new Date(ts * 1000).toISOString(), '2026-03-14T09:30:00.000Z', 'the time the guide names');
    const wh = new Webhook(secret);
    const signed = { 'webhook-id': header('webhook-id'), 'webhook-timestamp': String(unixNow()), 'webhook-signature': '' };
    signed['webhook-signature'] = wh.sign(signed['webhook-id'], new Date(Number(signed['webhook-timestamp']) * 1000), body);
    assert.equal(signed['webhook-signature'], signatureHeader({ secret, previous_secret: null, previous_secret_until: null }, signed['webhook-id'], Number(signed['webhook-timestamp']), body));
    assert.deepEqual(wh.verify(body, signed), event);
  });

  it('Node: the receiver accepts listmgr\'s deliveries, refuses the others, and handles a repeat once', async () => {
    const file = join(dir, 'receiver.mjs');
    writeFileSync(file, block('js', '// receiver.mjs'));
    const secret = newSecret();
    const r = await startReceiver(process.execPath, () => [file], { WEBHOOK_SECRET: secret });
    try {
      const list = deliveries(secret);
      assert.deepEqual(await post(r.url, list), list.map((d) => (d.accepted ? 204 : 401)));
      const handled = r.output().split('\n').filter((l) => l.includes(' subscriber.created '));
      assert.equal(handled.length, 1, `the same webhook-id is handled once: ${r.output()}`);
      assert.match(handled[0], /"email":"ana@example\.com"/);
    } finally {
      await stop(r.child);
    }
  });

  it('Python: verify() accepts listmgr\'s deliveries and refuses the others', { skip: !installed('python3') && 'python3 is not installed' }, () => {
    const secret = newSecret();
    const list = deliveries(secret);
    const program = `${block('python', 'def verify(')}
import json, sys
for d in json.load(sys.stdin):
    print("accepted" if verify(${JSON.stringify(secret)}, d["headers"], d["body"].encode()) else "refused")
`;
    const res = spawnSync('python3', ['-c', program], { input: JSON.stringify(list), encoding: 'utf8' });
    assert.equal(res.status, 0, res.stderr);
    assert.deepEqual(res.stdout.trim().split('\n'), list.map((d) => (d.accepted ? 'accepted' : 'refused')));
  });

  it('PHP: the receiver accepts listmgr\'s deliveries and refuses the others', { skip: !installed('php') && 'php is not installed' }, async () => {
    const file = join(dir, 'receiver.php');
    writeFileSync(file, block('php', 'function verify_webhook('));
    const secret = newSecret();
    const r = await startReceiver('php', (port) => ['-S', `127.0.0.1:${port}`, file], { WEBHOOK_SECRET: secret });
    try {
      const list = deliveries(secret);
      assert.deepEqual(await post(r.url, list), list.map((d) => (d.accepted ? 204 : 401)));
    } finally {
      await stop(r.child);
    }
  });
});
