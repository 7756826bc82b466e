// The shell of every server-rendered page (public subscription pages, archive, login): light,
// accessible, dark-mode aware, no scripts or external assets but those the settings ask for
// (custom JS, a captcha widget). Pages are hono/jsx components, so every value they show is
// escaped by construction; `raw()` is only for markup and CSS we wrote (and the custom CSS below).
import type { Context } from 'hono';
import { html, raw } from 'hono/html';
import type { Child } from 'hono/jsx';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { renderHtml } from '../rendering/markup.ts';

/** The look of a page, from the appearance settings (the public pages' is `publicLook`). */
export interface PageLook {
  siteName?: string;
  logoUrl?: string;
  faviconUrl?: string;
  /** Extra CSS (the appearance.*.custom_css setting). */
  customCss?: string;
  /** Script URLs the page loads (deferred): the public custom JS, a captcha widget. */
  scripts?: string[];
}

export interface PageOptions extends PageLook {
  title: string;
  /** The content of <main>. */
  body: Child;
  lang?: string;
  /** Whether search engines may index the page (the subscription form, the archive); others say noindex. */
  indexable?: boolean;
  /** An RSS feed of the page (the archive's), announced in the head. */
  feedUrl?: string;
  /** The nonce of the page's <style>, for a Content-Security-Policy that names it (the sign-in pages'). */
  styleNonce?: string;
}

/**
 * The colours of every page, public and admin: a light palette and a dark one (the media query).
 * Every text/background pair meets WCAG AA (4.5:1; 3:1 for field borders):
 * test/public/contrast.test.ts reads the palettes from PAGE_STYLE and checks them.
 * --on-accent / --on-danger are the text on an accent / danger button.
 */
export const PAGE_PALETTE = `
:root{color-scheme:light dark;--bg:#f6f7f9;--card:#fff;--fg:#1d2330;--muted:#535c6b;--accent:#2456d3;--on-accent:#fff;--border:#d9dde5;--field-border:#7d8595;--danger:#b3261e;--on-danger:#fff}
@media (prefers-color-scheme:dark){:root{--bg:#14171c;--card:#1d2129;--fg:#e7eaf0;--muted:#a3abb9;--accent:#7ea2ff;--on-accent:#0e1320;--border:#353b47;--field-border:#6f7889;--danger:#ff8a80;--on-danger:#0e1320}}`;

/** The public pages' stylesheet (the admin's builds on the same palette: admin/style.ts). */
export const PAGE_STYLE = `${PAGE_PALETTE}
*{box-sizing:border-box}body{margin:0;background:var(--bg);color:var(--fg);font:16px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
.wrap{max-width:36rem;margin:0 auto;padding:2rem 1rem}header{margin-bottom:1.25rem}header img{max-height:3rem}
header .site{font-weight:600;font-size:1.1rem;color:var(--fg);text-decoration:none}
main{background:var(--card);border:1px solid var(--border);border-radius:.75rem;padding:1.5rem 1.5rem 1.75rem}
h1{font-size:1.4rem;line-height:1.3;margin:0 0 .75rem}h2{font-size:1.1rem;line-height:1.3;margin:1.75rem 0 .5rem}p{margin:.5rem 0 1rem}a{color:var(--accent)}
label{display:block;font-weight:600;margin:.9rem 0 .3rem}
input[type=text],input[type=email],input[type=password]{width:100%;padding:.6rem .7rem;border:1px solid var(--field-border);border-radius:.45rem;background:var(--bg);color:var(--fg);font:inherit}
.check{display:flex;gap:.6rem;align-items:flex-start;font-weight:400;margin:.5rem 0}.check input{margin-top:.35rem}
button,.button{display:inline-block;margin-top:1.1rem;padding:.6rem 1.2rem;border:0;border-radius:.45rem;background:var(--accent);color:var(--on-accent);font:inherit;font-weight:600;cursor:pointer;text-decoration:none}
button.secondary{background:transparent;color:var(--accent);border:1px solid var(--field-border)}button.danger{background:var(--danger);color:var(--on-danger)}
.muted{color:var(--muted);font-size:.9rem}.error{color:var(--danger);font-weight:600;background:var(--bg);border-left:4px solid var(--danger);padding:.6rem .8rem;border-radius:.3rem}
ul.plain{list-style:none;padding:0}ul.plain li{margin:.4rem 0}footer{margin-top:1.5rem;text-align:center}
.next{display:flex;flex-wrap:wrap;gap:.5rem 1.25rem;margin:1.25rem 0 0;padding:0;list-style:none}
form.search{display:flex;gap:.5rem;align-items:stretch;margin:0 0 1rem}form.search input{flex:1;min-width:0}form.search button{margin-top:0}
ul.issues{list-style:none;padding:0;margin:0}ul.issues li{display:flex;flex-wrap:wrap;justify-content:space-between;gap:.1rem 1rem;padding:.55rem 0;border-bottom:1px solid var(--border)}
.pager{display:flex;justify-content:space-between;gap:1rem;margin:1rem 0 0}.box{margin:1.5rem 0 0;padding:1rem 1.1rem;border:1px solid var(--border);border-radius:.6rem;background:var(--bg)}.box p{margin:0}.box .button{margin-top:.75rem}
.visually-hidden{position:absolute;width:1px;height:1px;padding:0;margin:-1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap;border:0}
:focus-visible{outline:3px solid var(--accent);outline-offset:2px}`;

