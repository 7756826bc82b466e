-- Password reset tokens (forgot-password mails): single use, expiring. `token_hash` is the
-- SHA-256 hex of the token; the token itself exists only in the mail.
CREATE TABLE password_resets (
  token_hash TEXT PRIMARY KEY,
  user_id    INTEGER NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')),
  expires_at TEXT NOT NULL
);
CREATE INDEX password_resets_user ON password_resets (user_id);
