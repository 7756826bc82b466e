// The admin sidebar: listmonk's groups, each link naming the page route it opens and shown only
// when the signed-in user may open it, by the page route's own checks. Pages of later parts of
// the admin are added here when they exist, so the sidebar never holds a dead link.
import type { RouteKey } from '../http/route-access.ts';

export interface NavLink {
  /** A key of the language pack. */
  label: string;
  /** The page, as its route table declares it: "GET /admin/lists". */
  route: RouteKey;
}

export interface NavGroup {
  label: string;
  links: NavLink[];
}

export const NAV: NavGroup[] = [
  { label: 'globals.terms.dashboard', links: [{ label: 'globals.terms.dashboard', route: 'GET /admin' }] },
  {
    label: 'globals.terms.lists',
    links: [
      { label: 'menu.allLists', route: 'GET /admin/lists' },
      { label: 'menu.forms', route: 'GET /admin/lists/forms' },
    ],
  },
  {
    label: 'globals.terms.subscribers',
    links: [
      { label: 'menu.allSubscribers', route: 'GET /admin/subscribers' },
      { label: 'globals.terms.import', route: 'GET /admin/subscribers/import' },
      { label: 'globals.terms.bounces', route: 'GET /admin/subscribers/bounces' },
    ],
  },
  {
    label: 'globals.terms.campaigns',
    links: [
      { label: 'menu.allCampaigns', route: 'GET /admin/campaigns' },
      { label: 'menu.newCampaign', route: 'GET /admin/campaigns/new' },
      { label: 'globals.terms.analytics', route: 'GET /admin/campaigns/analytics' },
      { label: 'menu.media', route: 'GET /admin/campaigns/media' },
      { label: 'globals.terms.templates', route: 'GET /admin/campaigns/templates' },
    ],
  },
  {
    label: 'globals.terms.users',
    links: [
      { label: 'globals.terms.users', route: 'GET /admin/users' },
      { label: 'users.userRoles', route: 'GET /admin/users/roles/users' },
      { label: 'users.listRoles', route: 'GET /admin/users/roles/lists' },
    ],
  },
  {
    label: 'globals.terms.settings',
    links: [
      { label: 'menu.settings', route: 'GET /admin/settings' },
      { label: 'admin.webhooks.title', route: 'GET /admin/settings/webhooks' },
      { label: 'menu.maintenance', route: 'GET /admin/settings/maintenance' },
      { label: 'menu.logs', route: 'GET /admin/settings/logs' },
      { label: 'admin.about.title', route: 'GET /admin/settings/about' },
    ],
  },
  { label: 'admin.help.title', links: [{ label: 'admin.help.title', route: 'GET /admin/help' }] },
];

/** The page a link opens. */
export function navHref(link: NavLink): string {
  return link.route.slice(link.route.indexOf(' ') + 1);
}

/** The groups and links of the pages the user may open (`may`: the page's route checks); groups left empty are dropped. */
export function navFor(may: (route: RouteKey) => boolean): NavGroup[] {
  return NAV.map((g) => ({ ...g, links: g.links.filter((l) => may(l.route)) })).filter((g) => g.links.length > 0);
}
