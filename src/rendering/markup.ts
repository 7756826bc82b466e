// Markup to a string: the pages (http/layout.tsx, the admin shell) and the bodies the code writes
// itself (a new opt-in campaign's) are hono/jsx or hono/html, escaped by construction.
import type { JSX } from 'hono/jsx/jsx-runtime';

/** Markup (JSX or hono/html's `html`) as a string; everything here renders synchronously. */
export function renderHtml(node: JSX.Element): string {
  const out: unknown = node instanceof Promise ? node : node.toString();
  if (typeof out !== 'string') throw new Error('markup rendered asynchronously');
  return out;
}
