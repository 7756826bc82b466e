// PLACEHOLDER until the template engine (src/templating/) is merged into main: a tiny
// substitution renderer covering the actions campaigns use most (.Subscriber/.Campaign/.Tx
// fields, TrackLink and its @TrackLink shorthand, TrackView, UnsubscribeURL, ManageURL,
// MessageURL, OptinURL, RootURL, the "content" placeholder). Replaced wholesale by an adapter
// over the real engine; nothing else imports this file.
import { marked } from 'marked';
import { RenderError, ZERO_UUID, type CompiledCampaign, type CompiledTx, type RenderCampaign, type RenderEnv, type RenderSubscriber } from './render.ts';

const ACTION = /\{\{-?\s*(.*?)\s*-?\}\}/gs;
const CONTENT = /\{\{\s*template\s+"content"\s+\.\s*\}\}/g;
const ESC: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&#34;', "'": '&#39;' };
const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ESC[c]);

function checkBalanced(src: string, what: string): void {
  const opens = src.split('{{').length - 1;
  const closes = src.split('}}').length - 1;
  if (opens !== closes) throw new RenderError(`${what}: unclosed action`);
}

/** listmonk's `https://x@TrackLink` shorthand → the TrackLink action. */
const shorthand = (src: string) => src.replace(/(https?:\/\/[^\s"'<>]+?)@TrackLink/g, '{{ TrackLink "$1" . }}');

const firstName = (n: string) => n.split(' ').find((p) => Buffer.byteLength(p) > 2) ?? n;
const lastName = (n: string) => [...n.split(' ')].reverse().find((p) => Buffer.byteLength(p) > 2) ?? n;

interface Dot {
  sub: RenderSubscriber;
  campaign: RenderCampaign | null;
  tx: Record<string, unknown> | null;
  content: string;
}

function field(path: string[], dot: Dot): unknown {
  const [head, ...rest] = path;
  let v: unknown;
  if (head === 'Subscriber') {
    const s = dot.sub;
    const top: Record<string, unknown> = { ID: s.id, UUID: s.uuid, Email: s.email, Name: s.name, Attribs: s.attribs, Status: s.status, FirstName: firstName(s.name), LastName: lastName(s.name) };
    v = top[rest[0]];
    rest.shift();
  } else if (head === 'Campaign' && dot.campaign) {
    const c = dot.campaign;
    const top: Record<string, unknown> = { ID: c.id, UUID: c.uuid, Name: c.name, Subject: c.subject, FromEmail: c.from_email, Attribs: c.attribs, Tags: c.tags };
    v = top[rest[0]];
    rest.shift();
  } else if (head === 'Tx' && dot.tx) {
    v = dot.tx[rest[0]];
    rest.shift();
  } else throw new RenderError(`can't evaluate field ${head}`);
  for (const k of rest) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v ?? '<no value>';
}

function run(src: string, dot: Dot, env: RenderEnv, html: boolean): string {
  const campUuid = dot.campaign?.uuid ?? ZERO_UUID;
  const trackUuid = env.individualTracking ? dot.sub.uuid : ZERO_UUID;
  const out = (s: string) => (html ? esc(s) : s);
  return src.replace(ACTION, (_m, expr: string) => {
    if (/^template\s+"content"/.test(expr)) return dot.content;
    let m = /^\.([A-Za-z0-9_.]+)$/.exec(expr);
    if (m) {
      const v = field(m[1].split('.'), dot);
      return out(typeof v === 'object' ? JSON.stringify(v) : String(v));
    }
    m = /^TrackLink\s+"([^"]*)"\s+\.$/.exec(expr);
    if (m) return env.disableTracking ? m[1] : (env.trackLink(m[1].replaceAll('&amp;', '&'), campUuid, trackUuid) ?? m[1]);
    if (/^TrackView\s+\.$/.test(expr)) {
      return env.disableTracking ? '' : `<img src="${env.rootUrl}/campaign/${campUuid}/${trackUuid}/px.png" alt="" width="1" height="1" style="display:none">`;
    }
    if (/^UnsubscribeURL\s+\.$/.test(expr)) return `${env.rootUrl}/subscription/${campUuid}/${dot.sub.uuid}`;
    if (/^ManageURL\s+\.$/.test(expr)) return `${env.rootUrl}/subscription/${campUuid}/${dot.sub.uuid}?manage=true`;
    if (/^MessageURL\s+\.$/.test(expr)) return `${env.rootUrl}/campaign/${campUuid}/${dot.sub.uuid}`;
    if (/^OptinURL\s+\.$/.test(expr)) return `${env.rootUrl}/subscription/optin/${dot.sub.uuid}?`;
    if (expr === 'RootURL') return env.rootUrl;
    throw new RenderError(`unsupported template action "{{ ${expr} }}"`);
  });
}

export function compileCampaign(c: RenderCampaign, layout: string | null, env: RenderEnv): CompiledCampaign {
  let body = c.content_type === 'markdown' ? (marked.parse(c.body, { async: false }) as string) : c.body;
  body = shorthand(body);
  const base = c.content_type === 'visual' || !layout ? '{{ template "content" . }}' : shorthand(layout);
  for (const [src, what] of [[body, 'body'], [base, 'template'], [c.subject, 'subject'], [c.altbody ?? '', 'altbody']] as const) checkBalanced(src, what);
  if (base !== '{{ template "content" . }}' && !CONTENT.test(base)) throw new RenderError('template: the {{ template "content" . }} placeholder is missing');
  return {
    render(sub) {
      const dot: Dot = { sub, campaign: c, tx: null, content: '' };
      dot.content = run(body, dot, env, true);
      return {
        subject: run(c.subject, dot, env, false),
        html: run(base, dot, env, true),
        altbody: c.altbody ? run(c.altbody, dot, env, false) : null,
        headers: c.headers.map((h) => Object.fromEntries(Object.entries(h).map(([k, v]) => [k, run(String(v), dot, env, false)]))),
      };
    },
  };
}

export function compileTx(subject: string, body: string, altbody: string | null, env: RenderEnv): CompiledTx {
  for (const [src, what] of [[body, 'body'], [subject, 'subject'], [altbody ?? '', 'altbody']] as const) checkBalanced(src, what);
  return {
    render(sub, tx) {
      const dot: Dot = { sub, campaign: null, tx, content: '' };
      return { subject: run(subject, dot, env, false), body: run(body, dot, env, true), altbody: altbody ? run(altbody, dot, env, false) : null };
    },
  };
}
