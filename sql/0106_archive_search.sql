-- The public archive's search (/archive?q=): every campaign's subject and text in an FTS5
-- index, rowid = the campaign's id. Triggers keep it in step with every writer (API, listmonk
-- import, tests' fixtures): a new or changed campaign is indexed with its body as stored and
-- noted in campaign_search_pending; CampaignStore then replaces that body with its plain text
-- (markup, link targets and template actions out) and clears the note, in the same transaction
-- for its own writes, and on start for the others' (and for every campaign from before this).
-- A deleted campaign leaves the index.
CREATE VIRTUAL TABLE campaign_search USING fts5(subject, body, tokenize = 'unicode61 remove_diacritics 2');

CREATE TABLE campaign_search_pending (
  campaign_id INTEGER PRIMARY KEY
);

INSERT INTO campaign_search (rowid, subject, body) SELECT id, subject, body FROM campaigns;
INSERT INTO campaign_search_pending (campaign_id) SELECT id FROM campaigns;

CREATE TRIGGER campaign_search_insert AFTER INSERT ON campaigns
BEGIN
  INSERT INTO campaign_search (rowid, subject, body) VALUES (new.id, new.subject, new.body);
  INSERT OR IGNORE INTO campaign_search_pending (campaign_id) VALUES (new.id);
END;

CREATE TRIGGER campaign_search_update AFTER UPDATE OF subject, body, content_type ON campaigns
BEGIN
  DELETE FROM campaign_search WHERE rowid = old.id;
  INSERT INTO campaign_search (rowid, subject, body) VALUES (new.id, new.subject, new.body);
  INSERT OR IGNORE INTO campaign_search_pending (campaign_id) VALUES (new.id);
END;

CREATE TRIGGER campaign_search_delete AFTER DELETE ON campaigns
BEGIN
  DELETE FROM campaign_search WHERE rowid = old.id;
  DELETE FROM campaign_search_pending WHERE campaign_id = old.id;
END;
