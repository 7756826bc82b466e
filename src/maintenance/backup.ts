// A backup downloaded from the browser: the same consistent copy as `listmgr backup`
// (copyDatabase: VACUUM INTO on a worker thread, so the event loop goes on serving), written to
// a temporary file that is unlinked as soon as it is open: the download reads it through the
// open file, and its space is returned when the download ends, finished or cut off.
import { open } from 'node:fs/promises';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { copyDatabase } from '../db/copy.ts';
import { conflict } from '../core/errors.ts';

export interface BackupDownload {
  /** The file's bytes, read as the client takes them. */
  body: ReadableStream<Uint8Array>;
  bytes: number;
}

/** One copy at a time: each takes as much temporary space as the database. */
let copying = false;

/**
 * Copies the database at `dbPath` into a temporary file and opens it for the download;
 * `onComplete` runs once the client has been given the whole file.
 */
export async function backupForDownload(dbPath: string, onComplete: (bytes: number) => void): Promise<BackupDownload> {
  if (copying) throw conflict('a backup is being made already; try again when it is done');
  copying = true;
  const dir = mkdtempSync(join(tmpdir(), 'listmgr-backup-'));
  try {
    const file = join(dir, 'listmgr.db');
    await copyDatabase(dbPath, file);
    const handle = await open(file, 'r');
    const bytes = statSync(file).size;
    rmSync(dir, { recursive: true, force: true });
    // The stream closes the file when it ends or is cancelled (the client went away).
    const stream = handle.createReadStream();
    stream.once('end', () => onComplete(bytes));
    const body = Readable.toWeb(stream) as ReadableStream<Uint8Array>;
    return { body, bytes };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    copying = false;
  }
}
