// Asking before destructive actions, with a native <dialog> (focus trap, Escape, backdrop).

/** Shows `message` with a confirm and a cancel button; resolves true when confirmed. */
export function confirmAction(message: string, confirmLabel = 'Confirm', danger = true): Promise<boolean> {
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
    dialog.append(text, actions);
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

/** Asks for one line of text (a new name); resolves with it, or null when cancelled. */
export function promptText(message: string, initial: string, confirmLabel = 'OK'): Promise<string | null> {
  return new Promise((resolve) => {
    const dialog = document.createElement('dialog');
    const form = document.createElement('form');
    form.method = 'dialog';
    const label = document.createElement('label');
    label.htmlFor = 'prompt-input';
    label.textContent = message;
    const input = document.createElement('input');
    input.type = 'text';
    input.id = 'prompt-input';
    input.value = initial;
    input.required = true;
    const actions = document.createElement('div');
    actions.className = 'actions';
    const ok = document.createElement('button');
    ok.type = 'submit';
    ok.value = 'ok';
    ok.textContent = confirmLabel;
    const cancel = document.createElement('button');
    cancel.type = 'button';
    cancel.className = 'secondary';
    cancel.textContent = 'Cancel';
    cancel.addEventListener('click', () => dialog.close());
    actions.append(ok, cancel);
    form.append(label, input, actions);
    dialog.append(form);
    document.body.append(dialog);
    dialog.addEventListener('close', () => {
      const answer = dialog.returnValue === 'ok' ? input.value.trim() : '';
      dialog.remove();
      resolve(answer || null);
    });
    dialog.showModal();
    input.select();
  });
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
