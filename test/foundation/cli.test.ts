// The command-line contract, run as a new user would: the built ./listmgr launcher.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fromRoot } from '../../src/paths.ts';

const LAUNCHER = fromRoot('listmgr');
let dir: string;

function run(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(LAUNCHER, args, { cwd: dir, env: { ...process.env, ...env }, encoding: 'utf8' });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** Starts `listmgr serve` on an ephemeral port; resolves with its URL once it listens. */
function serve(db: string): Promise<{ proc: ChildProcess; url: string; output: () => string }> {
  const proc = spawn(LAUNCHER, ['serve', '--db', db, '--address', '127.0.0.1:0'], { cwd: dir });
  let out = '';
  return new Promise((resolve, reject) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve({ proc, url: m[1], output: () => out });
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)));
  });
}

const stopped = (p: ChildProcess) => new Promise<number | null>((resolve) => p.once('exit', (code) => resolve(code)));
const basic = (creds: string) => ({ authorization: `Basic ${Buffer.from(creds).toString('base64')}` });

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-cli-'));
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('listmgr install', () => {
  it('installs with the admin credentials from the environment', () => {
    const r = run(['install', '--db', 'a.db'], { LISTMGR_ADMIN_USER: 'boss', LISTMGR_ADMIN_PASSWORD: 'correct-horse' });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Installed listmgr/);
    assert.match(r.out, /boss/);
    assert.ok(!r.out.includes('correct-horse'), 'a given password is not echoed');
    const db = new Database(join(dir, 'a.db'), { readonly: true });
    const user = db.prepare(`SELECT username, password FROM users WHERE type = 'user'`).get() as { username: string; password: string };
    db.close();
    assert.equal(user.username, 'boss');
    assert.match(user.password, /^scrypt\$/);
  });

  it('generates and prints a strong password when none is given', () => {
    const r = run(['install', '--db', 'b.db']);
    assert.equal(r.code, 0, r.err);
    const m = /password: (\S+)/.exec(r.out);
    assert.ok(m && m[1].length >= 16, r.out);
  });

  it('refuses to reinstall with a clear message and exit code 1', () => {
    const r = run(['install', '--db', 'a.db']);
    assert.equal(r.code, 1);
    assert.match(r.err, /already installed.*--yes/);
  });

  it('checks the admin credentials before touching the file: --yes with a bad password keeps the installation', () => {
    const bad = run(['install', '--db', 'a.db', '--yes'], { LISTMGR_ADMIN_USER: 'boss', LISTMGR_ADMIN_PASSWORD: 'short' });
    assert.equal(bad.code, 1);
    assert.match(bad.err, /^listmgr: the admin password must be at least 8 characters long/);
    const db = new Database(join(dir, 'a.db'), { readonly: true });
    assert.equal(db.prepare(`SELECT username FROM users WHERE type = 'user'`).pluck().get(), 'boss');
    db.close();
    assert.equal(run(['install', '--db', 'fresh.db'], { LISTMGR_ADMIN_USER: 'x' }).code, 1);
    assert.equal(existsSync(join(dir, 'fresh.db')), false, 'no empty file left behind');
  });

  it('wipes and reinstalls with --yes, and says so', () => {
    const r = run(['install', '--db', 'a.db', '--yes'], { LISTMGR_ADMIN_PASSWORD: 'another-pass' });
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /Wiped/);
  });

  it('honours LISTMGR_DB', () => {
    const r = run(['install'], { LISTMGR_DB: join(dir, 'env.db'), LISTMGR_ADMIN_PASSWORD: 'another-pass' });
    assert.equal(r.code, 0, r.err);
    assert.ok(existsSync(join(dir, 'env.db')));
  });
});

