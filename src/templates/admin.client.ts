// The templates table (preview, clone, make default, delete) and one template's page: its body
// previewed beside the form (button and F9), compile errors shown beside the body.
import { api, navigate, notifyError, pageData } from '../admin/client/api.ts';
import { clicked, closePreview, confirmAction, promptText, showPreview } from '../admin/client/dialog.ts';
import { clearErrors, formJson, showError } from '../admin/client/form.ts';
import { component, readData } from '../admin/client/component.ts';

interface Template {
  id: number;
  name: string;
  type: string;
  subject: string;
  body?: string;
  body_source: string | null;
}

/** What a template's buttons in the table carry. */
export interface TemplateButton {
  id: string;
  name: string;
}

/** The template page's setup (its `template-page` data). */
export interface TemplatePageSetup {
  preview: boolean;
  /** A new template's starting body by type. */
  starters: Record<string, string> | null;
}

/** The template page's root carries the template's type (a new one: the type chosen first). */
export interface TemplateTypeData {
  type: string;
}

export const templatesPage = component('templatesPage', () => ({
  preview(this: { $event: Event }) {
    const tp = readData<TemplateButton>(clicked(this.$event));
    showPreview(`/api/templates/${tp.id}/preview`);
  },
  closePreview,
  async cloneOne(this: { $event: Event }) {
    const source = readData<TemplateButton>(clicked(this.$event));
    const name = await promptText('Name of the copy', `Copy of ${source.name}`, 'Clone');
    if (!name) return;
    try {
      const tp = await api<Template>('GET', `/api/templates/${source.id}`);
      const created = await api<{ id: number }>('POST', '/api/templates', { name, type: tp.type, subject: tp.subject, body: tp.body ?? '', body_source: tp.body_source ?? '' });
      navigate(`/admin/campaigns/templates/${created.id}`, `"${name}" created`);
    } catch (err) {
      notifyError(err);
    }
  },
  async makeDefault(this: { $event: Event }) {
    const tp = readData<TemplateButton>(clicked(this.$event));
    if (!(await confirmAction(`Make "${tp.name}" the default template? New campaigns will use it.`, 'Make default', false))) return;
    try {
      await api('PUT', `/api/templates/${tp.id}/default`);
      navigate(null, `"${tp.name}" is now the default template`);
    } catch (err) {
      notifyError(err);
    }
  },
  async deleteOne(this: { $event: Event }) {
    const tp = readData<TemplateButton>(clicked(this.$event));
    if (!(await confirmAction(`Delete the template "${tp.name}"? Campaigns using it switch to the default template.`, 'Delete'))) return;
    try {
      await api('DELETE', `/api/templates/${tp.id}`);
      navigate(null, `"${tp.name}" deleted`);
    } catch (err) {
      notifyError(err);
    }
  },
}));

/**
 * Renders the form's (unsaved) body: first as a JSON call, so a template that does not compile
 * shows the engine's message beside the body; then posted into the sandboxed frame, which
 * loads it as its own document (the admin page's CSP would strip a srcdoc's inline styles).
 */
async function previewForm(type: string): Promise<void> {
  const form = document.getElementById('template-form') as HTMLFormElement;
  clearErrors(form);
  const fields = { template_type: type, body: String(formJson(form).body ?? '') };
  try {
    await api('POST', '/api/templates/preview', fields);
  } catch (err) {
    showError(form, err);
    return;
  }
  const post = document.createElement('form');
  post.method = 'post';
  post.action = '/api/templates/preview';
  post.target = 'template-preview';
  for (const [name, value] of Object.entries(fields)) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = name;
    input.value = value;
    post.append(input);
  }
  document.body.append(post);
  post.submit();
  post.remove();
}

export const templatePage = component('templatePage', () => ({
  type: 'campaign',
  init(this: { $root: HTMLElement; type: string }) {
    this.type = readData<TemplateTypeData>(this.$root).type;
    window.addEventListener('keydown', (e) => {
      if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
        e.preventDefault();
        (document.getElementById('template-form') as HTMLFormElement).requestSubmit();
      } else if (e.key === 'F9') {
        e.preventDefault();
        void previewForm(this.type);
      }
    });
    if (pageData<TemplatePageSetup>('template-page').preview) void previewForm(this.type);
  },
  isTx(this: { type: string }) {
    return this.type === 'tx';
  },
  /** A body still as it started follows the type (the editor island reloads it from the textarea). */
  typeChanged(this: { $event: Event; type: string }) {
    const next = (this.$event.target as HTMLSelectElement).value;
    const starters = pageData<TemplatePageSetup>('template-page').starters;
    const body = document.getElementById('t-body') as HTMLTextAreaElement;
    if (starters?.[this.type] !== undefined && body.value === starters[this.type] && starters[next] !== undefined) {
      body.value = starters[next];
      body.dispatchEvent(new Event('editor:reload'));
    }
    this.type = next;
  },
  preview(this: { type: string }) {
    void previewForm(this.type);
  },
}));
