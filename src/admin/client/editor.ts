// The editor island, loaded only by pages that edit a body. It enhances a
// <textarea data-editor="html|markdown"> with the code editor (CodeMirror 6), or one whose
// editor follows a format <select> (data-editor-format="SELECT_ID"): rich text in TipTap (its
// code loaded only then, with a switch to the HTML source), HTML and markdown in the code
// editor, plain text in the textarea itself. The textarea stays the form's field: every change
// in an editor is written back to it, so saving and previewing read what is in the editor (a
// page that changes the textarea dispatches `editor:reload` on it to show the change). When
// the field's error names a line (the template engine's `name:LINE:COLUMN:`), that line is
// selected in the code editor.
import { css } from '@codemirror/lang-css';
import { html } from '@codemirror/lang-html';
import { javascript } from '@codemirror/lang-javascript';
import { markdown } from '@codemirror/lang-markdown';
import { basicSetup, EditorView } from 'codemirror';
import { readData } from './component.ts';

/** How a body is edited: null is the textarea itself; `source` is rich text's HTML, in the code editor. */
type Mode = 'html' | 'markdown' | 'css' | 'javascript' | 'richtext' | 'source' | null;
type Language = keyof typeof LANGUAGES;

/** What a body's textarea says of its editor: a fixed language, or the format <select> it follows (its id). */
export interface EditorData {
  editor?: Language;
  editorFormat?: string;
}

const LANGUAGES = { html, markdown, css, javascript };

/** The line in a template engine error: `template: base:3:14: …`. */
const ERROR_LINE = /\b[\w.-]+:(\d+):\d+:/;

/** Colours from the admin's palette, so the editor follows light and dark mode. */
const theme = EditorView.theme({
  '&': { backgroundColor: 'var(--bg)', color: 'var(--fg)', border: '1px solid var(--field-border)', borderRadius: '.4rem', fontSize: '.88rem' },
  '&.cm-focused': { outline: '3px solid var(--accent)', outlineOffset: '2px' },
  '.cm-scroller': { fontFamily: 'ui-monospace,SFMono-Regular,Menlo,Consolas,monospace', minHeight: '18rem', maxHeight: '70vh' },
  '.cm-gutters': { backgroundColor: 'var(--card)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLine, .cm-activeLineGutter': { backgroundColor: 'transparent' },
  '.cm-content': { caretColor: 'var(--fg)' },
  // A disabled field's editor (a role that may read but not change it) looks it.
  '&.cm-read-only': { backgroundColor: 'var(--card)', borderStyle: 'dashed' },
});

/** The page's CSP nonce (the editor's styles are <style> elements, which need it). */
const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce ?? '';

function modeFor(source: HTMLTextAreaElement): Mode {
  const { editor: fixed, editorFormat } = readData<EditorData>(source);
  if (fixed === 'html' || fixed === 'markdown' || fixed === 'css' || fixed === 'javascript') return fixed;
  const select = document.getElementById(editorFormat ?? '') as HTMLSelectElement | null;
  switch (select?.value) {
    case 'markdown':
    case 'richtext':
      return select.value;
    case 'plain':
    case undefined:
      return null;
    default:
      return 'html';
  }
}

/** The label, help and error slot of the field, given to the editor's text box. */
function accessibility(source: HTMLTextAreaElement): Record<string, string> {
  const label = document.querySelector(`label[for="${source.id}"]`)?.textContent?.trim() ?? '';
  const described = [`${source.id}-help`, `${source.id}-error`].filter((id) => document.getElementById(id)).join(' ');
  return { 'aria-label': label, ...(described ? { 'aria-describedby': described } : {}) };
}

function switchButton(text: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'secondary small';
  b.textContent = text;
  b.addEventListener('click', onClick);
  return b;
}

function codeEditor(source: HTMLTextAreaElement, language: Language): EditorView {
  const view = new EditorView({
    doc: source.value,
    extensions: [
      basicSetup,
      LANGUAGES[language](),
      theme,
      EditorView.lineWrapping,
      EditorView.cspNonce.of(nonce),
      EditorView.editable.of(!source.disabled),
      EditorView.editorAttributes.of({ class: source.disabled ? 'cm-read-only' : '' }),
      EditorView.contentAttributes.of(accessibility(source)),
      EditorView.updateListener.of((update) => {
        if (!update.docChanged) return;
        source.value = update.state.doc.toString();
        // Pages that watch their form for changes (settings: Save enabled) hear the editor too.
        source.dispatchEvent(new Event('input', { bubbles: true }));
      }),
    ],
  });
  source.after(view.dom);
  return view;
}

function enhance(source: HTMLTextAreaElement): void {
  let view: EditorView | null = null;
  let unmount = () => {};
  // A format change while rich text's code loads must win over the load.
  let generation = 0;
  const mount = async (mode: Mode) => {
    const mine = ++generation;
    unmount();
    unmount = () => {};
    view = null;
    source.hidden = mode !== null;
    if (mode === null) return;
    if (mode === 'richtext') {
      const { mountRichText } = await import('./richtext.ts');
      if (mine !== generation) return;
      const rich = mountRichText(source, { nonce, attributes: accessibility(source), extra: switchButton('HTML source', () => void mount('source')) });
      unmount = () => rich.destroy();
      return;
    }
    const code = codeEditor(source, mode === 'source' ? 'html' : mode);
    view = code;
    if (mode !== 'source') {
      unmount = () => code.destroy();
      return;
    }
    const bar = document.createElement('div');
    bar.className = 'editor-bar';
    bar.append(switchButton('Back to rich text', () => void mount('richtext')));
    code.dom.before(bar);
    unmount = () => {
      code.destroy();
      bar.remove();
    };
  };
  void mount(modeFor(source));
  document.getElementById(readData<EditorData>(source).editorFormat ?? '')?.addEventListener('change', () => void mount(modeFor(source)));
  // A page that sets the textarea's value itself asks for the editor to show it.
  source.addEventListener('editor:reload', () => void mount(modeFor(source)));
  const slot = document.getElementById(`${source.id}-error`);
  if (!slot) return;
  new MutationObserver(() => {
    const m = ERROR_LINE.exec(slot.textContent ?? '');
    if (!view || !m) return;
    const line = view.state.doc.line(Math.min(Number(m[1]), view.state.doc.lines));
    view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
    view.focus();
  }).observe(slot, { childList: true, characterData: true, subtree: true });
}

document.querySelectorAll<HTMLTextAreaElement>('textarea[data-editor], textarea[data-editor-format]').forEach(enhance);
