// The first hour on the command line, run as a new user would (the built ./listmgr launcher):
// install's --root-url and --admin-email, the user and API-user lists, status, the root URL
// warning at start-up, a taken port refused before anything is installed, and file modes.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { fromRoot } from '../../src/paths.ts';

const LAUNCHER = fromRoot('listmgr');
let dir: string;

function run(args: string[], env: Record<string, string> = {}) {
  const env0: Record<string, string | undefined> = { ...process.env, LISTMGR_ADMIN_PASSWORD: 'admin-password-1', ...env };
  delete env0.LISTMGR_DB;
  delete env0.LISTMGR_ROOT_URL;
  const r = spawnSync(LAUNCHER, args, { cwd: dir, env: env0, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** `listmgr serve` on an ephemeral port; resolves once it listens. */
function serve(db: string, extra: string[] = []): Promise<{ proc: ChildProcess; url: string; output: () => string; stop: () => Promise<void> }> {
  const proc = spawn(LAUNCHER, ['serve', '--db', db, '--address', '127.0.0.1:0', '--uploads', join(dir, `${db}-uploads`), ...extra], { cwd: dir, env: { ...process.env, LISTMGR_ADMIN_PASSWORD: 'admin-password-1' } });
  let out = '';
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`serve exited ${code}: ${out}`));
    const onData = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        proc.off('exit', onExit);
        resolve({
          proc, url: m[1], output: () => out,
          stop: () => new Promise((done) => {
            proc.once('exit', () => done());
            proc.kill('SIGTERM');
          }),
        });
      }
    };
    proc.stdout!.on('data', onData);
    proc.stderr!.on('data', onData);
    proc.once('exit', onExit);
  });
}

const mode = (path: string) => statSync(path).mode & 0o777;
const line = (out: string, label: string) => new RegExp(`^${label}:\\s+(.*)$`, 'm').exec(out)?.[1] ?? '';

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-cli-status-'));
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('install --root-url --admin-email', () => {
  it('stores the root URL and the admin e-mail, and tells how to reset a password without mail', () => {
    const r = run(['install', '--db', 'a.db', '--root-url', 'https://news.example.com/', '--admin-email', 'Boss@Example.com']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /listmgr user reset-password admin/);
    assert.doesNotMatch(r.out, /The root URL/, 'no advice about a root URL that was given');
    const db = new Database(join(dir, 'a.db'), { readonly: true });
    assert.equal(db.prepare(`SELECT value FROM settings WHERE key = 'app.root_url'`).pluck().get(), '"https://news.example.com"');
    assert.equal(db.prepare(`SELECT email FROM users WHERE username = 'admin'`).pluck().get(), 'boss@example.com');
    db.close();
  });

  it('says where to set the root URL when none is given', () => {
    const r = run(['install', '--db', 'plain.db']);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /root URL .* is http:\/\/localhost:9000: set it under Settings → General, or with "serve --root-url URL"/);
  });

  it('refuses a bad e-mail or root URL before creating anything, and prints no banner', () => {
    for (const args of [['--admin-email', 'not-an-address'], ['--root-url', 'ftp://x']]) {
      const r = run(['install', '--db', 'bad.db', ...args]);
      assert.equal(r.code, 1, args.join(' '));
      assert.match(r.err, /^listmgr: invalid (admin e-mail|root URL)/);
      assert.doesNotMatch(r.out, /reset-password|password:/);
      assert.equal(existsSync(join(dir, 'bad.db')), false);
    }
  });
});

describe('serve on a fresh database', () => {
  it('refuses a port in use before installing anything', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const r = spawnSync(LAUNCHER, ['serve', '--db', 'port.db', '--address', `127.0.0.1:${port}`], { cwd: dir, encoding: 'utf8', env: { ...process.env, LISTMGR_ADMIN_PASSWORD: '' } });
      assert.equal(r.status, 1);
      assert.match(r.stderr, /already in use/);
      assert.doesNotMatch(r.stdout, /password:|listmgr is installed/);
      assert.equal(existsSync(join(dir, 'port.db')), false, 'nothing installed');
    } finally {
      taken.close();
    }
  });

  it('warns at start-up while the root URL is the default, and prints the banner once it listens', async () => {
    const s = await serve('fresh.db');
    await s.stop();
    assert.match(s.output(), /listening on[\s\S]*WARN  start-up: The root URL http:\/\/localhost:9000 is still the default[\s\S]*Settings → General[\s\S]*listmgr user reset-password admin/);
    const given = await serve('fresh.db', ['--root-url', 'https://news.example.com']);
    await given.stop();
    assert.doesNotMatch(given.output(), /start-up: The root URL/);
  });
});

