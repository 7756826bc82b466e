-- The public archive's search (/archive?q=): every campaign's subject and text in an FTS5
-- index, rowid = the campaign's id. Triggers keep it in step with every writer (API, listmonk
-- import, tests' fixtures): a new or changed campaign is indexed with its body as stored, and
-- CampaignStore then replaces that body with its plain text (markup and template actions out),
-- in the same transaction. A deleted campaign leaves the index.
CREATE VIRTUAL TABLE campaign_search USING fts5(subject, body, tokenize = 'unicode61 remove_diacritics 2');

INSERT INTO campaign_search (rowid, subject, body) SELECT id, subject, body FROM campaigns;

CREATE TRIGGER campaign_search_insert AFTER INSERT ON campaigns
BEGIN
  INSERT INTO campaign_search (rowid, subject, body) VALUES (new.id, new.subject, new.body);
END;

CREATE TRIGGER campaign_search_update AFTER UPDATE OF subject, body ON campaigns
BEGIN
  DELETE FROM campaign_search WHERE rowid = old.id;
  INSERT INTO campaign_search (rowid, subject, body) VALUES (new.id, new.subject, new.body);
END;

CREATE TRIGGER campaign_search_delete AFTER DELETE ON campaigns
BEGIN
  DELETE FROM campaign_search WHERE rowid = old.id;
END;
