// The import's parser thread: reads the upload and posts validated row batches to the writer
// thread (write-worker.ts) over a channel. At most `maxInFlight` batches wait unacknowledged,
// so memory stays bounded however fast the parser is.
import { workerData } from 'node:worker_threads';
import { parseSource } from './parse.ts';
import { lowerThreadPriority, type ParserJob, type ParserMessage } from './threads.ts';

lowerThreadPriority();
const job = workerData as ParserJob;
const port = job.writer;
const post = (m: ParserMessage) => port.postMessage(m);

let inFlight = 0;
let wake: (() => void) | null = null;
port.on('message', () => {
  inFlight--;
  wake?.();
  wake = null;
});

parseSource(job.source, job.opts, {
  total: (n) => post({ type: 'total', n }),
  log: (line, skipped) => post(skipped ? { type: 'log', line, skipped } : { type: 'log', line }),
  async batch(batch) {
    post({ type: 'batch', batch });
    inFlight++;
    while (inFlight >= job.maxInFlight) await new Promise<void>((r) => (wake = r));
  },
}).then(
  () => post({ type: 'done' }),
  (e: Error) => post({ type: 'failed', message: e.message }),
);
