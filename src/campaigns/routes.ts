// /api/campaigns. Who may see or change which campaign is decided by the campaign service.
import type { Context } from 'hono';
import { convertContent } from '../content/convert.ts';
import { ok, pageResults } from '../http/envelope.ts';
import { LIMITS } from '../core/limits.ts';
import { orderByQuery, orderQuery, pagingQuery } from '../http/paging.ts';
import { parsePaging } from '../core/paging.ts';
import { sendPreview } from '../http/preview.ts';
import { routesFor, type Input } from '../http/routes.ts';
import { f, pathId, q, z } from '../http/schema.ts';
import type { AppEnv } from '../http/types.ts';
import { sendCsv } from '../http/csv.ts';
import type { AppContext } from '../context.ts';
import type { Actor } from '../core/authz.ts';
import { CAMPAIGN_TYPES, type CampaignService } from './service.ts';
import { CAMPAIGN_ORDER_BY, CAMPAIGN_STATUSES } from './store.ts';

interface Deps {
  campaigns: CampaignService;
  settings: AppContext['settings'];
}
type C = Context<AppEnv>;

const GET = ['campaigns:get_all', 'campaigns:get'] as const;
const MANAGE = ['campaigns:manage_all', 'campaigns:manage'] as const;

const route = routesFor<Deps>();
type Params = Readonly<Record<string, string>>;
/** The routes that read one campaign ask the campaign service whether the caller sees it (by its lists). */
const seesCampaign = (d: Deps, actor: Actor, p: Params) => d.campaigns.sees(actor, Number(p.id));
/** The routes that change one campaign ask whether the caller manages it (by its lists). */
const managesCampaign = (d: Deps, actor: Actor, p: Params) => d.campaigns.manages(actor, Number(p.id));
/** Who opened or clicked a campaign: the caller must see the campaign and read subscribers. */
const seesReaders = (d: Deps, actor: Actor, p: Params) => d.campaigns.seesReaders(actor, Number(p.id));
export const CAMPAIGN_ROUTES = [
  route({ method: 'GET', path: '/campaigns', access: GET, handler: queryCampaigns, query: campaignQuery, summary: 'Campaigns the caller may see, paged, filtered by status, tag and name or subject' }),
  route({ method: 'GET', path: '/campaigns/running/stats', access: GET, handler: runningStats, query: runningQuery, summary: 'Progress and send rate of the running campaigns (or of one)' }),
  route({ method: 'GET', path: '/campaigns/audience', access: GET, handler: campaignAudience, query: audienceQuery, summary: 'listmgr: how many subscribers a campaign to these lists would reach if started now (as its to_send), how many members the lists have, who is left out and why (unconfirmed on double opt-in lists, unsubscribed, blocklisted), and the double opt-in lists whose opt-in action reaches the unconfirmed' }),
  route({ method: 'GET', path: '/campaigns/analytics/:type', access: 'campaigns:get_analytics', handler: campaignAnalytics, query: analyticsQuery, summary: 'Views, clicks or bounces per campaign over time, or the most clicked links' }),
  route({ method: 'GET', path: '/campaigns/:id', access: GET, may: seesCampaign, handler: getCampaign, query: noBodyQuery, summary: 'One campaign' }),
  route({ method: 'GET', path: '/campaigns/:id/analytics/:type/export', access: 'campaigns:get_analytics', may: seesReaders, handler: exportEngagement, raw: 'text/csv', summary: 'Who viewed the campaign (type views: each subscriber with their count) or clicked its links (type clicks: each subscriber and link), as CSV; subscribers the caller may see only' }),
  route({ method: 'GET', path: '/campaigns/:id/preview', access: GET, may: seesCampaign, handler: previewCampaign, query: previewQuery, raw: 'text/html', summary: 'The campaign rendered for the demo subscriber, with the body, content type or template given in the query instead of the stored ones' }),
  route({ method: 'POST', path: '/campaigns/:id/preview', access: GET, may: seesCampaign, handler: previewPostedCampaign, body: previewInput, bodyKind: 'json-or-form', raw: 'text/html', summary: 'The campaign rendered for the demo subscriber, with a posted (unsaved) body, content type or template' }),
  route({ method: 'POST', path: '/campaigns/:id/text', access: GET, may: seesCampaign, handler: previewPostedCampaign, body: previewInput, bodyKind: 'json-or-form', raw: 'text/html', summary: 'As POST /campaigns/{id}/preview (listmonk\'s path for previews of plain-text content)' }),
  route({ method: 'POST', path: '/campaigns/:id/preview/archive', access: GET, may: seesCampaign, handler: previewArchive, body: archivePreviewInput, bodyKind: 'json-or-form', raw: 'text/html', summary: 'The campaign\'s archive page as it would be published, with a posted archive_meta or template' }),
  route({ method: 'POST', path: '/campaigns/:id/content', access: MANAGE, handler: convertCampaignContent, body: contentConversion, summary: 'Converts a body between content types (markdown, HTML, rich text, plain text)' }),
  route({ method: 'POST', path: '/campaigns', access: MANAGE, handler: createCampaign, body: campaignInput, summary: 'Creates a draft campaign' }),
  route({ method: 'PUT', path: '/campaigns/:id', access: MANAGE, may: managesCampaign, handler: updateCampaign, body: campaignChanges, summary: 'Changes a draft, scheduled or paused campaign (fields not given keep their value)' }),
  route({ method: 'PUT', path: '/campaigns/:id/status', access: 'campaigns:send', may: managesCampaign, handler: setCampaignStatus, body: statusChange, summary: 'Starts, schedules, pauses, cancels or unschedules a campaign' }),
  route({ method: 'PUT', path: '/campaigns/:id/archive', access: MANAGE, may: managesCampaign, handler: setCampaignArchive, body: archiveChanges, summary: 'Publishes a campaign in the public archive or withdraws it, with its slug, template and stand-in subscriber' }),
  route({ method: 'POST', path: '/campaigns/:id/test', access: MANAGE, may: managesCampaign, handler: testCampaign, body: campaignTest, bodyKind: 'json-or-form', summary: 'Sends the campaign as edited (unsaved) to up to 10 addresses, uncounted: subscribers the caller may see get their own message; other addresses (campaigns:send only) a stand-in subscriber' }),
  route({ method: 'DELETE', path: '/campaigns', access: MANAGE, handler: deleteCampaigns, query: deleteQuery, summary: 'Deletes campaigns by id, by name or subject search, or all the caller may manage' }),
  route({ method: 'DELETE', path: '/campaigns/:id', access: MANAGE, may: managesCampaign, handler: deleteCampaign, summary: 'Deletes a campaign that is not running' }),
];

