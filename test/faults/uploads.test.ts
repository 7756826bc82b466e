// An upload that cannot be written (the disk is full) is answered, never the end of the
// server: every upload route, with a full temp folder and with a full data folder (database
// and media). The partial file is removed; once space is freed, uploads work again.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { type ChildServer, installDatabase, killChildServers, startChildServer } from '../helpers/child-server.ts';

after(killChildServers);
import { makeDisks, type Disks, type Folder } from '../helpers/full-disk.ts';
import type { ApiResponse } from '../helpers/server.ts';

let disks: Disks;
let s: ChildServer;
let uploads: string;
let dbPath: string;
let listId: number;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const payload = (kb: number) => new Blob([Buffer.alloc(kb * 1024, 'a')]);

/** Each upload route, with the folder its file is received in. */
const ROUTES: { name: string; folder: Folder; send: () => Promise<ApiResponse> }[] = [
  {
    name: 'POST /api/media',
    folder: 'data',
    send: () => {
      const f = new FormData();
      f.set('file', payload(256), 'notes.txt');
      return s.request('POST', '/api/media', undefined, { raw: f });
    },
  },
  {
    name: 'POST /api/import/subscribers',
    folder: 'temp',
    send: () => {
      const f = new FormData();
      f.set('params', JSON.stringify({ mode: 'subscribe', delim: ',', lists: [listId] }));
      f.set('file', new Blob(['email,name\n', ...Array.from({ length: 4000 }, (_, i) => `full${i}@example.com,Full Disk ${i}\n`)]), 'people.csv');
      return s.request('POST', '/api/import/subscribers', undefined, { raw: f });
    },
  },
  {
    name: 'POST /api/tx (multipart)',
    folder: 'temp',
    send: () => {
      const f = new FormData();
      f.set('data', JSON.stringify({ subscriber_email: 'nobody@example.com', template_id: 1 }));
      f.set('file', payload(256), 'report.bin');
      return s.request('POST', '/api/tx', undefined, { raw: f });
    },
  },
];

async function importIdle(): Promise<void> {
  for (let i = 0; i < 400; i++) {
    const st = (await s.request('GET', '/api/import/subscribers')).body.data;
    if (st.status !== 'importing' && st.status !== 'stopping') return;
    await sleep(50);
  }
  throw new Error('the import did not end');
}

const leftovers = () => [
  ...readdirSync(disks.temp).filter((n) => n.startsWith('listmgr-')),
  ...(existsSync(uploads) ? readdirSync(uploads).filter((n) => n.startsWith('.incoming-')) : []),
];

before(async () => {
  disks = makeDisks();
  dbPath = join(disks.data, 'listmgr.db');
  uploads = join(disks.data, 'uploads');
  const token = await installDatabase(dbPath);
  s = await startChildServer({ dbPath, uploads, token, env: { TMPDIR: disks.temp } });
  listId = (await s.request('POST', '/api/lists', { name: 'Uploads', type: 'private', optin: 'single' })).body.data.id;
});

after(async () => {
  await s?.stop();
  disks?.close();
});

describe(`an upload that cannot be written (full disk made by ${process.env.LISTMGR_TEST_DISK ?? 'tmpfs if it can be mounted, else rlimit'})`, () => {
  for (const folder of ['temp', 'data'] as const) {
    it(`is answered 507, or goes on where its own folder has room, on every upload route with a full ${folder} folder; the server keeps serving`, async () => {
      disks.fill(folder, s.pid);
      try {
        for (const route of ROUTES) {
          const res = await route.send();
          assert.ok(s.running(), `${route.name}: the server ended: ${s.output()}`);
          const full = disks.kind === 'rlimit' || route.folder === folder;
          if (full) {
            assert.equal(res.status, 507, `${route.name}: ${res.text}`);
            assert.match(res.body.message, /no space left to store the uploaded file/);
          } else {
            assert.ok(res.status < 500 || res.status === 507, `${route.name}: ${res.status} ${res.text}`);
          }
          assert.equal((await fetch(`${s.url}/health`)).status, 200);
          await importIdle();
        }
        assert.deepEqual(leftovers(), [], 'partial files and upload folders are removed');
      } finally {
        disks.free(folder, s.pid);
      }
      // Space freed: uploads work again.
      const res = await ROUTES[0].send();
      assert.equal(res.status, 200, res.text);
      assert.ok(s.running());
    });
  }

  it('leaves the database intact', async () => {
    await importIdle();
    assert.equal(await s.stop(), 0, s.output());
    const db = new Database(dbPath, { readonly: true });
    try {
      assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
    } finally {
      db.close();
    }
  });
});

describe('a promise rejected with nobody to handle it', () => {
  it('is logged with the request it came from, and the process goes on', () => {
    const script = `
      const { Logger } = await import('./src/log.ts');
      const { installProcessGuards } = await import('./src/process-guard.ts');
      const { requestScope } = await import('./src/http/request-scope.ts');
      const log = new Logger();
      installProcessGuards(() => log);
      requestScope.run({ id: 'abcd1234', method: 'POST', path: '/api/media' }, () => {
        setTimeout(() => Promise.reject(new Error('ENOSPC: no space left on device, write')), 5);
      });
      Promise.reject(new Error('outside any request'));
      setTimeout(() => console.log('still serving'), 100);`;
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stderr, /ERROR unhandled promise rejection in request abcd1234 \(POST \/api\/media\), the server goes on: Error: ENOSPC/);
    assert.match(r.stderr, /ERROR unhandled promise rejection, the server goes on: Error: outside any request/);
    assert.match(r.stdout, /still serving/);
  });
});
