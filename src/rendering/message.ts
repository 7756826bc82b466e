// Rendering a message for a subscriber, for everything that sends or shows one (campaigns and
// their previews, archive and web views, tx, templates, the sending engine): compile once,
// render per subscriber. Callers import this file only: the types and the error are in
// contract.ts, and the implementation behind them lives in one file (engine.ts) so the engine
// can be swapped without touching the callers. What only campaigns need (their layout, archive
// pages, composing the outgoing mail) stays in campaigns/.
import type { AppContext } from '../context.ts';
import { brandOf } from '../mail/brand.ts';
import { templateCatalog } from '../i18n/index.ts';
import type { SubscriberRow } from '../subscribers/store.ts';
import type { RenderEnv, RenderSubscriber } from './contract.ts';

export {
  RenderError, type CompiledCampaign, type CompiledTx, type RenderCampaign, type RenderedCampaign, type RenderedTx, type RenderEnv,
  type RenderSubscriber,
} from './contract.ts';
export { compileCampaign, compileTx } from './engine.ts';

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** listmonk's preview subscriber. */
export const DEMO_SUBSCRIBER: RenderSubscriber = {
  id: 0, uuid: ZERO_UUID, email: 'demo@listmonk.app', name: 'Demo Subscriber', attribs: { city: 'Bengaluru' },
  status: 'enabled', created_at: null, updated_at: null,
};

/**
 * Where tracked links get their ids: the tracking store, which depends on campaigns (it
 * renders web views), so rendering names only what it uses of it.
 */
export interface TrackedLinks {
  /** The id of a link's URL, registered on first use. */
  linkUuid(url: string): string;
  /** The id of a URL some message already registered, without registering it. */
  knownLinkUuid(url: string): string | undefined;
}

/**
 * What a render does with TrackLink:
 * - 'send': messages that leave (campaigns, test sends, tx): the URL is registered, and the
 *   message links to /link/, which redirects to it;
 * - 'view': pages of what was sent (web view, archive): /link/ for a URL a send registered,
 *   the URL itself otherwise;
 * - 'preview': previews and compile checks: a tracked link of the zero link UUID, which no URL
 *   has (so /link/ answers it 400), and nothing is registered: whoever may preview cannot mint
 *   redirects on our domain or fill the links table, and the preview still shows where the
 *   message tracks its links.
 */
export type TrackingMode = 'send' | 'view' | 'preview';

export function renderEnv(ctx: AppContext, tracking: TrackedLinks, mode: TrackingMode): RenderEnv {
  const rootUrl = ctx.settings.rootUrl();
  const uuidOf = mode === 'send' ? (url: string) => tracking.linkUuid(url) : mode === 'view' ? (url: string) => tracking.knownLinkUuid(url) : () => ZERO_UUID;
  return {
    rootUrl,
    individualTracking: ctx.settings.bool('privacy.individual_tracking'),
    disableTracking: ctx.settings.bool('privacy.disable_tracking'),
    i18n: templateCatalog(ctx.settings.str('app.lang')),
    subscribeUrl: ctx.settings.bool('app.enable_public_subscription_page') ? `${rootUrl}/subscription/form` : '',
    brand: brandOf(ctx.settings),
    trackLink: (url, campaignUuid, subscriberUuid) => {
      const uuid = uuidOf(url);
      return uuid === undefined ? url : `${rootUrl}/link/${uuid}/${campaignUuid}/${subscriberUuid}`;
    },
  };
}

export function toRenderSubscriber(r: SubscriberRow): RenderSubscriber {
  return { id: r.id, uuid: r.uuid, email: r.email, name: r.name, attribs: JSON.parse(r.attribs), status: r.status, created_at: r.created_at, updated_at: r.updated_at };
}
