// The public archive's listing and RSS feed. (A campaign's web view and archive entry are
// rendered by the template engine, and the error pages are the shell's Message.)
import { html } from 'hono/html';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { renderHtml } from '../rendering/markup.ts';

export interface ArchiveEntry {
  url: string;
  subject: string;
  /** The publication date, YYYY-MM-DD. */
  date: string;
}

/** A page of the archive, newest first: a search box, the issues with their dates, paging, the feed and a subscribe box. */
export function ArchiveList(p: { entries: ArchiveEntry[]; search: string; total: number; newer: string | null; older: string | null; subscribe: string | null }): JSX.Element {
  return (
    <>
      <h1>Archive</h1>
      <form class="search" method="get" action="/archive" role="search">
        <label class="visually-hidden" for="archive-q">Search the archive</label>
        <input type="text" id="archive-q" name="q" value={p.search} placeholder="Search the archive" />
        <button type="submit">Search</button>
      </form>
      {p.search ? <p class="muted" role="status">{p.total === 1 ? '1 issue' : `${p.total} issues`} with “{p.search}”. <a href="/archive">All issues</a></p> : null}
      {p.entries.length ? (
        <ul class="issues">{p.entries.map((e) => <li><a href={e.url}>{e.subject}</a><time class="muted" datetime={e.date}>{e.date}</time></li>)}</ul>
      ) : <p>{p.search ? 'No issue matches.' : 'Nothing here yet.'}</p>}
      {p.newer || p.older ? (
        <nav class="pager" aria-label="Pages">{p.newer ? <a href={p.newer}>← Newer</a> : <span></span>}{p.older ? <a href={p.older}>Older →</a> : null}</nav>
      ) : null}
      {p.subscribe ? (
        <section class="box" aria-label="Subscribe">
          <p>Get the next issues by e-mail.</p>
          <a class="button" href={p.subscribe}>Subscribe</a>
        </section>
      ) : null}
      <footer><a href="/archive.xml">RSS feed</a></footer>
    </>
  );
}

export interface FeedItem {
  title: string;
  link: string;
  pubDate: string;
  /** The rendered campaign, when the feed carries content. */
  content: string | null;
}

/** The RSS 2.0 feed of the archive (hono/html escapes every value, as XML needs too). */
export function archiveFeed(channel: { title: string; link: string; self: string }, items: FeedItem[]): string {
  const entries = items.map((i) => html`<item><title>${i.title}</title><link>${i.link}</link><guid isPermaLink="true">${i.link}</guid><pubDate>${i.pubDate}</pubDate>${i.content === null ? '' : html`<description>${i.content}</description>`}</item>`);
  return renderHtml(html`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0" xmlns:atom="http://www.w3.org/2005/Atom"><channel><title>${channel.title}</title><link>${channel.link}</link><description>The archive of ${channel.title}</description><atom:link href="${channel.self}" rel="self" type="application/rss+xml"/>${entries}</channel></rss>`);
}
