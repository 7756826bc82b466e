// One Alpine component per admin page, by the name its x-data uses.
import { campaignPage, campaignsPage } from './campaigns.ts';
import { formsPage } from './forms.ts';
import { listPage, listsPage } from './lists.ts';
import { mediaPage } from './media.ts';
import { templatePage, templatesPage } from './templates.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  listsPage,
  listPage,
  formsPage,
  campaignsPage,
  campaignPage,
  templatesPage,
  templatePage,
  mediaPage,
};
