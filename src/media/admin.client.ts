// The media page: files dropped or chosen are uploaded one request each (POST /api/media, the
// API takes one file per request), with a progress bar per file and the API's refusal beside
// the file it is about; delete asks first.
import { api, ApiError, navigate, notifyError } from '../admin/client/api.ts';
import { confirmAction } from '../admin/client/dialog.ts';
import { component, readData } from '../admin/client/component.ts';

interface Upload {
  id: number;
  name: string;
  percent: number;
  label: string;
  status: string;
  tone: string;
  state: 'sending' | 'done' | 'failed';
  /** The progress bar shows while sending and after success; a refused file shows its reason alone. */
  showBar: boolean;
}

/** Sends one file with XMLHttpRequest (fetch reports no upload progress). */
function send(file: File, progress: (percent: number) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/api/media');
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.addEventListener('progress', (e) => {
      if (e.lengthComputable) progress(Math.round((e.loaded / e.total) * 100));
    });
    xhr.addEventListener('load', () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let message = `${xhr.status} ${xhr.statusText}`;
      try {
        message = (JSON.parse(xhr.responseText) as { message?: string }).message ?? message;
      } catch {
        /* not JSON: the status line says it */
      }
      reject(new ApiError(message, xhr.status));
    });
    xhr.addEventListener('error', () => reject(new ApiError('The server could not be reached. Check your connection and try again.', 0)));
    const body = new FormData();
    body.append('file', file);
    xhr.send(body);
  });
}

let nextId = 0;

/** What a file's delete button carries. */
export interface MediaButton {
  id: string;
  name: string;
}

export const mediaPage = component('mediaPage', () => ({
  uploads: [] as Upload[],
  over: false,
  dropClass(this: { over: boolean }) {
    return this.over ? 'over' : '';
  },
  dragOver(this: { $event: DragEvent; over: boolean }) {
    this.$event.preventDefault();
    this.over = true;
  },
  dragLeave(this: { over: boolean }) {
    this.over = false;
  },
  drop(this: { $event: DragEvent; over: boolean; upload(files: File[]): Promise<void> }) {
    this.$event.preventDefault();
    this.over = false;
    void this.upload([...(this.$event.dataTransfer?.files ?? [])]);
  },
  chosen(this: { $event: Event; upload(files: File[]): Promise<void> }) {
    const input = this.$event.target as HTMLInputElement;
    const files = [...(input.files ?? [])];
    input.value = '';
    void this.upload(files);
  },
  /** All files at once, each with its own bar; when every one is stored, the page reloads to show them. */
  async upload(this: { uploads: Upload[] }, files: File[]) {
    if (files.length === 0) return;
    const started = files.map((file) => {
      this.uploads.push({ id: ++nextId, name: file.name, percent: 0, label: `Upload of ${file.name}`, status: 'Sending…', tone: 'muted', state: 'sending', showBar: true });
      // The reactive copy: changes through it update the page.
      return { file, u: this.uploads[this.uploads.length - 1] };
    });
    await Promise.all(started.map(async ({ file, u }) => {
      try {
        await send(file, (percent) => (u.percent = percent));
        Object.assign(u, { percent: 100, status: 'Uploaded', tone: 'muted', state: 'done' });
      } catch (err) {
        Object.assign(u, { status: err instanceof Error ? err.message : String(err), tone: 'field-error', state: 'failed', showBar: false });
      }
    }));
    if (this.uploads.every((u) => u.state === 'done')) {
      const n = this.uploads.length;
      navigate(null, n === 1 ? '1 file uploaded' : `${n} files uploaded`);
    }
  },
  /** After some uploads failed, the ones that worked are shown on request (the messages stay until then). */
  showReload(this: { uploads: Upload[] }) {
    return this.uploads.some((u) => u.state === 'done') && this.uploads.every((u) => u.state !== 'sending');
  },
  reload() {
    navigate(null);
  },
  async deleteOne(this: { $event: Event }) {
    const file = readData<MediaButton>(this.$event.currentTarget as HTMLElement);
    if (!(await confirmAction(`Delete the file "${file.name}"? Campaigns that show it will show a broken image.`, 'Delete'))) return;
    try {
      await api('DELETE', `/api/media/${file.id}`);
      navigate(null, `"${file.name}" deleted`);
    } catch (err) {
      notifyError(err);
    }
  },
}));
