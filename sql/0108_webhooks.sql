-- Outgoing webhooks (Standard Webhooks) on the change log.
CREATE TABLE webhooks (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  uuid            TEXT NOT NULL UNIQUE,
  name            TEXT NOT NULL,
  url             TEXT NOT NULL,
  description     TEXT NOT NULL DEFAULT '',
  -- The event types it receives: ["*"] for all.
  events          TEXT NOT NULL DEFAULT '["*"]' CHECK (json_valid(events)),
  enabled         INTEGER NOT NULL DEFAULT 1,
  -- whsec_ + base64 of the key. The secret replaced by a rotation keeps signing until
  -- previous_secret_until, as a second signature.
  secret                TEXT NOT NULL,
  previous_secret       TEXT,
  previous_secret_until TEXT,
  -- Events after this id are delivered to it (none from before it existed).
  after_event_id  INTEGER NOT NULL DEFAULT 0,
  -- When its deliveries began failing without a success since (an endpoint failing for
  -- 24 hours is disabled, with the reason).
  failing_since   TEXT,
  disabled_reason TEXT NOT NULL DEFAULT '',
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);

-- One event to one webhook. The worker takes due rows by setting a lease; a lease that runs
-- out (the process was killed mid-request) makes the row due again, so nothing is lost.
CREATE TABLE webhook_deliveries (
  id              INTEGER PRIMARY KEY AUTOINCREMENT,
  webhook_id      INTEGER NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
  event_id        INTEGER NOT NULL REFERENCES events (id) ON DELETE CASCADE,
  status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'delivered', 'retrying', 'failed')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  lease_until     TEXT,
  -- The last attempt: when it was signed (webhook-timestamp), what came back.
  attempted_at    TEXT,
  response_status INTEGER,
  response_ms     INTEGER,
  response_body   TEXT NOT NULL DEFAULT '',
  error           TEXT NOT NULL DEFAULT '',
  created_at      TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  delivered_at    TEXT
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_webhook ON webhook_deliveries (webhook_id, status, id);
-- The worker's claim: a webhook's waiting rows that are due, without walking all its retries.
CREATE INDEX webhook_deliveries_waiting ON webhook_deliveries (webhook_id, status, next_attempt_at) WHERE status IN ('pending', 'retrying');
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
