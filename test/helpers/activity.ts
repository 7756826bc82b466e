// A subscriber's activity on two lists, for the tests of who may see which campaign in it.
import type { DB } from '../../src/db/connection.ts';

/**
 * Lists 801 (Ours) and 802 (Theirs); subscriber 801 on both; campaign 801 to Ours ("Our news",
 * viewed once), 802 to Theirs ("Secret launch", viewed twice), a link of each clicked once.
 */
export function seedTwoListActivity(db: DB): void {
  db.exec(`
    INSERT INTO lists (id, uuid, name) VALUES (801, 'list-ours', 'Ours'), (802, 'list-theirs', 'Theirs');
    INSERT INTO subscribers (id, uuid, email, name) VALUES (801, 'sub-801', 'both@example.com', 'Both');
    INSERT INTO subscriber_lists (subscriber_id, list_id, status) VALUES (801, 801, 'confirmed'), (801, 802, 'confirmed');
    INSERT INTO campaigns (id, uuid, name, subject, from_email) VALUES
      (801, 'camp-ours', 'Our news', 'Hello from us', 'a@example.com'),
      (802, 'camp-theirs', 'Secret launch', 'Embargoed subject', 'a@example.com');
    INSERT INTO campaign_lists (campaign_id, list_id, list_name) VALUES (801, 801, 'Ours'), (802, 802, 'Theirs');
    INSERT INTO links (id, uuid, url) VALUES (801, 'link-ours', 'https://ours.example/post'), (802, 'link-theirs', 'https://theirs.example/embargoed');
    INSERT INTO campaign_views (campaign_id, subscriber_id, created_at) VALUES
      (801, 801, '2025-01-01T00:00:00.000Z'), (802, 801, '2025-01-02T00:00:00.000Z'), (802, 801, '2025-01-03T00:00:00.000Z');
    INSERT INTO link_clicks (campaign_id, link_id, subscriber_id, created_at) VALUES
      (801, 801, 801, '2025-01-01T00:00:00.000Z'), (802, 802, 801, '2025-01-03T00:00:00.000Z');
  `);
}

/** What of campaign 802 a caller restricted to list 801 must never be shown. */
export const THEIR_CAMPAIGN = ['Secret launch', 'Embargoed subject', 'camp-theirs', 'theirs.example'];
