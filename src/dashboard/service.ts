// What the dashboard shows: the counts and daily charts (any signed-in user, as listmonk),
// whether anyone has subscribed through the public form (the first-run checklist), the paused
// campaigns the user may see, and the webhooks disabled for failing. The page and /api/dashboard
// read them here.
import type { CampaignService } from '../campaigns/service.ts';
import { CAMPAIGN_ORDER_BY } from '../campaigns/store.ts';
import type { Actor } from '../core/authz.ts';
import type { DashboardCharts, DashboardCounts, DashboardStore, DisabledWebhook } from './store.ts';

export type { DashboardCharts, DashboardCounts, DayCount, DisabledWebhook } from './store.ts';

export class DashboardService {
  constructor(private readonly store: DashboardStore, private readonly campaigns: CampaignService) {}

  counts(): DashboardCounts {
    return this.store.counts();
  }

  charts(): DashboardCharts {
    return this.store.charts();
  }

  formSubscription(): boolean {
    return this.store.formSubscription();
  }

  /** The webhooks the delivery worker disabled (their deliveries kept failing): `limit` of them, and how many in all. */
  disabledWebhooks(limit: number): { results: DisabledWebhook[]; total: number } {
    return this.store.disabledWebhooks(limit);
  }

  /** The paused campaigns the actor may see, the last changed first: `limit` of them, and how many in all. */
  paused(actor: Actor, limit: number): ReturnType<CampaignService['query']> {
    return this.campaigns.query(actor, {
      statuses: ['paused'], tags: [], search: '', orderBy: CAMPAIGN_ORDER_BY.updated_at, order: 'DESC', limit, offset: 0, noBody: true,
    });
  }
}
