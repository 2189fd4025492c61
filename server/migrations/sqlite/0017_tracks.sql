-- Player-made tracks (docs/server.md, "Tracks"). SQLite dialect;
-- migrations/postgres/0017_tracks.sql is the same table and indexes in PostgreSQL's dialect
-- (`hidden` a BOOLEAN; `name_key` in the "C" collation, so that its prefix range is a byte
-- range there as it is here).
--
-- A track is a level: its runs are ordinary runs whose `level` is the track's `level`
-- (`t-` and its id), on the boards every level has. The row holds what the server needs to
-- rebuild its world (`level_json`, exactly the bytes `GET /api/tracks/{id}/level.json`
-- serves) and what the lists show. `id` is the geometry hash (16 hex digits): the same
-- geometry published twice is one row. `author_run_id` is the author's run, filed verified
-- in the same transaction as the row, and `author_finish_tick` its finish tick (the author
-- time, from which the medals follow).
CREATE TABLE tracks (
    id                  TEXT    PRIMARY KEY,
    level               TEXT    NOT NULL UNIQUE,
    level_json          TEXT    NOT NULL,
    -- The named level's content hash (16 hex digits), as runs and boards key it.
    level_hash          TEXT    NOT NULL,
    author_id           BIGINT  NOT NULL REFERENCES players (id),
    name                TEXT    NOT NULL,
    -- `name` in lower case (`store::name_key`): the search's prefix range.
    name_key            TEXT    NOT NULL,
    description         TEXT    NOT NULL DEFAULT '',
    created_ms          BIGINT  NOT NULL,
    updated_ms          BIGINT  NOT NULL,
    remix_of            TEXT    REFERENCES tracks (id),
    hidden              INTEGER NOT NULL DEFAULT 0,
    author_run_id       BIGINT  NOT NULL REFERENCES runs (id),
    author_finish_tick  BIGINT  NOT NULL
);

-- The lists (`GET /api/tracks`), each a keyset walk of one index: newest first; an author's,
-- newest first (and their count in the last day, the publish limit); by name prefix; a
-- track's remixes.
CREATE INDEX tracks_new ON tracks (created_ms, id);
CREATE INDEX tracks_author ON tracks (author_id, created_ms, id);
CREATE INDEX tracks_name ON tracks (name_key, id);
CREATE INDEX tracks_remix ON tracks (remix_of) WHERE remix_of IS NOT NULL;

-- The popular list: the runs on tracks verified in the last days, one range of this index
-- (its cost follows the window's runs on tracks, not every run nor every track).
CREATE INDEX runs_track_recent ON runs (verified_ms, level)
    WHERE status = 'verified' AND finish_tick IS NOT NULL AND level LIKE 't-%';
