// GET /api/changes: the change log as a feed, oldest first, for scripts that poll instead of
// receiving webhooks. A client keeps the `after` of each page and asks from it next time.
import type { Context } from 'hono';
import { ok } from '../http/envelope.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import type { EventStore } from './store.ts';
import { EVENT_TYPES, isEventType, type EventType } from './types.ts';

interface Deps {
  eventStore: EventStore;
}
type C = Context<AppEnv>;

const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

const route = routesFor<Deps>();
export const CHANGE_ROUTES = [
  route({ method: 'GET', path: '/changes', access: 'events:get', handler: getChanges, query: changesQuery, summary: 'listmgr: the change log\'s events after an event id, oldest first (`after` of the answer is where the next page starts); the payloads hold subscribers\' data' }),
];

/** Event types, comma-separated or repeated; an unknown one is a 400 naming it. */
function eventTypes() {
  return q.all().transform((values, ctx): EventType[] => {
    const types = values.flatMap((v) => v.split(',')).map((t) => t.trim()).filter((t) => t !== '');
    const unknown = types.find((t) => !isEventType(t));
    if (unknown === undefined) return types as EventType[];
    ctx.addIssue({ code: 'custom', message: `invalid "{key}": unknown event type "${unknown.slice(0, 100)}"` });
    return z.NEVER;
  }).meta({ type: 'array', items: { type: 'string', enum: Object.keys(EVENT_TYPES) } });
}

function changesQuery() {
  return z.object({
    after: q.int({ min: 0 }),
    types: eventTypes(),
    limit: q.int({ min: 1 }).refine((n) => n === undefined || n <= MAX_LIMIT, { message: `invalid "{key}": must be at most ${MAX_LIMIT}` })
      .meta({ type: 'integer', minimum: 1, maximum: MAX_LIMIT, default: DEFAULT_LIMIT }),
  }).meta({ id: 'ChangesQuery' });
}

function getChanges(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof changesQuery>>) {
  return ok(c, s.eventStore.changes(p.after ?? 0, p.types, p.limit ?? DEFAULT_LIMIT));
}
