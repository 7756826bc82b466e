// listmonk's own template functions and the three function sets (generic, campaign,
// system) that decide which names a template may use.

import type { ArchivePageInfo, BrandInfo, RenderContext, I18nCatalog } from '../context.ts';
import { ExecError, type FuncDef } from '../exec.ts';
import { formatGoTime, localTime } from '../gotime.ts';
import { formatV, goTypeName, SafeHTML, struct, variadic } from '../value.ts';

export const DUMMY_UUID = '00000000-0000-0000-0000-000000000000';

export function rootURL(ctx: RenderContext): string {
  const url = ctx.rootURL ?? '';
  return url.endsWith('/') ? url.replace(/\/+$/, '') : url;
}

interface CampaignMessage {
  Subscriber?: { UUID?: unknown };
  Campaign?: { UUID?: unknown };
}

/** Checks that a function got the campaign message passed as `.`. */
function campaignMessage(msg: unknown): CampaignMessage {
  if (msg === null || typeof msg !== 'object' || !('Subscriber' in msg)) {
    throw new ExecError(`wrong type for value; expected *manager.CampaignMessage; got ${goTypeName(msg)}`);
  }
  return msg as CampaignMessage;
}

function campaignUUID(msg: CampaignMessage): string {
  return String(msg.Campaign?.UUID ?? '');
}

function subscriberUUID(msg: CampaignMessage): string {
  return String(msg.Subscriber?.UUID ?? '');
}

function trackingUUID(ctx: RenderContext, msg: CampaignMessage): string {
  return ctx.individualTracking ? subscriberUUID(msg) : DUMMY_UUID;
}

function nowLocal(ctx: RenderContext) {
  return localTime((ctx.now ? ctx.now() : new Date()).getTime());
}

const i18nStructs = new WeakMap<I18nCatalog, object>();
const EMPTY_CATALOG: I18nCatalog = { code: '', name: '', messages: {} };

function singular(s: string): string {
  return s.includes('|') ? s.split('|')[0].trim() : s;
}

function plural(s: string): string {
  if (!s.includes('|')) return s;
  const parts = s.split('|');
  return (parts.length === 2 ? parts[1] : parts[0]).trim();
}

/** listmonk's *i18n.I18n as templates see it: L.T, L.Ts, L.Tc, L.Code, L.Name. */
function i18nStruct(cat: I18nCatalog): object {
  let s = i18nStructs.get(cat);
  if (s) return s;
  // One Map lookup per translation instead of hasOwn plus a read of a large dictionary object.
  const msgs = new Map(Object.entries(cat.messages));
  const lookup = (key: string): string | undefined => msgs.get(key);
  const T = (key: unknown): string => {
    const k = String(key);
    const v = lookup(k);
    return v === undefined ? k : singular(v);
  };
  s = struct('*i18n.I18n', {
    Code: cat.code,
    Name: cat.name,
    T,
    Ts: variadic((key: unknown, ...params: unknown[]): string => {
      const k = String(key);
      if (params.length % 2 !== 0) return `${k}: Invalid arguments`;
      const v = lookup(k);
      if (v === undefined) return k;
      let out = singular(v);
      for (let i = 0; i < params.length; i += 2) {
        // A {param} inside a value is itself translated, as listmonk does.
        const val = formatV(params[i + 1]).replace(/\{([a-z0-9_.-]+)\}/gi, (_m, p: string) => T(p));
        out = out.split(`{${formatV(params[i])}}`).join(val);
      }
      return out;
    }),
    Tc(key: unknown, n: unknown): string {
      const k = String(key);
      const v = lookup(k);
      if (v === undefined) return k;
      return Number(n) > 1 ? plural(v) : singular(v);
    },
  });
  i18nStructs.set(cat, s);
  return s;
}

const def = (params: string, fn: FuncDef['fn'], variadic?: FuncDef['variadic']): FuncDef => ({ params, fn, variadic });

/** The accent colour of a render without a brand (the shipped templates' blue). */
export const DEFAULT_ACCENT = '#0b57d0';

/** White or near-black, whichever reads better on a #rrggbb background (WCAG relative luminance). */
function textOn(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  const l = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  // Contrast with white (1.05 / (l + .05)) against contrast with #111 ((l + .05) / .0558).
  return 1.05 / (l + 0.05) >= (l + 0.05) / 0.0558 ? '#ffffff' : '#111111';
}

