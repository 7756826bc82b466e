// One Alpine component per admin page, by the name its x-data uses.
import { campaignPicker } from './analytics.ts';
import { bouncesPage } from './bounces.ts';
import { attachments, listPicker } from './campaign-parts.ts';
import { campaignPage, campaignsPage } from './campaigns.ts';
import { importPage } from './import.ts';
import { subscriber, subscribers } from './subscribers.ts';
import { mediaPage } from './media.ts';
import { templatePage, templatesPage } from './templates.ts';
import { listRoleForm, permissionMatrix, profileForm, rolesPage, twofa, userPage, usersPage } from './users.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  subscribers,
  subscriber,
  importPage,
  bouncesPage,
  campaignsPage,
  campaignPage,
  listPicker,
  attachments,
  templatesPage,
  templatePage,
  mediaPage,
  usersPage,
  userPage,
  rolesPage,
  permissionMatrix,
  listRoleForm,
  profileForm,
  twofa,
  campaignPicker,
};
