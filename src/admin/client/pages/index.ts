// One Alpine component per admin page, by the name its x-data uses.
import { campaignPicker } from './analytics.ts';
import { firstRun } from './dashboard.ts';
import { attachments, listPicker } from './campaign-parts.ts';
import { campaignPage, campaignsPage } from './campaigns.ts';
import { logsPage } from './logs.ts';
import { maintenancePage } from './maintenance.ts';
import { settingsPage } from './settings.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
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
