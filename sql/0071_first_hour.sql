-- A campaign's "track links" (docs/templating.md): every literal http(s) link of its body is
-- tracked at send time, except those marked @NoTrack. New campaigns take the setting
-- privacy.track_links (on by default); campaigns from before keep what they did (off).
ALTER TABLE campaigns ADD COLUMN track_links INTEGER NOT NULL DEFAULT 0 CHECK (track_links IN (0, 1));
