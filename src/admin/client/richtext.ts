// The rich text editor (TipTap), loaded by the editor island only when a body is rich text: a
// toolbar (headings, bold, italic, links, lists, quotes, images from the media library or an
// address, rule) over the editable text, whose HTML is written back to the textarea on every
// change.
import { Editor } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import StarterKit from '@tiptap/starter-kit';
import { api } from './api.ts';
import { promptText } from './dialog.ts';

/** A toolbar button: its label, whether it is on where the cursor is, and what it does. */
interface Tool {
  label: string;
  text: string;
  active?: (e: Editor) => boolean;
  run: (e: Editor) => void | Promise<void>;
}

async function setLink(e: Editor): Promise<void> {
  const current = (e.getAttributes('link').href as string | undefined) ?? 'https://';
  const href = await promptText('Link address (end it with @TrackLink to count clicks)', current, 'Set link');
  if (href === null) return;
  if (href === '' || href === 'https://') e.chain().focus().extendMarkRange('link').unsetLink().run();
  else e.chain().focus().extendMarkRange('link').setLink({ href }).run();
}

interface MediaItem {
  filename: string;
  url: string;
  thumb_url: string | null;
}

function button(text: string, className: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = className;
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

/**
 * The image picker: the media library's images (when the role may read it) and a field for
 * any other address. Resolves with the chosen image, or null.
 */
function pickImage(): Promise<{ src: string; alt: string } | null> {
  return new Promise((resolve) => {
    let chosen: { src: string; alt: string } | null = null;
    const dialog = document.createElement('dialog');
    dialog.className = 'picker';
    dialog.setAttribute('aria-labelledby', 'picker-title');
    const title = document.createElement('h2');
    title.id = 'picker-title';
    title.textContent = 'Insert an image';
    const grid = document.createElement('ul');
    grid.className = 'media-grid';
    const note = document.createElement('p');
    note.className = 'muted small';
    note.textContent = 'Loading the media library…';
    const label = document.createElement('label');
    label.htmlFor = 'picker-url';
    label.textContent = 'Or the address of an image';
    const url = document.createElement('input');
    url.type = 'url';
    url.id = 'picker-url';
    url.placeholder = 'https://';
    const choose = (src: string, alt: string) => {
      chosen = { src, alt };
      dialog.close();
    };
    const actions = document.createElement('div');
    actions.className = 'actions';
    actions.append(
      button('Insert', '', () => url.value.trim() && choose(url.value.trim(), '')),
      button('Cancel', 'secondary', () => dialog.close()),
    );
    dialog.append(title, note, grid, label, url, actions);
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(chosen);
    });
    document.body.append(dialog);
    dialog.showModal();
    api<MediaItem[]>('GET', '/api/media').then((items) => {
      const images = items.filter((m) => m.thumb_url);
      note.textContent = images.length ? 'Choose an image from the media library:' : 'The media library has no images yet.';
      for (const m of images) {
        const item = document.createElement('li');
        const pick = button('', 'media-pick', () => choose(m.url, m.filename));
        pick.setAttribute('aria-label', `Insert ${m.filename}`);
        const img = document.createElement('img');
        img.src = new URL(m.thumb_url!).pathname;
        img.alt = '';
        const name = document.createElement('span');
        name.className = 'media-name';
        name.textContent = m.filename;
        pick.append(img, name);
        item.append(pick);
        grid.append(item);
      }
    }, () => {
      note.textContent = 'The media library cannot be shown to your role: give the image\'s address.';
    });
  });
}

async function addImage(e: Editor): Promise<void> {
  const image = await pickImage();
  if (image) e.chain().focus().setImage(image).run();
}

const TOOLS: Tool[] = [
  { label: 'Heading 2', text: 'H2', active: (e) => e.isActive('heading', { level: 2 }), run: (e) => void e.chain().focus().toggleHeading({ level: 2 }).run() },
  { label: 'Heading 3', text: 'H3', active: (e) => e.isActive('heading', { level: 3 }), run: (e) => void e.chain().focus().toggleHeading({ level: 3 }).run() },
  { label: 'Bold', text: 'B', active: (e) => e.isActive('bold'), run: (e) => void e.chain().focus().toggleBold().run() },
  { label: 'Italic', text: 'I', active: (e) => e.isActive('italic'), run: (e) => void e.chain().focus().toggleItalic().run() },
  { label: 'Link', text: 'Link', active: (e) => e.isActive('link'), run: setLink },
  { label: 'Bulleted list', text: '• List', active: (e) => e.isActive('bulletList'), run: (e) => void e.chain().focus().toggleBulletList().run() },
  { label: 'Numbered list', text: '1. List', active: (e) => e.isActive('orderedList'), run: (e) => void e.chain().focus().toggleOrderedList().run() },
  { label: 'Quote', text: '❝ Quote', active: (e) => e.isActive('blockquote'), run: (e) => void e.chain().focus().toggleBlockquote().run() },
  { label: 'Image', text: 'Image', run: addImage },
  { label: 'Horizontal rule', text: '―', run: (e) => void e.chain().focus().setHorizontalRule().run() },
];

export interface RichText {
  destroy(): void;
}

/**
 * Puts a rich text editor after `source` (hidden meanwhile). `extra` is a control added to
 * the toolbar (the island's switch to the HTML source).
 */
export function mountRichText(source: HTMLTextAreaElement, o: { nonce: string; attributes: Record<string, string>; extra: HTMLButtonElement }): RichText {
  const box = document.createElement('div');
  box.className = 'richtext';
  const bar = document.createElement('div');
  bar.className = 'richtext-bar';
  bar.setAttribute('role', 'toolbar');
  bar.setAttribute('aria-label', `${o.attributes['aria-label'] ?? ''} formatting`);
  const area = document.createElement('div');
  box.append(bar, area);
  source.after(box);
  const editor = new Editor({
    element: area,
    extensions: [StarterKit.configure({ link: { openOnClick: false, autolink: true } }), Image],
    content: source.value,
    editable: !source.disabled,
    injectNonce: o.nonce,
    editorProps: { attributes: { ...o.attributes, role: 'textbox', 'aria-multiline': 'true', class: 'richtext-content' } },
    onUpdate: ({ editor: e }) => {
      source.value = e.getHTML();
    },
  });
  const buttons = TOOLS.map((tool) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'secondary small';
    b.textContent = tool.text;
    b.setAttribute('aria-label', tool.label);
    b.disabled = source.disabled;
    // A click keeps the focus (and the selection) in the text, as in any editor's toolbar.
    b.addEventListener('mousedown', (ev) => ev.preventDefault());
    b.addEventListener('click', () => void tool.run(editor));
    bar.append(b);
    return { b, tool };
  });
  bar.append(o.extra);
  const refresh = () => buttons.forEach(({ b, tool }) => tool.active && b.setAttribute('aria-pressed', String(tool.active(editor))));
  editor.on('selectionUpdate', refresh);
  editor.on('transaction', refresh);
  refresh();
  return {
    destroy() {
      editor.destroy();
      box.remove();
    },
  };
}
