// One Alpine component per admin page, by the name its x-data uses.
import { bouncesPage } from './bounces.ts';
import { campaignPage, campaignsPage } from './campaigns.ts';
import { formsPage } from './forms.ts';
import { importPage } from './import.ts';
import { listPage, listsPage } from './lists.ts';
import { logsPage } from './logs.ts';
import { maintenancePage } from './maintenance.ts';
import { subscriber, subscribers } from './subscribers.ts';
import { mediaPage } from './media.ts';
import { templatePage, templatesPage } from './templates.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  listsPage,
  listPage,
  formsPage,
  subscribers,
  subscriber,
  importPage,
  bouncesPage,
  campaignsPage,
  campaignPage,
  templatesPage,
  templatePage,
  mediaPage,
  logsPage,
  maintenancePage,
};
