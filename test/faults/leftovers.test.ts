// A server killed while it receives or imports an upload leaves the upload's folder in the
// temp folder (an import keeps its whole file until it ends); the next start removes what it
// left, and nothing of another server's.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from '../campaigns/fixtures.ts';
import { type ChildServer, installDatabase, killChildServers, startChildServer } from '../helpers/child-server.ts';

after(killChildServers);

let dir: string;
let temp: string;
let dbPath: string;
let token: string;
let listId: number;

const start = () => startChildServer({ dbPath, uploads: join(dir, 'uploads'), token, env: { TMPDIR: temp } });
const uploadsIn = (kind: string) => readdirSync(temp).filter((n) => n.startsWith(`listmgr-${kind}-`));

/**
 * Sends the head of a multipart upload and holds the rest back (the server keeps receiving it).
 * The length it declares is within both routes' body limits (tx: 26.1 MB), else the server
 * would refuse it before receiving anything.
 */
function startUpload(s: ChildServer, path: string, fields: Record<string, string>): void {
  const boundary = 'leftover-boundary';
  const head = Object.entries(fields).map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') +
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="people.csv"\r\nContent-Type: text/csv\r\n\r\nemail,name\r\n`;
  const req = httpRequest(`${s.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(token).toString('base64')}`, 'content-type': `multipart/form-data; boundary=${boundary}`, 'content-length': 20 * 1024 * 1024 },
  });
  req.on('error', () => {}); // the server is killed under it
  req.write(head);
  req.write(Array.from({ length: 2000 }, (_, i) => `held${i}@example.com,Held ${i}\n`).join(''));
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'listmgr-leftovers-'));
  temp = join(dir, 'tmp');
  mkdirSync(temp);
  dbPath = join(dir, 'listmgr.db');
  token = await installDatabase(dbPath);
  const s = await start();
  listId = (await s.request('POST', '/api/lists', { name: 'Imports', type: 'private', optin: 'single' })).body.data.id;
  assert.equal(await s.stop(), 0);
});
after(() => rmSync(dir, { recursive: true, force: true }));

describe('uploads of a killed server', () => {
  it('are removed at the next start: an import and a tx upload killed while being received, an import killed while running', async () => {
    // Another server's upload in the same temp folder, and a file that is not ours.
    const foreign = join(temp, 'listmgr-import-0123456789ab-AbCdEf');
    mkdirSync(foreign);
    writeFileSync(join(temp, 'unrelated.txt'), 'x');

    let s = await start();
    startUpload(s, '/api/import/subscribers', { params: JSON.stringify({ mode: 'subscribe', delim: ',', lists: [listId] }) });
    startUpload(s, '/api/tx', { data: JSON.stringify({ subscriber_email: 'a@example.com', template_id: 1 }) });
    await until('both uploads to be received', () => uploadsIn('import').length === 2 && uploadsIn('tx').length === 1);
    await s.kill();

    s = await start();
    assert.deepEqual([uploadsIn('import'), uploadsIn('tx')], [['listmgr-import-0123456789ab-AbCdEf'], []], s.output());
    assert.match(s.output(), /removed .*listmgr-import-.*, an upload left behind by a server that was killed/);

    // An import killed while it runs keeps its whole upload until the next start.
    const f = new FormData();
    f.set('params', JSON.stringify({ mode: 'subscribe', delim: ',', lists: [listId] }));
    f.set('file', new Blob(['email,name\n' + Array.from({ length: 300_000 }, (_, i) => `killed${i}@example.com,Killed ${i}\n`).join('')]), 'big.csv');
    assert.equal((await s.request('POST', '/api/import/subscribers', undefined, { raw: f })).status, 200);
    assert.equal((await s.request('GET', '/api/import/subscribers')).body.data.status, 'importing');
    await s.kill();
    assert.equal(uploadsIn('import').length, 2, 'the killed import left its upload');

    s = await start();
    assert.deepEqual(uploadsIn('import'), ['listmgr-import-0123456789ab-AbCdEf']);
    assert.ok(readdirSync(temp).includes('unrelated.txt'));
    assert.equal(await s.stop(), 0);
  });
});
