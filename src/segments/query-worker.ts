// A segment query thread (runner.ts): its own read-only connection with the segment functions,
// one query at a time. Ids go back as a transferred Float64Array (a million of them cost no copy).
// It keeps the normal priority, unlike the import's threads: a caller waits for its answer (at
// a lower one, a segment over 1M subscribers took 1.6 times as long on a busy machine).
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from '../db/connection.ts';
import { registerSegmentFunctions } from './functions.ts';
import type { SegmentQuery, SegmentReply, SegmentThreadData } from './runner.ts';

const port = parentPort!;
const post = (reply: SegmentReply, transfer: ArrayBuffer[] = []) => port.postMessage(reply, transfer);
const failed = (e: unknown): SegmentReply => ({ type: 'failed', message: (e as Error).message, code: (e as { code?: unknown }).code === undefined ? 'ERROR' : String((e as { code: unknown }).code) });

try {
  const db = openDatabase((workerData as SegmentThreadData).dbPath, { readonly: true });
  registerSegmentFunctions(db);
  port.on('message', (q: SegmentQuery) => {
    try {
      const statement = db.prepare(q.sql);
      if (q.kind === 'ids') {
        const ids = Float64Array.from(statement.pluck().all(...q.params) as number[]);
        post({ type: 'ids', ids }, [ids.buffer]);
      } else {
        post({ type: 'rows', rows: statement.all(...q.params) });
      }
    } catch (e) {
      post(failed(e));
    }
  });
  post({ type: 'ready' });
} catch (e) {
  post(failed(e));
}