/**
 * CSS as the text of a <style> element: `</` becomes `<\/`, so no stored value can close the
 * element (`</style>`) and start markup. In CSS `\/` is `/` (in strings and identifiers), so
 * the rule means what it did; only a `</` inside a comment keeps the backslash, harmlessly.
 */
function styleText(css: string): string {
  return css.replace(/<\//g, '<\\/');
}

/** The whole document: head (title, look, scripts) and the page's content in <main>. */
function Layout(o: PageOptions): JSX.Element {
  const site = o.siteName ?? '';
  // A page titled with the site's name (the landing page) says it once, in its heading.
  const own = site !== '' && o.title === site;
  return (
    <html lang={o.lang ?? 'en'}>
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        {o.indexable ? null : <meta name="robots" content="noindex" />}
        <title>{o.title}{site && !own ? ` · ${site}` : ''}</title>
        {o.faviconUrl ? <link rel="icon" href={o.faviconUrl} /> : null}
        {o.feedUrl ? <link rel="alternate" type="application/rss+xml" title={site || o.title} href={o.feedUrl} /> : null}
        {/* Raw: our own CSS, then the custom CSS the appearance settings hold, as the admin wrote it
            (escaping would break quotes and `>` selectors), kept inside <style> by styleText. */}
        <style nonce={o.styleNonce}>{raw(styleText(PAGE_STYLE + (o.customCss ?? '')))}</style>
        {/* hono/html rather than JSX, which would write `defer=""`: the pages have always said `defer`. */}
        {(o.scripts ?? []).map((src) => html`<script src="${src}" defer></script>`)}
      </head>
      <body>
        <div class="wrap">
          <header>{o.logoUrl ? <span class="site"><img src={o.logoUrl} alt={own ? '' : site} /></span> : site && !own ? <span class="site">{site}</span> : null}</header>
          <main>{o.body}</main>
        </div>
      </body>
    </html>
  );
}

/** A heading and one line of text: the message and error pages. */
export function Message({ title, text }: { title: string; text: string }): JSX.Element {
  return (
    <>
      <h1>{title}</h1>
      <p>{text}</p>
    </>
  );
}

function renderPage(o: PageOptions): string {
  return `<!doctype html>\n${renderHtml(<Layout {...o} />)}`;
}

/**
 * Answers a rendered page; pages may not be framed, and their URLs (which hold subscriber
 * UUIDs) never leave in a Referer to another site. Same-origin requests keep theirs, so the
 * browser's forms send a real Origin for the CSRF check (auth.ts).
 */
export function sendPage(c: Context, o: PageOptions, status: 200 | 400 | 403 | 404 | 413 | 429 | 500 = 200): Response {
  c.header('X-Frame-Options', 'DENY');
  c.header('Referrer-Policy', 'same-origin');
  if (!o.indexable) c.header('X-Robots-Tag', 'noindex');
  return c.html(renderPage(o), status);
}

/** The answer to an unknown page: plain, without the site's look (no settings are read). */
export function notFoundPage(): string {
  return `<!doctype html>${renderHtml(
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>Not found</title>
      </head>
      <body style="font-family:system-ui,sans-serif;max-width:32rem;margin:4rem auto;padding:0 1rem">
        <h1>Page not found</h1>
        <p>The page you are looking for does not exist.</p>
      </body>
    </html>,
  )}`;
}
