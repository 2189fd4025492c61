-- The most raced tracks of the last 7 days (docs/server.md, "Tracks"), as the server last
-- counted them: `GET /api/tracks?sort=popular` reads a page of this table's index instead of
-- counting the window's runs on every request (a count over 200 000 recent runs took 0.6 s).
-- The server recounts every `--tracks-popular-every-s` (60 s by default), in the background:
-- one read of `runs_track_recent`'s window, then this table's rows replaced in one short
-- transaction. It holds the top `TRACKS_POPULAR_MAX` (1 000) shown tracks. SQLite dialect;
-- migrations/postgres/0018_track_popularity.sql is the same table and index.
CREATE TABLE track_popularity (
    track_id    TEXT    PRIMARY KEY REFERENCES tracks (id),
    -- Verified finishes on the track in the window, when counted.
    raced       BIGINT  NOT NULL
);

-- The list's order and its keyset: most raced first, ties by id.
CREATE INDEX track_popularity_rank ON track_popularity (raced DESC, track_id);
