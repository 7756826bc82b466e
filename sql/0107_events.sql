-- The change log (outbox): one row per change, written in the same transaction as the change.
-- Webhooks read it now, automations next; GET /api/changes serves it as a feed. `id` is
-- AUTOINCREMENT so an id is never reused after a prune (consumers keep a cursor on it).
CREATE TABLE events (
  id          INTEGER PRIMARY KEY AUTOINCREMENT,
  -- A random (version 4) UUID: the `webhook-id` receivers de-duplicate on.
  uuid        TEXT NOT NULL DEFAULT (lower(
                hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' ||
                substr(hex(randomblob(2)), 2) || '-' || substr('89ab', 1 + (abs(random()) % 4), 1) ||
                substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))),
  type        TEXT NOT NULL,
  occurred_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  -- Who caused it: {"type": "user" | "api", "id", "name"}, {"type": "public"} or {"type": "system"}.
  actor       TEXT NOT NULL DEFAULT '{"type":"system"}',
  data        TEXT NOT NULL
);
CREATE INDEX events_type ON events (type, id);
CREATE INDEX events_occurred_at ON events (occurred_at);

-- How far each reader of the log (the webhook dispatcher, later the automations) has read.
CREATE TABLE event_cursors (
  consumer      TEXT PRIMARY KEY,
  last_event_id INTEGER NOT NULL DEFAULT 0
);
