-- Bulk imports skip the per-row upkeep of the audience read models (sql/0020) too: the
-- insert triggers of the subscriber total, the per-list counts and the search index are
-- recreated with the bulk gate of sql/0040, and the importer fills them for each batch in
-- set-based statements (src/imports/bulk.ts, AudienceFiller). Outside a bulk batch from_id is
-- NULL and the triggers fire for every row as before.

DROP TRIGGER subscriber_total_insert;
CREATE TRIGGER subscriber_total_insert AFTER INSERT ON subscribers
WHEN new.id < coalesce((SELECT from_id FROM subscriber_bulk_insert WHERE id = 1), new.id + 1)
BEGIN
  UPDATE subscriber_total SET n = n + 1 WHERE id = 1;
END;

DROP TRIGGER list_counts_insert;
CREATE TRIGGER list_counts_insert AFTER INSERT ON subscriber_lists
WHEN new.subscriber_id < coalesce((SELECT from_id FROM subscriber_bulk_insert WHERE id = 1), new.subscriber_id + 1)
BEGIN
  INSERT INTO list_subscriber_counts (list_id, status, n) VALUES (new.list_id, new.status, 1)
    ON CONFLICT (list_id, status) DO UPDATE SET n = n + 1;
END;

DROP TRIGGER subscribers_fts_insert;
CREATE TRIGGER subscribers_fts_insert AFTER INSERT ON subscribers
WHEN new.id < coalesce((SELECT from_id FROM subscriber_bulk_insert WHERE id = 1), new.id + 1)
BEGIN
  INSERT INTO subscribers_fts (rowid, name, email, attribs) VALUES (new.id, new.name, new.email,
    (SELECT group_concat(value, ' ') FROM json_tree(new.attribs) WHERE type = 'text'));
END;
