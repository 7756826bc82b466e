// Scheduled backups: the backup.* settings are checked when saved (a bad interval, number to
// keep or folder is a 400 naming it, and changes nothing); while enabled, the schedule writes a
// consistent copy of the database when one is due, records it as the last backup, keeps the
// newest `keep` of its own files and never touches other files; the next one is due an interval
// after the last one recorded, also after a restart. The schedule's check is driven directly
// with the times it should see (its timer is stopped), so nothing here waits on the clock.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { BackupSchedule } from '../../src/maintenance/backups.ts';
import { SettingsService } from '../../src/settings/service.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { fixtures } from '../helpers/fixtures.ts';
import { installDatabase, killChildServers, startChildServer } from '../helpers/child-server.ts';
import { until } from '../campaigns/fixtures.ts';

let t: TestServer;
before(async () => {
  t = await startTestServer();
  // The test drives the checks itself.
  await t.server.ctx.backups.stop();
});
after(() => t.stop());
after(killChildServers);

const HOUR = 3_600_000;
const BACKUP_NAME = /^listmgr-backup-\d{8}-\d{6}Z\.db$/;

describe('the backup settings', () => {
  const refused: [string, Record<string, unknown>, RegExp][] = [
    ['an interval that is not a duration', { 'backup.interval': 'daily' }, /invalid setting "backup\.interval": "daily" is not a duration/],
    ['an interval under a minute', { 'backup.interval': '30s' }, /invalid setting "backup\.interval": must be at least 1 minute/],
    ['keeping none', { 'backup.keep': 0 }, /invalid setting "backup\.keep": must be 1-1000/],
    ['keeping a fraction', { 'backup.keep': 2.5 }, /invalid setting "backup\.keep": expected an integer/],
    ['a folder that is not a string', { 'backup.dir': 5 }, /invalid setting "backup\.dir": expected a string/],
    ['enabling with a folder that is a file', { 'backup.enabled': true, 'backup.dir': 'listmgr.db' }, /invalid setting "backup\.dir": .*listmgr\.db is not a folder/],
    ['enabling with a folder under a file', { 'backup.enabled': true, 'backup.dir': 'listmgr.db/sub' }, /invalid setting "backup\.dir": .*is not a folder/],
  ];
  for (const [name, body, message] of refused) {
    it(`refuses ${name} with a 400 naming it, changing nothing`, async () => {
      const r = await t.request('PUT', '/api/settings', body);
      assert.equal(r.status, 400, r.text);
      assert.match(r.body.message, message);
      const s = (await t.request('GET', '/api/settings')).body.data;
      assert.deepEqual([s['backup.enabled'], s['backup.interval'], s['backup.keep'], s['backup.dir']], [false, '24h', 7, 'backups']);
    });
  }

  it('ships disabled, every 24 hours, keeping 7, in "backups" beside the database', () => {
    const status = t.server.ctx.backups.status();
    assert.deepEqual({ ...status, last: undefined, files: undefined }, { enabled: false, interval: '24h', keep: 7, dir: join(dirname(t.dbPath), 'backups'), last: undefined, next_at: null, files: undefined });
  });

  it('refuses the change without settings:manage', async () => {
    const role = await t.request('POST', '/api/roles/users', { name: 'Settings viewer', permissions: ['settings:get'] });
    assert.equal(role.status, 200, role.text);
    const viewer = t.apiUser('viewer', role.body.data.id);
    const r = await t.request('PUT', '/api/settings', { 'backup.enabled': true }, { auth: viewer });
    assert.equal(r.status, 403, r.text);
    assert.equal(t.server.ctx.settings.get('backup.enabled'), false);
  });
});

