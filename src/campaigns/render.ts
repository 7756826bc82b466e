// What the campaign, preview, archive, web-view and tx code needs from the template engine:
// compile once, render per subscriber. The implementation behind it lives in one file
// (render-engine.ts) so the engine can be swapped without touching the callers.
import type { I18nCatalog } from '../templating/index.ts';
import type { HeaderList } from '../mail/message.ts';

/** A subscriber as templates see it (`.Subscriber`). */
export interface RenderSubscriber {
  id: number;
  uuid: string;
  email: string;
  name: string;
  attribs: Record<string, unknown>;
  status: string;
  created_at: string | null;
  updated_at: string | null;
}

/** The campaign fields templates and rendering read. */
export interface RenderCampaign {
  id: number;
  uuid: string;
  name: string;
  subject: string;
  from_email: string;
  body: string;
  altbody: string | null;
  content_type: string;
  headers: HeaderList;
  tags: string[];
  attribs: Record<string, unknown>;
  type: string;
  messenger: string;
  template_id: number | null;
  send_at: string | null;
  created_at: string;
  updated_at: string;
  started_at: string | null;
  to_send: number;
  sent: number;
  archive: boolean;
  archive_slug: string | null;
}

/** Per-process facts rendering needs: URLs and tracking switches. */
export interface RenderEnv {
  rootUrl: string;
  individualTracking: boolean;
  disableTracking: boolean;
  /** The instance language (app.lang) behind templates' `L`. */
  i18n: I18nCatalog;
  /** Registers a tracked link; returns ROOT/link/{linkUUID}/{campUUID}/{subUUID}. */
  trackLink(url: string, campaignUuid: string, subscriberUuid: string): string | null;
}

export interface RenderedCampaign {
  subject: string;
  html: string;
  /**
   * The rendered altbody; when the campaign has none and the render asked for it, the plain
   * text derived from the HTML body; else null (always null-or-altbody for plain content).
   */
  altbody: string | null;
  headers: HeaderList;
}

export interface CompiledCampaign {
  /** `withText`: derive the text alternative when the campaign has no altbody (sending). */
  render(sub: RenderSubscriber, withText?: boolean): RenderedCampaign;
}

export interface RenderedTx {
  subject: string;
  body: string;
  altbody: string | null;
}

export interface CompiledTx {
  render(sub: RenderSubscriber, tx: Parameters<typeof import('../templating/index.ts').txMessageData>[1]): RenderedTx;
}

/** A template that does not compile or render; the message says where. */
/** A template that does not compile or render; the app answers it with 400 (app.ts). */
export class RenderError extends Error {
  /** Runs `fn`; a render error it throws is thrown again with `what` before its message. */
  static describing<T>(what: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      if (e instanceof RenderError) throw new RenderError(`${what}: ${e.message}`);
      throw e;
    }
  }
}

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** listmonk's preview subscriber. */
export const DEMO_SUBSCRIBER: RenderSubscriber = {
  id: 0, uuid: ZERO_UUID, email: 'demo@listmonk.app', name: 'Demo Subscriber', attribs: { city: 'Bengaluru' },
  status: 'enabled', created_at: null, updated_at: null,
};

/** archive_meta as the stand-in subscriber of archive pages (templating.md §3.3); keys in any case. */
export function archiveSubscriber(meta: Record<string, unknown>): RenderSubscriber {
  const m = Object.fromEntries(Object.entries(meta).map(([k, v]) => [k.toLowerCase(), v]));
  const str = (v: unknown, d: string) => (typeof v === 'string' ? v : d);
  return {
    id: 0, uuid: str(m.uuid, ZERO_UUID), email: str(m.email, ''), name: str(m.name, ''),
    attribs: m.attribs && typeof m.attribs === 'object' ? (m.attribs as Record<string, unknown>) : {},
    status: str(m.status, 'enabled'), created_at: null, updated_at: null,
  };
}

export { compileCampaign, compileTx } from './render-engine.ts';
