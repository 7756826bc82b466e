// The temp folders uploads are received in (an import's file stays in its folder until the
// import ends). Their names carry a tag of the database they belong to, so that a server
// removes at start-up the folders a killed run of itself left behind (a killed import leaves
// its whole upload, up to the upload limit) and never those of another server sharing the
// temp folder.
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const KINDS = ['import', 'tx'] as const;
export type UploadKind = (typeof KINDS)[number];

const tagOf = (dbPath: string) => createHash('sha256').update(resolve(dbPath)).digest('hex').slice(0, 12);

/**
 * A new folder in the temp folder for one upload of `kind` to the server of `dbPath`; the
 * caller removes it. When it cannot be made (a full disk), `undo` runs before the error is thrown.
 */
export function uploadTempDir(dbPath: string, kind: UploadKind, undo?: () => void): string {
  try {
    return mkdtempSync(join(tmpdir(), `listmgr-${kind}-${tagOf(dbPath)}-`));
  } catch (e) {
    undo?.();
    throw e;
  }
}

/**
 * Removes the upload folders of the server of `dbPath` (call it before the server takes
 * uploads, holding the database's serve lock); answers the paths removed.
 */
export function removeLeftoverUploads(dbPath: string): string[] {
  const tag = tagOf(dbPath);
  const ours = KINDS.map((k) => `listmgr-${k}-${tag}-`);
  let names: string[];
  try {
    names = readdirSync(tmpdir());
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    if (!ours.some((prefix) => name.startsWith(prefix))) continue;
    const path = join(tmpdir(), name);
    try {
      rmSync(path, { recursive: true, force: true });
      removed.push(path);
    } catch {
      // left for the next start
    }
  }
  return removed;
}
