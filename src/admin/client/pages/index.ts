// One Alpine component per admin page, by the name its x-data uses.
import { bouncesPage } from './bounces.ts';
import { firstRun } from './dashboard.ts';
import { importPage } from './import.ts';
import { logsPage } from './logs.ts';
import { maintenancePage } from './maintenance.ts';
import { subscriber, subscribers } from './subscribers.ts';
import { mediaPage } from './media.ts';
import { settingsPage } from './settings.ts';
import { templatePage, templatesPage } from './templates.ts';
import { listRoleForm, permissionMatrix, profileForm, rolesPage, twofa, userPage, usersPage } from './users.ts';

export const PAGE_COMPONENTS: Record<string, () => object> = {
  subscribers,
  subscriber,
  importPage,
  bouncesPage,
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
  settingsPage,
  logsPage,
  maintenancePage,
  firstRun,
};