describe('listmgr upgrade, version, help, bad arguments', () => {
  it('upgrade twice is harmless', () => {
    assert.equal(run(['upgrade', '--db', 'a.db']).code, 0);
    const r = run(['upgrade', '--db', 'a.db']);
    assert.equal(r.code, 0);
    assert.match(r.out, /up to date/);
  });

  it('upgrade on a missing database fails clearly', () => {
    const r = run(['upgrade', '--db', 'missing.db']);
    assert.equal(r.code, 1);
    assert.match(r.err, /no database/);
  });

  it('prints the version and documents every command', () => {
    assert.match(run(['version']).out, /^\d+\.\d+\.\d+/);
    const help = run(['--help']).out;
    for (const cmd of ['install', 'upgrade', 'serve', 'api-user', 'backup', 'vacuum', 'version']) assert.match(help, new RegExp(`\\b${cmd}\\b`));
  });

  it('answers bad arguments with a message and a non-zero exit, never a stack trace', () => {
    for (const args of [['frobnicate'], ['serve', '--address'], ['serve', '--db', 'a.db', '--address', 'nonsense'], ['api-user', 'create'], ['serve', '--db', 'no/such/folder/x.db'], ['install', '--db', 'no/such/folder/x.db'], ['serve', '--db', 'a.db', '--root-url', 'notaurl']]) {
      const r = run(args);
      assert.notEqual(r.code, 0, args.join(' '));
      assert.ok(r.err.trim().length > 0, args.join(' '));
      assert.doesNotMatch(r.err, /\n\s+at /, `stack trace for ${args.join(' ')}`);
    }
  });
});

describe('listmgr serve, api-user, backup', () => {
  it('serves, authenticates a new API token, refuses a second server, backs up while serving, stops gracefully', async () => {
    const created = run(['api-user', 'create', 'robot', '--db', 'a.db']);
    assert.equal(created.code, 0, created.err);
    const lastLine = created.out.trim().split('\n').pop()!;
    assert.match(lastLine, /^robot:[A-Za-z0-9]{48}$/);

    const s = await serve('a.db');
    try {
      assert.equal((await fetch(`${s.url}/api/health`, { headers: basic(lastLine) })).status, 200);
      assert.equal((await fetch(`${s.url}/api/health`, { headers: basic('robot:wrong-token') })).status, 403);
      assert.equal((await fetch(`${s.url}/health`)).status, 200);

      const second = run(['serve', '--db', 'a.db', '--address', '127.0.0.1:0']);
      assert.equal(second.code, 1);
      assert.match(second.err, /is serving/);
      // Nor may a command replace or migrate the database under it.
      const reinstall = run(['install', '--yes', '--db', 'a.db']);
      assert.equal(reinstall.code, 1);
      assert.match(reinstall.err, /is serving .*a\.db; installing would replace the database it is using\. Stop it first\./);
      assert.match(run(['upgrade', '--db', 'a.db']).err, /is serving/);
      assert.equal((await fetch(`${s.url}/api/health`, { headers: basic(lastLine) })).status, 200, 'the data is still there');

      const b = run(['backup', join(dir, 'copy.db'), '--db', 'a.db']);
      assert.equal(b.code, 0, b.err);
      assert.match(b.out, /Backed up .* \(\d+(\.\d+)? (KB|MB)\)/);
      const copy = new Database(join(dir, 'copy.db'), { readonly: true });
      assert.equal(copy.prepare(`SELECT count(*) FROM users WHERE username = 'robot'`).pluck().get(), 1);
      copy.close();
      assert.equal(run(['backup', join(dir, 'copy.db'), '--db', 'a.db']).code, 1, 'refuses to overwrite');

      assert.equal(run(['api-user', 'create', 'robot', '--db', 'a.db']).code, 1, 'duplicate name');
      assert.equal(run(['api-user', 'revoke', 'robot', '--db', 'a.db']).code, 0);
      const afterRevoke = await fetch(`${s.url}/api/health`, { headers: basic(lastLine) }).catch((e) => { throw new Error(`${e.message}: ${s.output()}`); });
      assert.equal(afterRevoke.status, 403, 'revoked token refused at once');
    } finally {
      const exit = stopped(s.proc);
      s.proc.kill('SIGTERM');
      assert.equal(await exit, 0);
    }
    assert.match(s.output(), /stopped/);
    assert.ok(!existsSync(join(dir, 'a.db.lock')), 'lock released');
  });

  it('installs a new database on first start and prints the admin credentials once', async () => {
    const s = await serve('fresh.db');
    const exit = stopped(s.proc);
    s.proc.kill('SIGINT');
    assert.equal(await exit, 0);
    assert.match(s.output(), /username: admin[\s\S]*password: \S{16,}/);
  });
});
