// npm run bench:send — a campaign to 100,000 subscribers into an SMTP sink in another process,
// against a bare nodemailer pool sending the same number of similar messages to the same sink.
// The baseline sends the message listmgr sends (body in the default template, text part),
// rendered once in advance. Prints BENCH lines: send_msgs_per_s, send_peak_rss_mb (the
// listmgr process), api_ms_while_sending (p95 of GET /api/campaigns/{id} while sending),
// send_cpu_s (the CPU time the listmgr process used for the send) and baseline_msgs_per_s.
// BENCH_N sets the number of subscribers; BENCH_CPU_PROF=<dir> writes a CPU profile of the
// listmgr process there (node --cpu-prof); BENCH_SINK=postfix receives with Postfix's
// smtp-sink (C, much faster than Node's smtp-server) to show listmgr's own ceiling.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';
import nodemailer from 'nodemailer';
import { closeDatabase, openDatabase } from '../../src/db/connection.ts';
import { install } from '../../src/install.ts';
import { compileCampaign } from '../../src/rendering/message.ts';
import { htmlToPlainText } from '../../src/content/convert.ts';
import { templateCatalog } from '../../src/i18n/index.ts';
import { UserStore } from '../../src/users/store.ts';

const N = Number(process.env.BENCH_N ?? 100_000);
const CONNS = 10;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function lines(child: ChildProcess): AsyncIterator<string> {
  return createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
}

async function startSink(): Promise<{ port: number; count(): Promise<number>; stop(): void }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/sink.ts'], { stdio: ['pipe', 'pipe', 'inherit'] });
  const it = lines(child);
  const { port } = JSON.parse((await it.next()).value);
  return {
    port,
    async count() {
      child.stdin!.write('count\n');
      return JSON.parse((await it.next()).value).count;
    },
    stop: () => child.stdin!.write('exit\n'),
  };
}

const POSTFIX_SMTP_SINK = '/usr/sbin/smtp-sink';

/** Postfix's smtp-sink; `-c` prints "sess=N quit=N mesg=N" and a carriage return per message. */
async function startPostfixSink(): Promise<{ port: number; count(): Promise<number>; stop(): void }> {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const user = process.getuid?.() === 0 ? ['-u', 'nobody'] : [];
  const child = spawn(POSTFIX_SMTP_SINK, [...user, '-c', `127.0.0.1:${port}`, '1024'], { stdio: ['ignore', 'pipe', 'inherit'] });
  let received = 0;
  child.stdout!.on('data', (d: Buffer) => {
    for (const m of d.toString().matchAll(/mesg=(\d+)/g)) received = Number(m[1]);
  });
  for (let tries = 0; ; tries++) {
    const ready = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        resolve(true);
      }).on('error', () => resolve(false));
    });
    if (ready) break;
    if (tries > 50) throw new Error(`${POSTFIX_SMTP_SINK} did not start`);
    await sleep(100);
  }
  return {
    port,
    async count() {
      await sleep(200); // the counter is printed as messages complete
      return received;
    },
    stop: () => child.kill(),
  };
}

const BODY = '<h1>Weekly news</h1><p>Hello {{ .Subscriber.Name }},</p>' +
  '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit. Sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>'.repeat(6) +
  '<p><a href="{{ TrackLink "https://example.org/article/1" . }}">Read more</a></p>';

/**
 * The message listmgr sends, rendered once in advance: the campaign body in the default
 * template (as the campaign below uses it), so both sides hand nodemailer the same sizes.
 */
function sampleMessage(layout: string): { html: string; text: string } {
  const uuid = randomUUID();
  const env = {
    rootUrl: 'http://127.0.0.1:9000', individualTracking: true, disableTracking: false, i18n: templateCatalog('en'),
    trackLink: (_url: string, c: string, s: string) => `http://127.0.0.1:9000/link/${uuid}/${c}/${s}`,
  };
  const campaign = {
    id: 1, uuid, name: 'Bench', subject: 'Hello', from_email: 'News <news@example.com>', body: BODY, altbody: null, content_type: 'richtext',
    headers: [], tags: [], attribs: {}, type: 'regular', messenger: 'email', template_id: null, send_at: null, created_at: '', updated_at: '',
    started_at: null, to_send: 0, sent: 0, archive: false, archive_slug: null,
  };
  const sub = { id: 1, uuid: randomUUID(), email: 'b@example.com', name: 'READER', attribs: {}, status: 'enabled', created_at: null, updated_at: null };
  const html = compileCampaign(campaign, layout, env).render(sub).html;
  return { html, text: htmlToPlainText(html) };
}

async function baseline(port: number, sinkCount: () => Promise<number>, layout: string): Promise<number> {
  const start0 = await sinkCount();
  const transport = nodemailer.createTransport({ pool: true, maxConnections: CONNS, maxMessages: Infinity, host: '127.0.0.1', port, ignoreTLS: true });
  const sample = sampleMessage(layout);
  const t0 = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < N) {
      const i = next++;
      const name = `Reader ${i}`;
      await transport.sendMail({
        from: 'News <news@example.com>', to: `b${i}@example.com`, subject: `Hello ${name}`,
        html: sample.html.replace('READER', name), text: sample.text.replace('READER', name),
      });
    }
  };
  await Promise.all(Array.from({ length: CONNS * 2 }, worker));
  const secs = (performance.now() - t0) / 1000;
  transport.close();
  if ((await sinkCount()) - start0 < N) throw new Error('baseline: the sink did not receive every message');
  return N / secs;
}

