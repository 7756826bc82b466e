// The routes the robustness test sends malformed input to (test/foundation/robustness.test.ts).
// A route added to the app without a line here fails test/foundation/route-coverage.test.ts.

/** Every route: API routes under /api, the others at the root. */
export const ROBUSTNESS_ROUTES = `
get /api/about; get /api/openapi.json; get /api/docs; post /api/admin/reload; get /api/bounces; get /api/bounces/scan; post /api/bounces/scan; get /api/bounces/:id; get /api/campaigns; get /api/campaigns/:id; get /api/campaigns/:id/preview
get /api/campaigns/analytics/:type; get /api/campaigns/audience; get /api/campaigns/running/stats; get /api/config; get /api/dashboard/charts; get /api/dashboard/counts
get /api/health; get /api/import/subscribers; get /api/import/subscribers/logs; get /api/lang/:lang; get /api/lists; get /api/lists/:id; get /api/lists/:id/optin; post /api/lists/:id/optin
get /api/logs; get /api/maintenance/analytics/:type/export; get /api/maintenance/subscribers/:type/count; get /api/maintenance/subscriptions/unconfirmed/count
get /api/maintenance/analytics/:type/count; get /api/maintenance/database; post /api/maintenance/vacuum; get /api/maintenance/backup; get /api/media; get /api/media/:id; get /api/profile; get /api/public/lists
get /api/roles/lists; get /api/roles/users; get /api/settings; get /api/subscribers; get /api/subscribers/:id; get /api/subscribers/:id/activity
get /api/subscribers/:id/bounces; get /api/subscribers/:id/export; get /api/subscribers/export; get /api/templates; get /api/templates/:id
get /api/templates/:id/preview; get /api/users; get /api/users/:id; get /api/users/:id/twofa/totp; get /api/public/archive
delete /api/bounces; delete /api/bounces/:id; delete /api/campaigns; delete /api/campaigns/:id; delete /api/import/subscribers; delete /api/lists
delete /api/lists/:id; delete /api/maintenance/analytics/:type; delete /api/maintenance/subscribers/:type; delete /api/maintenance/subscriptions/unconfirmed
delete /api/media/:id; delete /api/roles/:id; delete /api/subscribers; delete /api/subscribers/:id; delete /api/subscribers/:id/bounces
delete /api/templates/:id; delete /api/users; delete /api/users/:id; delete /api/users/:id/twofa
patch /api/subscribers/:id
post /api/campaigns; post /api/campaigns/:id/content; post /api/campaigns/:id/preview; post /api/campaigns/:id/preview/archive; post /api/campaigns/:id/test
post /api/campaigns/:id/text; post /api/import/subscribers; post /api/lists; post /api/logout; post /api/profile/first-run/dismiss; post /api/media; post /api/public/subscription
post /api/roles/lists; post /api/roles/users; post /api/settings/smtp/test; post /api/subscribers; post /api/subscribers/:id/optin
post /api/subscribers/query/delete; post /api/templates; post /api/templates/:id/preview; post /api/templates/preview; post /api/tx; post /api/users
put /api/bounces/blocklist; put /api/campaigns/:id; put /api/campaigns/:id/archive; put /api/campaigns/:id/status; put /api/lists/:id; put /api/profile
put /api/roles/lists/:id; put /api/roles/users/:id; put /api/settings; put /api/settings/:key; put /api/subscribers/:id; put /api/subscribers/:id/blocklist
put /api/subscribers/blocklist; put /api/subscribers/lists; put /api/subscribers/lists/:id; put /api/subscribers/query/blocklist
put /api/subscribers/query/lists; put /api/templates/:id; put /api/templates/:id/default; put /api/users/:id; put /api/users/:id/twofa
get /; get /admin; get /admin/subscribers; get /admin/subscribers/new; get /admin/subscribers/:id; get /admin/x; get /admin/forgot; get /admin/login; get /admin/login/twofa; get /admin/reset; get /archive; get /archive.xml
get /admin/campaigns/templates; get /admin/campaigns/templates/new; get /admin/campaigns/templates/:id; get /admin/campaigns/media
get /archive/:id; get /archive/latest; get /campaign/:uuid/:uuid; get /campaign/:uuid/:uuid/px.png; get /health; get /link/:uuid/:uuid/:uuid; get /metrics
get /public/custom.css; get /public/custom.js; get /public/static/altcha.umd.js; get /api/public/captcha/altcha; get /robots.txt; get /subscription/:uuid/:uuid; get /subscription/form; get /subscription/optin/:uuid
post /admin/forgot; post /admin/login; post /admin/login/twofa; post /admin/logout; post /admin/reset; post /subscription/:uuid/:uuid
post /subscription/export/:uuid; get /subscription/wipe/:uuid; post /subscription/form; post /subscription/optin/:uuid; post /subscription/wipe/:uuid; post /webhooks/bounce
post /webhooks/service/:service
post /api/users/:id/token; get /admin/users; get /admin/users/new; get /admin/users/:id; get /admin/users/roles/users; get /admin/users/roles/users/new; get /admin/users/roles/users/:id; get /admin/users/roles/lists; get /admin/users/roles/lists/new; get /admin/users/roles/lists/:id; get /admin/profile
get /api/events; get /admin/assets/:file; get /admin/custom.js; get /admin/lists; get /admin/lists/forms; get /admin/lists/new; get /admin/lists/:id
get /admin/subscribers/import; get /admin/subscribers/import/example.csv; get /admin/subscribers/bounces
get /admin/campaigns; get /admin/campaigns/new; get /admin/campaigns/:id; get /admin/campaigns/analytics
get /admin/settings
get /admin/campaigns/:id/analytics; get /api/campaigns/:id/analytics/:type/export
get /admin/settings/logs; get /admin/settings/maintenance; get /admin/settings/about
get /admin/settings/webhooks; get /admin/settings/webhooks/new; get /admin/settings/webhooks/:id; get /admin/settings/webhooks/:id/edit
get /admin/help; get /admin/help/:topic; get /admin/help/:folder/:file
get /api/webhooks; post /api/webhooks; get /api/webhooks/:id; put /api/webhooks/:id; delete /api/webhooks/:id; post /api/webhooks/:id/secret; post /api/webhooks/:id/test
get /api/webhooks/:id/deliveries; get /api/webhooks/:id/deliveries/:delivery_id; post /api/webhooks/:id/deliveries/:delivery_id/retry; get /api/changes`
  .split(/[;\n]/).map((s) => s.trim()).filter(Boolean).map((s) => s.split(' ') as [string, string]);
