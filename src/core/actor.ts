// Who is making the change being recorded. The HTTP edge runs each authenticated request in
// the scope of its user (and the public pages in the public's), so the stores that write the
// change log need no actor argument; work outside any request (the sending engine, schedules)
// is the system's.
import { AsyncLocalStorage } from 'node:async_hooks';

export type EventActor =
  | { type: 'user' | 'api'; id: number; name: string }
  | { type: 'public' }
  | { type: 'system' };

const actorScope = new AsyncLocalStorage<EventActor>();

/** Runs `fn` (and everything it awaits) as done by `actor`. */
export function actingAs<T>(actor: EventActor, fn: () => T): T {
  return actorScope.run(actor, fn);
}

/** The actor of the work under way: the request's, or the system's outside any request. */
export function currentActor(): EventActor {
  return actorScope.getStore() ?? { type: 'system' };
}
