// The allow-lists: which tables and columns a segment expression may read, with the type
// each column has in listmonk's Postgres schema (that is what decides how operators behave).
// Only tables about subscribers, lists, campaigns and their tracking are here; users,
// sessions, settings, roles, templates and media can never be named.

export type SqlType =
  | 'int'
  | 'numeric'
  | 'text'
  | 'bool'
  | 'json'
  | 'timestamp'
  | 'date'
  | 'interval'
  /** A quoted literal whose type comes from where it is used, as Postgres' `unknown`. */
  | 'unknown'
  /** The NULL literal. */
  | 'null';

export type Columns = Readonly<Record<string, SqlType>>;

/** The table the expression filters; the caller's query must alias it `subscribers`. */
export const SUBSCRIBER_COLUMNS: Columns = {
  id: 'int',
  uuid: 'text',
  email: 'text',
  name: 'text',
  attribs: 'json',
  status: 'text',
  created_at: 'timestamp',
  updated_at: 'timestamp',
};

/** Tables a subquery (`IN (SELECT …)`, `EXISTS (SELECT …)`) may read. */
export const SUBQUERY_TABLES: Readonly<Record<string, Columns>> = {
  subscriber_lists: {
    subscriber_id: 'int',
    list_id: 'int',
    status: 'text',
    meta: 'json',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  lists: {
    id: 'int',
    uuid: 'text',
    name: 'text',
    type: 'text',
    optin: 'text',
    status: 'text',
    tags: 'json',
    description: 'text',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  campaigns: {
    id: 'int',
    uuid: 'text',
    name: 'text',
    subject: 'text',
    from_email: 'text',
    content_type: 'text',
    send_at: 'timestamp',
    status: 'text',
    tags: 'json',
    type: 'text',
    messenger: 'text',
    template_id: 'int',
    to_send: 'int',
    sent: 'int',
    archive: 'bool',
    archive_slug: 'text',
    started_at: 'timestamp',
    created_at: 'timestamp',
    updated_at: 'timestamp',
  },
  campaign_lists: {
    id: 'int',
    campaign_id: 'int',
    list_id: 'int',
    list_name: 'text',
  },
  campaign_views: {
    id: 'int',
    campaign_id: 'int',
    subscriber_id: 'int',
    created_at: 'timestamp',
  },
  links: {
    id: 'int',
    uuid: 'text',
    url: 'text',
    created_at: 'timestamp',
  },
  link_clicks: {
    id: 'int',
    campaign_id: 'int',
    link_id: 'int',
    subscriber_id: 'int',
    created_at: 'timestamp',
  },
  bounces: {
    id: 'int',
    subscriber_id: 'int',
    campaign_id: 'int',
    type: 'text',
    source: 'text',
    meta: 'json',
    created_at: 'timestamp',
  },
};

/** The column of a subquery table that names a list: a caller restricted to some lists reads only their rows. */
export const LIST_COLUMNS: Readonly<Record<string, string>> = {
  subscriber_lists: 'list_id',
  lists: 'id',
};

/** Tables a subquery reads that need a permission besides subscribers:sql_query (the API's for reading them). */
export const TABLE_PERMISSIONS: Readonly<Record<string, 'campaigns:get_all' | 'bounces:get'>> = {
  campaigns: 'campaigns:get_all',
  campaign_lists: 'campaigns:get_all',
  campaign_views: 'campaigns:get_all',
  links: 'campaigns:get_all',
  link_clicks: 'campaigns:get_all',
  bounces: 'bounces:get',
};

/** Postgres type names accepted in `::type` casts and typed literals, and what they become. */
export const TYPE_NAMES: Readonly<Record<string, SqlType>> = {
  int: 'int', integer: 'int', int2: 'int', int4: 'int', int8: 'int', smallint: 'int', bigint: 'int',
  numeric: 'numeric', decimal: 'numeric', real: 'numeric', float: 'numeric', float4: 'numeric',
  float8: 'numeric', 'double precision': 'numeric',
  text: 'text', varchar: 'text', character: 'text', char: 'text',
  bool: 'bool', boolean: 'bool',
  json: 'json', jsonb: 'json',
  timestamp: 'timestamp', timestamptz: 'timestamp',
  date: 'date',
  interval: 'interval',
};
