// What the role form says about permissions that reach further than their names: data about
// the permissions (the pages name none in their checks), kept beside the users pages.
import type { Permission } from '../core/authz.ts';

/** Permissions that reach far beyond their name, marked on the role form. */
export const POWERFUL: ReadonlySet<string> = new Set<Permission>(['subscribers:sql_query', 'settings:manage']);

/** What a permission reaches, said under it on the role form (docs/security.md has the whole list): language pack keys. */
export const PERMISSION_NOTES: Readonly<Partial<Record<Permission, string>>> = {
  'subscribers:sql_query': 'admin.roles.sqlQueryWarning',
  'settings:manage': 'admin.roles.settingsManageNote',
  'settings:maintain': 'admin.roles.settingsMaintainNote',
};

/** The guide that explains a permission's reach, linked beside its note. */
export const PERMISSION_GUIDES: Readonly<Partial<Record<Permission, string>>> = {
  'subscribers:sql_query': 'segments',
};
