// What the campaign, preview, archive, web-view and tx code needs from the template engine:
// compile once, render per subscriber. Callers import this file only: the types and the error
// are in render-contract.ts, and the implementation behind them lives in one file
// (render-engine.ts) so the engine can be swapped without touching the callers.
import type { RenderSubscriber } from './render-contract.ts';

export {
  RenderError, type CompiledCampaign, type CompiledTx, type RenderCampaign, type RenderedCampaign, type RenderedTx, type RenderEnv,
  type RenderSubscriber,
} from './render-contract.ts';
export { compileCampaign, compileTx } from './render-engine.ts';

export const ZERO_UUID = '00000000-0000-0000-0000-000000000000';

/** listmonk's preview subscriber. */
export const DEMO_SUBSCRIBER: RenderSubscriber = {
  id: 0, uuid: ZERO_UUID, email: 'demo@listmonk.app', name: 'Demo Subscriber', attribs: { city: 'Bengaluru' },
  status: 'enabled', created_at: null, updated_at: null,
};

/** The name archive pages greet when archive_meta names nobody (so never "Hello !"). */
export const ARCHIVE_SUBSCRIBER_NAME = 'Subscriber';

/** archive_meta as the stand-in subscriber of archive pages, read as listmonk does: keys in any case. */
export function archiveSubscriber(meta: Record<string, unknown>): RenderSubscriber {
  const m = Object.fromEntries(Object.entries(meta).map(([k, v]) => [k.toLowerCase(), v]));
  const str = (v: unknown, d: string) => (typeof v === 'string' ? v : d);
  return {
    id: 0, uuid: str(m.uuid, ZERO_UUID), email: str(m.email, ''), name: str(m.name, '') || ARCHIVE_SUBSCRIBER_NAME,
    attribs: m.attribs && typeof m.attribs === 'object' ? (m.attribs as Record<string, unknown>) : {},
    status: str(m.status, 'enabled'), created_at: null, updated_at: null,
  };
}
