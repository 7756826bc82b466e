// User-written HTML: template and campaign previews, the campaign web view and archive pages.
// They are served from the admin's own origin, so a script inside one would run with the
// admin's session (listmonk's stored XSS, CVE-2026-21483): all of it is sandboxed (unique
// origin, no scripts, no forms).
import type { Context } from 'hono';

export function sendPreview(c: Context, body: string, kind: 'html' | 'plain' = 'html'): Response {
  c.header('Content-Security-Policy', 'sandbox');
  c.header('X-Content-Type-Options', 'nosniff');
  return kind === 'plain' ? c.text(body) : c.html(body);
}
