// The rich text editor (TipTap), loaded by the editor island only when a body is rich text: a
// toolbar (headings, bold, italic, links, lists, quotes, images, rule) over the editable text,
// whose HTML is written back to the textarea on every change.
import { Editor } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import StarterKit from '@tiptap/starter-kit';
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

async function addImage(e: Editor): Promise<void> {
  const src = await promptText('Image address (copy it from Media)', 'https://', 'Insert image');
  if (src && src !== 'https://') e.chain().focus().setImage({ src }).run();
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
