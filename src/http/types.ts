import type { AuthUser } from './permissions.ts';

/** Hono environment of every route: the authenticated user and the request id. */
export type AppEnv = {
  Variables: {
    user: AuthUser;
    requestId: string;
  };
};
