-- The time step (Unix time / 30 s) of the last TOTP code a user signed in or enrolled with: a
-- code is accepted only for a later step, so a code seen over someone's shoulder or captured
-- in transit cannot be used again within its validity window.
ALTER TABLE users ADD COLUMN totp_last_step INTEGER NOT NULL DEFAULT 0;
