// Full disks for the fault tests: a temp folder and a data folder (database and uploads) that
// a test fills up and frees again while a server (test/helpers/child-server.ts) uses them.
//
// Two ways, the first that this machine allows:
// - 'tmpfs' (as root, where mounting is allowed): each folder is a small tmpfs of its own;
//   filling writes a file until the file system answers ENOSPC, freeing removes it. Exactly a
//   full disk, folder by folder.
// - 'rlimit' (anywhere on Linux with util-linux's prlimit): the folders are plain; filling sets
//   the server process's file-size limit (RLIMIT_FSIZE) to 0, so that every write of a file by
//   it fails (EFBIG, SQLite's SQLITE_FULL or an I/O error), and freeing lifts it. Both folders
//   fill at once.
// LISTMGR_TEST_DISK=tmpfs|rlimit forces one.
import { execFileSync, spawnSync } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type Folder = 'temp' | 'data';

export interface Disks {
  kind: 'tmpfs' | 'rlimit';
  temp: string;
  data: string;
  /** Makes writes fail: in `folder` ('tmpfs'), or every file write of the process `pid` ('rlimit'). */
  fill(folder: Folder, pid: number): void;
  free(folder: Folder, pid: number): void;
  close(): void;
}

const mount = (dir: string, bytes: number) => spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${bytes},mode=0755`, 'tmpfs', dir], { stdio: 'ignore' }).status === 0;

function canMount(root: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false;
  const probe = join(root, 'probe');
  mkdirSync(probe);
  const ok = mount(probe, 1024 * 1024);
  if (ok) spawnSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
}

/** Writes into `dir` until its file system is full. */
function fillUp(file: string): void {
  const fd = openSync(file, 'w');
  try {
    for (const size of [1024 * 1024, 4096, 512]) {
      const chunk = Buffer.alloc(size, 1);
      for (;;) {
        try {
          writeSync(fd, chunk);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'ENOSPC') throw e;
          break;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
}

/** Makes the two folders; `bytes` is the size of each tmpfs. */
export function makeDisks(bytes = 32 * 1024 * 1024): Disks {
  const root = mkdtempSync(join(tmpdir(), 'listmgr-disks-'));
  const temp = join(root, 'temp');
  const data = join(root, 'data');
  mkdirSync(temp);
  mkdirSync(data);
  const forced = process.env.LISTMGR_TEST_DISK;
  const useTmpfs = forced ? forced === 'tmpfs' : canMount(root);
  if (useTmpfs) {
    if (!mount(temp, bytes) || !mount(data, bytes)) {
      spawnSync('umount', [temp]);
      rmSync(root, { recursive: true, force: true });
      throw new Error('cannot mount a tmpfs');
    }
    const filler = (f: Folder) => join(f === 'temp' ? temp : data, 'filler');
    return {
      kind: 'tmpfs',
      temp,
      data,
      fill: (f) => fillUp(filler(f)),
      free: (f) => rmSync(filler(f), { force: true }),
      close() {
        for (const dir of [temp, data]) spawnSync('umount', ['-l', dir]);
        rmSync(root, { recursive: true, force: true });
      },
    };
  }
  const limit = (pid: number, value: string) => execFileSync('prlimit', ['--pid', String(pid), `--fsize=${value}`]);
  return {
    kind: 'rlimit',
    temp,
    data,
    fill: (_f, pid) => limit(pid, '0:unlimited'),
    free: (_f, pid) => limit(pid, 'unlimited:unlimited'),
    close: () => rmSync(root, { recursive: true, force: true }),
  };
}