describe('user list, api-user list, status', () => {
  let token = '';
  before(() => {
    const created = run(['api-user', 'create', 'robot', '--db', 'a.db']);
    assert.equal(created.code, 0, created.err);
    token = created.out.trim().split('\n').pop()!.split(':')[1];
    assert.equal(run(['user', 'create', 'editor', '--role', 'Super Admin', '--db', 'a.db'], { LISTMGR_PASSWORD: 'editor-password-1' }).code, 0);
  });

  it('lists login users with role, status and e-mail, and API users with their role and last use, never a token', async () => {
    const users = run(['user', 'list', '--db', 'a.db']);
    assert.equal(users.code, 0, users.err);
    assert.match(users.out, /^NAME\s+ROLE\s+STATUS\s+2FA\s+E-MAIL\s+LAST SIGN-IN$/m);
    assert.match(users.out, /^admin\s+Super Admin\s+enabled\s+none\s+boss@example\.com\s+never$/m);
    assert.match(users.out, /^editor\s+Super Admin\s+enabled/m);
    assert.doesNotMatch(users.out, /robot/);

    let apis = run(['api-user', 'list', '--db', 'a.db']);
    assert.match(apis.out, /^robot\s+Super Admin\s+enabled\s+never$/m);
    assert.doesNotMatch(apis.out, /admin|editor/);
    const s = await serve('a.db');
    try {
      const res = await fetch(`${s.url}/api/lists`, { headers: { authorization: `token robot:${token}` } });
      assert.equal(res.status, 200);
      // A refused request records no use.
      assert.equal((await fetch(`${s.url}/api/lists`, { headers: { authorization: 'token robot:wrong' } })).status, 403);
      // Where no mail is set up, the sign-in pages name the command that sets a new password.
      for (const path of ['/admin/login', '/admin/forgot']) assert.match(await (await fetch(s.url + path)).text(), /<code>\.\/listmgr user reset-password NAME<\/code>/);
    } finally {
      await s.stop();
    }
    apis = run(['api-user', 'list', '--db', 'a.db']);
    assert.match(apis.out, /^robot\s+Super Admin\s+enabled\s+\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/m);
    assert.ok(!apis.out.includes(token) && !users.out.includes(token), 'no token is printed');
    assert.equal(run(['api-user', 'list', '--db', 'plain.db']).out.trim(), 'No API users. Create one with: ./listmgr api-user create NAME');
  });

  it('status tells the database, its contents, the server, the last backup, the root URL and mail', async () => {
    let r = run(['status', '--db', 'plain.db']);
    assert.equal(r.code, 0, r.err);
    assert.match(line(r.out, 'Database'), new RegExp(`^${join(dir, 'plain.db').replace(/[.\\/]/g, '\\$&')} \\(\\d+\\.\\d KB`));
    assert.equal(line(r.out, 'Server'), 'not running on this database');
    assert.equal(line(r.out, 'Subscribers'), '0 (0 blocklisted)');
    assert.equal(line(r.out, 'Lists'), '0');
    assert.equal(line(r.out, 'Campaigns'), '0 running, 0 scheduled, 0 in all');
    assert.equal(line(r.out, 'Last backup'), 'none recorded (listmgr backup FILE)');
    assert.match(line(r.out, 'Root URL'), /^http:\/\/localhost:9000: The root URL http:\/\/localhost:9000 is still the default/);
    assert.match(line(r.out, 'Mail'), /^(enabled: SMTP \S+:\d+|not configured)/);

    const s = await serve('plain.db');
    try {
      r = run(['status', '--db', 'plain.db']);
      assert.equal(line(r.out, 'Server'), `running on this database (pid ${s.proc.pid})`);
      const backup = run(['backup', join(dir, 'plain-backup.db'), '--db', 'plain.db']);
      assert.equal(backup.code, 0, backup.err);
    } finally {
      await s.stop();
    }
    r = run(['status', '--db', 'a.db']);
    assert.equal(line(r.out, 'Root URL'), 'https://news.example.com');
    r = run(['status', '--db', 'plain.db']);
    assert.match(line(r.out, 'Last backup'), new RegExp(`^\\d{4}-\\d{2}-\\d{2}T\\S+ to ${join(dir, 'plain-backup.db').replace(/[.\\/]/g, '\\$&')} \\(\\d`));
    assert.equal(line(r.out, 'Server'), 'not running on this database');
  });
});

describe('file modes', () => {
  it('creates the database, its WAL, the lock file and backups readable by their owner only, and the uploads folder 0700', async () => {
    const r = run(['install', '--db', 'modes.db']);
    assert.equal(r.code, 0, r.err);
    assert.equal(mode(join(dir, 'modes.db')), 0o600);
    const s = await serve('modes.db');
    try {
      assert.equal(mode(join(dir, 'modes.db.lock')), 0o600);
      assert.equal(mode(join(dir, 'modes.db-wal')), 0o600);
      const token = run(['api-user', 'create', 'uploader', '--db', 'modes.db']).out.trim().split('\n').pop()!;
      const form = new FormData();
      form.append('file', new Blob([Buffer.from('GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;', 'latin1')], { type: 'image/gif' }), 'dot.gif');
      const up = await fetch(`${s.url}/api/media`, { method: 'POST', body: form, headers: { authorization: `token ${token}` } });
      assert.equal(up.status, 200, await up.text());
      assert.equal(mode(join(dir, 'modes.db-uploads')), 0o700);
      assert.equal(run(['backup', 'modes-backup.db', '--db', 'modes.db']).code, 0);
      assert.equal(mode(join(dir, 'modes-backup.db')), 0o600);
    } finally {
      await s.stop();
    }
    assert.ok(spawnSync('git', ['check-ignore', '-q', 'x.db.lock'], { cwd: fromRoot('.') }).status === 0, '*.db.lock is in .gitignore');
  });
});