async function main(): Promise<void> {
  spawnSync(process.execPath, ['scripts/build.mjs'], { stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-bench-'));
  const dbPath = join(dir, 'bench.db');
  await install(dbPath, { adminUser: 'admin', adminPassword: 'bench-password' });
  const db = openDatabase(dbPath);
  const { token } = new UserStore(db).createApiUser('bench');
  const listId = Number(db.prepare(`INSERT INTO lists (uuid, name, optin) VALUES (?, 'Bench', 'single')`).run(randomUUID()).lastInsertRowid);
  const insSub = db.prepare('INSERT INTO subscribers (uuid, email, name) VALUES (?, ?, ?)');
  const insSl = db.prepare(`INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES (?, ?, 'confirmed')`);
  db.transaction(() => {
    for (let i = 0; i < N; i++) insSl.run(insSub.run(randomUUID(), `s${i}@example.com`, `Reader ${i}`).lastInsertRowid, listId);
  })();
  const layout = db.prepare(`SELECT body FROM templates WHERE is_default = 1 AND type = 'campaign'`).pluck().get() as string;
  closeDatabase(db);

  const sink = process.env.BENCH_SINK === 'postfix' ? await startPostfixSink() : await startSink();
  const baselineRate = await baseline(sink.port, sink.count, layout);

  // Page cache starts cold: read the database file once before timing.
  readFileSync(dbPath);
  // Started by the launcher, as a user starts it (with its V8 flags).
  const profile = process.env.BENCH_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_CPU_PROF}` } : {};
  const server = spawn('./listmgr', ['serve', '--db', dbPath, '--address', '127.0.0.1:0', '--uploads', join(dir, 'uploads')], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...profile } });
  let url = '';
  for await (const line of createInterface({ input: server.stdout! })) {
    const m = /listening on (http:\/\/\S+)/.exec(line);
    if (m) {
      url = m[1];
      break;
    }
  }
  server.stdout!.resume();
  const auth = { authorization: `Basic ${Buffer.from(`bench:${token}`).toString('base64')}`, 'content-type': 'application/json' };
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(url + path, { method, headers: auth, body: body === undefined ? undefined : JSON.stringify(body) });
    const json = await res.json() as { data: any; message?: string };
    if (res.status !== 200) throw new Error(`${method} ${path}: ${res.status} ${json.message}`);
    return json.data;
  };
  await api('PUT', '/api/settings', {
    smtp: [{ enabled: true, host: '127.0.0.1', port: sink.port, hello_hostname: '', auth_protocol: 'none', username: '', password: '', email_headers: [],
      max_conns: CONNS, max_msg_retries: 0, msg_retry_delay: '10ms', idle_timeout: '15s', wait_timeout: '5s', tls_type: 'none', tls_skip_verify: false, from_addresses: [], name: '', uuid: '' }],
    'app.concurrency': CONNS * 2, 'app.message_rate': 100000, 'app.batch_size': 1000, 'privacy.individual_tracking': true,
  });
  const before = await sink.count();
  const camp = await api('POST', '/api/campaigns', {
    name: 'Bench', subject: 'Hello {{ .Subscriber.Name }}', lists: [listId], from_email: 'News <news@example.com>', content_type: 'html',
    body: BODY,
  });
  const cpu0 = cpuSeconds(server.pid!);
  const t0 = performance.now();
  await api('PUT', `/api/campaigns/${camp.id}/status`, { status: 'running' });
  const latencies: number[] = [];
  let peakRss = 0;
  for (;;) {
    const s = performance.now();
    const c = await api('GET', `/api/campaigns/${camp.id}`);
    latencies.push(performance.now() - s);
    const status = readFileSync(`/proc/${server.pid}/status`, 'utf8');
    peakRss = Math.max(peakRss, Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024);
    if (c.status === 'finished') break;
    if (c.status !== 'running') throw new Error(`campaign ended ${c.status}`);
    await sleep(100);
  }
  const secs = (performance.now() - t0) / 1000;
  const cpu = cpuSeconds(server.pid!) - cpu0;
  const got = (await sink.count()) - before;
  if (got !== N) throw new Error(`the sink received ${got} messages, expected ${N}`);
  latencies.sort((a, b) => a - b);
  const p95 = latencies[Math.floor(latencies.length * 0.95)];

  const exited = new Promise((r) => server.once('exit', r));
  server.kill('SIGTERM');
  sink.stop();
  await exited;
  rmSync(dir, { recursive: true, force: true });

  console.log(`BENCH send_msgs_per_s ${(N / secs).toFixed(0)}`);
  console.log(`BENCH send_peak_rss_mb ${peakRss.toFixed(1)}`);
  console.log(`BENCH api_ms_while_sending ${p95.toFixed(1)}`);
  console.log(`BENCH send_cpu_s ${cpu.toFixed(1)}`);
  console.log(`BENCH baseline_msgs_per_s ${baselineRate.toFixed(0)}`);
  console.log(`(${N} messages; database file pre-read into the page cache before timing; api = p95 of ${latencies.length} GET /api/campaigns/{id}, max ${latencies[latencies.length - 1].toFixed(1)} ms)`);
}

/**
 * CPU time (user + system, all threads) the process has used: a measure of the send's cost that
 * other work on the machine changes much less than the wall-clock rate.
 */
function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').replace(/^.*\) /, '').split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the pid and (comm).
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
