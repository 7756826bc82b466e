// The admin's help (/admin/help): the index of the guides in docs/, each guide as a page of its
// own (/admin/help/<topic>), and the files the guides show or link to (/admin/help/images/…,
// /admin/help/examples/…). Any signed-in user may read them; they hold nothing but the docs.
import { raw } from 'hono/html';
import { adminPage, adminView, type AdminContext, type AdminDeps } from '../admin/page.tsx';
import { PageHead } from '../admin/components.tsx';
import { notFound } from '../core/errors.ts';
import { routesFor } from '../http/routes.ts';
import { readAppBytes } from '../paths.ts';
import { docFilePath, helpTopics, renderTopic } from './docs.ts';

const route = routesFor<AdminDeps>();
export const HELP_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/help', access: 'signed-in', handler: helpIndex, raw: 'text/html', summary: 'The guides: quickstart, import, templating, segments, the API, operations…' }),
  route({ method: 'GET', path: '/admin/help/:topic', access: 'signed-in', handler: helpPage, raw: 'text/html', summary: 'One guide from docs/' }),
  route({ method: 'GET', path: '/admin/help/:folder/:file', access: 'signed-in', handler: helpFile, raw: 'application/octet-stream', summary: 'An image or example file the guides show or link to' }),
];

function helpIndex(c: AdminContext, s: AdminDeps) {
  const { t } = adminView(c, s);
  return adminPage(c, s, {
    title: t('admin.help.title'),
    body: (
      <>
        <PageHead title={t('admin.help.title')} />
        <p class="muted">{t('admin.help.intro')}</p>
        <ul class="help-topics">
          {helpTopics().map((h) => (
            <li>
              <a href={`/admin/help/${h.topic}`}>{h.title}</a>
              {h.blurb ? <span class="muted small">{h.blurb}</span> : null}
            </li>
          ))}
        </ul>
      </>
    ),
  });
}

function helpPage(c: AdminContext, s: AdminDeps) {
  const { t } = adminView(c, s);
  const doc = renderTopic(c.req.param('topic') ?? '');
  if (!doc) throw notFound('There is no such guide.');
  return adminPage(c, s, {
    title: doc.title,
    body: (
      <>
        <a class="back" href="/admin/help">← {t('admin.help.title')}</a>
        <PageHead title={doc.title} />
        {/* Markup made by renderDoc, which escapes everything the Markdown holds. */}
        <article class="doc">{raw(doc.html)}</article>
      </>
    ),
  });
}

const FILE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  csv: 'text/csv; charset=utf-8',
};

function helpFile(c: AdminContext) {
  const path = docFilePath(c.req.param('folder') ?? '', c.req.param('file') ?? '');
  const type = path ? FILE_TYPES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()] : undefined;
  const body = path && type ? readAppBytes(path) : null;
  if (!body || !type) throw notFound('There is no such file in the guides.');
  return c.body(body, 200, { 'Content-Type': type, 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'private, max-age=3600' });
}
