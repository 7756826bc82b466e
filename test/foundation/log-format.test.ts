// The log on stdout: readable text by default; with LISTMGR_LOG_FORMAT=json one JSON object per
// line (time, level, msg), for journald and log shippers. GET /api/logs serves the same lines
// as text either way (the admin's log view reads it); a format it does not know stops the start.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type ChildServer, installDatabase, killChildServers, LAUNCHER, startChildServer } from '../helpers/child-server.ts';

after(killChildServers);

const TEXT_LINE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z (INFO |WARN |ERROR) \S/;

describe('the log format', () => {
  let dir: string;
  let dbPath: string;
  let token: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'listmgr-logformat-'));
    dbPath = join(dir, 'listmgr.db');
    token = await installDatabase(dbPath);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function runOnce(env: Record<string, string>): Promise<{ lines: string[]; apiLogs: string[] }> {
    const s: ChildServer = await startChildServer({ dbPath, uploads: join(dir, 'uploads'), token, env });
    try {
      const logs = await s.request<{ data: string[] }>('GET', '/api/logs');
      assert.equal(logs.status, 200, logs.text);
      assert.equal(await s.stop(), 0);
      return { lines: s.output().split('\n').filter(Boolean), apiLogs: logs.body.data };
    } finally {
      await s.kill();
    }
  }

  it('is readable text by default, and /api/logs serves the same lines', async () => {
    const { lines, apiLogs } = await runOnce({});
    assert.ok(lines.length >= 3, lines.join('\n'));
    for (const line of lines) assert.match(line, TEXT_LINE);
    assert.ok(lines.some((l) => / INFO  listmgr listening on http:\/\//.test(l)));
    assert.ok(apiLogs.some((l) => / INFO  listmgr listening on http:\/\//.test(l)));
  });

  it('is one JSON object per line with LISTMGR_LOG_FORMAT=json; /api/logs stays text', async () => {
    const { lines, apiLogs } = await runOnce({ LISTMGR_LOG_FORMAT: 'json' });
    assert.ok(lines.length >= 3, lines.join('\n'));
    const entries = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    for (const e of entries) {
      assert.match(String(e.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.ok(['info', 'warn', 'error'].includes(String(e.level)), JSON.stringify(e));
      assert.equal(typeof e.msg, 'string');
    }
    assert.ok(entries.some((e) => e.level === 'info' && /^listmgr listening on http:\/\//.test(String(e.msg))));
    assert.ok(entries.some((e) => e.msg === 'received SIGTERM'));
    for (const line of apiLogs) assert.match(line, TEXT_LINE);
    assert.ok(apiLogs.some((l) => / INFO  listmgr listening on http:\/\//.test(l)));
  });

  it('refuses a format it does not know, naming the variable', () => {
    const r = spawnSync(LAUNCHER, ['serve', '--db', dbPath, '--address', '127.0.0.1:0'], { env: { ...process.env, LISTMGR_LOG_FORMAT: 'xml' }, encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 1);
    assert.match(r.stderr, /invalid LISTMGR_LOG_FORMAT "xml": expected text or json/);
  });
});
