// `listmgr service-unit`: the systemd unit it prints parses, runs the server as the given user
// with the database in the given folder, may write only that folder, and stops with SIGTERM;
// systemd itself accepts it where systemd-analyze is installed. Bad options are refused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LAUNCHER } from '../helpers/child-server.ts';

let dir: string;

function run(args: string[]) {
  const r = spawnSync(LAUNCHER, args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** The unit's sections, each key with every value it is given. */
function parseUnit(text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>();
  let current: Map<string, string[]> | null = null;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const section = /^\[(\w+)\]$/.exec(line);
    if (section) {
      current = new Map();
      sections.set(section[1], current);
      continue;
    }
    const kv = /^([A-Za-z]+)=(.*)$/.exec(line);
    assert.ok(kv && current, `a line that is neither a section nor Key=value: ${line}`);
    current.set(kv[1], [...(current.get(kv[1]) ?? []), kv[2]]);
  }
  return sections;
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-unit-'));
  const build = spawnSync(process.execPath, ['scripts/build.mjs'], { encoding: 'utf8' });
  assert.equal(build.status, 0, build.stderr);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('listmgr service-unit', () => {
  it('prints a hardened unit for the given user and data folder', () => {
    const r = run(['service-unit', '--user', 'newsletter', '--dir', '/srv/listmgr/']);
    assert.equal(r.code, 0, r.err);
    const unit = parseUnit(r.out);
    assert.deepEqual([...unit.keys()], ['Unit', 'Service', 'Install']);
    const service = unit.get('Service')!;
    const one = (key: string) => {
      const v = service.get(key);
      assert.equal(v?.length, 1, `${key} is set once`);
      return v![0];
    };
    assert.equal(one('User'), 'newsletter');
    assert.equal(one('Group'), 'newsletter');
    assert.equal(one('WorkingDirectory'), '/srv/listmgr');
    assert.equal(one('ExecStart'), '/usr/local/bin/listmgr serve --db /srv/listmgr/listmgr.db', 'run from the repository, it names the installed executable');
    assert.deepEqual(service.get('Environment'), [
      'LISTMGR_DB=/srv/listmgr/listmgr.db',
      'LISTMGR_UPLOADS=/srv/listmgr/uploads',
      'LISTMGR_ADDRESS=127.0.0.1:9000',
      'LISTMGR_CACHE_DIR=/srv/listmgr/.cache',
      'MALLOC_ARENA_MAX=2',
      'NODE_OPTIONS=--max-semi-space-size=8',
    ]);
    assert.equal(one('ProtectSystem'), 'strict');
    assert.equal(one('ReadWritePaths'), '/srv/listmgr', 'the data folder is the only writable one');
    assert.equal(one('NoNewPrivileges'), 'yes');
    assert.equal(one('PrivateTmp'), 'yes');
    assert.equal(one('ProtectHome'), 'yes');
    assert.equal(one('Restart'), 'on-failure');
    assert.equal(one('KillSignal'), 'SIGTERM');
    assert.match(one('TimeoutStopSec'), /^\d+$/);
    assert.equal(unit.get('Install')!.get('WantedBy')?.[0], 'multi-user.target');
  });

  it('takes the executable and the address from --exec and --address', () => {
    const r = run(['service-unit', '--exec', '/opt/listmgr/listmgr', '--address', '127.0.0.1:8080']);
    assert.equal(r.code, 0, r.err);
    const service = parseUnit(r.out).get('Service')!;
    assert.equal(service.get('User')?.[0], 'listmgr', 'the default user');
    assert.equal(service.get('ExecStart')?.[0], '/opt/listmgr/listmgr serve --db /var/lib/listmgr/listmgr.db');
    assert.ok(service.get('Environment')?.includes('LISTMGR_ADDRESS=127.0.0.1:8080'));
  });

  it('is accepted by systemd-analyze verify', (t) => {
    if (spawnSync('systemd-analyze', ['--version']).status !== 0) return t.skip('systemd-analyze is not installed');
    const r = run(['service-unit', '--user', 'newsletter', '--dir', dir, '--exec', process.execPath]);
    assert.equal(r.code, 0, r.err);
    const file = join(dir, 'listmgr.service');
    writeFileSync(file, r.out);
    const v = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    assert.equal(v.status, 0, v.stderr);
    // It exits 0 for settings it ignores, and says so.
    assert.equal(v.stderr.trim(), '');
    // The low-memory settings, once uncommented, are accepted too.
    const lowMemory = r.out.replace('#Environment=NODE_OPTIONS=', 'Environment=NODE_OPTIONS=');
    assert.notEqual(lowMemory, r.out, 'the unit offers the low-memory setting, commented out');
    assert.deepEqual(parseUnit(lowMemory).get('Service')!.get('Environment')!.slice(-1), ['NODE_OPTIONS=--max-semi-space-size=2']);
    writeFileSync(file, lowMemory);
    const low = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
    assert.equal(low.status, 0, low.stderr);
    assert.equal(low.stderr.trim(), '');
  });

  for (const [args, message] of [
    [['--user', 'root'], /invalid --user "root": the service runs as a user of its own/],
    [['--user', 'Bad User'], /invalid --user "Bad User"/],
    [['--dir', 'relative/dir'], /invalid --dir "relative\/dir": an absolute path/],
    [['--dir', '/srv/my data'], /invalid --dir "\/srv\/my data"/],
    [['--dir', '/srv/../etc'], /invalid --dir "\/srv\/..\/etc": no ".." parts/],
    [['--dir', '/'], /invalid --dir "\/"/],
    [['--exec', 'listmgr'], /invalid --exec "listmgr"/],
    [['--address', 'anywhere'], /invalid --address "anywhere": HOST:PORT/],
  ] as const) {
    it(`refuses ${args.join(' ')}`, () => {
      const r = run(['service-unit', ...args]);
      assert.equal(r.code, 1);
      assert.equal(r.out, '', 'no unit is printed');
      assert.match(r.err, message);
    });
  }
});
