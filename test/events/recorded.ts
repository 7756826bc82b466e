// Reading the change log in the events tests: the rows of the `events` table after a mark,
// decoded, and a consumer whose wanted types a test sets.
import type { TestServer } from '../helpers/server.ts';

export interface RecordedEvent {
  id: number;
  uuid: string;
  type: string;
  occurred_at: string;
  actor: { type: string; id?: number; name?: string };
  data: any;
}

/** The id of the last event so far: what a test's action records comes after it. */
export function lastEventId(t: TestServer): number {
  return t.server.ctx.db.prepare('SELECT COALESCE(MAX(id), 0) FROM events').pluck().get() as number;
}

/** The events after `after`, oldest first; of the given types only, when any are given. */
export function eventsAfter(t: TestServer, after: number, ...types: string[]): RecordedEvent[] {
  const rows = t.server.ctx.db.prepare('SELECT * FROM events WHERE id > ? ORDER BY id').all(after) as (Omit<RecordedEvent, 'actor' | 'data'> & { actor: string; data: string })[];
  return rows.filter((r) => !types.length || types.includes(r.type)).map((r) => ({ ...r, actor: JSON.parse(r.actor), data: JSON.parse(r.data) }));
}

/** The actor of the test server's API user ("tester"). */
export function testerActor(t: TestServer): RecordedEvent['actor'] {
  const id = t.server.ctx.db.prepare("SELECT id FROM users WHERE username = 'tester'").pluck().get() as number;
  return { type: 'api', id, name: 'tester' };
}

/** A consumer of the server's change log that wants the types in the returned set (empty: none). */
export function addConsumer(t: TestServer): Set<string> {
  const wanted = new Set<string>();
  t.server.ctx.events.addConsumer(() => wanted);
  return wanted;
}