/** listmgr's `Brand`: .Name, .LogoURL, .Color (the accent), .OnColor (text on it), .Address and .AddressLines (its non-empty lines). */
function brandStruct(b: BrandInfo | undefined): object {
  const address = b?.address ?? '';
  return struct('listmgr.Brand', {
    Name: b?.name ?? '',
    LogoURL: b?.logoURL ?? '',
    Color: b?.color || DEFAULT_ACCENT,
    OnColor: textOn(b?.color || DEFAULT_ACCENT),
    Address: address,
    AddressLines: address.split(/\r?\n/).map((l) => l.trim()).filter(Boolean),
  });
}

/** listmgr's `ArchivePage`: nil outside an archive page. */
function archivePageStruct(p: ArchivePageInfo | undefined): object | null {
  if (!p) return null;
  const link = (l: ArchivePageInfo['newer']) => (l ? struct('listmgr.ArchiveLink', { URL: l.url, Title: l.title }) : null);
  return struct('listmgr.ArchivePage', { SiteName: p.siteName, IndexURL: p.indexURL, Date: p.date, Newer: link(p.newer), Older: link(p.older), SubscribeURL: p.subscribeURL });
}

/** Date, L, Safe, Brand: in every set. */
export const GENERIC_LISTMONK: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['Date', def('s', (a, st) => formatGoTime(nowLocal(st.ctx), (a[0] as string) || 'Mon Jan _2 15:04:05 2006'))],
  ['L', def('', (_a, st) => i18nStruct(st.ctx.i18n ?? EMPTY_CATALOG))],
  // listmgr: the newsletter's name, logo, accent colour and postal address (Settings → General).
  ['Brand', def('', (_a, st) => brandStruct(st.ctx.brand))],
  ['Safe', { params: 's', fn: (a) => new SafeHTML(a[0] as string), pure: true }],
]);

export const CAMPAIGN_LISTMONK: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['TrackLink', def('sa', (a, st) => {
    const url = a[0] as string;
    const msg = campaignMessage(a[1]);
    const ctx = st.ctx;
    if (ctx.disableTracking) return url;
    if (!ctx.trackLink) return url;
    return ctx.trackLink(url.replaceAll('&amp;', '&'), campaignUUID(msg), trackingUUID(ctx, msg)) ?? url;
  })],
  ['TrackView', def('a', (a, st) => {
    const msg = campaignMessage(a[0]);
    const ctx = st.ctx;
    if (ctx.disableTracking || ctx.publicPageURL !== undefined) return new SafeHTML('');
    const src = `${rootURL(ctx)}/campaign/${campaignUUID(msg)}/${trackingUUID(ctx, msg)}/px.png`;
    return new SafeHTML(`<img src="${src}" width="1" height="1" style="display:none;max-height:0;max-width:0;opacity:0" alt="">`);
  })],
  ['UnsubscribeURL', def('a', (a, st) => unsubscribeURL(st.ctx, campaignMessage(a[0])))],
  ['ManageURL', def('a', (a, st) => (st.ctx.publicPageURL !== undefined ? st.ctx.subscribeURL ?? '' : unsubscribeURL(st.ctx, campaignMessage(a[0])) + '?manage=true'))],
  ['OptinURL', def('a', (a, st) => (st.ctx.publicPageURL !== undefined ? st.ctx.subscribeURL ?? '' : `${rootURL(st.ctx)}/subscription/optin/${subscriberUUID(campaignMessage(a[0]))}?`))],
  ['MessageURL', def('a', (a, st) => {
    const msg = campaignMessage(a[0]);
    return st.ctx.publicPageURL ?? `${rootURL(st.ctx)}/campaign/${campaignUUID(msg)}/${subscriberUUID(msg)}`;
  })],
  // listmgr: the public subscription form, '' when it is off.
  ['SubscribeURL', def('', (_a, st) => st.ctx.subscribeURL ?? '')],
  ['ArchiveURL', def('', (_a, st) => `${rootURL(st.ctx)}/archive`)],
  ['RootURL', def('', (_a, st) => rootURL(st.ctx))],
  // listmgr: the site name, date, neighbours and subscribe link of an archive page; nil in mails.
  ['ArchivePage', def('', (_a, st) => archivePageStruct(st.ctx.archivePage))],
]);

export const SYSTEM_LISTMONK: ReadonlyMap<string, FuncDef> = new Map<string, FuncDef>([
  ['RootURL', def('', (_a, st) => rootURL(st.ctx))],
  ['LogoURL', def('', (_a, st) => st.ctx.logoURL ?? '')],
]);

function unsubscribeURL(ctx: RenderContext, msg: CampaignMessage): string {
  if (ctx.publicPageURL !== undefined) return ctx.subscribeURL ?? '';
  return `${rootURL(ctx)}/subscription/${campaignUUID(msg)}/${subscriberUUID(msg)}`;
}

