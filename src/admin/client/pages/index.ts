// One Alpine component per admin page, by the name its x-data uses.
import { campaignPicker } from './analytics.ts';
import { bouncesPage } from './bounces.ts';
import { firstRun } from './dashboard.ts';
import { attachments, listPicker } from './campaign-parts.ts';
import { campaignPage, campaignsPage } from './campaigns.ts';
import { importPage } from './import.ts';
import { logsPage } from './logs.ts';
import { maintenancePage } from './maintenance.ts';
import { subscriber, subscribers } from './subscribers.ts';
import { settingsPage } from './settings.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  subscribers,
  subscriber,
  importPage,
  bouncesPage,
  campaignsPage,
  campaignPage,
  listPicker,
  attachments,
  settingsPage,
  campaignPicker,
  logsPage,
  maintenancePage,
  firstRun,
};
