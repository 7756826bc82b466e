// The settings page (admin.tsx beside it): tabs kept in the URL's hash and moved with the
// arrow keys; the form read back into settings (each control says which setting and path it
// edits, blocks are read in their order on the page), Save enabled once something differs from
// what the page loaded, and only the settings that changed sent to PUT /api/settings. A refusal
// is shown beside the control whose path the API's message names, on its tab, and nothing typed
// is lost. SMTP blocks are added, removed, filled from presets and tested; the bounce mailbox
// is scanned on demand; the logo can be picked from the media library.
import { api, ApiError, navigate, pageData } from '../admin/client/api.ts';
import { clicked } from '../admin/client/dialog.ts';
import { clearErrors, FieldError } from '../admin/client/form.ts';
import { pickMedia } from '../admin/client/media-picker.ts';
import { component, readData } from '../admin/client/component.ts';

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
type Json = Record<string, unknown>;

/** The page's data (`settings-data`). */
export interface PageSetup {
  /** Every setting, secrets blanked. */
  values: Json;
  /** A new block's starting values, by block setting. */
  blocks: Record<string, Json>;
}

interface ScanRecord {
  at: string;
  mailbox: string;
  ok: boolean;
  seen: number;
  bounces: number;
  error: string | null;
}

const BLOCKS = ['smtp', 'messengers', 'bounce.mailboxes'] as const;

/** How a control's value is read: as the setting's type, or one of a list's members, or the captcha choice. */
export type ControlKind = 'text' | 'int' | 'bool' | 'lines' | 'tags' | 'json' | 'secret' | 'select' | 'code' | 'multiline' | 'colour' | 'member' | 'captcha';

/** What a control carries: the setting it edits (none inside a block) and the path inside it or its block. */
export interface ControlData {
  kind: ControlKind;
  key?: string;
  sub?: string;
  /** What an empty JSON field stands for. */
  empty?: string;
  /** Other setting paths whose refusals are shown beside this control (comma-separated). */
  errorKeys?: string;
  /** A secret's: whether one is saved, and what it asks once it must be typed again. */
  secretSaved?: 'true';
  retype?: string;
}

/** What a block (an SMTP server, a messenger, the bounce mailbox) carries: its setting, the saved one's uuid, its id on the page. */
export interface BlockData {
  block: (typeof BLOCKS)[number];
  uuid: string;
  bid: string;
}

/** A tab's button, and its panel. */
export interface TabData {
  tab: string;
}
export interface PanelData {
  tabPanel: string;
}

/** An "Add" button: the blocks it adds to. */
export interface AddButton {
  add: 'smtp' | 'messengers';
}

/** The language pack's texts the script shows, carried by the form ({placeholders} filled here). */
export interface SettingsTexts {
  saved: string;
  unsaved: string;
  testNeedTo: string;
  testSending: string;
  testSent: string;
  scanning: string;
  scanOk: string;
  scanFailed: string;
}

