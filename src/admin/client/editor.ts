// The code editor island (CodeMirror 6), loaded only by pages with HTML or markdown bodies. It
// enhances a <textarea data-editor="html|markdown"> — or one whose language follows a format
// <select> (data-editor-format="SELECT_ID": html and rich text as HTML, markdown as markdown,
// plain text in the textarea itself). The textarea stays the form's field: every change in the
// editor is written back to it, so saving and previewing read what is in the editor. When the
// field's error names a line (the template engine's `name:LINE:COLUMN:`), that line is selected.
import { html } from '@codemirror/lang-html';
import { markdown } from '@codemirror/lang-markdown';
import { basicSetup, EditorView } from 'codemirror';

type Language = 'html' | 'markdown' | null;

const LANGUAGES = { html, markdown };

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
});

/** The page's CSP nonce (the editor's styles are <style> elements, which need it). */
const nonce = document.querySelector<HTMLScriptElement>('script[nonce]')?.nonce ?? '';

function languageFor(source: HTMLTextAreaElement): Language {
  const fixed = source.dataset.editor;
  if (fixed === 'html' || fixed === 'markdown') return fixed;
  const select = document.getElementById(source.dataset.editorFormat ?? '') as HTMLSelectElement | null;
  switch (select?.value) {
    case 'markdown':
      return 'markdown';
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

function enhance(source: HTMLTextAreaElement): void {
  let view: EditorView | null = null;
  const mount = () => {
    view?.destroy();
    view = null;
    const language = languageFor(source);
    source.hidden = language !== null;
    if (language === null) return;
    view = new EditorView({
      doc: source.value,
      extensions: [
        basicSetup,
        LANGUAGES[language](),
        theme,
        EditorView.lineWrapping,
        EditorView.cspNonce.of(nonce),
        EditorView.editable.of(!source.disabled),
        EditorView.contentAttributes.of(accessibility(source)),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) source.value = update.state.doc.toString();
        }),
      ],
    });
    source.after(view.dom);
  };
  mount();
  document.getElementById(source.dataset.editorFormat ?? '')?.addEventListener('change', mount);
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
