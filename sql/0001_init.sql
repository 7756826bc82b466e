-- listmgr schema, version 1.
-- Timestamps are UTC text in ISO 8601 with milliseconds ('2026-01-02T03:04:05.678Z'), the
-- same shape as JavaScript's Date.toISOString(): they sort as text and go out on the wire as-is.
-- JSON columns (attribs, meta, tags, headers, permissions) hold JSON text.

CREATE TABLE settings (
  key        TEXT PRIMARY KEY,
  value      TEXT NOT NULL CHECK (json_valid(value)),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Subscribers -----------------------------------------------------------------------------

CREATE TABLE subscribers (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid       TEXT NOT NULL UNIQUE,
  email      TEXT NOT NULL UNIQUE,          -- trimmed and lower-cased, as listmonk
  name       TEXT NOT NULL,
  attribs    TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(attribs)),
  status     TEXT NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled', 'blocklisted')),
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX subscribers_status ON subscribers (status);
CREATE INDEX subscribers_name ON subscribers (name);
CREATE INDEX subscribers_created_at ON subscribers (created_at);
CREATE INDEX subscribers_updated_at ON subscribers (updated_at);

CREATE TABLE lists (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid        TEXT NOT NULL UNIQUE,
  name        TEXT NOT NULL,
  type        TEXT NOT NULL DEFAULT 'private' CHECK (type IN ('public', 'private')),
  optin       TEXT NOT NULL DEFAULT 'single' CHECK (optin IN ('single', 'double')),
  status      TEXT NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'archived')),
  tags        TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
  description TEXT NOT NULL DEFAULT '',
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- A subscription. `source` records how consent was given (api, import, form, admin);
-- `meta` holds the opt-in evidence (confirmed_at, optin_ip, optin_user_agent).
CREATE TABLE subscriber_lists (
  subscriber_id INTEGER NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
  list_id       INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  status        TEXT NOT NULL DEFAULT 'unconfirmed' CHECK (status IN ('unconfirmed', 'confirmed', 'unsubscribed')),
  source        TEXT NOT NULL DEFAULT 'api',
  meta          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (subscriber_id, list_id)
) WITHOUT ROWID;
CREATE INDEX subscriber_lists_list ON subscriber_lists (list_id, status, subscriber_id);

-- Templates and media ---------------------------------------------------------------------

CREATE TABLE templates (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  name        TEXT NOT NULL,
  type        TEXT NOT NULL DEFAULT 'campaign' CHECK (type IN ('campaign', 'campaign_visual', 'tx')),
  subject     TEXT NOT NULL DEFAULT '',
  body        TEXT NOT NULL DEFAULT '',
  body_source TEXT,
  is_default  INTEGER NOT NULL DEFAULT 0 CHECK (is_default IN (0, 1)),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- At most one default template.
CREATE UNIQUE INDEX templates_one_default ON templates (is_default) WHERE is_default = 1;

CREATE TABLE media (
  id           INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid         TEXT NOT NULL UNIQUE,
  provider     TEXT NOT NULL DEFAULT 'filesystem',
  filename     TEXT NOT NULL UNIQUE,
  content_type TEXT NOT NULL DEFAULT 'application/octet-stream',
  thumb        TEXT,
  meta         TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
  created_at   TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX media_created_at ON media (created_at);

-- Campaigns -------------------------------------------------------------------------------

CREATE TABLE campaigns (
  id                  INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid                TEXT NOT NULL UNIQUE,
  name                TEXT NOT NULL,
  subject             TEXT NOT NULL,
  from_email          TEXT NOT NULL,
  body                TEXT NOT NULL DEFAULT '',
  body_source         TEXT,
  altbody             TEXT,
  content_type        TEXT NOT NULL DEFAULT 'richtext' CHECK (content_type IN ('richtext', 'html', 'markdown', 'plain', 'visual')),
  send_at             TEXT,
  headers             TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(headers)),
  attribs             TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(attribs)),
  status              TEXT NOT NULL DEFAULT 'draft' CHECK (status IN ('draft', 'scheduled', 'running', 'paused', 'cancelled', 'finished')),
  -- Why a campaign was paused by the engine (error threshold), shown in logs and notifications.
  status_reason       TEXT NOT NULL DEFAULT '',
  tags                TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(tags)),
  type                TEXT NOT NULL DEFAULT 'regular' CHECK (type IN ('regular', 'optin')),
  messenger           TEXT NOT NULL DEFAULT 'email',
  template_id         INTEGER REFERENCES templates (id) ON DELETE SET NULL,
  to_send             INTEGER NOT NULL DEFAULT 0,
  sent                INTEGER NOT NULL DEFAULT 0,
  max_subscriber_id   INTEGER NOT NULL DEFAULT 0,
  last_subscriber_id  INTEGER NOT NULL DEFAULT 0,
  archive             INTEGER NOT NULL DEFAULT 0 CHECK (archive IN (0, 1)),
  archive_slug        TEXT UNIQUE,
  archive_template_id INTEGER REFERENCES templates (id) ON DELETE SET NULL,
  archive_meta        TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(archive_meta)),
  started_at          TEXT,
  created_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at          TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX campaigns_status ON campaigns (status);
