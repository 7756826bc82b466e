// The subscription form builder: the HTML to paste into a web page, for the public lists
// chosen, with the honeypot, the captcha widget the settings ask for, a redirect, and (when
// ticked) a minimal style block in the brand's accent colour. The preview shows that HTML in a
// sandboxed frame (no scripts, no forms), under the admin's CSP: its style block carries the
// page's nonce there, the only difference from the snippet.
import { notify, pageData } from '../admin/client/api.ts';
import { component } from '../admin/client/component.ts';

/** What the form builder's page hands its script (`forms-data`). */
export interface FormsData {
  root: string;
  captcha: 'altcha' | 'hcaptcha' | null;
  hcaptchaKey: string;
  lists: { uuid: string; name: string }[];
  labels: { email: string; name: string; subscribe: string };
  /** The brand's accent colour (#rrggbb), for the style block's button. */
  accent: string;
}

/** The minimal style block: the form's fields stacked, full width, with an accent-coloured button; every rule scoped to the form. */
export function formStyle(accent: string): string {
  const colour = /^#[0-9a-f]{6}$/i.test(accent) ? accent : '#0b57d0';
  return [
    '<style>',
    '  .listmgr-form { max-width: 26rem; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }',
    '  .listmgr-form div { margin: 0 0 .8rem; }',
    '  .listmgr-form label { display: block; margin: 0 0 .25rem; font-weight: 600; }',
    '  .listmgr-form input[type=email], .listmgr-form input[type=text] { box-sizing: border-box; width: 100%; padding: .55rem .65rem; border: 1px solid #7d8595; border-radius: .4rem; font: inherit; }',
    '  .listmgr-form input[type=checkbox] + label { display: inline; font-weight: 400; }',
    `  .listmgr-form button { padding: .6rem 1.2rem; border: 0; border-radius: .4rem; background: ${colour}; color: #fff; font: inherit; font-weight: 600; cursor: pointer; }`,
    '</style>',
  ].join('\n');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function formSnippet(d: FormsData, chosen: string[], redirect: string, styled = false): string {
  const lists = d.lists.filter((l) => chosen.includes(l.uuid));
  const lines = [
    ...(styled ? [formStyle(d.accent)] : []),
    `<form method="post" action="${escapeHtml(d.root)}/subscription/form" class="listmgr-form">`,
    '  <div>',
    `    <label for="lm-email">${escapeHtml(d.labels.email)}</label>`,
    '    <input type="email" id="lm-email" name="email" required>',
    '  </div>',
    '  <div>',
    `    <label for="lm-name">${escapeHtml(d.labels.name)}</label>`,
    '    <input type="text" id="lm-name" name="name">',
    '  </div>',
    '  <!-- A field people never see: bots fill it in, and such sign-ups are refused. -->',
    '  <input type="text" name="nonce" value="" tabindex="-1" autocomplete="off" hidden>',
    ...lists.map((l, i) => `  <div><input type="checkbox" id="lm-l${i}" name="l" value="${escapeHtml(l.uuid)}" checked> <label for="lm-l${i}">${escapeHtml(l.name)}</label></div>`),
  ];
  if (redirect) lines.push(`  <input type="hidden" name="next" value="${escapeHtml(redirect)}">`);
  if (d.captcha === 'altcha') {
    lines.push(`  <altcha-widget challengeurl="${escapeHtml(d.root)}/api/public/captcha/altcha" name="altcha"></altcha-widget>`);
  } else if (d.captcha === 'hcaptcha') {
    lines.push(`  <div class="h-captcha" data-sitekey="${escapeHtml(d.hcaptchaKey)}"></div>`);
  }
  lines.push(`  <button type="submit">${escapeHtml(d.labels.subscribe)}</button>`, '</form>');
  if (d.captcha === 'altcha') lines.push(`<script src="${escapeHtml(d.root)}/public/static/altcha.umd.js" defer></script>`);
  else if (d.captcha === 'hcaptcha') lines.push('<script src="https://js.hcaptcha.com/1/api.js" async defer></script>');
  return lines.join('\n');
}

interface FormsState {
  data: FormsData | null;
  chosen: string[];
  redirect: string;
  styled: boolean;
  preview(): void;
  snippet(): string;
  $watch(key: string, fn: () => void): void;
}

export const formsPage = component('formsPage', () => ({
  chosen: [] as string[],
  redirect: '',
  styled: false,
  data: null as FormsData | null,
  init(this: FormsState) {
    this.data = pageData<FormsData>('forms-data');
    this.chosen = this.data.lists.map((l) => l.uuid);
    this.preview();
    for (const key of ['chosen', 'redirect', 'styled']) this.$watch(key, () => this.preview());
  },
  /**
   * The preview frame is set from here: the CSP build of Alpine does not bind to iframes. A
   * srcdoc frame lives under this page's CSP, which takes a style block with its nonce only.
   */
  preview(this: FormsState) {
    const frame = document.getElementById('form-preview') as HTMLIFrameElement | null;
    const nonce = document.querySelector<HTMLElement>('style[nonce], script[nonce]')?.nonce ?? '';
    if (frame) frame.srcdoc = this.snippet().replace('<style>', `<style nonce="${nonce}">`);
  },
  snippet(this: FormsState) {
    return this.data ? formSnippet(this.data, this.chosen, this.redirect, this.styled) : '';
  },
  async copySnippet(this: FormsState) {
    try {
      await navigator.clipboard.writeText(this.snippet());
      notify('Copied');
    } catch {
      notify('Copying was refused by the browser; select the text and copy it instead.', 'error');
    }
  },
}));
