// Calls to the JSON API with the browser's session cookie. The API answers listmonk's envelope
// ({"data": …}) or an error {"message": …}, whose text is what the page shows.

export class ApiError extends Error {
  constructor(message: string, readonly status: number) {
    super(message);
  }
}

export async function api<T = unknown>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown): Promise<T> {
  const init: RequestInit = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
  if (body instanceof FormData) init.body = body;
  else if (body !== undefined) {
    init.body = JSON.stringify(body);
    init.headers = { ...init.headers, 'Content-Type': 'application/json' };
  }
  let res: Response;
  try {
    res = await fetch(path, init);
  } catch {
    throw new ApiError('The server could not be reached. Check your connection and try again.', 0);
  }
  const text = await res.text();
  let json: { data?: T; message?: string } | null = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  if (!res.ok) throw new ApiError(json?.message ?? `${res.status} ${res.statusText}`, res.status);
  return (json?.data ?? json) as T;
}

/** Shows a message in the shell's notices (success by default). */
export function notify(text: string, kind: 'success' | 'error' = 'success'): void {
  window.dispatchEvent(new CustomEvent('admin:notify', { detail: { text, kind } }));
}

/** Keeps a message to show on the next page (after a redirect or reload). */
export function flashNext(text: string): void {
  try {
    sessionStorage.setItem('admin:flash', text);
  } catch {
    /* storage disabled: the message is lost, the action is not */
  }
}

export function takeFlash(): string | null {
  try {
    const text = sessionStorage.getItem('admin:flash');
    sessionStorage.removeItem('admin:flash');
    return text;
  } catch {
    return null;
  }
}

/** Goes to `url` (or reloads) and shows `message` there. */
export function navigate(url: string | null, message?: string): void {
  if (message) flashNext(message);
  if (url) window.location.assign(url);
  else window.location.reload();
}

/** Reads the JSON a page put in <script type="application/json" id="…">. */
export function pageData<T>(id: string): T {
  const el = document.getElementById(id);
  if (!el?.textContent) throw new Error(`page data #${id} is missing`);
  return JSON.parse(el.textContent) as T;
}

/** Shows a refused or failed call's message as an error notice. */
export function notifyError(err: unknown): void {
  notify(err instanceof Error ? err.message : String(err), 'error');
}

/** Runs a write, then reloads the page with `done` as its message; a refusal becomes a notice. */
export async function writeThenReload(call: () => Promise<unknown>, done: string): Promise<void> {
  try {
    await call();
    navigate(null, done);
  } catch (err) {
    notifyError(err);
  }
}
