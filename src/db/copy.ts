// A consistent copy of a live database for `listmgr backup`. SQLite's online backup copies a
// few pages per step and starts over whenever another connection writes between two steps:
// under a server's steady writes (20 a second) it never finished. VACUUM INTO copies from one
// read transaction, so the copy is the database as of its start however much is written
// meanwhile, and it comes out compacted. It runs on a worker thread, so that the caller can
// report progress (the size written so far) for big files.
import { closeSync, openSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { inSea, nativeDir } from '../sea.ts';

// The worker is evaluated source (no file of its own to bundle), given better-sqlite3's path
// (in the release executable, its bundle in the cache folder).
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.source, { fileMustExist: true });
try {
  db.pragma('busy_timeout = 5000');
  db.prepare('VACUUM INTO ?').run(workerData.target);
  parentPort.postMessage({ ok: true });
} catch (e) {
  parentPort.postMessage({ ok: false, message: e.message, code: e.code });
} finally {
  db.close();
}`;

/**
 * Writes a consistent, compacted copy of the database at `source` to `target` (which must not
 * exist). `onProgress` is called with the bytes written so far every `everyMs` while the copy
 * runs. A failed copy leaves no file behind.
 */
export async function copyDatabase(source: string, target: string, onProgress?: (written: number) => void, everyMs = 1000): Promise<void> {
  const driver = inSea ? join(nativeDir(), 'better-sqlite3.cjs') : createRequire(import.meta.url).resolve('better-sqlite3');
  // VACUUM INTO writes into an empty file as into a new one: created here, readable by its owner only.
  closeSync(openSync(target, 'wx', 0o600));
  const worker = new Worker(WORKER, { eval: true, workerData: { driver, source, target } });
  const timer = onProgress ? setInterval(() => {
    let written = 0;
    try {
      written = statSync(target).size;
    } catch {
      // not created yet
    }
    onProgress(written);
  }, everyMs) : null;
  try {
    await new Promise<void>((resolve, reject) => {
      worker.once('message', (m: { ok: boolean; message?: string; code?: string }) => {
        if (m.ok) resolve();
        else reject(Object.assign(new Error(m.message), { code: m.code }));
      });
      worker.once('error', reject);
      worker.once('exit', (code) => reject(new Error(`the copying thread exited (code ${code})`)));
    });
  } catch (e) {
    rmSync(target, { force: true });
    throw e;
  } finally {
    if (timer) clearInterval(timer);
    void worker.terminate();
  }
}
