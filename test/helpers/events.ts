// The change log as tests read it: the `events` table directly, each row with its actor and
// payload parsed, and an in-process consumer whose wanted types a test sets (bulk changes write
// their per-subscriber events only while one wants them).
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
