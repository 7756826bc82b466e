-- A campaign's failed recipients are counted beside the sent ones (docs/decisions.md §97): the
-- number of its campaign_sends rows in status 'failed', kept up to date by the delivery engine.
ALTER TABLE campaigns ADD COLUMN failed INTEGER NOT NULL DEFAULT 0;
-- Set while a finished campaign is sent again to its failed recipients only (§98): the engine
-- then walks those recipients, not the lists. Cleared when the campaign finishes.
ALTER TABLE campaigns ADD COLUMN retrying_failed INTEGER NOT NULL DEFAULT 0 CHECK (retrying_failed IN (0, 1));
UPDATE campaigns SET failed = (SELECT COUNT(*) FROM campaign_sends cs WHERE cs.campaign_id = campaigns.id AND cs.status = 'failed');
