-- Audience read models kept in step by triggers, so every writer (API, import, bounces,
-- maintenance) keeps them right without knowing about them.

-- The number of subscribers: one row, so an unfiltered page total is O(1).
CREATE TABLE subscriber_total (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  n  INTEGER NOT NULL
);
INSERT INTO subscriber_total (id, n) VALUES (1, (SELECT COUNT(*) FROM subscribers));

CREATE TRIGGER subscriber_total_insert AFTER INSERT ON subscribers
BEGIN
  UPDATE subscriber_total SET n = n + 1 WHERE id = 1;
END;

CREATE TRIGGER subscriber_total_delete AFTER DELETE ON subscribers
BEGIN
  UPDATE subscriber_total SET n = n - 1 WHERE id = 1;
END;

-- Subscriptions per list and status: list counts and per-list page totals without COUNT(*).
CREATE TABLE list_subscriber_counts (
  list_id INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
  status  TEXT NOT NULL,
  n       INTEGER NOT NULL,
  PRIMARY KEY (list_id, status)
) WITHOUT ROWID;
INSERT INTO list_subscriber_counts (list_id, status, n)
  SELECT list_id, status, COUNT(*) FROM subscriber_lists GROUP BY list_id, status;

CREATE TRIGGER list_counts_insert AFTER INSERT ON subscriber_lists
BEGIN
  INSERT INTO list_subscriber_counts (list_id, status, n) VALUES (new.list_id, new.status, 1)
    ON CONFLICT (list_id, status) DO UPDATE SET n = n + 1;
END;

CREATE TRIGGER list_counts_delete AFTER DELETE ON subscriber_lists
BEGIN
  UPDATE list_subscriber_counts SET n = n - 1 WHERE list_id = old.list_id AND status = old.status;
END;

CREATE TRIGGER list_counts_update AFTER UPDATE OF list_id, status ON subscriber_lists
WHEN old.list_id IS NOT new.list_id OR old.status IS NOT new.status
BEGIN
  UPDATE list_subscriber_counts SET n = n - 1 WHERE list_id = old.list_id AND status = old.status;
  INSERT INTO list_subscriber_counts (list_id, status, n) VALUES (new.list_id, new.status, 1)
    ON CONFLICT (list_id, status) DO UPDATE SET n = n + 1;
END;

-- Free-text search over name, e-mail and the text values of attribs: a contentless FTS5
-- index with the trigram tokenizer (case-insensitive substring matching for 3+ characters).
CREATE VIRTUAL TABLE subscribers_fts USING fts5 (
  name, email, attribs,
  content = '', contentless_delete = 1, tokenize = 'trigram'
);

INSERT INTO subscribers_fts (rowid, name, email, attribs)
  SELECT id, name, email, (SELECT group_concat(value, ' ') FROM json_tree(subscribers.attribs) WHERE type = 'text')
  FROM subscribers;

CREATE TRIGGER subscribers_fts_insert AFTER INSERT ON subscribers
BEGIN
  INSERT INTO subscribers_fts (rowid, name, email, attribs) VALUES (new.id, new.name, new.email,
    (SELECT group_concat(value, ' ') FROM json_tree(new.attribs) WHERE type = 'text'));
END;

CREATE TRIGGER subscribers_fts_delete AFTER DELETE ON subscribers
BEGIN
  DELETE FROM subscribers_fts WHERE rowid = old.id;
END;

CREATE TRIGGER subscribers_fts_update AFTER UPDATE OF name, email, attribs ON subscribers
BEGIN
  DELETE FROM subscribers_fts WHERE rowid = old.id;
  INSERT INTO subscribers_fts (rowid, name, email, attribs) VALUES (new.id, new.name, new.email,
    (SELECT group_concat(value, ' ') FROM json_tree(new.attribs) WHERE type = 'text'));
END;
