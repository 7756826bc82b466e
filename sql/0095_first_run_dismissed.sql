-- When the user hid the dashboard's first-run checklist ("Dismiss"); NULL while it is shown.
-- Per user: each admin decides for their own dashboard, and a new admin still sees it.
ALTER TABLE users ADD COLUMN first_run_dismissed_at TEXT;
