// The campaigns table: status changes, preview, clone, delete (one, selected or all matching),
// and the live progress of running campaigns (polled every second, as listmonk's admin does).
import { api, navigate, notify, notifyError, pageData } from '../admin/client/api.ts';
import { clicked, closePreview, confirmAction, promptText, showPreview } from '../admin/client/dialog.ts';
import { clearErrors, FieldError, formJson, showError, type ApiFormData } from '../admin/client/form.ts';
import { selection } from '../admin/client/selection.ts';
import { component, readData } from '../admin/client/component.ts';
import { startQuestion } from './form-parts.client.ts';

/** What a campaign's buttons carry (preview, clone, delete). */
export interface CampaignButton {
  id: string;
  name: string;
}

/**
 * What a status button carries: the new status and the button's label; a start or a schedule
 * also what its confirmation counts ("Send to 12,408 subscribers of 2 lists?"): the campaign's
 * lists (comma-separated ids), its type and its time.
 */
export interface StatusButton extends CampaignButton {
  status: string;
  label: string;
  summary?: string;
  lists?: string;
  type?: string;
  sendAt?: string;
}

/** A row of the campaigns table: its campaign, and whether it is running (its progress is followed). */
export interface CampaignRowData {
  campaign: string;
  running?: string;
}

/** A campaign's page: the campaign (none on a new one's) and its status. */
export interface CampaignPageData {
  id?: string;
  campaignStatus?: string;
}

/** The filters of the campaigns page, for "all matching" (the page's `campaigns-query` data). */
export interface CampaignsQuery {
  query: string;
  status: string;
}

/** The stand-in subscriber the archive's fill button proposes (the page's `archive-sample` data). */
export interface ArchiveSample {
  email: string;
  name: string;
  attribs: Record<string, unknown>;
}

interface RunningStat {
  id: number;
  status: string;
  sent: number;
  to_send: number;
  /** Recipients the mail server deferred, to be tried again. */
  deferred: number;
  rate: number;
}

const POLL_MS = 1000;

/** The ids of the lists a start or schedule button names. */
function listIds(b: StatusButton): number[] {
  return (b.lists ?? '').split(',').filter(Boolean).map(Number);
}

/** Fields of a campaign that a copy takes over (the API's create body). */
const COPIED = ['subject', 'from_email', 'content_type', 'messenger', 'tags', 'template_id', 'body', 'altbody', 'headers', 'attribs', 'archive', 'archive_template_id', 'archive_meta', 'type'] as const;

/**
 * While the campaigns `ids()` are running, reads their progress every second and hands each to
 * `update`; once one is no longer running (finished, paused, cancelled), reloads the page so it
 * shows its new status.
 */
function watchRunning(ids: () => string[], update: (id: string, stat: RunningStat) => void): void {
  if (ids().length === 0) return;
  let timer = 0;
  const poll = async () => {
    try {
      const stats = await api<RunningStat[]>('GET', '/api/campaigns/running/stats');
      const byId = new Map(stats.map((s) => [String(s.id), s]));
      for (const id of ids()) {
        const stat = byId.get(id);
        if (!stat) {
          navigate(null);
          return;
        }
        update(id, stat);
      }
    } catch {
      /* a missed poll is retried on the next tick */
    }
    timer = window.setTimeout(poll, POLL_MS);
  };
  timer = window.setTimeout(poll, POLL_MS);
  window.addEventListener('pagehide', () => clearTimeout(timer));
}

/**
 * The sent, to-send and deferred counts in `el`'s [data-sent], [data-to-send] and [data-deferred]
 * (its line shown while above 0), its progress bar and send rate.
 */
function showProgress(el: HTMLElement, stat: RunningStat): void {
  el.querySelector('[data-sent]')!.textContent = stat.sent.toLocaleString('en-US');
  el.querySelector('[data-to-send]')!.textContent = stat.to_send.toLocaleString('en-US');
  const progress = el.querySelector('progress');
  if (progress) {
    const pct = stat.to_send > 0 ? Math.min(100, Math.round((stat.sent / stat.to_send) * 100)) : 0;
    progress.value = pct;
    progress.textContent = `${pct}%`;
  }
  const rate = el.querySelector('[data-rate]');
  if (rate) rate.textContent = `${stat.rate.toLocaleString('en-US')} / min`;
  const deferred = el.querySelector<HTMLElement>('[data-deferred]');
  if (!deferred) return;
  deferred.textContent = stat.deferred.toLocaleString('en-US');
  deferred.closest<HTMLElement>('[data-deferred-line]')!.hidden = stat.deferred === 0;
}

