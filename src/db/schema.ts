// Drizzle mirror of the tables the migrations in sql/ create (the SQL files are the source of
// truth; keep in step).
import { sqliteTable, integer, text, primaryKey } from 'drizzle-orm/sqlite-core';

const ts = (name: string) => text(name).notNull();

export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').notNull(),
  updatedAt: ts('updated_at'),
});

export const subscribers = sqliteTable('subscribers', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull().unique(),
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  attribs: text('attribs').notNull(),
  status: text('status', { enum: ['enabled', 'disabled', 'blocklisted'] }).notNull(),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const lists = sqliteTable('lists', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull().unique(),
  name: text('name').notNull(),
  type: text('type', { enum: ['public', 'private'] }).notNull(),
  optin: text('optin', { enum: ['single', 'double'] }).notNull(),
  status: text('status', { enum: ['active', 'archived'] }).notNull(),
  tags: text('tags').notNull(),
  description: text('description').notNull(),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const subscriberLists = sqliteTable('subscriber_lists', {
  subscriberId: integer('subscriber_id').notNull(),
  listId: integer('list_id').notNull(),
  status: text('status', { enum: ['unconfirmed', 'confirmed', 'unsubscribed'] }).notNull(),
  source: text('source').notNull(),
  meta: text('meta').notNull(),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
}, (t) => [primaryKey({ columns: [t.subscriberId, t.listId] })]);

export const templates = sqliteTable('templates', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  type: text('type', { enum: ['campaign', 'campaign_visual', 'tx'] }).notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  bodySource: text('body_source'),
  isDefault: integer('is_default', { mode: 'boolean' }).notNull(),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const media = sqliteTable('media', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull().unique(),
  provider: text('provider').notNull(),
  filename: text('filename').notNull().unique(),
  contentType: text('content_type').notNull(),
  thumb: text('thumb'),
  meta: text('meta').notNull(),
  createdAt: ts('created_at'),
});

export const campaigns = sqliteTable('campaigns', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull().unique(),
  name: text('name').notNull(),
  subject: text('subject').notNull(),
  fromEmail: text('from_email').notNull(),
  body: text('body').notNull(),
  bodySource: text('body_source'),
  altbody: text('altbody'),
  contentType: text('content_type', { enum: ['richtext', 'html', 'markdown', 'plain', 'visual'] }).notNull(),
  sendAt: text('send_at'),
  headers: text('headers').notNull(),
  attribs: text('attribs').notNull(),
  status: text('status', { enum: ['draft', 'scheduled', 'running', 'paused', 'cancelled', 'finished'] }).notNull(),
  statusReason: text('status_reason').notNull(),
  tags: text('tags').notNull(),
  type: text('type', { enum: ['regular', 'optin'] }).notNull(),
  messenger: text('messenger').notNull(),
  templateId: integer('template_id'),
  toSend: integer('to_send').notNull(),
  sent: integer('sent').notNull(),
  maxSubscriberId: integer('max_subscriber_id').notNull(),
  lastSubscriberId: integer('last_subscriber_id').notNull(),
  archive: integer('archive', { mode: 'boolean' }).notNull(),
  archiveSlug: text('archive_slug').unique(),
  archiveTemplateId: integer('archive_template_id'),
  archiveMeta: text('archive_meta').notNull(),
  startedAt: text('started_at'),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const campaignLists = sqliteTable('campaign_lists', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  campaignId: integer('campaign_id').notNull(),
  listId: integer('list_id'),
  listName: text('list_name').notNull(),
});

export const campaignMedia = sqliteTable('campaign_media', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  campaignId: integer('campaign_id').notNull(),
  mediaId: integer('media_id'),
  filename: text('filename').notNull(),
});

export const campaignSends = sqliteTable('campaign_sends', {
  campaignId: integer('campaign_id').notNull(),
  subscriberId: integer('subscriber_id').notNull(),
  status: text('status', { enum: ['queued', 'sent', 'failed'] }).notNull(),
  error: text('error').notNull(),
  updatedAt: ts('updated_at'),
}, (t) => [primaryKey({ columns: [t.campaignId, t.subscriberId] })]);

export const campaignViews = sqliteTable('campaign_views', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  campaignId: integer('campaign_id'),
  subscriberId: integer('subscriber_id'),
  createdAt: ts('created_at'),
});

