-- Recipients of a running campaign whose send the mail server deferred (a 4xx, a dropped
-- connection, a timeout), waiting to be tried again (docs/decisions.md §97): written by the
-- delivery engine with the outcomes, 0 when the campaign is not being sent.
ALTER TABLE campaigns ADD COLUMN deferred INTEGER NOT NULL DEFAULT 0;
