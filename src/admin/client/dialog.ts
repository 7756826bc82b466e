// Asking before destructive actions, with a native <dialog> (focus trap, Escape, backdrop).

/** Shows `message` (and `details` below it) with a confirm and a cancel button; resolves true when confirmed. */
export function confirmAction(message: string, confirmLabel = 'Confirm', danger = true, details: HTMLElement[] = []): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    dialog.setAttribute('aria-labelledby', 'confirm-text');
    const text = document.createElement('p');
    text.id = 'confirm-text';
    text.textContent = message;
    const actions = document.createElement('div');
    actions.className = 'actions';
    const ok = document.createElement('button');
    ok.type = 'button';
    ok.className = danger ? 'danger' : '';
    ok.textContent = confirmLabel;
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'secondary';
    cancel.textContent = 'Cancel';
    actions.append(ok, cancel);
    dialog.append(text, ...details, actions);
    document.body.append(dialog);
    let answer = false;
    ok.addEventListener('click', () => {
      answer = true;
      dialog.close();
    });
    cancel.addEventListener('click', () => dialog.close());
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(answer);
    });
    dialog.showModal();
    cancel.focus();
  });
}

/**
 * A modal form of `fields` with a confirm and a cancel button (Escape cancels too); resolves
 * true when confirmed. `focus` is selected when it opens.
 */
export function formDialog(o: { fields: HTMLElement[]; confirmLabel: string; focus: HTMLInputElement; labelledBy?: string; danger?: boolean }): Promise<boolean> {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    if (o.labelledBy) dialog.setAttribute('aria-labelledby', o.labelledBy);
    const form = document.createElement('form');
    form.method = 'dialog';
    const actions = document.createElement('div');
    actions.className = 'actions';
    const ok = document.createElement('button');
    ok.type = 'submit';
    ok.value = 'ok';
    ok.textContent = o.confirmLabel;
    if (o.danger) ok.className = 'danger';
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'secondary';
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', () => dialog.close());
    actions.append(ok, cancel);
    form.append(...o.fields, actions);
    dialog.append(form);
    document.body.append(dialog);
    dialog.addEventListener('close', () => {
      dialog.remove();
      resolve(dialog.returnValue === 'ok');
    });
    dialog.showModal();
    o.focus.select();
  });
}

/**
 * Asks for one value in a labelled input of `type`, under `question` when given (it then names
 * the dialog); resolves with what was typed, or null when cancelled.
 */
async function promptInput(o: { label: string; type: 'text' | 'password'; initial?: string; confirmLabel: string; question?: string; autocomplete?: AutoFill; danger?: boolean }): Promise<string | null> {
  const fields: HTMLElement[] = [];
  if (o.question) {
    const text = document.createElement('p');
    text.id = 'prompt-question';
    text.textContent = o.question;
    fields.push(text);
  }
  const label = document.createElement('label');
  label.htmlFor = 'prompt-input';
  label.textContent = o.label;
  const input = document.createElement('input');
  input.type = o.type;
  input.id = 'prompt-input';
  input.value = o.initial ?? '';
  input.required = true;
  if (o.autocomplete) input.autocomplete = o.autocomplete;
  fields.push(label, input);
  const ok = await formDialog({ fields, confirmLabel: o.confirmLabel, focus: input, labelledBy: o.question ? 'prompt-question' : undefined, danger: o.danger });
  return ok ? input.value : null;
}

/** Asks for one line of text (a new name); resolves with it, or null when cancelled. */
export async function promptText(message: string, initial: string, confirmLabel = 'OK'): Promise<string | null> {
  return (await promptInput({ label: message, type: 'text', initial, confirmLabel }))?.trim() || null;
}

/**
 * Asks `question` with the signed-in user's password to confirm a destructive action (its button
 * styled as one); resolves with the password, or null when cancelled.
 */
export async function promptPassword(question: string, label: string, confirmLabel: string): Promise<string | null> {
  return (await promptInput({ label, type: 'password', confirmLabel, question, autocomplete: 'current-password', danger: true })) || null;
}

/** The element whose handler runs (a row's button carries its data-* for the action). */
export function clicked(event: Event): HTMLElement {
  return event.currentTarget as HTMLElement;
}

/** Shows `url` in the page's preview dialog: a sandboxed frame (PreviewDialog on the server). */
export function showPreview(url: string | null): void {
  if (url !== null) (document.getElementById('preview-frame') as HTMLIFrameElement).src = url;
  (document.getElementById('preview-dialog') as HTMLDialogElement).showModal();
}

export function closePreview(): void {
  (document.getElementById('preview-dialog') as HTMLDialogElement).close();
}
