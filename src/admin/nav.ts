// The admin sidebar: listmonk's groups, each link shown only when the signed-in user's role
// lets them use the page (the page and the API check again). Pages of later parts of the admin
// are added here when they exist, so the sidebar never holds a dead link.
import { can, permittedLists, type Actor } from '../core/authz.ts';

export interface NavLink {
  /** A key of the language pack. */
  label: string;
  href: string;
  allowed: (actor: Actor) => boolean;
}

export interface NavGroup {
  label: string;
  links: NavLink[];
}

/** True when the user may read at least one list (all lists, or some through the list role). */
export function seesLists(actor: Actor): boolean {
  const lists = permittedLists(actor, 'get');
  return lists === 'all' || lists.length > 0;
}

export function seesSubscribers(actor: Actor): boolean {
  return can(actor, 'subscribers:get') || can(actor, 'subscribers:get_all');
}

const anyone = () => true;

export const NAV: NavGroup[] = [
  { label: 'globals.terms.dashboard', links: [{ label: 'globals.terms.dashboard', href: '/admin', allowed: anyone }] },
  {
    label: 'globals.terms.lists',
    links: [
      { label: 'menu.allLists', href: '/admin/lists', allowed: seesLists },
      { label: 'menu.forms', href: '/admin/lists/forms', allowed: seesLists },
    ],
  },
  {
    label: 'globals.terms.subscribers',
    links: [
      { label: 'menu.allSubscribers', href: '/admin/subscribers', allowed: seesSubscribers },
      { label: 'globals.terms.import', href: '/admin/subscribers/import', allowed: (a) => can(a, 'subscribers:import') },
      { label: 'globals.terms.bounces', href: '/admin/subscribers/bounces', allowed: (a) => can(a, 'bounces:get') },
    ],
  },
  {
    label: 'globals.terms.campaigns',
    links: [
      { label: 'menu.allCampaigns', href: '/admin/campaigns', allowed: (a) => can(a, 'campaigns:get') || can(a, 'campaigns:get_all') },
      { label: 'menu.newCampaign', href: '/admin/campaigns/new', allowed: (a) => can(a, 'campaigns:manage') || can(a, 'campaigns:manage_all') },
      { label: 'globals.terms.analytics', href: '/admin/campaigns/analytics', allowed: (a) => can(a, 'campaigns:get_analytics') },
      { label: 'menu.media', href: '/admin/campaigns/media', allowed: (a) => can(a, 'media:get') },
      { label: 'globals.terms.templates', href: '/admin/campaigns/templates', allowed: (a) => can(a, 'templates:get') },
    ],
  },
  {
    label: 'globals.terms.users',
    links: [
      { label: 'globals.terms.users', href: '/admin/users', allowed: (a) => can(a, 'users:get') },
      { label: 'users.userRoles', href: '/admin/users/roles/users', allowed: (a) => can(a, 'roles:get') },
      { label: 'users.listRoles', href: '/admin/users/roles/lists', allowed: (a) => can(a, 'roles:get') },
    ],
  },
  {
    label: 'globals.terms.settings',
    links: [
      { label: 'menu.settings', href: '/admin/settings', allowed: (a) => can(a, 'settings:get') },
      { label: 'menu.maintenance', href: '/admin/settings/maintenance', allowed: (a) => can(a, 'settings:maintain') || can(a, 'settings:manage') },
      { label: 'menu.logs', href: '/admin/settings/logs', allowed: (a) => can(a, 'settings:get') },
      { label: 'admin.about.title', href: '/admin/settings/about', allowed: (a) => can(a, 'settings:get') },
    ],
  },
  { label: 'admin.help.title', links: [{ label: 'admin.help.title', href: '/admin/help', allowed: anyone }] },
];

/** The groups and links this user may see (groups left empty are dropped). */
export function navFor(actor: Actor): NavGroup[] {
  return NAV.map((g) => ({ ...g, links: g.links.filter((l) => l.allowed(actor)) })).filter((g) => g.links.length > 0);
}
