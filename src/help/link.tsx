// The "?" beside a part of an admin page that a guide explains: a link to that guide's help
// page, named by the guide's own title (for screen readers and the tooltip).
import type { JSX } from 'hono/jsx/jsx-runtime';
import type { Translate } from '../admin/i18n.ts';
import { renderTopic } from './docs.ts';

export function HelpLink({ topic, anchor, t }: { topic: string; anchor?: string; t: Translate }): JSX.Element {
  const name = t('admin.help.link', { topic: renderTopic(topic)?.title ?? topic });
  return <a class="help-link" href={`/admin/help/${topic}${anchor ? `#${anchor}` : ''}`} title={name} aria-label={name}>?</a>;
}