function campaignQuery() {
  return z.object({
    query: q.str(),
    // Each must be a status; the service says which is not.
    status: q.all().meta({ type: 'array', items: { type: 'string', enum: CAMPAIGN_STATUSES } }),
    tag: q.all(),
    tags: q.all(),
    order_by: orderByQuery(CAMPAIGN_ORDER_BY, 'created_at'),
    order: orderQuery(),
    no_body: q.bool(),
    ...pagingQuery,
  }).meta({ id: 'CampaignQuery' });
}

function runningQuery() {
  return z.object({ campaign_id: q.int() });
}

function audienceQuery() {
  return z.object({ list_id: q.ids(), type: q.first({ type: 'string', enum: CAMPAIGN_TYPES }, (v) => (v === 'optin' ? 'optin' as const : 'regular' as const)) });
}

function analyticsQuery() {
  return z.object({ id: q.ids(), from: q.str(), to: q.str() });
}

function noBodyQuery() {
  return z.object({ no_body: q.bool() });
}

function previewQuery() {
  return z.object({ body: q.str(), content_type: q.first({ type: 'string' }, (v) => v?.trim()), template_id: q.int() });
}

function previewInput() {
  return z.object({ body: f.optString({ trim: false }), content_type: f.optString(), template_id: f.optInt() }).meta({ id: 'CampaignPreview' });
}

