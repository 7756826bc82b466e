// Starting the server's worker threads (the import's threads, segment queries): the same
// source file under tsx (tests), its bundle beside dist/cli.js in a build (scripts/build.mjs),
// and in the release executable its bundle written to the cache folder (src/sea.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker, type ResourceLimits, type Transferable } from 'node:worker_threads';
import { inSea, nativeDir } from './sea.ts';

export interface WorkerScript {
  /** The caller's `import.meta.url`: a `.ts` file when running from source. */
  from: string;
  /** The thread's source file, relative to `from`. */
  source: string;
  /** Its bundle, relative to dist/cli.js (in the executable's cache folder: the same name ending in .cjs). */
  bundle: string;
}

export interface WorkerStart {
  workerData: unknown;
  transferList?: Transferable[];
  resourceLimits?: ResourceLimits;
}

/**
 * Starts a worker thread: from source through tsx's loader, which worker threads do not
 * inherit; in a build, from its bundle.
 */
export function startWorker(script: WorkerScript, start: WorkerStart): Worker {
  const { workerData, transferList = [], resourceLimits } = start;
  if (inSea) return new Worker(join(nativeDir(), script.bundle.replace(/\.js$/, '.cjs')), { workerData, transferList, resourceLimits });
  if (script.from.endsWith('.ts')) {
    const tsx = import.meta.resolve('tsx/esm/api');
    const source = new URL(script.source, script.from).href;
    return new Worker(`import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(source)}); })`, { eval: true, workerData, transferList, resourceLimits });
  }
  const url = new URL(script.bundle, script.from);
  if (!existsSync(fileURLToPath(url))) throw new Error(`the thread script ${script.bundle} is missing from the build`);
  return new Worker(url, { workerData, transferList, resourceLimits });
}
