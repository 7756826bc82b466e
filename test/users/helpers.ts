// Shared by the users tests: signing in through the login form, cookie requests, and a record
// of every response body so the tests can prove no secret ever leaves the server.
import type { ApiResponse, RequestOptions, TestServer } from '../helpers/server.ts';

export interface Recorder {
  /** Every response text seen through `request` / `signIn` / `withCookie`. */
  bodies: string[];
  request<T = any>(method: string, path: string, body?: unknown, opts?: RequestOptions): Promise<ApiResponse<T>>;
}

export function recorder(t: TestServer): Recorder {
  const bodies: string[] = [];
  return {
    bodies,
    async request(method, path, body, opts) {
      const res = await t.request(method, path, body, opts);
      bodies.push(res.text, JSON.stringify([...res.headers.entries()].filter(([k]) => k !== 'set-cookie')));
      return res;
    },
  };
}

export interface SignIn {
  status: number;
  location: string | null;
  /** The session cookie value, when one was set. */
  session: string | null;
  text: string;
}

export function form(fields: Record<string, string>): URLSearchParams {
  return new URLSearchParams(fields);
}

/** Posts the login form (as a browser would, from the same origin). */
export async function signIn(r: Recorder, t: TestServer, username: string, password: string, extra: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<SignIn> {
  const res = await r.request('POST', '/admin/login', undefined, { raw: form({ username, password, ...extra }), auth: null, headers: { origin: t.url, ...headers } });
  return { status: res.status, location: res.headers.get('location'), session: sessionCookie(res), text: res.text };
}

/** The session cookie's value: `session`, or `__Host-session` from a site whose root URL is https. */
export function sessionCookie(res: ApiResponse): string | null {
  const m = /(?:^|,\s*)(?:__Host-)?session=([^;]*)/.exec(res.headers.get('set-cookie') ?? '');
  return m && m[1] ? m[1] : null;
}

/** A request authenticated by the session cookie; `origin` null sends no Origin header. */
export function withCookie(r: Recorder, t: TestServer, session: string, method: string, path: string, body?: unknown, origin: string | null = t.url, raw?: URLSearchParams) {
  const headers: Record<string, string> = { cookie: `session=${session}` };
  if (origin !== null) headers.origin = origin;
  return r.request(method, path, body, { auth: null, headers, raw });
}

/** Fails when any secret occurs in any recorded body or log line. */
export function assertNoSecrets(texts: string[], secrets: string[]): void {
  for (const s of secrets.filter((x) => x && x.length >= 8)) {
    const hit = texts.find((tx) => tx.includes(s));
    if (hit !== undefined) throw new Error(`a secret (${s.slice(0, 6)}…) appeared in: ${hit.slice(0, 200)}`);
  }
}
