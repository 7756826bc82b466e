// The public archive's listing and RSS feed. (A campaign's web view and archive entry are
// rendered by the template engine, and the error pages are the shell's Message.)
import { html } from 'hono/html';
import type { JSX } from 'hono/jsx/jsx-runtime';
import { renderHtml } from '../http/layout.tsx';

export interface ArchiveEntry {
  url: string;
  subject: string;
  /** The publication date, YYYY-MM-DD. */
  date: string;
}

/** A page of the archive, newest first, with links to the neighbouring pages. */
export function ArchiveList({ entries, newer, older, subscribe }: { entries: ArchiveEntry[]; newer: string | null; older: string | null; subscribe: string | null }): JSX.Element {
  return (
    <>
      <h1>Archive</h1>
      {subscribe ? <p><a href={subscribe}>Subscribe</a> to get the next issues by e-mail.</p> : null}
      {entries.length ? (
        <ul class="plain">{entries.map((e) => <li><a href={e.url}>{e.subject}</a>{' '}<span class="muted">{e.date}</span></li>)}</ul>
      ) : <p>Nothing here yet.</p>}
      {newer || older ? <p>{newer ? <a href={newer}>Newer</a> : null}{newer && older ? ' · ' : null}{older ? <a href={older}>Older</a> : null}</p> : null}
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
export function archiveFeed(channel: { title: string; link: string }, items: FeedItem[]): string {
  const entries = items.map((i) => html`<item><title>${i.title}</title><link>${i.link}</link><guid>${i.link}</guid><pubDate>${i.pubDate}</pubDate>${i.content === null ? '' : html`<description>${i.content}</description>`}</item>`);
  return renderHtml(html`<?xml version="1.0" encoding="UTF-8"?>
<rss version="2.0"><channel><title>${channel.title}</title><link>${channel.link}</link><description>Archive</description>${entries}</channel></rss>`);
}
