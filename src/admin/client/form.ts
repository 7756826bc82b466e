// A form whose fields become a JSON body for the API (the `apiForm` component). The form says
// where it goes (data-method, data-action) and where to go after (data-done, `{id}` filled from
// the answer). Fields say how they are read (data-kind); a refusal is shown beside the field
// it names, the rest in the form's alert, and nothing the person typed is lost.
import { api, ApiError, navigate, notify } from './api.ts';
import { component, readData } from './component.ts';

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** Where an apiForm sends its fields, and where the page goes after. */
export interface ApiFormData {
  method: 'POST' | 'PUT';
  action: string;
  /** The page to open after a success; `{id}` is filled from the answer. None: stay. */
  done?: string;
  /** The message shown after a success. */
  flash?: string;
}

/** How a field is read into the JSON body. */
export interface FieldData {
  kind?: 'text' | 'bool' | 'switch' | 'int' | 'ints' | 'strings' | 'tags' | 'nullable' | 'datetime' | 'json';
  /** A switch's value when not ticked. */
  off?: string;
  /** A json field's value when left empty (default {}). */
  empty?: string;
  /** Present: the field is left out of the body when empty. */
  omitEmpty?: string;
  /** Other names a refusal may use for this field (comma-separated), to show it beside the field. */
  errorKeys?: string;
}

export class FieldError extends Error {
  constructor(readonly field: string, message: string) {
    super(message);
  }
}

function controls(form: HTMLFormElement): Control[] {
  return [...form.elements].filter((el): el is Control => (el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement) && el.name !== '' && !el.disabled);
}

/** The value of one named field, read the way its data-kind says. */
function readField(form: HTMLFormElement, name: string, els: Control[]): unknown {
  const first = els[0];
  const field = readData<FieldData>(first);
  const kind = field.kind ?? 'text';
  const values = els.flatMap((el) => {
    if (el instanceof HTMLSelectElement && el.multiple) return [...el.selectedOptions].map((o) => o.value);
    if (el instanceof HTMLInputElement && (el.type === 'checkbox' || el.type === 'radio')) return el.checked ? [el.value] : [];
    return [el.value];
  });
  switch (kind) {
    case 'bool':
      return values.length > 0 && values[0] !== 'false';
    case 'switch':
      // A checkbox between two values: its own when ticked, data-off when not.
      return values[0] ?? field.off ?? '';
    case 'int':
      return values[0] === undefined || values[0].trim() === '' ? null : Number(values[0]);
    case 'ints':
      return values.map(Number);
    case 'strings':
      return values;
    case 'tags':
      return (values[0] ?? '').split(',').map((v) => v.trim()).filter(Boolean);
    case 'nullable':
      return values[0] === undefined || values[0] === '' ? null : values[0];
    case 'datetime':
      // datetime-local is the browser's local time; the API takes an instant.
      return values[0] ? new Date(values[0]).toISOString() : null;
    case 'json': {
      const text = (values[0] ?? '').trim() || (field.empty ?? '{}');
      try {
        return JSON.parse(text);
      } catch (err) {
        throw new FieldError(first.id, `Not valid JSON: ${(err as Error).message}`);
      }
    }
    default:
      return first instanceof HTMLInputElement && first.type === 'radio' ? values[0] ?? '' : values[0] ?? '';
  }
}

/** The form as a JSON object; fields marked data-omit-empty are left out when empty. */
export function formJson(form: HTMLFormElement): Record<string, unknown> {
  const byName = new Map<string, Control[]>();
  for (const el of controls(form)) byName.set(el.name, [...(byName.get(el.name) ?? []), el]);
  const out: Record<string, unknown> = {};
  for (const [name, els] of byName) {
    const value = readField(form, name, els);
    if (readData<FieldData>(els[0]).omitEmpty !== undefined && (value === '' || value === null || (Array.isArray(value) && value.length === 0))) continue;
    out[name] = value;
  }
  return out;
}

/** Clears the messages shown beside fields and in the form's alert. */
export function clearErrors(form: HTMLFormElement): void {
  form.querySelectorAll<HTMLElement>('[data-error-for]').forEach((el) => (el.textContent = ''));
  form.querySelectorAll('[aria-invalid]').forEach((el) => el.removeAttribute('aria-invalid'));
}

/**
 * Shows a refusal beside the field it is about: the one named by a FieldError, else the first
 * field whose name (or a word of its data-error-keys) the API's message mentions (a field in a
 * fieldset: the fieldset's slot), else the form's own alert, else an error notice.
 */
export function showError(form: HTMLFormElement, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  let target: Control | undefined;
  if (err instanceof FieldError) target = controls(form).find((el) => el.id === err.field);
  else if (err instanceof ApiError) {
    const text = message.toLowerCase();
    target = controls(form).find((el) => [el.name, ...(readData<FieldData>(el).errorKeys ?? '').split(',')].filter(Boolean).some((k) => new RegExp(`\\b${k.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`).test(text)));
  }
  // A group of controls (checkboxes, hidden fields) shows its error in its fieldset's slot.
  const slot = target ? (target.id ? form.querySelector<HTMLElement>(`[data-error-for="${target.id}"]`) : null) ?? target.closest('fieldset')?.querySelector<HTMLElement>('[data-error-for]') ?? null : null;
  if (target && slot) {
    slot.textContent = message;
    target.setAttribute('aria-invalid', 'true');
    target.focus();
    return;
  }
  const alert = form.querySelector<HTMLElement>('[data-error-for="_form"]');
  if (alert) alert.textContent = message;
  // A form without an alert of its own: a notice, so no refusal goes unseen.
  else notify(message, 'error');
}

export const apiForm = component('apiForm', () => ({
  busy: false,
  // Bound as x-on:submit="submit" (JSX has no `.prevent` modifier syntax): the page stays.
  async submit(this: { busy: boolean; $el: HTMLElement; $event: Event }) {
    this.$event.preventDefault();
    const form = this.$el as HTMLFormElement;
    clearErrors(form);
    this.busy = true;
    try {
      const body = formJson(form);
      const to = readData<ApiFormData>(form);
      const data = await api<{ id?: number } | null>(to.method ?? 'POST', to.action ?? '', body);
      const id = data && typeof data === 'object' && 'id' in data ? String(data.id) : '';
      navigate(to.done ? to.done.replace('{id}', id) : null, to.flash);
    } catch (err) {
      showError(form, err);
      this.busy = false;
    }
  },
}));
