import type { AuthUser } from '../core/authz.ts';

/**
 * Hono environment of every route: the authenticated user, the session cookie's value when a
 * session authenticated it, and the request id.
 */
export type AppEnv = {
  Variables: {
    user: AuthUser;
    session: string;
    requestId: string;
  };
};
