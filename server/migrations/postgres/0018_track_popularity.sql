-- The most raced tracks of the last 7 days (docs/server.md, "Tracks"), as the server last
-- counted them: `GET /api/tracks?sort=popular` reads a page of this table's index instead of
-- counting the window's runs on every request (a count over 200 000 recent runs took 0.6 s).
-- The server recounts every `--tracks-popular-every-s` (60 s by default), in the background:
-- one read of `runs_track_recent`'s window, then this table's rows replaced in one short
-- transaction. It holds the top `TRACKS_POPULAR_MAX` (1 000) shown tracks. PostgreSQL dialect;
-- migrations/sqlite/0018_track_popularity.sql is the same table and index.
CREATE TABLE track_popularity (
    track_id    TEXT    PRIMARY KEY REFERENCES tracks (id),
    -- Verified finishes on the track in the window, when counted.
    raced       BIGINT  NOT NULL
);

-- The list's order and its keyset: most raced first, ties by id.
CREATE INDEX track_popularity_rank ON track_popularity (raced DESC, track_id);

-- A track's author time (`store/tracks.rs`, `author_run`): the author's first verified finish
-- of the track on its current board, one entry of this index. Partial (runs on tracks that
-- finished), so no other run pays for it; with every equality and the order in it, no
-- planner, with statistics or without, prefers an index of the whole board (which it did,
-- 35–50 ms a page of the most raced tracks at 100 000).
CREATE INDEX runs_track_author ON runs
    (player_id, level, rules_version, level_hash, tuning_hash, uploaded_ms, id)
    WHERE level LIKE 't-%' AND status = 'verified' AND finish_tick IS NOT NULL;
