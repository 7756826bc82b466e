// Drizzle mirror of the tables that stores query through drizzle (see docs/architecture.md "Database access"):
// lists, templates, media, users, roles, sessions, password resets and settings. The migrations
// in sql/ are the source of truth; test/foundation/schema.test.ts checks each table here against
// a freshly migrated database (column names, types, NOT NULL, defaults, primary keys, enum CHECKs).
//
// Keys are the column names, and JSON and 0/1 columns stay the text and integers SQLite returns,
// so a row read through drizzle has the shape a row of named SQL has: the stores share row types
// and JSON mapping between both. Omitted columns take the default given here on insert (drizzle
// writes the default, or NULL, into the statement), so the defaults mirror the SQL ones.
import { sql } from 'drizzle-orm';
import { sqliteTable, integer, text, primaryKey } from 'drizzle-orm/sqlite-core';

declare const jsonOf: unique symbol;
/** The JSON text of a T, as a JSON column holds it (a string; the type says what it decodes to). */
export type JsonText<T> = string & { readonly [jsonOf]?: T };
export const toJsonText = <T>(value: T) => JSON.stringify(value) as JsonText<T>;
export const parseJsonText = <T>(text: JsonText<T>) => JSON.parse(text) as T;

/** The current time as the schema's timestamps hold it (ISO 8601 UTC with milliseconds). */
export const NOW = sql`strftime('%Y-%m-%dT%H:%M:%fZ', 'now')`;

const timestamp = (name: string) => text(name).notNull().default(sql`(${NOW})`);
const json = <T>(name: string, dflt: T) => text(name).$type<JsonText<T>>().notNull().default(toJsonText(dflt));
const flag = (name: string) => integer(name).$type<0 | 1>().notNull().default(0);

export const settings = sqliteTable('settings', {
  key: text('key').primaryKey(),
  value: text('value').$type<JsonText<unknown>>().notNull(),
  updated_at: timestamp('updated_at'),
});

export const lists = sqliteTable('lists', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull(),
  name: text('name').notNull(),
  type: text('type', { enum: ['public', 'private'] }).notNull().default('private'),
  optin: text('optin', { enum: ['single', 'double'] }).notNull().default('single'),
  status: text('status', { enum: ['active', 'archived'] }).notNull().default('active'),
  tags: json<string[]>('tags', []),
  description: text('description').notNull().default(''),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
});

export const templates = sqliteTable('templates', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  name: text('name').notNull(),
  type: text('type', { enum: ['campaign', 'campaign_visual', 'tx'] }).notNull().default('campaign'),
  subject: text('subject').notNull().default(''),
  body: text('body').notNull().default(''),
  body_source: text('body_source'),
  is_default: flag('is_default'),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
});

export const media = sqliteTable('media', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  uuid: text('uuid').notNull(),
  provider: text('provider').notNull().default('filesystem'),
  filename: text('filename').notNull(),
  content_type: text('content_type').notNull().default('application/octet-stream'),
  thumb: text('thumb'),
  meta: json<object>('meta', {}),
  created_at: timestamp('created_at'),
});

export const roles = sqliteTable('roles', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  type: text('type', { enum: ['user', 'list'] }).notNull(),
  name: text('name').notNull(),
  permissions: json<string[]>('permissions', []),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
});

export const roleLists = sqliteTable('role_lists', {
  role_id: integer('role_id').notNull(),
  list_id: integer('list_id').notNull(),
  permissions: json<string[]>('permissions', []),
}, (t) => [primaryKey({ columns: [t.role_id, t.list_id] })]);

export const users = sqliteTable('users', {
  id: integer('id').primaryKey({ autoIncrement: true }),
  username: text('username').notNull(),
  /** scrypt hash for login users, SHA-256 hex of the token for API users. */
  password: text('password'),
  password_login: flag('password_login'),
  email: text('email').notNull(),
  name: text('name').notNull(),
  type: text('type', { enum: ['user', 'api'] }).notNull(),
  user_role_id: integer('user_role_id').notNull(),
  list_role_id: integer('list_role_id'),
  status: text('status', { enum: ['enabled', 'disabled'] }).notNull().default('enabled'),
  avatar: text('avatar'),
  twofa_type: text('twofa_type', { enum: ['none', 'totp'] }).notNull().default('none'),
  twofa_key: text('twofa_key'),
  loggedin_at: text('loggedin_at'),
  created_at: timestamp('created_at'),
  updated_at: timestamp('updated_at'),
  totp_last_step: integer('totp_last_step').notNull().default(0),
  /** When the user hid the dashboard's first-run checklist; null while it is shown. */
  first_run_dismissed_at: text('first_run_dismissed_at'),
});

/** Login sessions; `id` is the SHA-256 hex of the cookie value. */
export const sessions = sqliteTable('sessions', {
  id: text('id').primaryKey(),
  user_id: integer('user_id').notNull(),
  created_at: timestamp('created_at'),
  expires_at: text('expires_at').notNull(),
  last_used_at: text('last_used_at'),
});

export const passwordResets = sqliteTable('password_resets', {
  token_hash: text('token_hash').primaryKey(),
  user_id: integer('user_id').notNull(),
  created_at: timestamp('created_at'),
  expires_at: text('expires_at').notNull(),
});