CREATE INDEX campaigns_created_at ON campaigns (created_at);

-- The lists a campaign was sent to. The name is kept when the list is deleted (list_id NULL).
CREATE TABLE campaign_lists (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  list_id     INTEGER REFERENCES lists (id) ON DELETE SET NULL,
  list_name   TEXT NOT NULL DEFAULT ''
);
CREATE UNIQUE INDEX campaign_lists_pair ON campaign_lists (campaign_id, list_id);
CREATE INDEX campaign_lists_list ON campaign_lists (list_id);

CREATE TABLE campaign_media (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  campaign_id INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  media_id    INTEGER REFERENCES media (id) ON DELETE SET NULL,
  filename    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX campaign_media_campaign ON campaign_media (campaign_id);

-- The per-recipient send record: the delivery engine's exactly-once ledger.
CREATE TABLE campaign_sends (
  campaign_id   INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  subscriber_id INTEGER NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed')),
  error         TEXT NOT NULL DEFAULT '',
  updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  PRIMARY KEY (campaign_id, subscriber_id)
) WITHOUT ROWID;

-- Tracking --------------------------------------------------------------------------------

CREATE TABLE campaign_views (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  campaign_id   INTEGER REFERENCES campaigns (id) ON DELETE CASCADE,
  subscriber_id INTEGER REFERENCES subscribers (id) ON DELETE SET NULL,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX campaign_views_campaign ON campaign_views (campaign_id, created_at);
CREATE INDEX campaign_views_subscriber ON campaign_views (subscriber_id);
CREATE INDEX campaign_views_created_at ON campaign_views (created_at);

CREATE TABLE links (
  id         INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid       TEXT NOT NULL UNIQUE,
  url        TEXT NOT NULL UNIQUE,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

CREATE TABLE link_clicks (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  campaign_id   INTEGER REFERENCES campaigns (id) ON DELETE CASCADE,
  link_id       INTEGER NOT NULL REFERENCES links (id) ON DELETE CASCADE,
  subscriber_id INTEGER REFERENCES subscribers (id) ON DELETE SET NULL,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX link_clicks_campaign ON link_clicks (campaign_id, created_at);
CREATE INDEX link_clicks_link ON link_clicks (link_id);
CREATE INDEX link_clicks_subscriber ON link_clicks (subscriber_id);
CREATE INDEX link_clicks_created_at ON link_clicks (created_at);

-- Bounces ---------------------------------------------------------------------------------

CREATE TABLE bounces (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  subscriber_id INTEGER NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
  campaign_id   INTEGER REFERENCES campaigns (id) ON DELETE SET NULL,
  type          TEXT NOT NULL DEFAULT 'hard' CHECK (type IN ('soft', 'hard', 'complaint')),
  source        TEXT NOT NULL DEFAULT '',
  meta          TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE INDEX bounces_subscriber ON bounces (subscriber_id, type);
CREATE INDEX bounces_campaign ON bounces (campaign_id);
CREATE INDEX bounces_source ON bounces (source);
CREATE INDEX bounces_created_at ON bounces (created_at);

-- Users, roles, sessions ------------------------------------------------------------------

-- type 'user': global permissions (id 1 is the built-in Super Admin).
-- type 'list': per-list grants in role_lists.
CREATE TABLE roles (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  type        TEXT NOT NULL CHECK (type IN ('user', 'list')),
  name        TEXT NOT NULL,
  permissions TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(permissions)),
  created_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at  TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  UNIQUE (type, name)
);

CREATE TABLE role_lists (
  role_id     INTEGER NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
  list_id     INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  permissions TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(permissions)),
  PRIMARY KEY (role_id, list_id)
) WITHOUT ROWID;

-- `password` holds a scrypt hash for login users and the SHA-256 hex of the token for API users.
CREATE TABLE users (
  id             INTEGER PRIMARY KEY AUTOINCREMENT,
  username       TEXT NOT NULL UNIQUE,
  password       TEXT,
  password_login INTEGER NOT NULL DEFAULT 0 CHECK (password_login IN (0, 1)),
  email          TEXT NOT NULL UNIQUE,
  name           TEXT NOT NULL,
  type           TEXT NOT NULL CHECK (type IN ('user', 'api')),
  user_role_id   INTEGER NOT NULL REFERENCES roles (id) ON DELETE RESTRICT,
  list_role_id   INTEGER REFERENCES roles (id) ON DELETE SET NULL,
  status         TEXT NOT NULL DEFAULT 'enabled' CHECK (status IN ('enabled', 'disabled')),
  avatar         TEXT,
  twofa_type     TEXT NOT NULL DEFAULT 'none' CHECK (twofa_type IN ('none', 'totp')),
  twofa_key      TEXT,
  loggedin_at    TEXT,
  created_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at     TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- Login sessions; `id` is the SHA-256 hex of the cookie value, never the value itself.
CREATE TABLE sessions (
  id         TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  expires_at TEXT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);
CREATE INDEX sessions_expires_at ON sessions (expires_at);
