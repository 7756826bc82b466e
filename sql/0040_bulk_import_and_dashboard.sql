-- Bulk subscriber writes, and the dashboard's counters.

-- While the importer writes a batch (inside its transaction), `from_id` holds the first
-- subscriber id of the batch; AFTER INSERT triggers on subscribers and subscriber_lists skip
-- the rows of subscribers with id >= from_id, and the importer brings the derived data up to
-- date for the whole batch at once (src/imports/bulk.ts). Outside a batch it is NULL, and other
-- connections only ever see NULL (it is reset before the batch commits).
CREATE TABLE subscriber_bulk_insert (
  id      INTEGER PRIMARY KEY CHECK (id = 1),
  from_id INTEGER
);
INSERT INTO subscriber_bulk_insert (id, from_id) VALUES (1, NULL);

-- Dashboard counts kept exact by triggers: subscribers per status, and the number of
-- subscribers with at least one subscription (orphans = total - subscribed).
CREATE TABLE dashboard_counts (
  key TEXT PRIMARY KEY,
  n   INTEGER NOT NULL
) WITHOUT ROWID;
INSERT INTO dashboard_counts (key, n) VALUES
  ('enabled', (SELECT COUNT(*) FROM subscribers WHERE status = 'enabled')),
  ('disabled', (SELECT COUNT(*) FROM subscribers WHERE status = 'disabled')),
  ('blocklisted', (SELECT COUNT(*) FROM subscribers WHERE status = 'blocklisted')),
  ('subscribed', (SELECT COUNT(DISTINCT subscriber_id) FROM subscriber_lists));

CREATE TRIGGER dashboard_subscriber_insert AFTER INSERT ON subscribers
WHEN new.id < coalesce((SELECT from_id FROM subscriber_bulk_insert WHERE id = 1), new.id + 1)
BEGIN
  UPDATE dashboard_counts SET n = n + 1 WHERE key = new.status;
END;

CREATE TRIGGER dashboard_subscriber_delete AFTER DELETE ON subscribers
BEGIN
  UPDATE dashboard_counts SET n = n - 1 WHERE key = old.status;
END;

CREATE TRIGGER dashboard_subscriber_status AFTER UPDATE OF status ON subscribers
WHEN old.status <> new.status
BEGIN
  UPDATE dashboard_counts SET n = n - 1 WHERE key = old.status;
  UPDATE dashboard_counts SET n = n + 1 WHERE key = new.status;
END;

-- A subscriber's first subscription makes it "subscribed"; removing its last one an orphan.
CREATE TRIGGER dashboard_subscription_insert AFTER INSERT ON subscriber_lists
WHEN new.subscriber_id < coalesce((SELECT from_id FROM subscriber_bulk_insert WHERE id = 1), new.subscriber_id + 1)
  AND NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = new.subscriber_id AND list_id <> new.list_id)
BEGIN
  UPDATE dashboard_counts SET n = n + 1 WHERE key = 'subscribed';
END;

CREATE TRIGGER dashboard_subscription_delete AFTER DELETE ON subscriber_lists
WHEN NOT EXISTS (SELECT 1 FROM subscriber_lists WHERE subscriber_id = old.subscriber_id)
BEGIN
  UPDATE dashboard_counts SET n = n - 1 WHERE key = 'subscribed';
END;

-- Views and clicks per UTC day, for the dashboard charts.
CREATE TABLE dashboard_daily (
  kind TEXT NOT NULL CHECK (kind IN ('views', 'clicks')),
  day  TEXT NOT NULL,
  n    INTEGER NOT NULL,
  PRIMARY KEY (kind, day)
) WITHOUT ROWID;
INSERT INTO dashboard_daily (kind, day, n)
  SELECT 'views', substr(created_at, 1, 10), COUNT(*) FROM campaign_views GROUP BY 2;
INSERT INTO dashboard_daily (kind, day, n)
  SELECT 'clicks', substr(created_at, 1, 10), COUNT(*) FROM link_clicks GROUP BY 2;

CREATE TRIGGER dashboard_view_insert AFTER INSERT ON campaign_views
BEGIN
  INSERT INTO dashboard_daily (kind, day, n) VALUES ('views', substr(new.created_at, 1, 10), 1)
    ON CONFLICT (kind, day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER dashboard_view_delete AFTER DELETE ON campaign_views
BEGIN
  UPDATE dashboard_daily SET n = n - 1 WHERE kind = 'views' AND day = substr(old.created_at, 1, 10);
END;

CREATE TRIGGER dashboard_click_insert AFTER INSERT ON link_clicks
BEGIN
  INSERT INTO dashboard_daily (kind, day, n) VALUES ('clicks', substr(new.created_at, 1, 10), 1)
    ON CONFLICT (kind, day) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER dashboard_click_delete AFTER DELETE ON link_clicks
BEGIN
  UPDATE dashboard_daily SET n = n - 1 WHERE kind = 'clicks' AND day = substr(old.created_at, 1, 10);
END;
