// A server that crashed leaves <db>.lock behind; by the time it restarts its pid may belong to
// another process. Such a lock never blocks the restart, while a running server's lock still
// refuses a second server.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { installDatabase, killChildServers, LAUNCHER, startChildServer } from '../helpers/child-server.ts';

after(killChildServers);

let dir: string;
let dbPath: string;
let token: string;
let other: ChildProcess;

const lockPath = () => `${dbPath}.lock`;
const start = () => startChildServer({ dbPath, uploads: join(dir, 'uploads'), token });

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-stale-lock-'));
  dbPath = join(dir, 'listmgr.db');
  token = await installDatabase(dbPath);
  // A live process that is not a listmgr server: the pid a crashed server's lock may name after a restart.
  other = spawn('sleep', ['600'], { stdio: 'ignore' });
});
after(() => {
  other.kill();
  rmSync(dir, { recursive: true, force: true });
});

describe('the serve lock', () => {
  it('names its holder: pid, start time, boot, database', async () => {
    const s = await start();
    try {
      const [pid, ...rest] = readFileSync(lockPath(), 'utf8').trim().split('\n');
      assert.equal(Number(pid), s.pid);
      assert.match(rest.join('\n'), /^start=\d+\nboot=[0-9a-f-]+\ndb=.*listmgr\.db$/);
      const second = spawnSync(LAUNCHER, ['serve', '--db', dbPath, '--address', '127.0.0.1:0'], { encoding: 'utf8' });
      assert.equal(second.status, 1);
      assert.match(second.stderr, new RegExp(`a listmgr server \\(pid ${s.pid}\\) is serving`));
    } finally {
      assert.equal(await s.stop(), 0);
    }
    assert.ok(!existsSync(lockPath()), 'released on a clean stop');
  });

  it('left by a crashed server whose pid now runs another process does not block the restart', async () => {
    const crashed = await start();
    await crashed.kill();
    const left = readFileSync(lockPath(), 'utf8');
    assert.match(left, new RegExp(`^${crashed.pid}\\n`), 'a crash leaves the lock behind');
    // The pid is reused by a process that is not this server.
    writeFileSync(lockPath(), left.replace(/^\d+/, String(other.pid)));
    const s = await start();
    assert.ok(s.running());
    assert.equal(await s.stop(), 0);
  });

  it('written by an older listmgr (the pid alone) does not block the restart when that pid is not a listmgr process', async () => {
    writeFileSync(lockPath(), String(other.pid));
    const s = await start();
    assert.ok(s.running());
    assert.equal(await s.stop(), 0);
  });
});
