// `listmgr restore FILE`, run as a person would (the built ./listmgr launcher): each refusal
// leaves the database as it was, and a restore puts the backup's data in place, keeps the
// replaced database (with what only its WAL held) as <db>.before-restore, and leaves no WAL of
// the old database to be replayed over the restored one.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { closeDatabase, openDatabase } from '../../src/db/connection.ts';
import { install } from '../../src/install.ts';
import { UserStore } from '../../src/users/store.ts';
import { installDatabase, killChildServers, LAUNCHER, startChildServer } from '../helpers/child-server.ts';

let dir: string;

function run(args: string[]) {
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.LISTMGR_DB;
  const r = spawnSync(LAUNCHER, args, { cwd: dir, env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The API users' names in a database file (opened read-only, so it gains no WAL). */
function apiUsers(path: string): string[] {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    return db.prepare("SELECT username FROM users WHERE type = 'api' ORDER BY username").pluck().all() as string[];
  } finally {
    db.close();
  }
}

function addApiUser(path: string, name: string): void {
  const db = openDatabase(path);
  try {
    new UserStore(db).createApiUser(name);
  } finally {
    closeDatabase(db);
  }
}

const bytes = (path: string) => readFileSync(path);

/** An installed database with the API user "in-backup", and a backup of it. */
async function databaseWithBackup(name: string): Promise<{ db: string; backup: string }> {
  const db = join(dir, `${name}.db`);
  const backup = join(dir, `${name}-backup.db`);
  await install(db, { adminUser: 'admin', adminPassword: 'admin-password-1' });
  addApiUser(db, 'in-backup');
  const r = run(['backup', backup, '--db', db]);
  assert.equal(r.code, 0, r.err);
  addApiUser(db, 'after-backup');
  return { db, backup };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-restore-'));
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
});
after(() => {
  killChildServers();
  rmSync(dir, { recursive: true, force: true });
});

describe('listmgr restore', () => {
  it('puts the backup in place and keeps the replaced database, with what only its WAL held, as .before-restore', async () => {
    const { db, backup } = await databaseWithBackup('happy');
    // A server that crashed leaves writes in the WAL only: copy the file and its WAL while a
    // connection that never checkpoints holds them.
    const crashed = join(dir, 'crashed.db');
    const live = new Database(db);
    try {
      live.pragma('wal_autocheckpoint = 0');
      new UserStore(live).createApiUser('wal-only');
      assert.ok(statSync(`${db}-wal`).size > 0, 'the write sits in the WAL');
      copyFileSync(db, crashed);
      copyFileSync(`${db}-wal`, `${crashed}-wal`);
    } finally {
      live.close();
    }
    const r = run(['restore', backup, '--db', crashed]);
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /^Restored .*happy-backup\.db to .*crashed\.db\.$/m);
    assert.match(r.out, new RegExp(`kept as ${crashed.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\.before-restore`));
    assert.equal(existsSync(`${crashed}-wal`), false, 'no WAL of the old database is left');
    assert.equal(existsSync(`${crashed}-shm`), false, 'no shared-memory file of the old database is left');
    assert.deepEqual(apiUsers(crashed), ['in-backup'], 'the restored database holds what the backup held');
    assert.deepEqual(apiUsers(`${crashed}.before-restore`), ['after-backup', 'in-backup', 'wal-only'], 'the kept database has everything, its WAL included');
    assert.equal(statSync(crashed).mode & 0o777, 0o600, 'the restored file is readable by its owner only');
    // The restored database is one the commands accept.
    const status = run(['status', '--db', crashed]);
    assert.equal(status.code, 0, status.err);
  });

  it('restores to a database file that does not exist yet', async () => {
    const { backup } = await databaseWithBackup('fresh');
    const target = join(dir, 'new-machine.db');
    const r = run(['restore', backup, '--db', target]);
    assert.equal(r.code, 0, r.err);
    assert.doesNotMatch(r.out, /kept as/);
    assert.deepEqual(apiUsers(target), ['in-backup']);
  });

  describe('refuses, and changes nothing', () => {
    let db: string;
    let backup: string;
    let original: Buffer;
    before(async () => {
      ({ db, backup } = await databaseWithBackup('refusals'));
      original = bytes(db);
    });

    const refused = (file: string, message: RegExp) => {
      const r = run(['restore', file, '--db', db]);
      assert.equal(r.code, 1, `exit code (stdout: ${r.out})`);
      assert.match(r.err, message);
      assert.ok(bytes(db).equals(original), 'the database is unchanged');
      assert.equal(existsSync(`${db}.before-restore`), false, 'nothing was kept aside');
      assert.deepEqual(apiUsers(db), ['after-backup', 'in-backup']);
    };

    it('a file that is not there', () => refused(join(dir, 'missing.db'), /no backup file at .*missing\.db/));

    it('a file that is not a SQLite database', () => {
      const junk = join(dir, 'junk.db');
      writeFileSync(junk, 'this is not a database, only text that is long enough to be read as a header by SQLite'.repeat(20));
      refused(junk, /junk\.db is not a SQLite database/);
    });

    it('a damaged database (the integrity check)', () => {
      const damaged = join(dir, 'damaged.db');
      const copy = Buffer.from(bytes(backup));
      const pageSize = copy.readUInt16BE(16);
      for (let p = Math.floor(copy.length / pageSize / 2); p < copy.length / pageSize; p++) copy.fill(0xff, p * pageSize + 8, p * pageSize + 200);
      writeFileSync(damaged, copy);
      refused(damaged, /damaged\.db is damaged/);
    });

    it('a SQLite database that is not a listmgr one', () => {
      const other = join(dir, 'other.db');
      const o = new Database(other);
      o.exec('CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES (1)');
      o.close();
      refused(other, /other\.db is not a listmgr database/);
    });

    /** A copy of the backup, named `name`, changed by `sql`. */
    const alteredBackup = (name: string, sql: string) => {
      const path = join(dir, name);
      copyFileSync(backup, path);
      const d = new Database(path);
      d.exec(sql);
      d.close();
      return path;
    };

    it('a database written by a newer listmgr (migrations this version does not know)', () => {
      const newer = alteredBackup('newer.db', "INSERT INTO schema_migrations (version, name) VALUES (9999, 'from_the_future')");
      refused(newer, /newer\.db was written by a newer listmgr \(migrations 9999 /);
    });

    it('a database whose pending migrations cannot be applied', () => {
      // Marked as not applied, the first migration would create tables that exist.
      const broken = alteredBackup('broken.db', 'DELETE FROM schema_migrations WHERE version = (SELECT MIN(version) FROM schema_migrations)');
      refused(broken, /the migrations could not be applied to .*broken\.db/);
    });

    it('a database in use (a WAL beside it)', () => {
      const inUse = join(dir, 'in-use.db');
      copyFileSync(backup, inUse);
      writeFileSync(`${inUse}-wal`, 'x');
      refused(inUse, /in-use\.db has a write-ahead log beside it/);
    });

    it('the database itself', () => refused(db, /the backup file is the database itself/));

    it('while a server runs on the database', async () => {
      const uploads = join(dir, 'uploads');
      const token = await installDatabase(join(dir, 'served.db'));
      const server = await startChildServer({ dbPath: join(dir, 'served.db'), uploads, token, cwd: dir });
      try {
        const served = join(dir, 'served.db');
        const r = run(['restore', backup, '--db', served]);
        assert.equal(r.code, 1, r.out);
        assert.match(r.err, new RegExp(`a listmgr server \\(pid ${server.pid}\\) is serving .*served\\.db; restoring would replace the database under it`));
        assert.equal(existsSync(`${served}.before-restore`), false);
        assert.equal((await server.request('GET', '/api/health')).status, 200, 'the server goes on');
      } finally {
        await server.stop();
      }
    });

    it('while a .before-restore file from an earlier restore is there', () => {
      writeFileSync(`${db}.before-restore`, 'earlier');
      try {
        const r = run(['restore', backup, '--db', db]);
        assert.equal(r.code, 1);
        assert.match(r.err, /refusals\.db\.before-restore is left from an earlier restore; move it away first/);
        assert.ok(bytes(db).equals(original));
        assert.equal(readFileSync(`${db}.before-restore`, 'utf8'), 'earlier', 'the earlier file is kept');
      } finally {
        rmSync(`${db}.before-restore`);
      }
    });
  });
});
