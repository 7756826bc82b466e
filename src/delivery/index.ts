// The campaign stores and the sending engine of one app context, shared by the campaign API,
// the tracking/archive pages and the tx API (created on first use, stopped on shutdown).
import { perContext } from '../context.ts';
import { CampaignStore } from '../campaigns/store.ts';
import { CampaignService } from '../campaigns/service.ts';
import { postbackMessengers } from '../mail/postback.ts';
import { TrackingStore } from '../tracking/store.ts';
import { DeliveryEngine } from './engine.ts';

export interface Delivery {
  campaigns: CampaignStore;
  tracking: TrackingStore;
  engine: DeliveryEngine;
  service: CampaignService;
}

export const deliveryFor = perContext((ctx): Delivery => {
  const campaigns = new CampaignStore(ctx.db);
  const tracking = new TrackingStore(ctx.db);
  const engine = new DeliveryEngine(ctx, campaigns, tracking);
  const service = new CampaignService(ctx, campaigns, tracking, engine);
  ctx.mailer.addFactory(postbackMessengers);
  engine.start();
  ctx.onShutdown(() => engine.stop());
  return { campaigns, tracking, engine, service };
});
