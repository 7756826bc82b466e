// The shell of every server-rendered page (public subscription pages, archive, login): light,
// accessible, dark-mode aware, no scripts or external assets but those the settings ask for
// (custom JS, a captcha widget).
import type { Context } from 'hono';
import type { SettingsService } from '../settings/service.ts';

const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function escapeHtml(s: unknown): string {
  return String(s ?? '').replace(/[&<>"']/g, (ch) => ESC[ch]);
}

export interface PageOptions {
  title: string;
  /** Inner HTML of <main>; callers escape what they interpolate. */
  body: string;
  siteName?: string;
  logoUrl?: string;
  faviconUrl?: string;
  lang?: string;
  /** Extra CSS (the appearance.public.custom_css setting). */
  customCss?: string;
  /** Script URLs the page loads (deferred): the public custom JS, a captcha widget. */
  scripts?: string[];
  /** Whether search engines may index the page (the subscription form, the archive); others say noindex. */
  indexable?: boolean;
}

/** The look of the public pages, from the appearance settings. */
export function publicLook(settings: SettingsService): Pick<PageOptions, 'siteName' | 'logoUrl' | 'faviconUrl' | 'customCss' | 'scripts'> {
  return {
    siteName: settings.str('app.site_name'),
    logoUrl: settings.str('app.logo_url') || undefined,
    faviconUrl: settings.str('app.favicon_url') || undefined,
    customCss: settings.str('appearance.public.custom_css') || undefined,
    scripts: settings.str('appearance.public.custom_js') ? ['/public/custom.js'] : [],
  };
}

const STYLE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1d2330;--muted:#5b6474;--accent:#2456d3;--border:#d9dde5;--danger:#b3261e}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--card:#1d2129;--fg:#e7eaf0;--muted:#a3abb9;--accent:#7ea2ff;--border:#353b47;--danger:#ff8a80}}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.wrap{max-width:36rem;margin:0 auto;padding:2rem 1rem}header{margin-bottom:1.25rem}header img{max-height:3rem}
header .site{font-weight:600;font-size:1.1rem;color:var(--fg);text-decoration:none}
main{background:var(--card);border:1px solid var(--border);border-radius:.75rem;padding:1.5rem 1.5rem 1.75rem}
h1{font-size:1.4rem;line-height:1.3;margin:0 0 .75rem}p{margin:.5rem 0 1rem}a{color:var(--accent)}
label{display:block;font-weight:600;margin:.9rem 0 .3rem}
input[type=text],input[type=email],input[type=password]{width:100%;padding:.6rem .7rem;border:1px solid var(--border);border-radius:.45rem;background:var(--bg);color:var(--fg);font:inherit}
.check{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.5rem 0}.check input{margin-top:.35rem}
button,.button{display:inline-block;margin-top:1.1rem;padding:.6rem 1.2rem;border:0;border-radius:.45rem;background:var(--accent);color:#fff;font:inherit;font-weight:600;cursor:pointer;text-decoration:none}
button.secondary{background:transparent;color:var(--accent);border:1px solid var(--border)}button.danger{background:var(--danger)}
.muted{color:var(--muted);font-size:.9rem}.error{color:var(--danger);font-weight:600}
ul.plain{list-style:none;padding:0}footer{margin-top:1.5rem;text-align:center}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}`;

export function renderPage(o: PageOptions): string {
  const site = escapeHtml(o.siteName ?? '');
  const brand = o.logoUrl ? `<img src="${escapeHtml(o.logoUrl)}" alt="${site}">` : site;
  return `<!doctype html>
<html lang="${escapeHtml(o.lang ?? 'en')}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
${o.indexable ? '' : '<meta name="robots" content="noindex">\n'}<title>${escapeHtml(o.title)}${site ? ` · ${site}` : ''}</title>
${o.faviconUrl ? `<link rel="icon" href="${escapeHtml(o.faviconUrl)}">` : ''}
<style>${STYLE}${o.customCss ?? ''}</style>
${(o.scripts ?? []).map((src) => `<script src="${escapeHtml(src)}" defer></script>`).join('\n')}
</head>
<body>
<div class="wrap">
<header>${brand ? `<span class="site">${brand}</span>` : ''}</header>
<main>
${o.body}
</main>
</div>
</body>
</html>`;
}

/**
 * Answers a rendered page; pages may not be framed, and their URLs (which hold subscriber
 * UUIDs) never leave in a Referer to another site. Same-origin requests keep theirs, so the
 * browser's forms send a real Origin for the CSRF check (auth.ts).
 */
export function sendPage(c: Context, o: PageOptions, status: 200 | 400 | 403 | 404 | 429 | 500 = 200): Response {
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
  if (!o.indexable) c.header('X-Robots-Tag', 'noindex');
  return c.html(renderPage(o), status);
}
