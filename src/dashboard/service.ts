// What the dashboard shows: the counts and daily charts (any signed-in user, as listmonk),
// whether anyone has subscribed through the public form (the first-run checklist), and the
// paused campaigns the user may see. The page and /api/dashboard read them here.
import type { CampaignService } from '../campaigns/service.ts';
import { CAMPAIGN_ORDER_BY } from '../campaigns/store.ts';
import type { Actor } from '../core/authz.ts';
import type { DashboardCharts, DashboardCounts, DashboardStore } from './store.ts';

export type { DashboardCharts, DashboardCounts, DayCount } from './store.ts';

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

  /** The paused campaigns the actor may see, the last changed first: `limit` of them, and how many in all. */
  paused(actor: Actor, limit: number): ReturnType<CampaignService['query']> {
    return this.campaigns.query(actor, {
      statuses: ['paused'], tags: [], search: '', orderBy: CAMPAIGN_ORDER_BY.updated_at, order: 'DESC', limit, offset: 0, noBody: true,
    });
  }
}
