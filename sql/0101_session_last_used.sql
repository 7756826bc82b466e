-- When a session was last used (a request it authenticated), for the admin's idle timeout
-- (security.session_idle_timeout). Written at most about once a minute per session. Sessions
-- from before count as used when they began.
ALTER TABLE sessions ADD COLUMN last_used_at TEXT;
UPDATE sessions SET last_used_at = created_at;
