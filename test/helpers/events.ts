// The change log as tests read it: the `events` table directly, each row with its actor and
// payload parsed, and an in-process consumer whose wanted types a test sets (bulk changes write
// their per-subscriber events only while one wants them).
import { until } from '../campaigns/fixtures.ts';
import type { TestServer } from './server.ts';

export interface LoggedEvent {
  id: number;
  type: string;
  actor: { type: string; id?: number; name?: string };
  data: Record<string, any>;
}

/** The events written after event `after`, oldest first. */
export function eventsAfter(t: TestServer, after: number): LoggedEvent[] {
  const rows = t.server.ctx.db.prepare('SELECT id, type, actor, data FROM events WHERE id > ? ORDER BY id').all(after) as { id: number; type: string; actor: string; data: string }[];
  return rows.map((r) => ({ id: r.id, type: r.type, actor: JSON.parse(r.actor), data: JSON.parse(r.data) }));
}

/** The id of the newest event (0: none yet). */
export function lastEventId(t: TestServer): number {
  return t.server.ctx.db.prepare('SELECT COALESCE(MAX(id), 0) FROM events').pluck().get() as number;
}

/** Runs `fn` and returns the events it wrote. */
export async function eventsOf(t: TestServer, fn: () => Promise<unknown>): Promise<LoggedEvent[]> {
  const mark = lastEventId(t);
  await fn();
  return eventsAfter(t, mark);
}

/** Registers one consumer on the server; `wants` sets the types it wants (none at first). */
export function testConsumer(t: TestServer): { wants(types: string[]): void } {
  let wanted = new Set<string>();
  t.server.ctx.events.addConsumer(() => wanted);
  return { wants: (types) => { wanted = new Set(types); } };
}

/**
 * Waits until the webhook dispatcher has read every event recorded so far. It advances its
 * cursor in the database as it reads, a change a refusal's "nothing changed" check would
 * otherwise meet when it runs right after a test records events.
 */
export function logRead(t: TestServer): Promise<unknown> {
  const read = t.server.ctx.db.prepare(`SELECT (SELECT last_event_id FROM event_cursors WHERE consumer = 'webhooks') >= (SELECT coalesce(max(id), 0) FROM events)`).pluck();
  return until('the webhook dispatcher to read the change log', () => read.get() === 1);
}