function archivePreviewInput() {
  // A form sends archive_meta as JSON text; a JSON body may send the object itself.
  return z.object({ template_id: f.optInt(), archive_meta: f.optJsonObject() }).meta({ id: 'CampaignArchivePreview' });
}

function contentConversion() {
  // The converter names what is wrong with each (content/convert.ts).
  return z.object({ from: f.any(), to: f.any(), body: f.any() }).meta({ id: 'ContentConversion' });
}

/** Fields in the order a person fills the form, so the first problem reported is the first to fix. */
function campaignInput() {
  return z.object({
    name: f.reqString({ maxBytes: LIMITS.name }),
    subject: f.reqString({ maxBytes: LIMITS.subject, trim: false }),
    from_email: f.optString(),
    content_type: f.optString(),
    type: f.optEnum(CAMPAIGN_TYPES),
    send_at: f.clearable(f.optTimestamp()),
    lists: f.optIdList(),
    messenger: f.optString(),
    body: f.optString({ trim: false }),
    body_source: f.optString({ trim: false }),
    altbody: f.clearable(f.optString({ trim: false })),
    template_id: f.optInt(),
    archive_template_id: f.clearable(f.optInt()),
    archive_slug: f.clearable(f.optString()),
    headers: f.optHeaderList(),
    attribs: f.optObject(),
    tags: f.optTags(),
    archive: f.optBool(),
    archive_meta: f.optObject(),
    media: f.optIdList(),
    track_links: f.optBool(),
  }).meta({ id: 'CampaignInput' });
}

/**
 * A PUT, unlike a create: name and subject may be absent (the stored ones stay), and the type
 * is not read (it is set once, at create). A whole campaign from a GET is taken back.
 */
function campaignChanges() {
  return campaignInput().omit({ type: true }).extend({
    name: f.optString({ maxBytes: LIMITS.name }),
    subject: f.optString({ maxBytes: LIMITS.subject, trim: false }),
  }).meta({ id: 'CampaignChanges' });
}

/**
 * A test send: the addresses, and the campaign as edited. Unlike a save, `lists` may be absent
 * (the stored ones; a bare form tests the stored campaign); null still names none.
 */
function campaignTest() {
  return z.object({ subscribers: f.optStringArray(), ...campaignChanges().shape, lists: f.clearable(f.optIdList()) }).meta({ id: 'CampaignTest' });
}

function statusChange() {
  return z.object({ status: f.reqString() }).meta({ id: 'CampaignStatusChange' });
}

function archiveChanges() {
  return z.object({
    archive: f.optBool(),
    archive_template_id: f.optInt(),
    archive_slug: f.clearable(f.optString()),
    archive_meta: f.optObject(),
  }).meta({ id: 'CampaignArchiveChanges' });
}

function deleteQuery() {
  return z.object({ id: q.ids(), query: q.str(), all: q.bool() });
}

function queryCampaigns(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof campaignQuery>>) {
  const paging = parsePaging(p);
  const search = (p.query ?? '').trim();
  const { results, total } = s.campaigns.query(c.get('user'), {
    statuses: p.status, tags: [...p.tag, ...p.tags].filter(Boolean), search,
    orderBy: p.order_by, order: p.order, limit: paging.limit, offset: paging.offset, noBody: p.no_body === true,
  });
  return ok(c, pageResults(results, total, paging, { query: search, zeroWhenEmpty: true }));
}

function runningStats(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof runningQuery>>) {
  return ok(c, s.campaigns.runningStats(p.campaign_id ?? null));
}

function campaignAudience(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof audienceQuery>>) {
  return ok(c, s.campaigns.audience(c.get('user'), p.list_id, p.type));
}

