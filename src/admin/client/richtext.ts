// The rich text editor (TipTap), loaded by the editor island only when a body is rich text: a
// toolbar (headings, bold, italic, links with a tracked-link switch, lists, quotes, images from
// the media library or an address, buttons, rule) over the editable text, whose HTML is
// written back to the textarea on every change.
import { Editor, Extension } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import StarterKit from '@tiptap/starter-kit';
import { formDialog } from './dialog.ts';
import { pickMedia } from './media-picker.ts';

/** A toolbar button: its label, whether it is on where the cursor is, and what it does. */
interface Tool {
  label: string;
  text: string;
  active?: (e: Editor) => boolean;
  run: (e: Editor) => void | Promise<void>;
}

/** listmonk's marker of a tracked link: the address ends with it (docs/templating.md). */
const TRACK = '@TrackLink';

interface LinkAnswer {
  href: string;
  track: boolean;
  text: string;
}

/**
 * The link dialog: the address, a "track clicks" switch (adds @TrackLink to the address), and
 * for a button its text. Resolves with the answer, or null when cancelled.
 */
async function linkDialog(o: { title: string; href: string; text: string | null; confirm: string }): Promise<LinkAnswer | null> {
  const title = document.createElement('h2');
  title.id = 'link-title';
  title.textContent = o.title;
  const field = (id: string, label: string, input: HTMLInputElement) => {
    const l = document.createElement('label');
    l.htmlFor = id;
    l.textContent = label;
    input.id = id;
    const wrap = document.createElement('div');
    wrap.className = 'field';
    wrap.append(l, input);
    return wrap;
  };
  const text = document.createElement('input');
  text.type = 'text';
  text.value = o.text ?? '';
  text.required = o.text !== null;
  const href = document.createElement('input');
  href.type = 'text';
  href.inputMode = 'url';
  const tracked = o.href.endsWith(TRACK);
  href.value = tracked ? o.href.slice(0, -TRACK.length) : o.href;
  const track = document.createElement('input');
  track.type = 'checkbox';
  track.id = 'link-track';
  track.checked = tracked;
  const trackLabel = document.createElement('label');
  trackLabel.className = 'check-label';
  trackLabel.append(track, ' Track clicks on this link (@TrackLink)');
  const fields = [title, ...(o.text !== null ? [field('link-text', 'Text', text)] : []), field('link-href', 'Link address', href), trackLabel];
  if (!(await formDialog({ fields, confirmLabel: o.confirm, focus: o.text !== null ? text : href, labelledBy: 'link-title' }))) return null;
  // An address typed with the marker is tracked too.
  let url = href.value.trim();
  let on = track.checked;
  if (url.endsWith(TRACK)) {
    url = url.slice(0, -TRACK.length);
    on = true;
  }
  return { href: url, track: on, text: text.value.trim() };
}

async function setLink(e: Editor): Promise<void> {
  const current = (e.getAttributes('link').href as string | undefined) ?? 'https://';
  const answer = await linkDialog({ title: 'Link', href: current, text: null, confirm: 'Set link' });
  if (answer === null) return;
  if (answer.href === '' || answer.href === 'https://') e.chain().focus().extendMarkRange('link').unsetLink().run();
  else e.chain().focus().extendMarkRange('link').setLink({ href: answer.href + (answer.track ? TRACK : '') }).run();
}

declare module '@tiptap/core' {
  interface Commands<ReturnType> {
    buttonLink: {
      /** A paragraph holding a link styled as a button (`<a class="button">`, styled by the default templates). */
      insertButton: (o: { href: string; text: string }) => ReturnType;
    };
  }
}

/**
 * Buttons are links with the class `button`: the link mark keeps its `class` attribute, so a
 * button read back from a saved body stays one.
 */
const ButtonLink = Extension.create({
  name: 'buttonLink',
  addCommands() {
    return {
      insertButton: ({ href, text }) => ({ commands }) =>
        commands.insertContent({ type: 'paragraph', content: [{ type: 'text', text, marks: [{ type: 'link', attrs: { href, class: 'button' } }] }] }),
    };
  },
});

async function addButton(e: Editor): Promise<void> {
  const answer = await linkDialog({ title: 'Button', href: 'https://', text: e.state.doc.textBetween(e.state.selection.from, e.state.selection.to) || 'Read more', confirm: 'Insert button' });
  if (answer === null || !answer.text || answer.href === '' || answer.href === 'https://') return;
  e.chain().focus().insertButton({ href: answer.href + (answer.track ? TRACK : ''), text: answer.text }).run();
}

async function addImage(e: Editor): Promise<void> {
  const image = await pickMedia({ title: 'Insert an image', verb: 'Insert', images: true });
  if (image) e.chain().focus().setImage({ src: image.url, alt: image.filename }).run();
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
  { label: 'Button', text: 'Button', active: (e) => e.isActive('link', { class: 'button' }), run: addButton },
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
    extensions: [StarterKit.configure({ link: { openOnClick: false, autolink: true } }), Image, ButtonLink],
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