/** What each preset fills in a server block (the relay's documented submission port and sign-in). */
const SMTP_PRESETS: Record<string, { host: string; port: number; tls_type: string; auth_protocol: string; username?: string }> = {
  // A relay on this machine (Postfix, OpenSMTPD, a provider's local agent) that takes mail without a sign-in.
  local: { host: 'localhost', port: 25, tls_type: 'none', auth_protocol: 'none', username: '' },
  ses: { host: 'email-smtp.us-east-1.amazonaws.com', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login' },
  mailgun: { host: 'smtp.mailgun.org', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login' },
  postmark: { host: 'smtp.postmarkapp.com', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login' },
  sendgrid: { host: 'smtp.sendgrid.net', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login', username: 'apikey' },
  brevo: { host: 'smtp-relay.brevo.com', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login' },
  gmail: { host: 'smtp.gmail.com', port: 465, tls_type: 'TLS', auth_protocol: 'login' },
  fastmail: { host: 'smtp.fastmail.com', port: 465, tls_type: 'TLS', auth_protocol: 'login' },
  azure: { host: 'smtp.azurecomm.net', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login' },
  mailjet: { host: 'in-v3.mailjet.com', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login' },
  forwardemail: { host: 'smtp.forwardemail.net', port: 465, tls_type: 'TLS', auth_protocol: 'login' },
  lettermint: { host: 'smtp.lettermint.co', port: 587, tls_type: 'STARTTLS', auth_protocol: 'login' },
};

const form = () => document.getElementById('settings-form') as HTMLFormElement;
/** A text of the language pack the page put on the form (data-*), its {placeholders} filled. */
const text = (name: keyof SettingsTexts, params: Record<string, string | number> = {}) =>
  readData<SettingsTexts>(form())[name].replace(/\{(\w+)\}/g, (m, k: string) => (k in params ? String(params[k]) : m));

function readControl(el: Control): unknown {
  const data = readData<ControlData>(el);
  switch (data.kind) {
    case 'bool':
      return (el as HTMLInputElement).checked;
    case 'int': {
      const v = el.value.trim();
      // Anything but a whole number goes as typed, for the API to say what is wrong with it.
      return v === '' ? null : /^-?\d+$/.test(v) ? Number(v) : v;
    }
    case 'lines':
      return el.value.split('\n').map((s) => s.trim()).filter(Boolean);
    case 'tags':
      return el.value.split(',').map((s) => s.trim()).filter(Boolean);
    case 'json':
      try {
        return JSON.parse(el.value.trim() || (data.empty ?? '[]'));
      } catch (err) {
        throw new FieldError(el.id, `Not valid JSON: ${(err as Error).message}`);
      }
    default:
      return el.value;
  }
}

function setPath(target: Json, path: string, value: unknown): void {
  const parts = path.split('.');
  let cur = target;
  for (const p of parts.slice(0, -1)) cur = (cur[p] ??= {}) as Json;
  cur[parts[parts.length - 1]] = value;
}

/** One block as the form has it: its saved values (by uuid) or a new block's, with the controls' values over them. */
function blockValue(el: HTMLElement, key: string, setup: PageSetup): Json {
  const block = structuredClone(savedBlock(el, key, setup) ?? setup.blocks[key] ?? {});
  el.querySelectorAll<Control>('[data-sub]').forEach((c) => setPath(block, readData<ControlData>(c).sub ?? '', readControl(c)));
  return block;
}

/** The saved block of `el` (by its uuid), or undefined for a block added on this page. */
function savedBlock(el: HTMLElement, key: string, setup: PageSetup): Json | undefined {
  const { uuid } = readData<BlockData>(el);
  return ((setup.values[key] as Json[]) ?? []).find((b) => uuid && b.uuid === uuid);
}

/** The fields a saved SMTP password is bound to (the API keeps it only while they are unchanged). */
const PASSWORD_BINDING = ['host', 'port', 'username', 'tls_type', 'tls_skip_verify'] as const;

/**
 * A saved password's field says "saved" only while it would be used: once the server's host,
 * port, user name or TLS differ from the saved ones, it asks for the password again.
 */
function showPasswordState(block: HTMLElement, setup: PageSetup): void {
  const input = block.querySelector<HTMLInputElement>('input[data-sub="password"][data-secret-saved]');
  const saved = savedBlock(block, 'smtp', setup);
  if (!input || !saved) return;
  const now = blockValue(block, 'smtp', setup);
  const moved = PASSWORD_BINDING.some((k) => (k === 'host' ? String(now.host).trim().toLowerCase() !== String(saved.host).trim().toLowerCase() : now[k] !== saved[k]));
  input.dataset.savedText ??= input.placeholder;
  input.placeholder = moved ? readData<ControlData>(input).retype ?? '' : input.dataset.savedText;
}

/** Every setting as the form has it now. */
function formSettings(f: HTMLFormElement): Json {
  const setup = pageData<PageSetup>('settings-data');
  const out = structuredClone(setup.values);
  const members = new Map<string, string[]>();
  f.querySelectorAll<Control>('[data-key]').forEach((el) => {
    const { key = '', sub = '', kind } = readData<ControlData>(el);
    if (kind === 'member') {
      const list = members.get(key) ?? [];
      if ((el as HTMLInputElement).checked) list.push(el.value);
      members.set(key, list);
    } else if (kind === 'captcha') {
      const captcha = out[key] as { altcha: Json; hcaptcha: Json };
      captcha.altcha.enabled = el.value === 'altcha';
      captcha.hcaptcha.enabled = el.value === 'hcaptcha';
    } else if (sub) setPath(out[key] as Json, sub, readControl(el));
    else out[key] = readControl(el);
  });
  for (const [key, list] of members) out[key] = list;
  for (const key of BLOCKS) {
    const blocks = [...f.querySelectorAll<HTMLElement>(`[data-block="${key}"]`)].map((el) => blockValue(el, key, setup));
    // The page edits the first mailbox; any others are kept as they are.
    out[key] = key === 'bounce.mailboxes' ? [...blocks, ...((setup.values[key] as Json[]) ?? []).slice(blocks.length)] : blocks;
  }
  return out;
}

/** Block controls are named by their position (`smtp[1].port`), as the API's messages name them. */
function renumber(f: HTMLFormElement): void {
  for (const key of BLOCKS) {
    f.querySelectorAll<HTMLElement>(`[data-block="${key}"]`).forEach((block, i) => {
      block.querySelectorAll<Control>('[data-sub]').forEach((c) => (c.name = `${key}[${i}].${readData<ControlData>(c).sub}`));
    });
  }
}

/** The control a refusal is about: the one its first quoted path names, else the first under that path. */
function controlFor(f: HTMLFormElement, err: unknown): Control | null {
  const controls = [...f.querySelectorAll<Control>('input[name],select[name],textarea[name]')];
  if (err instanceof FieldError) return controls.find((el) => el.id === err.field) ?? null;
  if (!(err instanceof ApiError)) return null;
  const key = /"([^"]+)"/.exec(err.message)?.[1];
  if (!key) return null;
  return controls.find((el) => el.name === key)
    ?? controls.find((el) => (readData<ControlData>(el).errorKeys ?? '').split(',').includes(key))
    ?? controls.find((el) => el.name.startsWith(`${key}.`) || el.name.startsWith(`${key}[`))
    ?? null;
}

function setTab(name: string, focusTab = false): void {
  const f = form();
  const tabs = [...f.querySelectorAll<HTMLElement>('[role=tab]')];
  const tabName = (t: HTMLElement) => readData<TabData>(t).tab;
  const tab = tabs.find((t) => tabName(t) === name) ?? tabs[0];
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute('aria-selected', on ? 'true' : 'false');
    t.tabIndex = on ? 0 : -1;
  }
  f.querySelectorAll<HTMLElement>('[data-tab-panel]').forEach((p) => (p.hidden = readData<PanelData>(p).tabPanel !== tabName(tab)));
  if (focusTab) tab.focus();
  if (window.location.hash !== `#${tabName(tab)}`) history.replaceState(null, '', `#${tabName(tab)}`);
}

/** Shows a refusal beside its control (switching to its tab), else in the form's alert. */
function showSettingsError(f: HTMLFormElement, err: unknown): void {
  const message = err instanceof Error ? err.message : String(err);
  const target = controlFor(f, err);
  const slot = target ? f.querySelector<HTMLElement>(`[data-error-for="${target.id}"]`) : null;
  if (!target || !slot) {
    const alert = f.querySelector<HTMLElement>('[data-error-for="_form"]');
    if (alert) alert.textContent = message;
    return;
  }
  slot.textContent = message;
  target.setAttribute('aria-invalid', 'true');
  const panel = target.closest<HTMLElement>('[data-tab-panel]');
  if (panel) setTab(readData<PanelData>(panel).tabPanel);
  target.focus();
}

function showCaptchaFields(f: HTMLFormElement): void {
  const mode = f.querySelector<HTMLSelectElement>('[data-kind=captcha]')?.value ?? 'off';
  f.querySelectorAll<HTMLElement>('.captcha-altcha').forEach((el) => (el.hidden = mode !== 'altcha'));
  f.querySelectorAll<HTMLElement>('.captcha-hcaptcha').forEach((el) => (el.hidden = mode !== 'hcaptcha'));
}

let nextBlock = 1;

interface State {
  dirty: boolean;
  busy: boolean;
  scanning: boolean;
  status: string;
  initial: Record<string, string>;
  $event: Event;
  changed(): void;
}

export const settingsPage = component('settingsPage', () => ({
  dirty: false,
  busy: false,
  scanning: false,
  status: '',
  initial: {} as Record<string, string>,
  init(this: State) {
    const f = form();
    const values = formSettings(f);
    this.initial = Object.fromEntries(Object.entries(values).map(([k, v]) => [k, JSON.stringify(v)]));
    showCaptchaFields(f);
    setTab(window.location.hash.slice(1) || 'general');
    window.addEventListener('hashchange', () => setTab(window.location.hash.slice(1)));
    // Leaving with unsaved changes asks first (returnValue for browsers that ignore preventDefault).
    window.addEventListener('beforeunload', (e) => {
      if (!this.dirty || this.busy) return;
      e.preventDefault();
      e.returnValue = '';
    });
  },
  /** The keys whose values differ from the page's; every key when the form cannot be read (a JSON field mid-edit). */
  changedKeys(this: State): string[] | null {
    try {
      const now = formSettings(form());
      return Object.keys(now).filter((k) => JSON.stringify(now[k]) !== this.initial[k]);
    } catch {
      return null;
    }
  },
  changed(this: State & { changedKeys(): string[] | null }) {
    // A field being corrected loses its refusal.
    const el = this.$event?.target as HTMLElement | undefined;
    if (el?.getAttribute?.('aria-invalid')) {
      el.removeAttribute('aria-invalid');
      const slot = form().querySelector<HTMLElement>(`[data-error-for="${el.id}"]`);
      if (slot) slot.textContent = '';
    }
    // A block's heading follows its host (SMTP) or name (messengers).
    const block = el?.closest?.<HTMLElement>('[data-block]');
    const blockKey = block ? readData<BlockData>(block).block : undefined;
    const sub = el?.dataset ? readData<ControlData>(el).sub : undefined;
    if (block && sub === (blockKey === 'messengers' ? 'name' : 'host')) {
      const title = block.querySelector('[data-block-title]');
      if (title) title.textContent = (el as Control).value;
    }
    if (block && blockKey === 'smtp' && sub) {
      // A changed server is no longer the one tested: its offer to enable and save goes.
      const offer = block.querySelector<HTMLElement>('[data-enable-save]');
      if (offer) offer.hidden = true;
      showPasswordState(block, pageData<PageSetup>('settings-data'));
    }
    const keys = this.changedKeys();
    this.dirty = keys === null || keys.length > 0;
    this.status = this.dirty ? text('unsaved') : '';
  },
  // Getters: the page binds them as values (x-bind:disabled="cannotSave").
  get cannotSave(): boolean {
    return !this.dirty || this.busy;
  },
  get scanBlocked(): boolean {
    return this.dirty || this.scanning;
  },
  async save(this: State & { saveChanges(): Promise<void> }) {
    this.$event.preventDefault();
    await this.saveChanges();
  },
  /** Sends the settings that differ from the page's; a refusal is shown beside its control. */
  async saveChanges(this: State) {
    const f = form();
    clearErrors(f);
    if (!this.dirty || this.busy) return;
    this.busy = true;
    try {
      const now = formSettings(f);
      const body = Object.fromEntries(Object.keys(now).filter((k) => JSON.stringify(now[k]) !== this.initial[k]).map((k) => [k, now[k]]));
      await api('PUT', '/api/settings', body);
      navigate(null, text('saved'));
    } catch (err) {
      showSettingsError(f, err);
      this.busy = false;
    }
  },
  selectTab(this: State) {
    setTab(readData<TabData>(clicked(this.$event)).tab);
  },
  tabKey(this: State) {
    const e = this.$event as KeyboardEvent;
    const tabs = [...form().querySelectorAll<HTMLElement>('[role=tab]')];
    const at = tabs.findIndex((t) => t.getAttribute('aria-selected') === 'true');
    const next = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    setTab(readData<TabData>(tabs[(next + tabs.length) % tabs.length]).tab, true);
  },
  captchaChanged() {
    showCaptchaFields(form());
  },
  /** The logo from the media library (an image), into the logo's field. */
  async pickLogo(this: State) {
    const trigger = clicked(this.$event);
    const picked = await pickMedia({ title: 'Choose the logo', verb: 'Choose', images: true });
    trigger.focus();
    if (!picked) return;
    const field = form().querySelector<HTMLInputElement>('[data-key="app.logo_url"]')!;
    field.value = picked.url;
    field.dispatchEvent(new Event('input', { bubbles: true }));
  },
  addBlock(this: State) {
    const key = readData<AddButton>(clicked(this.$event)).add;
    const template = document.getElementById(`${key}-template`) as HTMLTemplateElement;
    const block = (template.content.cloneNode(true) as DocumentFragment).firstElementChild as HTMLElement;
    const bid = `n${nextBlock++}`;
    for (const el of [block, ...block.querySelectorAll('*')]) {
      for (const attr of [...el.attributes]) if (attr.value.includes('__b__')) attr.value = attr.value.replaceAll('__b__', bid);
    }
    const f = form();
    f.querySelector(`[data-blocks="${key}"]`)?.append(block);
    f.querySelector(`[data-none="${key}"]`)?.remove();
    renumber(f);
    this.changed();
    block.querySelector<HTMLElement>('input[type=text]')?.focus();
  },
  removeBlock(this: State) {
    clicked(this.$event).closest('[data-block]')?.remove();
    renumber(form());
    this.changed();
  },
  applyPreset(this: State) {
    const select = this.$event.target as HTMLSelectElement;
    const preset = SMTP_PRESETS[select.value];
    const block = select.closest<HTMLElement>('[data-block]');
    if (!preset || !block) return;
    for (const [sub, value] of Object.entries(preset)) {
      const el = block.querySelector<Control>(`[data-sub="${sub}"]`);
      if (el) el.value = String(value);
    }
    this.changed();
  },
  async testSmtp(this: State) {
    const block = clicked(this.$event).closest<HTMLElement>('[data-block]');
    if (!block) return;
    const to = block.querySelector<HTMLInputElement>('[data-test-to]')?.value.trim() ?? '';
    const result = block.querySelector<HTMLElement>('[data-test-result]')!;
    result.className = 'test-result';
    if (!to) {
      result.textContent = text('testNeedTo');
      return;
    }
    result.textContent = text('testSending');
    try {
      const server = blockValue(block, 'smtp', pageData<PageSetup>('settings-data'));
      await api('POST', '/api/settings/smtp/test', { ...server, email: to });
      result.textContent = text('testSent', { server: `${server.host}:${server.port}`, email: to });
      result.classList.add('ok');
      // A server that works but is not saved, or not enabled, is one click from sending.
      const saved = savedBlock(block, 'smtp', pageData<PageSetup>('settings-data'));
      const offer = block.querySelector<HTMLElement>('[data-enable-save]');
      if (offer) offer.hidden = server.enabled === true && saved !== undefined && JSON.stringify(saved) === JSON.stringify(blockValue(block, 'smtp', pageData<PageSetup>('settings-data')));
    } catch (err) {
      if (err instanceof FieldError) {
        showSettingsError(form(), err);
        result.textContent = '';
        return;
      }
      result.textContent = err instanceof Error ? err.message : String(err);
      result.classList.add('error');
    }
  },
  /** After a successful test: ticks the server's Enabled and saves the page. */
  async enableAndSave(this: State & { saveChanges(): Promise<void> }) {
    const block = clicked(this.$event).closest<HTMLElement>('[data-block]');
    const enabled = block?.querySelector<HTMLInputElement>('[data-sub="enabled"]');
    if (!block || !enabled) return;
    enabled.checked = true;
    this.changed();
    await this.saveChanges();
  },
  async scanNow(this: State) {
    const out = document.getElementById('scan-result')!;
    this.scanning = true;
    out.textContent = text('scanning');
    try {
      const r = await api<ScanRecord>('POST', '/api/bounces/scan');
      const when = new Date(r.at).toLocaleString();
      out.textContent = `${when} · ${r.mailbox} · ${r.ok ? text('scanOk', { seen: r.seen, bounces: r.bounces }) : text('scanFailed', { error: r.error ?? '' })}`;
    } catch (err) {
      out.textContent = err instanceof Error ? err.message : String(err);
    } finally {
      this.scanning = false;
    }
  },
}));
