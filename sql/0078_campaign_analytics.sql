-- Campaign analytics beyond listmonk's (README, "Admin": the rates and who opened and clicked).
--
-- Unsubscribes a campaign caused: the public unsubscribe page knows the campaign (its link
-- carries the campaign's UUID), and records here the subscriber who unsubscribed (or was
-- blocklisted) through it, once per campaign. Nothing recorded them before this migration, so
-- campaigns sent earlier show no unsubscribes. A deleted subscriber's row stays, without them.
CREATE TABLE campaign_unsubscribes (
  id            INTEGER PRIMARY KEY AUTOINCREMENT,
  campaign_id   INTEGER NOT NULL REFERENCES campaigns (id) ON DELETE CASCADE,
  subscriber_id INTEGER REFERENCES subscribers (id) ON DELETE SET NULL,
  created_at    TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
);
CREATE UNIQUE INDEX campaign_unsubscribes_pair ON campaign_unsubscribes (campaign_id, subscriber_id);
CREATE INDEX campaign_unsubscribes_subscriber ON campaign_unsubscribes (subscriber_id);

-- Who opened and who clicked a campaign, and its unique openers and clickers (the rates):
-- grouped by subscriber within one campaign, read from the index alone. The (campaign_id,
-- created_at) indexes stay for the charts' date ranges.
CREATE INDEX campaign_views_campaign_subscriber ON campaign_views (campaign_id, subscriber_id, created_at);
CREATE INDEX link_clicks_campaign_subscriber ON link_clicks (campaign_id, subscriber_id, link_id, created_at);
