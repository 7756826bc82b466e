// The permission table: every authenticated route with the permissions that open it. For each
// route, a caller holding one of them gets past the guard, a caller holding every other
// permission is refused with 403, and an anonymous caller is refused. A route added to the app
// without a row here fails test/foundation/route-coverage.test.ts.

export interface RouteCase {
  method: string;
  /** `{self}` is replaced by the calling user's id. */
  path: string;
  /** Any one of these opens the route; [] = any authenticated caller. */
  perms: string[];
  body?: unknown;
  /** Also held by the caller who may, so data-level checks (list grants) do not hide the route's answer. */
  extra?: string[];
  /** Only the Super Admin role opens it: a role with every permission is refused. */
  superAdmin?: true;
}

const SUB_READ = ['subscribers:get_all', 'subscribers:get'];
const CAMP_GET = ['campaigns:get_all', 'campaigns:get'];
const CAMP_MANAGE = ['campaigns:manage_all', 'campaigns:manage'];
const ALL_LISTS = ['lists:get_all', 'lists:manage_all'];

export const PERMISSION_MATRIX: RouteCase[] = [
  // system
  { method: 'GET', path: '/api/health', perms: [] },
  { method: 'GET', path: '/api/config', perms: [] },
  { method: 'GET', path: '/api/about', perms: ['settings:get'] },
  { method: 'GET', path: '/api/logs', perms: ['settings:get'] },
  { method: 'GET', path: '/api/events', perms: ['settings:get'] },
  { method: 'POST', path: '/api/admin/reload', perms: ['settings:manage'] },
  { method: 'GET', path: '/api/openapi.json', perms: [] },
  { method: 'GET', path: '/api/docs', perms: [] },
  // settings
  { method: 'GET', path: '/api/settings', perms: ['settings:get'] },
  { method: 'PUT', path: '/api/settings', perms: ['settings:manage'], body: {} },
  { method: 'PUT', path: '/api/settings/app.site_name', perms: ['settings:manage'], body: 'Mailing list' },
  { method: 'POST', path: '/api/settings/smtp/test', perms: ['settings:manage'], body: {} },
  // users
  { method: 'GET', path: '/api/users', perms: ['users:get'] },
  { method: 'GET', path: '/api/users/1', perms: ['users:get'] },
  { method: 'POST', path: '/api/users', perms: ['users:manage'], body: {} },
  { method: 'PUT', path: '/api/users/999999', perms: ['users:manage'], body: {} },
  { method: 'DELETE', path: '/api/users/999999', perms: ['users:manage'] },
  { method: 'DELETE', path: '/api/users?id=999999', perms: ['users:manage'] },
  { method: 'POST', path: '/api/users/999999/token', perms: ['users:manage'] },
  { method: 'GET', path: '/api/profile', perms: [] },
  { method: 'PUT', path: '/api/profile', perms: [], body: {} },
  { method: 'POST', path: '/api/logout', perms: [] },
  { method: 'POST', path: '/api/profile/first-run/dismiss', perms: [] },
  { method: 'GET', path: '/api/users/{self}/twofa/totp', perms: [] },
  { method: 'PUT', path: '/api/users/{self}/twofa', perms: [], body: {} },
  { method: 'DELETE', path: '/api/users/{self}/twofa', perms: [], body: {} },
  // another user's 2FA (one who does not hold more than the caller: none at all)
  { method: 'GET', path: '/api/users/999999/twofa/totp', perms: ['users:manage'] },
  { method: 'PUT', path: '/api/users/999999/twofa', perms: ['users:manage'], body: {} },
  { method: 'DELETE', path: '/api/users/999999/twofa', perms: ['users:manage'], body: {} },
  // roles
  { method: 'GET', path: '/api/roles/users', perms: ['roles:get'] },
  { method: 'GET', path: '/api/roles/lists', perms: ['roles:get'] },
  { method: 'POST', path: '/api/roles/users', perms: ['roles:manage'], body: {} },
  { method: 'POST', path: '/api/roles/lists', perms: ['roles:manage'], body: {} },
  { method: 'PUT', path: '/api/roles/users/999999', perms: ['roles:manage'], body: { name: 'x' } },
  { method: 'PUT', path: '/api/roles/lists/999999', perms: ['roles:manage'], body: { name: 'x' } },
  { method: 'DELETE', path: '/api/roles/999999', perms: ['roles:manage'] },
  { method: 'GET', path: '/api/lang/en', perms: [] },
  // lists (per-list checks inside)
  { method: 'GET', path: '/api/lists', perms: [] },
  { method: 'GET', path: '/api/lists/999999', perms: [], extra: ALL_LISTS },
  { method: 'POST', path: '/api/lists', perms: ['lists:manage_all'], body: {} },
  { method: 'PUT', path: '/api/lists/999999', perms: [], body: {}, extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/lists/999999', perms: [], extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/lists?id=999999', perms: [], extra: ALL_LISTS },
  { method: 'GET', path: '/api/lists/999999/optin', perms: [], extra: ALL_LISTS },
  { method: 'POST', path: '/api/lists/999999/optin', perms: [], extra: ALL_LISTS },
  // subscribers
  { method: 'GET', path: '/api/subscribers', perms: SUB_READ },
  { method: 'GET', path: '/api/subscribers/export', perms: SUB_READ },
  { method: 'GET', path: '/api/subscribers/999999', perms: SUB_READ, extra: ALL_LISTS },
  { method: 'GET', path: '/api/subscribers/999999/activity', perms: SUB_READ, extra: ALL_LISTS },
  { method: 'GET', path: '/api/subscribers/999999/export', perms: SUB_READ, extra: ALL_LISTS },
  { method: 'POST', path: '/api/subscribers', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/999999', perms: ['subscribers:manage'], body: {}, extra: ALL_LISTS },
  { method: 'PATCH', path: '/api/subscribers/999999', perms: ['subscribers:manage'], body: {}, extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/subscribers/999999', perms: ['subscribers:manage'], extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/subscribers', perms: ['subscribers:manage'] },
  { method: 'PUT', path: '/api/subscribers/blocklist', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/999999/blocklist', perms: ['subscribers:manage'], extra: ALL_LISTS },
  { method: 'PUT', path: '/api/subscribers/lists', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/lists/999999', perms: ['subscribers:manage'], body: {}, extra: ALL_LISTS },
  { method: 'POST', path: '/api/subscribers/999999/optin', perms: ['subscribers:manage'], extra: ALL_LISTS },
  { method: 'POST', path: '/api/subscribers/query/delete', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/query/blocklist', perms: ['subscribers:manage'], body: {} },
  { method: 'PUT', path: '/api/subscribers/query/lists', perms: ['subscribers:manage'], body: {} },
  { method: 'GET', path: '/api/subscribers/999999/bounces', perms: ['bounces:get'], extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/subscribers/999999/bounces', perms: ['bounces:manage'], extra: ALL_LISTS },
  // import, tx, maintenance, dashboard
  { method: 'GET', path: '/api/import/subscribers', perms: ['subscribers:import'] },
  { method: 'GET', path: '/api/import/subscribers/logs', perms: ['subscribers:import'] },
  { method: 'POST', path: '/api/import/subscribers', perms: ['subscribers:import'], body: {} },
  { method: 'DELETE', path: '/api/import/subscribers', perms: ['subscribers:import'] },
  { method: 'POST', path: '/api/tx', perms: ['tx:send'], body: {} },
  { method: 'DELETE', path: '/api/maintenance/subscribers/nonsense', perms: ['settings:maintain'] },
  { method: 'DELETE', path: '/api/maintenance/subscriptions/unconfirmed', perms: ['settings:maintain'], body: {} },
  { method: 'DELETE', path: '/api/maintenance/analytics/nonsense', perms: ['settings:maintain'], body: {} },
  { method: 'GET', path: '/api/maintenance/analytics/views/export?since=2025-01-01T00:00:00Z', perms: ['settings:maintain'] },
  { method: 'GET', path: '/api/maintenance/subscribers/orphan/count', perms: ['settings:maintain'] },
  { method: 'GET', path: '/api/maintenance/subscriptions/unconfirmed/count?before_date=2025-01-01T00:00:00Z', perms: ['settings:maintain'] },
  { method: 'GET', path: '/api/maintenance/analytics/all/count?since=2025-01-01T00:00:00Z', perms: ['settings:maintain'] },
  { method: 'GET', path: '/api/maintenance/database', perms: ['settings:maintain'] },
  { method: 'POST', path: '/api/maintenance/vacuum', perms: ['settings:maintain'] },
  { method: 'GET', path: '/api/maintenance/backup', perms: [], superAdmin: true },
  { method: 'GET', path: '/api/dashboard/counts', perms: [] },
  { method: 'GET', path: '/api/dashboard/charts', perms: [] },
  // campaigns
  { method: 'GET', path: '/api/campaigns', perms: CAMP_GET },
  { method: 'GET', path: '/api/campaigns/running/stats', perms: CAMP_GET },
  { method: 'GET', path: '/api/campaigns/audience?list_id=1', perms: CAMP_GET },
  { method: 'GET', path: '/api/campaigns/analytics/views?id=1', perms: ['campaigns:get_analytics'] },
  { method: 'GET', path: '/api/campaigns/999999/analytics/views/export', perms: ['campaigns:get_analytics'], extra: ALL_LISTS },
  { method: 'GET', path: '/api/campaigns/999999', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'GET', path: '/api/campaigns/999999/preview', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/preview', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/text', perms: CAMP_GET, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/preview/archive', perms: CAMP_GET, body: {}, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/content', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns', perms: CAMP_MANAGE, body: {} },
  { method: 'PUT', path: '/api/campaigns/999999', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'PUT', path: '/api/campaigns/999999/status', perms: ['campaigns:send'], body: {}, extra: ALL_LISTS },
  { method: 'PUT', path: '/api/campaigns/999999/archive', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'POST', path: '/api/campaigns/999999/test', perms: CAMP_MANAGE, body: {}, extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/campaigns/999999', perms: CAMP_MANAGE, extra: ALL_LISTS },
  { method: 'DELETE', path: '/api/campaigns?id=999999', perms: CAMP_MANAGE },
  // templates
  { method: 'GET', path: '/api/templates', perms: ['templates:get'] },
  { method: 'GET', path: '/api/templates/999999', perms: ['templates:get'] },
  { method: 'POST', path: '/api/templates/preview', perms: ['templates:get'], body: {} },
  { method: 'GET', path: '/api/templates/999999/preview', perms: ['templates:get'] },
  { method: 'POST', path: '/api/templates/999999/preview', perms: ['templates:get'], body: {} },
  { method: 'POST', path: '/api/templates', perms: ['templates:manage'], body: {} },
  { method: 'PUT', path: '/api/templates/999999', perms: ['templates:manage'], body: {} },
  { method: 'PUT', path: '/api/templates/999999/default', perms: ['templates:manage'] },
  { method: 'DELETE', path: '/api/templates/999999', perms: ['templates:manage'] },
  // media and bounces
  { method: 'GET', path: '/api/media', perms: ['media:get'] },
  { method: 'GET', path: '/api/media/999999', perms: ['media:get'] },
  { method: 'POST', path: '/api/media', perms: ['media:manage'], body: {} },
  { method: 'DELETE', path: '/api/media/999999', perms: ['media:manage'] },
  { method: 'GET', path: '/api/bounces', perms: ['bounces:get'] },
  { method: 'GET', path: '/api/bounces/scan', perms: ['bounces:get', 'settings:get'] },
  { method: 'POST', path: '/api/bounces/scan', perms: ['bounces:manage', 'settings:manage'], body: {} },
  { method: 'GET', path: '/api/bounces/999999', perms: ['bounces:get'] },
  { method: 'DELETE', path: '/api/bounces?id=999999', perms: ['bounces:manage'] },
  { method: 'DELETE', path: '/api/bounces/999999', perms: ['bounces:manage'] },
  { method: 'PUT', path: '/api/bounces/blocklist', perms: ['bounces:manage'], body: {} },
  // webhooks and the change log's feed
  { method: 'GET', path: '/api/webhooks', perms: ['webhooks:manage'] },
  { method: 'POST', path: '/api/webhooks', perms: ['webhooks:manage'], body: {} },
  { method: 'GET', path: '/api/webhooks/999999', perms: ['webhooks:manage'] },
  { method: 'PUT', path: '/api/webhooks/999999', perms: ['webhooks:manage'], body: {} },
  { method: 'DELETE', path: '/api/webhooks/999999', perms: ['webhooks:manage'] },
  { method: 'POST', path: '/api/webhooks/999999/secret', perms: ['webhooks:manage'] },
  { method: 'POST', path: '/api/webhooks/999999/test', perms: ['webhooks:manage'] },
  { method: 'GET', path: '/api/webhooks/999999/deliveries', perms: ['webhooks:manage'] },
  { method: 'GET', path: '/api/webhooks/999999/deliveries/999999', perms: ['webhooks:manage'] },
  { method: 'POST', path: '/api/webhooks/999999/deliveries/999999/retry', perms: ['webhooks:manage'] },
  { method: 'GET', path: '/api/changes', perms: ['events:get'] },
];
