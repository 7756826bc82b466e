// What tests of the change log share.
import { until } from '../campaigns/fixtures.ts';
import type { TestServer } from './server.ts';

/**
 * Waits until the webhook dispatcher has read every event recorded so far. It advances its
 * cursor in the database as it reads, a change a refusal's "nothing changed" check would
 * otherwise meet when it runs right after a test records events.
 */
export function logRead(t: TestServer): Promise<unknown> {
  const read = t.server.ctx.db.prepare(`SELECT (SELECT last_event_id FROM event_cursors WHERE consumer = 'webhooks') >= (SELECT coalesce(max(id), 0) FROM events)`).pluck();
  return until('the webhook dispatcher to read the change log', () => read.get() === 1);
}
