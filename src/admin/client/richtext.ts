// The rich text editor (TipTap), loaded by the editor island only when a body is rich text: a
// toolbar (headings, bold, italic, links with a tracked-link switch that follows the campaign's
// "Track links", lists, quotes, images from the media library or an address, buttons, rule)
// over the editable text, whose HTML is written back to the textarea on every change.
import { Editor, Extension } from '@tiptap/core';
import Image from '@tiptap/extension-image';
import StarterKit from '@tiptap/starter-kit';
import { formDialog } from './dialog.ts';
import { pickMedia } from './media-picker.ts';

/**
 * Whether the campaign being edited tracks its links (its "Track links" box, as ticked now);
 * null outside a campaign (a template), where only a link's own marker tracks it.
 */
type CampaignTracking = () => boolean | null;

/** A toolbar button: its label, whether it is on where the cursor is, and what it does. */
interface Tool {
  label: string;
  text: string;
  active?: (e: Editor) => boolean;
  run: (e: Editor, tracking: CampaignTracking) => void | Promise<void>;
}

/** listmonk's markers at the end of an address: track this link, or leave it alone when the campaign tracks links (docs/templating.md). */
const TRACK = '@TrackLink';
const NO_TRACK = '@NoTrack';

interface LinkAnswer {
  /** The address with the marker its switch calls for. */
  href: string;
  text: string;
}

/** The address without its marker, and the marker (`track`, `noTrack` or none). */
function splitMarker(href: string): { url: string; marker: 'track' | 'noTrack' | null } {
  if (href.endsWith(TRACK)) return { url: href.slice(0, -TRACK.length), marker: 'track' };
  if (href.endsWith(NO_TRACK)) return { url: href.slice(0, -NO_TRACK.length), marker: 'noTrack' };
  return { url: href, marker: null };
}

/**
 * The link dialog: the address, a "track clicks" switch, and for a button its text. In a
 * campaign that tracks its links the switch is on unless the link is marked @NoTrack, and
 * turning it off adds that marker; elsewhere turning it on adds @TrackLink. Resolves with the
 * answer, or null when cancelled.
 */
async function linkDialog(o: { title: string; href: string; text: string | null; confirm: string; campaignTracks: boolean | null }): Promise<LinkAnswer | null> {
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
  const given = splitMarker(o.href);
  href.value = given.url;
  const track = document.createElement('input');
  track.type = 'checkbox';
  track.id = 'link-track';
  track.checked = given.marker === 'track' || (o.campaignTracks === true && given.marker !== 'noTrack');
  const trackLabel = document.createElement('label');
  trackLabel.className = 'check-label';
  trackLabel.append(track, o.campaignTracks ? ' Track clicks on this link (the campaign tracks its links; unticked, the link gets @NoTrack)' : ' Track clicks on this link (@TrackLink)');
  const fields = [title, ...(o.text !== null ? [field('link-text', 'Text', text)] : []), field('link-href', 'Link address', href), trackLabel];
  if (!(await formDialog({ fields, confirmLabel: o.confirm, focus: o.text !== null ? text : href, labelledBy: 'link-title' }))) return null;
  // A marker typed in the address wins over the switch.
  const typed = splitMarker(href.value.trim());
  const on = typed.marker === null ? track.checked : typed.marker === 'track';
  if (typed.url === '' || typed.url === 'https://') return { href: '', text: text.value.trim() };
  // A campaign tracking its links tracks this one unmarked (an @TrackLink it had is kept); off, it is marked @NoTrack.
  const marker = o.campaignTracks ? (on ? (given.marker === 'track' || typed.marker === 'track' ? TRACK : '') : NO_TRACK) : on ? TRACK : '';
  return { href: typed.url + marker, text: text.value.trim() };
}

async function setLink(e: Editor, tracking: CampaignTracking): Promise<void> {
  const current = (e.getAttributes('link').href as string | undefined) ?? 'https://';
  const answer = await linkDialog({ title: 'Link', href: current, text: null, confirm: 'Set link', campaignTracks: tracking() });
  if (answer === null) return;
  if (answer.href === '') e.chain().focus().extendMarkRange('link').unsetLink().run();
  else e.chain().focus().extendMarkRange('link').setLink({ href: answer.href }).run();
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

async function addButton(e: Editor, tracking: CampaignTracking): Promise<void> {
  const answer = await linkDialog({ title: 'Button', href: 'https://', text: e.state.doc.textBetween(e.state.selection.from, e.state.selection.to) || 'Read more', confirm: 'Insert button', campaignTracks: tracking() });
  if (answer === null || !answer.text || answer.href === '') return;
  e.chain().focus().insertButton({ href: answer.href, text: answer.text }).run();
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
  const trackLinks = source.form?.querySelector<HTMLInputElement>('input[name="track_links"]') ?? null;
  const tracking: CampaignTracking = () => (trackLinks ? trackLinks.checked : null);
  const buttons = TOOLS.map((tool) => {
    const b = document.createElement('button');
    b.type = 'button';
    b.className = 'secondary small';
    b.textContent = tool.text;
    b.setAttribute('aria-label', tool.label);
    b.disabled = source.disabled;
    // A click keeps the focus (and the selection) in the text, as in any editor's toolbar.
    b.addEventListener('mousedown', (ev) => ev.preventDefault());
    b.addEventListener('click', () => void tool.run(editor, tracking));
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
