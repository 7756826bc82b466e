// The request being served, for code that has no Hono context at hand: the process-level
// handler of unhandled rejections (process-guard.ts) names the request a stray rejection came
// from. Node runs that handler in the async context of the rejected promise.
import { AsyncLocalStorage } from 'node:async_hooks';

export interface RequestScope {
  id: string;
  method: string;
  path: string;
}

export const requestScope = new AsyncLocalStorage<RequestScope>();