export const links = sqliteTable('links', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull().unique(),
  url: text('url').notNull().unique(),
  createdAt: ts('created_at'),
});

export const linkClicks = sqliteTable('link_clicks', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  campaignId: integer('campaign_id'),
  linkId: integer('link_id').notNull(),
  subscriberId: integer('subscriber_id'),
  createdAt: ts('created_at'),
});

export const bounces = sqliteTable('bounces', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  subscriberId: integer('subscriber_id').notNull(),
  campaignId: integer('campaign_id'),
  type: text('type', { enum: ['soft', 'hard', 'complaint'] }).notNull(),
  source: text('source').notNull(),
  meta: text('meta').notNull(),
  createdAt: ts('created_at'),
});

export const roles = sqliteTable('roles', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  type: text('type', { enum: ['user', 'list'] }).notNull(),
  name: text('name').notNull(),
  permissions: text('permissions').notNull(),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const roleLists = sqliteTable('role_lists', {
  roleId: integer('role_id').notNull(),
  listId: integer('list_id').notNull(),
  permissions: text('permissions').notNull(),
}, (t) => [primaryKey({ columns: [t.roleId, t.listId] })]);

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  username: text('username').notNull().unique(),
  password: text('password'),
  passwordLogin: integer('password_login', { mode: 'boolean' }).notNull(),
  email: text('email').notNull().unique(),
  name: text('name').notNull(),
  type: text('type', { enum: ['user', 'api'] }).notNull(),
  userRoleId: integer('user_role_id').notNull(),
  listRoleId: integer('list_role_id'),
  status: text('status', { enum: ['enabled', 'disabled'] }).notNull(),
  avatar: text('avatar'),
  twofaType: text('twofa_type', { enum: ['none', 'totp'] }).notNull(),
  twofaKey: text('twofa_key'),
  totpLastStep: integer('totp_last_step').notNull(),
  loggedinAt: text('loggedin_at'),
  createdAt: ts('created_at'),
  updatedAt: ts('updated_at'),
});

export const sessions = sqliteTable('sessions', {
  id: text('id').primaryKey(),
  userId: integer('user_id').notNull(),
  createdAt: ts('created_at'),
  expiresAt: text('expires_at').notNull(),
});

// Derived tables kept by triggers (0020, 0040) and the bulk-import gate; the FTS5 search index
// `subscribers_fts` is a virtual table and is queried with SQL only.
export const subscriberTotal = sqliteTable('subscriber_total', {
  id: integer('id').primaryKey(),
  n: integer('n').notNull(),
});

export const listSubscriberCounts = sqliteTable('list_subscriber_counts', {
  listId: integer('list_id').notNull(),
  status: text('status').notNull(),
  n: integer('n').notNull(),
}, (t) => [primaryKey({ columns: [t.listId, t.status] })]);

export const subscriberBulkInsert = sqliteTable('subscriber_bulk_insert', {
  id: integer('id').primaryKey(),
  fromId: integer('from_id'),
});

/** Id ranges of bulk-imported subscribers not yet in the search index (0060). */
export const subscriberSearchBacklog = sqliteTable('subscriber_search_backlog', {
  firstId: integer('first_id').primaryKey(),
  lastId: integer('last_id').notNull(),
});

export const dashboardCounts = sqliteTable('dashboard_counts', {
  key: text('key').primaryKey(),
  n: integer('n').notNull(),
});

export const dashboardDaily = sqliteTable('dashboard_daily', {
  kind: text('kind', { enum: ['views', 'clicks'] }).notNull(),
  day: text('day').notNull(),
  n: integer('n').notNull(),
}, (t) => [primaryKey({ columns: [t.kind, t.day] })]);

export const passwordResets = sqliteTable('password_resets', {
  tokenHash: text('token_hash').primaryKey(),
  userId: integer('user_id').notNull(),
  createdAt: ts('created_at'),
  expiresAt: text('expires_at').notNull(),
});
