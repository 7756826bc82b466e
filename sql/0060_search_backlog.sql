-- Bulk imports no longer fill the search index (sql/0020) in their own transactions: the
-- trigram index costs more than all the other writes of an imported row together. An import
-- lists the id ranges it inserted here, and a background indexer (src/imports/search-indexer.ts)
-- indexes them after the import in large steps, removing each step's ids from the backlog in
-- the same transaction. Until then, search scans the rows of the backlog directly
-- (src/subscribers/store.ts), so every row is always found.
CREATE TABLE subscriber_search_backlog (
  first_id INTEGER PRIMARY KEY,
  last_id  INTEGER NOT NULL CHECK (last_id >= first_id)
);

-- A row of the backlog is not in the index yet: a change to it has nothing to take out, and
-- the indexer reads its current values when it gets to it.
DROP TRIGGER subscribers_fts_delete;
CREATE TRIGGER subscribers_fts_delete AFTER DELETE ON subscribers
WHEN NOT EXISTS (SELECT 1 FROM subscriber_search_backlog WHERE old.id BETWEEN first_id AND last_id)
BEGIN
  DELETE FROM subscribers_fts WHERE rowid = old.id;
END;

DROP TRIGGER subscribers_fts_update;
CREATE TRIGGER subscribers_fts_update AFTER UPDATE OF name, email, attribs ON subscribers
WHEN NOT EXISTS (SELECT 1 FROM subscriber_search_backlog WHERE old.id BETWEEN first_id AND last_id)
BEGIN
  DELETE FROM subscribers_fts WHERE rowid = old.id;
  INSERT INTO subscribers_fts (rowid, name, email, attribs) VALUES (new.id, new.name, new.email,
    (SELECT group_concat(value, ' ') FROM json_tree(new.attribs) WHERE type = 'text'));
END;
