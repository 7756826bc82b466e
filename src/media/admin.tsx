// The admin's media page (/admin/campaigns/media): the uploaded files as a grid of thumbnails
// (a placeholder with the extension for other files), search by name, upload of several files
// at once with per-file progress, and delete. Reads go through the media service with the
// signed-in user; uploads and deletes are /api calls from the page's script (admin.client.ts),
// offered only to a user who may call them.
import type { JSX } from 'hono/jsx/jsx-runtime';
import { adminPage, adminView, type AdminContext, type AdminDeps, type AdminView } from '../admin/page.tsx';
import { bind, data } from '../admin/bind.ts';
import { formatBytes } from '../admin/client/bytes.ts';
import { PageHead, Time } from '../admin/components.tsx';
import { accessOf, routesFor, type Input } from '../http/routes.ts';
import { q, z } from '../http/schema.ts';
import type { MediaButton, mediaPage as mediaScript } from './admin.client.ts';
import { extensionOf } from './files.ts';
import type { Media, MediaService } from './service.ts';
import { MEDIA_ROUTES } from './routes.ts';

/** What the media page uses. */
interface Deps extends AdminDeps {
  media: MediaService;
}

const route = routesFor<Deps>();

export const MEDIA_ADMIN_PAGES = [
  route({ method: 'GET', path: '/admin/campaigns/media', access: accessOf(MEDIA_ROUTES, 'GET', '/media'), handler: mediaPage, query: mediaPageQuery, raw: 'text/html', summary: 'The uploaded files' }),
];

function mediaPageQuery() {
  return z.object({ query: q.first({ type: 'string' }, (v) => v?.trim() ?? '') });
}

/** The path of a file's URL: the page loads it from the origin it is on, whatever the root URL says. */
function localPath(url: string): string {
  return new URL(url).pathname;
}

const ui = bind<typeof mediaScript>('mediaPage');
const upload = ui.list('uploads', 'u');

function Item({ m, size, view }: { m: Media; size: number | null; view: AdminView }): JSX.Element {
  const { t } = view;
  return (
    <li class="media-item" data-media={String(m.id)}>
      <a class="media-thumb" href={localPath(m.url)} target="_blank" rel="noopener">
        {m.thumb_url
          ? <img src={localPath(m.thumb_url)} alt={m.filename} loading="lazy" />
          : <span class="media-ext" role="img" aria-label={m.filename}>{extensionOf(m.filename).toUpperCase() || '?'}</span>}
      </a>
      <div class="media-name" title={m.filename}>{m.filename}</div>
      <div class="small muted">
        {size === null ? '' : formatBytes(size)} · <Time value={m.created_at} />
      </div>
      {view.may('DELETE /api/media/:id', { id: m.id }) ? <button type="button" class="link" {...data<MediaButton>({ id: m.id, name: m.filename })} {...ui.on('click', 'deleteOne')} aria-label={`${t('globals.buttons.delete')} ${m.filename}`}>{t('globals.buttons.delete')}</button> : null}
    </li>
  );
}

function Uploader({ t }: { t: AdminView['t'] }): JSX.Element {
  return (
    <section class="card" aria-labelledby="upload-title">
      <h2 id="upload-title">{t('media.upload')}</h2>
      <div class="dropzone" {...ui.attr('class', 'dropClass()')} {...ui.on('dragover', 'dragOver')} {...ui.on('dragleave', 'dragLeave')} {...ui.on('drop', 'drop')}>
        <p>{t('admin.media.dropHere')}</p>
        <label for="media-files" class="button secondary">{t('admin.media.choose')}</label>
        <input type="file" id="media-files" class="visually-hidden" multiple {...ui.on('change', 'chosen')} />
      </div>
      <ul class="uploads" aria-live="polite">
        <template {...upload.each('id')}>
          <li>
            <span class="media-name" {...upload.text('name')}></span>
            <progress max="100" {...upload.attr('value', 'percent')} {...upload.attr('aria-label', 'label')} {...upload.show('showBar')}></progress>
            <span class="small" {...upload.attr('class', 'tone')} {...upload.text('status')}></span>
          </li>
        </template>
      </ul>
      <div class="actions" {...ui.show('showReload()')} x-cloak>
        <button type="button" class="secondary small" {...ui.on('click', 'reload')}>{t('admin.media.showUploaded')}</button>
      </div>
    </section>
  );
}

async function mediaPage(c: AdminContext, s: Deps, { query: p }: Input<undefined, ReturnType<typeof mediaPageQuery>>) {
  const view = adminView(c, s);
  const { t, actor } = view;
  const files = s.media.list(actor, p.query);
  // Sizes come from the files themselves (the table does not keep them); a missing file has none.
  const sizes = await Promise.all(files.map(async (m) => (await s.media.servable(encodeURIComponent(m.filename)))?.size ?? null));
  return adminPage(c, s, {
    title: t('globals.terms.media'),
    body: (
      <div {...ui.root()}>
        <PageHead title={t('globals.terms.media')} count={files.length} />
        {view.may('POST /api/media') ? <Uploader t={t} /> : null}
        <form class="toolbar" method="get" action="/admin/campaigns/media" role="search">
          <div class="grow">
            <label for="media-search">{t('admin.media.search')}</label>
            <input type="search" id="media-search" name="query" value={p.query} placeholder={t('admin.media.searchPlaceholder')} />
          </div>
          <button type="submit" class="secondary">{t('admin.filter')}</button>
        </form>
        {files.length === 0
          ? <p class="empty card">{p.query ? t('admin.media.noMatch') : t('admin.media.none')}</p>
          : <ul class="media-grid">{files.map((m, i) => <Item m={m} size={sizes[i]} view={view} />)}</ul>}
      </div>
    ),
  });
}
