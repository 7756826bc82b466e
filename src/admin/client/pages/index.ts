// One Alpine component per admin page, by the name its x-data uses.
import { logsPage } from './logs.ts';
import { maintenancePage } from './maintenance.ts';
import { settingsPage } from './settings.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  settingsPage,
  logsPage,
  maintenancePage,
};