describe('the backup schedule', () => {
  let folder: string;
  const t0 = new Date(Date.UTC(2031, 0, 1, 3, 0, 0));
  const at = (hours: number) => new Date(t0.getTime() + hours * HOUR);

  before(async () => {
    folder = join(t.dir, 'kept backups');
    mkdirSync(folder);
    // Files that are not its own: never removed.
    writeFileSync(join(folder, 'notes.txt'), 'mine');
    writeFileSync(join(folder, 'other-backup-20200101-000000Z.db'), 'another database');
    writeFileSync(join(folder, 'listmgr-backup-latest.db'), 'a name of my own');
    const r = await t.request('PUT', '/api/settings', { 'backup.enabled': true, 'backup.interval': '1h', 'backup.keep': 2, 'backup.dir': folder });
    assert.equal(r.status, 200, r.text);
  });

  it('writes a consistent copy of the database when due, records it and logs it', async () => {
    fixtures(t.server.ctx.db).subscriber({ uuid: '0190a000-0000-7000-8000-000000000001', email: 'kept@example.com', name: 'Kept' });
    const before = t.server.ctx.log.recent().length;
    const written = await t.server.ctx.backups.tick(at(0));
    assert.ok(written);
    assert.equal(dirname(written.file), folder);
    assert.match(basename(written.file), BACKUP_NAME);
    assert.equal(basename(written.file), 'listmgr-backup-20310101-030000Z.db');
    assert.deepEqual(SettingsService.lastBackup(t.server.ctx.db), written);
    const copy = new Database(written.file, { readonly: true });
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      assert.equal(copy.prepare("SELECT count(*) FROM subscribers WHERE email = 'kept@example.com'").pluck().get(), 1);
    } finally {
      copy.close();
    }
    const lines = t.server.ctx.log.recent().slice(before);
    assert.ok(lines.some((l) => l.includes(`INFO  scheduled backup written to ${written.file}`)), lines.join('\n'));
  });

  it('writes nothing before an interval has passed since the last backup', async () => {
    assert.equal(await t.server.ctx.backups.tick(at(0.5)), null);
    assert.equal(t.server.ctx.backups.status(at(0.5)).next_at, at(1).toISOString());
  });

  it('keeps the newest `keep` of its own backups and no other file is touched', async () => {
    assert.ok(await t.server.ctx.backups.tick(at(1)));
    const third = await t.server.ctx.backups.tick(at(2));
    assert.ok(third);
    const files = t.server.ctx.backups.status(at(2)).files.map((f) => basename(f));
    assert.deepEqual(files, ['listmgr-backup-20310101-050000Z.db', 'listmgr-backup-20310101-040000Z.db']);
    assert.ok(!existsSync(join(folder, 'listmgr-backup-20310101-030000Z.db')));
    for (const other of ['notes.txt', 'other-backup-20200101-000000Z.db', 'listmgr-backup-latest.db']) assert.ok(existsSync(join(folder, other)), other);
  });

  it('takes the next due time from the last backup after a restart', async () => {
    const restarted = new BackupSchedule(t.server.ctx);
    assert.equal(await restarted.tick(at(2.5)), null);
    const next = await restarted.tick(at(3));
    assert.equal(next?.at, at(3).toISOString());
  });

  it('writes nothing while disabled', async () => {
    const r = await t.request('PUT', '/api/settings', { 'backup.enabled': false });
    assert.equal(r.status, 200, r.text);
    assert.equal(await t.server.ctx.backups.tick(at(10)), null);
    assert.equal(t.server.ctx.backups.status(at(10)).next_at, null);
    assert.equal(SettingsService.lastBackup(t.server.ctx.db)?.at, at(3).toISOString());
  });
});

describe('scheduled backups in a running server', () => {
  it('writes the first one soon after the start when none was ever made, and logs it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'listmgr-backups-'));
    try {
      const dbPath = join(dir, 'listmgr.db');
      const token = await installDatabase(dbPath, (db) => {
        const set = db.prepare('UPDATE settings SET value = ? WHERE key = ?');
        set.run('true', 'backup.enabled');
        set.run(JSON.stringify('nightly'), 'backup.dir');
      });
      const s = await startChildServer({ dbPath, uploads: join(dir, 'uploads'), token, env: { LISTMGR_LOG_FORMAT: 'json' } });
      try {
        const folder = join(dir, 'nightly');
        const backups = () => (existsSync(folder) ? readdirSync(folder).filter((n) => BACKUP_NAME.test(n)) : []);
        const [name] = await until('a scheduled backup', () => (backups().length ? backups() : null), 30_000);
        const entry = await until('its log entry', () => s.output().split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((e) => String(e.msg).startsWith('scheduled backup written to')), 30_000);
        assert.equal(entry.file, join(folder, name));
        assert.equal(entry.level, 'info');
        assert.ok(entry.bytes > 0);
      } finally {
        await s.stop();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
