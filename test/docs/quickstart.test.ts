// docs/quickstart.md's curl commands, run with curl, in the guide's order, against a fresh
// server and a real SMTP sink; each must answer what the guide's `# →` line after it says.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, it } from 'node:test';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp.ts';

const run = promisify(execFile);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const doc = readFileSync(join(repo, 'docs/quickstart.md'), 'utf8');

interface Step {
  command: string;
  expect?: string;
}

/** The curl commands of the guide's sh blocks, each with the `# →` line that follows it. */
function steps(): Step[] {
  const out: Step[] = [];
  for (const [, block] of doc.matchAll(/```sh\n([\s\S]*?)```/g)) {
    let current: Step | null = null;
    for (const line of block.split('\n')) {
      if (line.startsWith('curl ')) {
        current = { command: line };
        out.push(current);
      } else if (line.startsWith('# → ')) {
        assert.ok(current && current.expect === undefined, `an answer without its command: ${line}`);
        current.expect = line.slice(4);
        current = null;
      } else if (/^(#|npm |\.\/listmgr |$)/.test(line)) {
        current = null;
      } else {
        assert.ok(current, `a line outside a command: ${line}`);
        current.command += '\n' + line;
      }
    }
  }
  return out;
}

/** `actual` has every key and value of `expected`; ALL_CAPS strings capture the actual value. */
function matches(actual: unknown, expected: unknown, captures: Map<string, string>, path = '$'): string | null {
  if (typeof expected === 'string' && /^[A-Z][A-Z_]+$/.test(expected)) {
    if (typeof actual !== 'string' || actual === '') return `${path}: expected a value for ${expected}, got ${JSON.stringify(actual)}`;
    const seen = captures.get(expected);
    if (seen !== undefined && seen !== actual) return `${path}: ${expected} was ${seen}, now ${actual}`;
    captures.set(expected, actual);
    return null;
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object') return `${path}: expected an object, got ${JSON.stringify(actual)}`;
    for (const [k, v] of Object.entries(expected)) {
      const problem = matches((actual as Record<string, unknown>)[k], v, captures, `${path}.${k}`);
      if (problem) return problem;
    }
    return null;
  }
  return actual === expected ? null : `${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`;
}

let t: TestServer;
let sink: SmtpSink;
let dir: string;
before(async () => {
  t = await startTestServer();
  sink = await startSmtpSink();
  dir = mkdtempSync(join(tmpdir(), 'listmgr-quickstart-'));
});
after(async () => {
  await t.stop();
  await sink.close();
  rmSync(dir, { recursive: true, force: true });
});

it('docs/quickstart.md: every curl command answers as the guide says, in order', async () => {
  const all = steps();
  assert.ok(all.length >= 14, `only ${all.length} curl commands found`);
  const captures = new Map<string, string>();
  for (const step of all) {
    let command = step.command
      .replace(/^curl /, 'curl -sS --fail-with-body ')
      .replaceAll('http://localhost:9000', t.url)
      .replaceAll('my-script:TOKEN', t.token)
      .replaceAll('"port": 1025', `"port": ${sink.port}`)
      .replaceAll('-o preview.html', `-o ${join(dir, 'preview.html')}`);
    for (const [name, value] of captures) command = command.replaceAll(name, value);
    const isRead = !/ -X |-d |-F /.test(command);
    // Reads are asked again until they answer as shown (an import or a send takes a moment).
    for (let attempt = 0; ; attempt++) {
      let stdout: string;
      try {
        ({ stdout } = await run('sh', ['-c', command], { cwd: repo }));
      } catch (e) {
        const err = e as { stdout?: string; stderr?: string };
        assert.fail(`${step.command}\nfailed: ${err.stderr} ${err.stdout}`);
      }
      let problem: string | null = null;
      if (step.expect?.startsWith('{')) {
        let actual: unknown;
        try {
          actual = JSON.parse(stdout);
        } catch {
          actual = stdout;
        }
        problem = matches(actual, JSON.parse(step.expect), captures);
      } else if (step.expect) {
        const missing = [...step.expect.matchAll(/"([^"]+)"/g)].map((m) => m[1]).filter((s) => !stdout.includes(s));
        if (missing.length) problem = `missing ${missing.map((s) => JSON.stringify(s)).join(', ')}`;
      }
      if (!problem) break;
      if (!isRead || attempt >= 100) assert.fail(`${step.command}\n${problem}\nanswer: ${stdout.slice(0, 2000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  // Step 7's words about the preview.
  const preview = readFileSync(join(dir, 'preview.html'), 'utf8');
  const [, start, words] = doc.match(/`preview\.html` is the whole mail, starting `([^`]+)`, with "([^"]+)" in it\./)!;
  assert.ok(preview.startsWith(start), preview.slice(0, 100));
  assert.ok(preview.includes(words), preview);

  // What reached the mail server: the SMTP test, the test send, and the campaign to all five.
  const mail = await sink.waitFor(7);
  await new Promise((r) => setTimeout(r, 200));
  assert.equal(mail.length, 7);
  assert.deepEqual(mail[0].to, ['you@example.com']);
  assert.deepEqual(mail[1].to, ['ada@example.com']);
  assert.deepEqual(mail.slice(2).flatMap((m) => m.to).sort(),
    ['ada@example.com', 'grace.hopper@example.com', 'linus@example.com', 'margaret@example.com', 'reader@example.org']);
  const ada = mail.slice(2).find((m) => m.to[0] === 'ada@example.com')!;
  assert.equal(ada.parsed.subject, 'Issue 1: hello Ada');
  assert.match(ada.parsed.from?.text ?? '', /news@example\.com/);
  assert.match(String(ada.parsed.html), /Hi Ada, thanks for reading\./);
  assert.match(String(ada.parsed.html), /href="https:\/\/news\.example\.com\/link\//);
});
