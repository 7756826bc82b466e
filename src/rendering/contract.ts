// The contract between the callers of campaign/tx rendering (through message.ts) and the
// engine that implements it (engine.ts): what goes in, what comes out, the error.
// Both import it, and it imports neither, so the engine depends on the contract, not on the
// file that re-exports it.
import type { ArchivePageInfo, BrandInfo, I18nCatalog } from '../templating/index.ts';
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
  /** Every literal link of the body becomes a tracked one (absent: off). */
  track_links?: boolean;
}

/** Per-process facts rendering needs: URLs and tracking switches. */
export interface RenderEnv {
  rootUrl: string;
  individualTracking: boolean;
  disableTracking: boolean;
  /** The instance language (app.lang) behind templates' `L`. */
  i18n: I18nCatalog;
  /** The public subscription form's URL ('' or absent when it is off). */
  subscribeUrl?: string;
  /** Set when rendering a public page of the campaign (the archive): its URL (RenderContext.publicPageURL). */
  publicPageUrl?: string;
  /** The newsletter's name, logo, accent colour and postal address (templates' `Brand`). */
  brand?: BrandInfo;
  /** Set on an archive page: its site name, date, neighbours and subscribe link (templates' `ArchivePage`). */
  archivePage?: ArchivePageInfo;
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

/** A template that does not compile or render; the message says where, and the app answers it with 400 (app.ts). */
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
