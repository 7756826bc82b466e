-- Opt-in confirmation mails sent again to a list's unconfirmed subscribers (POST
-- /api/lists/:id/optin). Each row is one mail: queued by the request, then sent (or failed,
-- or skipped when nothing was left to confirm) by the sending engine under its rate limits,
-- so a request never mails thousands at once. The rows are also the durable record of the
-- "at most once per 24 h" rule: a subscriber with a queued or sent row younger than a day is
-- not queued again; a failed one may be.
CREATE TABLE optin_mails (
  id            INTEGER PRIMARY KEY,
  subscriber_id INTEGER NOT NULL REFERENCES subscribers (id) ON DELETE CASCADE,
  list_id       INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  status        TEXT NOT NULL DEFAULT 'queued' CHECK (status IN ('queued', 'sent', 'failed', 'skipped')),
  error         TEXT NOT NULL DEFAULT '',
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  updated_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
-- The 24-hour rule looks up a subscriber's latest mails.
CREATE INDEX optin_mails_subscriber ON optin_mails (subscriber_id, created_at);
-- The engine's walk over what is still to send, in order.
CREATE INDEX optin_mails_queued ON optin_mails (id) WHERE status = 'queued';
