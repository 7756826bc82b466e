// The landing page at `/`: the site's name, sign-in, and the public features that are on.
import type { JSX } from 'hono/jsx/jsx-runtime';

export function Landing({ site, subscribe, archive }: { site: string; subscribe: boolean; archive: boolean }): JSX.Element {
  return (
    <>
      <h1>{site}</h1>
      <ul class="plain">
        <li><a href="/admin">Sign in</a></li>
        {subscribe ? <li><a href="/subscription/form">Subscribe</a></li> : null}
        {archive ? <li><a href="/archive">Archive</a></li> : null}
      </ul>
    </>
  );
}
