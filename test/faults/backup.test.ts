// `listmgr backup` finishes while another connection writes steadily (SQLite's paged online
// backup started over at every write in between and never finished), and its copy is a
// complete, consistent database.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { installDatabase, LAUNCHER } from '../helpers/child-server.ts';

let dir: string;
let dbPath: string;
const BALLAST_ROWS = 40_000;

/** Runs the CLI without blocking this process (whose timers write meanwhile); kills it after `timeoutMs`. */
function runCli(args: string[], timeoutMs: number): Promise<{ code: number | null; out: string; err: string; ms: number }> {
  const t0 = performance.now();
  const p = spawn(LAUNCHER, args, { cwd: dir });
  let out = '';
  let err = '';
  p.stdout.on('data', (d) => (out += d));
  p.stderr.on('data', (d) => (err += d));
  const timer = setTimeout(() => p.kill('SIGKILL'), timeoutMs);
  return new Promise((resolve) => p.once('exit', (code) => {
    clearTimeout(timer);
    resolve({ code, out, err, ms: performance.now() - t0 });
  }));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-backup-'));
  dbPath = join(dir, 'a.db');
  // About 160 MB: the paged backup (100 pages a step) never got through it at 20 writes a
  // second in 30 s; VACUUM INTO takes about a second.
  await installDatabase(dbPath, (db) => {
    db.exec('CREATE TABLE ballast (id INTEGER PRIMARY KEY, data BLOB)');
    const insert = db.prepare('INSERT INTO ballast (data) VALUES (randomblob(4000))');
    db.transaction(() => {
      for (let i = 0; i < BALLAST_ROWS; i++) insert.run();
    })();
  });
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('listmgr backup', () => {
  it('finishes under steady writes from another connection, with a complete, consistent copy', async () => {
    const writer = new Database(dbPath);
    const insert = writer.prepare(`INSERT INTO settings (key, value) VALUES (?, '1')`);
    let writes = 0;
    const timer = setInterval(() => insert.run(`test.write_${writes++}`), 20); // 50 writes a second
    let r;
    try {
      r = await runCli(['backup', 'copy.db', '--db', 'a.db'], 30_000);
    } finally {
      clearInterval(timer);
      writer.close();
    }
    assert.equal(r.code, 0, `exit ${r.code} after ${(r.ms / 1000).toFixed(1)} s, ${writes} writes meanwhile: ${r.err}`);
    assert.ok(writes >= 10, `only ${writes} writes during the backup`);
    assert.match(r.out, /Backed up .*a\.db to .*copy\.db \(\d+(\.\d+)? MB\)\.\n$/);
    // Progress, every second, for a copy that takes a while.
    const progress = /^Backing up: \d+\.\d (KB|MB) of about 1\d\d\.\d MB written \(\d+%\)$/m;
    if (r.ms > 2500 || r.out.includes('Backing up')) assert.match(r.out, progress);

    const copy = new Database(join(dir, 'copy.db'), { readonly: true });
    try {
      assert.equal(copy.pragma('integrity_check', { simple: true }), 'ok');
      assert.equal(copy.pragma('journal_mode', { simple: true }), 'delete', 'a file of its own, no WAL to go with it');
      assert.equal(copy.prepare('SELECT COUNT(*) FROM ballast').pluck().get(), BALLAST_ROWS);
      const copied = copy.prepare(`SELECT COUNT(*) FROM settings WHERE key LIKE 'test.write_%'`).pluck().get() as number;
      assert.ok(copied <= writes, `${copied} of ${writes} writes in the copy`);
    } finally {
      copy.close();
    }
    assert.deepEqual(readdirSync(dir).filter((n) => n.includes('partial')), [], 'no partial file left');
  });

  it('refuses an existing file and leaves it alone', async () => {
    const r = await runCli(['backup', 'copy.db', '--db', 'a.db'], 30_000);
    assert.equal(r.code, 1);
    assert.match(r.err, /already exists/);
    assert.ok(existsSync(join(dir, 'copy.db')));
  });
});