export const campaignsPage = component('campaignsPage', () => ({
  ...selection(),
  init(this: { initSelection(): void; watchProgress(): void }) {
    this.initSelection();
    this.watchProgress();
  },
  /**
   * While any row is running, update its progress every second; reload when one ends. Paused
   * rows show a progress bar too but are not watched: they are not in the running stats, so
   * watching them reloaded the page every second.
   */
  watchProgress(this: { $root: HTMLElement }) {
    const running = () => [...this.$root.querySelectorAll<HTMLElement>('tr[data-campaign][data-running]')];
    const idOf = (row: HTMLElement) => readData<CampaignRowData>(row).campaign;
    watchRunning(() => running().map(idOf), (id, stat) => showProgress(running().find((r) => idOf(r) === id)!, stat));
  },
  /** A start or a schedule asks with the count of subscribers and lists it goes to ("Send to 12,408 subscribers of 2 lists?"). */
  async changeStatus(this: { $event: Event }) {
    const b = readData<StatusButton>(clicked(this.$event));
    const plain = `${b.label}: "${b.name}"?`;
    const { question, details } = b.summary
      ? await startQuestion({ name: b.name, lists: listIds(b), type: b.type ?? 'regular', sendAt: b.sendAt || null, fallback: plain })
      : { question: plain, details: [] };
    if (!(await confirmAction(question, b.label, b.status === 'cancelled', details))) return;
    try {
      await api('PUT', `/api/campaigns/${b.id}/status`, { status: b.status });
      navigate(null, `"${b.name}" is now ${b.status}`);
    } catch (err) {
      notifyError(err);
    }
  },
  preview(this: { $event: Event }) {
    showPreview(`/api/campaigns/${readData<CampaignButton>(clicked(this.$event)).id}/preview`);
  },
  closePreview,
  async cloneOne(this: { $event: Event }) {
    const source = readData<CampaignButton>(clicked(this.$event));
    const name = await promptText('Name of the copy', `Copy of ${source.name}`, 'Clone');
    if (!name) return;
    try {
      const c = await api<Record<string, unknown> & { lists: { id: number | null }[]; send_at: string | null }>('GET', `/api/campaigns/${source.id}`);
      const body: Record<string, unknown> = { name, lists: c.lists.map((l) => l.id).filter((id) => id !== null) };
      for (const key of COPIED) body[key] = c[key];
      const created = await api<{ id: number }>('POST', '/api/campaigns', body);
      navigate(`/admin/campaigns/${created.id}`, `"${name}" created`);
    } catch (err) {
      notifyError(err);
    }
  },
  async deleteOne(this: { $event: Event }) {
    const c = readData<CampaignButton>(clicked(this.$event));
    if (!(await confirmAction(`Delete the campaign "${c.name}"?`, 'Delete'))) return;
    try {
      await api('DELETE', `/api/campaigns/${c.id}`);
      navigate(null, 'Campaign deleted');
    } catch (err) {
      notifyError(err);
    }
  },
  async deleteSelected(this: { matching: boolean; selectedIds(): number[] }) {
    try {
      let ids = this.selectedIds();
      if (this.matching) {
        const q = pageData<CampaignsQuery>('campaigns-query');
        const params = new URLSearchParams({ per_page: 'all', no_body: 'true', query: q.query });
        if (q.status) params.set('status', q.status);
        const page = await api<{ results: { id: number; status: string }[] }>('GET', `/api/campaigns?${params}`);
        ids = page.results.filter((c) => c.status !== 'running').map((c) => c.id);
      }
      const what = ids.length === 1 ? '1 campaign' : `${ids.length.toLocaleString('en-US')} campaigns`;
      if (!(await confirmAction(`Delete ${what}?`, 'Delete'))) return;
      await api('DELETE', `/api/campaigns?${ids.map((id) => `id=${id}`).join('&')}`);
      navigate(null, `${what} deleted`);
    } catch (err) {
      notifyError(err);
    }
  },
}));

/** Posts the campaign form's current (unsaved) content into the preview frame. */
function previewUnsaved(id: string): void {
  const source = document.getElementById('campaign-form') as HTMLFormElement;
  const values = formJson(source);
  const post = document.createElement('form');
  post.method = 'post';
  post.action = `/api/campaigns/${id}/preview`;
  post.target = 'preview-frame';
  for (const key of ['body', 'content_type', 'template_id']) {
    const input = document.createElement('input');
    input.type = 'hidden';
    input.name = key;
    input.value = values[key] === undefined || values[key] === null ? '' : String(values[key]);
    post.append(input);
  }
  document.body.append(post);
  post.submit();
  post.remove();
  showPreview(null);
}

/**
 * Switching the format converts the body (the API's converter), after asking: the conversion
 * may lose formatting. Refused or cancelled, the select goes back to the format the body is in.
 */
