// The user commands of the built launcher, run against a temporary database.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { closeDatabase, openDatabase } from '../../src/db/connection.ts';
import { UserStore } from '../../src/users/store.ts';
import { sha256Hex } from '../../src/users/secrets.ts';

describe('listmgr user / api-user commands', () => {
  let dir: string;
  let dbPath: string;
  const cli = (args: string[], env: Record<string, string> = {}) => {
    const env0 = { ...process.env, ...env };
    delete env0.LISTMGR_DB;
    if (!('LISTMGR_PASSWORD' in env)) delete env0.LISTMGR_PASSWORD;
    // stdin is not a terminal here, so passwords come from LISTMGR_PASSWORD or are generated.
    return spawnSync('./listmgr', [...args, '--db', dbPath], { encoding: 'utf8', env: env0, stdio: ['ignore', 'pipe', 'pipe'] });
  };
  const withStore = async <T>(fn: (u: UserStore, db: ReturnType<typeof openDatabase>) => T | Promise<T>): Promise<T> => {
    const db = openDatabase(dbPath);
    try {
      return await fn(new UserStore(db), db);
    } finally {
      closeDatabase(db);
    }
  };

  before(() => {
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
    assert.equal(build.status, 0, build.stderr);
    dir = mkdtempSync(join(tmpdir(), 'listmgr-cli-users-'));
    dbPath = join(dir, 'listmgr.db');
    const res = cli(['install'], { LISTMGR_ADMIN_PASSWORD: 'admin-password-1' });
    assert.equal(res.status, 0, res.stderr);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('user create takes the password from LISTMGR_PASSWORD and never prints it', async () => {
    const res = cli(['user', 'create', 'sofia', '--role', 'Super Admin', '--email', 'Sofia@Acme.example'], { LISTMGR_PASSWORD: 'sofia-password-1' });
    assert.equal(res.status, 0, res.stderr);
    assert.doesNotMatch(res.stdout + res.stderr, /sofia-password-1/);
    await withStore(async (u) => {
      const account = await u.checkLogin('sofia', 'sofia-password-1');
      assert.ok(account);
      assert.equal(u.getUser(account.id).email, 'sofia@acme.example');
      assert.equal(u.getUser(account.id).user_role.id, 1);
    });
  });

  it('user create without a password source generates one and prints it once', async () => {
    const res = cli(['user', 'create', 'marco', '--role', 'Super Admin']);
    assert.equal(res.status, 0, res.stderr);
    const password = /Generated password \(shown only now\): (\S+)/.exec(res.stdout)![1];
    assert.equal(password.length, 20);
    await withStore(async (u) => assert.ok(await u.checkLogin('marco', password)));
  });

  for (const [name, args, env, message] of [
    ['an unknown role', ['user', 'create', 'x1x', '--role', 'Nope'], { LISTMGR_PASSWORD: 'long-enough-1' }, /no user role named "Nope"/],
    ['a missing --role', ['user', 'create', 'x2x'], { LISTMGR_PASSWORD: 'long-enough-1' }, /--role/],
    ['a short password', ['user', 'create', 'x3x', '--role', 'Super Admin'], { LISTMGR_PASSWORD: 'short' }, /8 to 2000/],
    ['a taken name', ['user', 'create', 'sofia', '--role', 'Super Admin'], { LISTMGR_PASSWORD: 'long-enough-1' }, /already taken/],
    ['a bad name', ['user', 'create', 'a b', '--role', 'Super Admin'], { LISTMGR_PASSWORD: 'long-enough-1' }, /invalid username/],
  ] as const) {
    it(`user create refuses ${name} (exit 1, nothing created)`, async () => {
      const before = await withStore((u) => u.listUsers().length);
      const res = cli([...args], { ...env });
      assert.equal(res.status, 1);
      assert.match(res.stderr, message);
      assert.equal(await withStore((u) => u.listUsers().length), before);
    });
  }

  it('user reset-password sets the password and ends all the user\'s sessions', async () => {
    const session = await withStore(async (u) => {
      const id = (await u.checkLogin('sofia', 'sofia-password-1'))!.id;
      return { id, cookie: u.createSession(id) };
    });
    const res = cli(['user', 'reset-password', 'sofia'], { LISTMGR_PASSWORD: 'sofia-password-2' });
    assert.equal(res.status, 0, res.stderr);
    await withStore(async (u, db) => {
      assert.equal(await u.checkLogin('sofia', 'sofia-password-1'), null);
      assert.ok(await u.checkLogin('sofia', 'sofia-password-2'));
      assert.equal(db.prepare('SELECT COUNT(*) FROM sessions WHERE user_id = ?').pluck().get(session.id), 0);
      assert.equal(u.authenticator().bySession(session.cookie), null);
    });
    const missing = cli(['user', 'reset-password', 'ghost'], { LISTMGR_PASSWORD: 'sofia-password-2' });
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no login user named "ghost"/);
  });

  it('api-user create prints NAME:TOKEN last; only the hash is stored; revoke removes it', async () => {
    const res = cli(['api-user', 'create', 'crm-sync']);
    assert.equal(res.status, 0, res.stderr);
    const last = res.stdout.trim().split('\n').at(-1)!;
    const [name, token] = last.split(':');
    assert.equal(name, 'crm-sync');
    assert.match(token, /^[A-Za-z0-9]{48}$/);
    await withStore((u, db) => {
      assert.equal(db.prepare(`SELECT password FROM users WHERE username = 'crm-sync'`).pluck().get(), sha256Hex(token));
      assert.ok(u.authenticator().byToken('crm-sync', token));
    });
    const revoke = cli(['api-user', 'revoke', 'crm-sync']);
    assert.equal(revoke.status, 0, revoke.stderr);
    await withStore((u) => assert.equal(u.authenticator().byToken('crm-sync', token), null));
    assert.equal(cli(['api-user', 'revoke', 'crm-sync']).status, 1);
  });

  it('api-user create --role uses the named role', async () => {
    await withStore((u) => u.createUserRole('Sync', ['subscribers:get']));
    const res = cli(['api-user', 'create', 'syncer', '--role', 'Sync']);
    assert.equal(res.status, 0, res.stderr);
    await withStore((u) => assert.equal(u.listUsers().find((x) => x.username === 'syncer')!.user_role.name, 'Sync'));
  });
});
