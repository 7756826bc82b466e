// The media library as a picker, opened by the rich text editor (an image to insert) and by a
// campaign's attachments (any file): the library's files as thumbnails with their names (a
// placeholder with the extension for files that are not images), and, for images, a field for
// any other address. Resolves with the chosen file, or null.
import { api } from './api.ts';

export interface MediaItem {
  id: number;
  filename: string;
  url: string;
  thumb_url: string | null;
}

/** What was picked: a library file (with its id), or an address typed in (id null). */
export interface Picked {
  id: number | null;
  url: string;
  filename: string;
}

function button(text: string, className: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

function element<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<HTMLElementTagNameMap[K]> = {}): HTMLElementTagNameMap[K] {
  return Object.assign(document.createElement(tag), props);
}

/** The library's file as a button: its thumbnail, or its extension on a placeholder, and its name. */
function pickButton(m: MediaItem, verb: string, choose: (p: Picked) => void): HTMLLIElement {
  const item = element('li');
  const pick = button('', 'media-pick', () => choose({ id: m.id, url: m.url, filename: m.filename }));
  pick.setAttribute('aria-label', `${verb} ${m.filename}`);
  if (m.thumb_url) pick.append(element('img', { src: new URL(m.thumb_url, location.href).pathname, alt: '' }));
  else pick.append(element('span', { className: 'media-ext', textContent: (/\.([^.]+)$/.exec(m.filename)?.[1] ?? '?').toUpperCase() }));
  pick.append(element('span', { className: 'media-name', textContent: m.filename }));
  item.append(pick);
  return item;
}

/**
 * Opens the picker. `images` offers only images, and a field for the address of any other
 * image; otherwise every file of the library is offered.
 */
export function pickMedia(o: { title: string; verb: string; images: boolean }): Promise<Picked | null> {
  return new Promise((resolve) => {
    let chosen: Picked | null = null;
    const dialog = element('dialog', { className: 'picker' });
    dialog.setAttribute('aria-labelledby', 'picker-title');
    const title = element('h2', { id: 'picker-title', textContent: o.title });
    const grid = element('ul', { className: 'media-grid' });
    const note = element('p', { className: 'muted small', textContent: 'Loading the media library…' });
    const choose = (p: Picked) => {
      chosen = p;
      dialog.close();
    };
    const actions = element('div', { className: 'actions' });
    dialog.append(title, note, grid);
    if (o.images) {
      const label = element('label', { htmlFor: 'picker-url', textContent: 'Or the address of an image' });
      const url = element('input', { type: 'url', id: 'picker-url', placeholder: 'https://' });
      dialog.append(label, url);
      actions.append(button(o.verb, '', () => url.value.trim() && choose({ id: null, url: url.value.trim(), filename: '' })));
    }
    actions.append(button('Cancel', 'secondary', () => dialog.close()));
    dialog.append(actions);
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(chosen);
    });
    document.body.append(dialog);
    dialog.showModal();
    api<MediaItem[]>('GET', '/api/media').then((items) => {
      const offered = o.images ? items.filter((m) => m.thumb_url) : items;
      const what = o.images ? 'an image' : 'a file';
      note.textContent = offered.length ? `Choose ${what} from the media library:` : `The media library has no ${o.images ? 'images' : 'files'} yet.`;
      for (const m of offered) grid.append(pickButton(m, o.verb, choose));
    }, (err: unknown) => {
      const why = err instanceof Error ? err.message : String(err);
      note.textContent = `The media library cannot be shown (${why}).${o.images ? ' Give the image\'s address instead.' : ''}`;
    });
  });
}
