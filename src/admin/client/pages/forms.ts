// The subscription form builder: the HTML to paste into a web page, for the public lists
// chosen, with the honeypot, the captcha widget the settings ask for, and a redirect.
import { notify, pageData } from '../api.ts';

interface FormsData {
  root: string;
  captcha: 'altcha' | 'hcaptcha' | null;
  hcaptchaKey: string;
  lists: { uuid: string; name: string }[];
  labels: { email: string; name: string; subscribe: string };
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

export function formSnippet(d: FormsData, chosen: string[], redirect: string): string {
  const lists = d.lists.filter((l) => chosen.includes(l.uuid));
  const lines = [
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

export function formsPage() {
  return {
    chosen: [] as string[],
    redirect: '',
    data: null as FormsData | null,
    init(this: { data: FormsData | null; chosen: string[]; preview(): void; $watch(key: string, fn: () => void): void }) {
      this.data = pageData<FormsData>('forms-data');
      this.chosen = this.data.lists.map((l) => l.uuid);
      this.preview();
      this.$watch('chosen', () => this.preview());
      this.$watch('redirect', () => this.preview());
    },
    /** The preview frame is set from here: the CSP build of Alpine does not bind to iframes. */
    preview(this: { snippet(): string }) {
      const frame = document.getElementById('form-preview') as HTMLIFrameElement | null;
      if (frame) frame.srcdoc = this.snippet();
    },
    snippet(this: { data: FormsData | null; chosen: string[]; redirect: string }) {
      return this.data ? formSnippet(this.data, this.chosen, this.redirect) : '';
    },
    async copySnippet(this: { snippet(): string }) {
      try {
        await navigator.clipboard.writeText(this.snippet());
        notify('Copied');
      } catch {
        notify('Copying was refused by the browser; select the text and copy it instead.', 'error');
      }
    },
  };
}