function convertOnFormatChange(id: string): void {
  const select = document.getElementById('c-format') as HTMLSelectElement | null;
  const body = document.getElementById('c-body') as HTMLTextAreaElement | null;
  if (!select || !body || select.disabled) return;
  let current = select.value;
  const restore = () => {
    select.value = current;
    select.dispatchEvent(new Event('change'));
  };
  select.addEventListener('change', async () => {
    const to = select.value;
    if (to === current) return;
    if (body.value.trim() && !(await confirmAction(`Convert the body from ${current} to ${to}? Some formatting may be lost.`, 'Convert', false))) {
      restore();
      return;
    }
    try {
      const converted = body.value.trim() ? await api<string>('POST', `/api/campaigns/${id}/content`, { from: current, to, body: body.value }) : body.value;
      current = to;
      body.value = converted;
      body.dispatchEvent(new Event('editor:reload'));
    } catch (err) {
      notifyError(err);
      restore();
    }
  });
}

/**
 * Fills the archive's stand-in subscriber with a sample of a subscriber's fields (the page's
 * `archive-sample`), asking first when there is something to replace.
 */
async function fillArchiveMeta(): Promise<void> {
  const meta = document.getElementById('archive-meta') as HTMLTextAreaElement;
  const current = meta.value.trim();
  if (current && current !== '{}' && !(await confirmAction('Replace the archive subscriber data with a sample subscriber?', 'Replace'))) return;
  meta.value = JSON.stringify(pageData<ArchiveSample>('archive-sample'), null, 2);
  meta.focus();
}

/**
 * A start or a schedule from the campaign's page: the summary counts the lists chosen in the
 * form, and what the form holds is saved first (as listmonk does), so what is sent is what is
 * shown. A refused save shows its message beside the field, and nothing starts.
 */
async function startFromPage(b: StatusButton): Promise<void> {
  const form = document.getElementById('campaign-form') as HTMLFormElement;
  const editable = form.querySelector('input[name="lists"]:not(:disabled)') !== null;
  const lists = [...form.querySelectorAll<HTMLInputElement>('input[name="lists"]:checked')].map((box) => Number(box.value));
  const sendAt = (form.querySelector<HTMLInputElement>('#c-send-at:not(:disabled)')?.value ?? '') || b.sendAt || '';
  const { question, details } = await startQuestion({
    name: b.name,
    lists: editable ? lists : listIds(b),
    type: b.type ?? 'regular', sendAt: sendAt ? new Date(sendAt).toISOString() : null, fallback: `${b.label}: "${b.name}"?`,
  });
  if (!(await confirmAction(question, b.label, false, details))) return;
  if (editable) {
    clearErrors(form);
    try {
      await api('PUT', readData<ApiFormData>(form).action, formJson(form));
    } catch (err) {
      showError(form, err);
      return;
    }
  }
  try {
    const done = await api<{ status: string }>('PUT', `/api/campaigns/${b.id}/status`, { status: b.status });
    navigate(null, `"${b.name}" is now ${done.status}`);
  } catch (err) {
    notifyError(err);
  }
}

/** One campaign's page: Ctrl+S saves, F9 previews what is in the editor, test sends, status changes. */
export const campaignPage = component('campaignPage', () => {
  const list = campaignsPage.make();
  return {
    init(this: { $root: HTMLElement }) {
      const { id, campaignStatus } = readData<CampaignPageData>(this.$root);
      // A running campaign's page follows its progress, and shows its new status once it ends.
      if (campaignStatus === 'running') watchRunning(() => [id ?? ''], (_, stat) => showProgress(this.$root, stat));
      // The converter does not depend on the campaign: a new one (no id yet) uses 0.
      convertOnFormatChange(id ?? '0');
      window.addEventListener('keydown', (e) => {
        if ((e.ctrlKey || e.metaKey) && e.key.toLowerCase() === 's') {
          e.preventDefault();
          (document.getElementById('campaign-form') as HTMLFormElement | null)?.requestSubmit();
        } else if (e.key === 'F9' && id) {
          e.preventDefault();
          previewUnsaved(id);
        }
      });
    },
    preview(this: { $root: HTMLElement }) {
      previewUnsaved(readData<CampaignPageData>(this.$root).id ?? '');
    },
    closePreview: list.closePreview,
    changeStatus(this: { $event: Event }) {
      const b = readData<StatusButton>(clicked(this.$event));
      return b.summary ? startFromPage(b) : list.changeStatus.call(this);
    },
    fillArchiveMeta,
    async sendTest(this: { $root: HTMLElement; $event: Event }) {
      this.$event.preventDefault();
      const form = this.$event.target as HTMLFormElement;
      clearErrors(form);
      const input = form.querySelector<HTMLInputElement>('input[name="subscribers"]')!;
      const subscribers = input.value.split(/[\s,;]+/).filter(Boolean);
      try {
        const campaign = formJson(document.getElementById('campaign-form') as HTMLFormElement);
        await api('POST', `/api/campaigns/${readData<CampaignPageData>(this.$root).id}/test`, { ...campaign, subscribers });
        notify(`Test sent to ${subscribers.join(', ')}`);
      } catch (err) {
        // Every refusal (the addresses, the permission, the campaign's own content) is about this test: beside its field.
        showError(form, err instanceof FieldError ? err : new FieldError(input.id, err instanceof Error ? err.message : String(err)));
      }
    },
  };
});