function campaignAnalytics(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof analyticsQuery>>) {
  return ok(c, s.campaigns.analytics(c.get('user'), c.req.param('type') ?? '', { ids: p.id, from: p.from, to: p.to }));
}

/** The export's columns by type: the subscriber, (the link,) the count, the first and the last time. */
const ENGAGEMENT_CSV = {
  views: ['subscriber_uuid', 'email', 'name', 'views', 'first_viewed_at', 'last_viewed_at'],
  clicks: ['subscriber_uuid', 'email', 'name', 'url', 'clicks', 'first_clicked_at', 'last_clicked_at'],
} as const;

function exportEngagement(c: C, s: Deps) {
  const id = pathId(c);
  const type = c.req.param('type') ?? '';
  const next = s.campaigns.engagementExport(c.get('user'), id, type);
  const clicks = type === 'clicks';
  return sendCsv(c, `campaign-${id}-${type}.csv`, ENGAGEMENT_CSV[clicks ? 'clicks' : 'views'], () => next()?.map((r) => (clicks
    ? [r.uuid, r.email, r.name, r.url, r.count, r.first, r.last]
    : [r.uuid, r.email, r.name, r.count, r.first, r.last])) ?? null, { escapeFormulas: s.settings.bool('security.csv_escape_formulas') });
}

function getCampaign(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof noBodyQuery>>) {
  return ok(c, s.campaigns.get(c.get('user'), pathId(c), p.no_body === true));
}

function previewCampaign(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof previewQuery>>) {
  const preview = s.campaigns.preview(c.get('user'), pathId(c), p);
  return sendPreview(c, preview.body, preview.contentType === 'plain' ? 'plain' : 'html');
}

function previewPostedCampaign(c: C, s: Deps, { body }: Input<ReturnType<typeof previewInput>, undefined>) {
  const preview = s.campaigns.preview(c.get('user'), pathId(c), body);
  return sendPreview(c, preview.body, preview.contentType === 'plain' ? 'plain' : 'html');
}

function previewArchive(c: C, s: Deps, { body }: Input<ReturnType<typeof archivePreviewInput>, undefined>) {
  return sendPreview(c, s.campaigns.previewArchive(c.get('user'), pathId(c), body));
}

async function convertCampaignContent(c: C, _s: Deps, { body }: Input<ReturnType<typeof contentConversion>, undefined>) {
  return ok(c, await convertContent(body.from, body.to, body.body ?? ''));
}

function createCampaign(c: C, s: Deps, { body }: Input<ReturnType<typeof campaignInput>, undefined>) {
  return ok(c, s.campaigns.create(c.get('user'), body));
}

function updateCampaign(c: C, s: Deps, { body }: Input<ReturnType<typeof campaignChanges>, undefined>) {
  return ok(c, s.campaigns.update(c.get('user'), pathId(c), body));
}

function setCampaignStatus(c: C, s: Deps, { body }: Input<ReturnType<typeof statusChange>, undefined>) {
  return ok(c, s.campaigns.setStatus(c.get('user'), pathId(c), body.status));
}

function setCampaignArchive(c: C, s: Deps, { body }: Input<ReturnType<typeof archiveChanges>, undefined>) {
  s.campaigns.setArchive(c.get('user'), pathId(c), body);
  return ok(c, true);
}

async function testCampaign(c: C, s: Deps, { body }: Input<ReturnType<typeof campaignTest>, undefined>) {
  await s.campaigns.testSend(c.get('user'), pathId(c), body);
  return ok(c, true);
}

function deleteCampaigns(c: C, s: Deps, { query: p }: Input<undefined, ReturnType<typeof deleteQuery>>) {
  s.campaigns.deleteMany(c.get('user'), { ids: p.id, search: (p.query ?? '').trim(), all: p.all === true });
  return ok(c, true);
}

function deleteCampaign(c: C, s: Deps) {
  s.campaigns.delete(c.get('user'), pathId(c));
  return ok(c, true);
}
