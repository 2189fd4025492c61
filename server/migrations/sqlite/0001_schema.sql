-- pogo-server schema, SQLite dialect. migrations/postgres/0001_schema.sql is the same schema in
-- PostgreSQL's dialect; the differences, and only these: ids are `INTEGER PRIMARY KEY`
-- (SQLite's rowid, assigned in insertion order) instead of identity columns, bytes are
-- `BLOB` instead of `BYTEA`, booleans are `INTEGER` 0/1 (SQLite has no boolean type).
-- Times are Unix milliseconds (BIGINT) in both.

-- A registered player. `name` is shown as registered; `name_key` (the name in lower case) is
-- unique, so names are unique case-insensitively ("Bot" cannot register beside "bot").
CREATE TABLE players (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    name_key    TEXT    NOT NULL UNIQUE,
    -- SHA-256 of the API token (the token itself is shown once and never stored).
    token_hash  BLOB    NOT NULL UNIQUE,
    hidden      INTEGER NOT NULL DEFAULT 0,
    created_ms  BIGINT  NOT NULL
);

-- Replay files exactly as uploaded, deduplicated by content (SHA-256 of the bytes).
CREATE TABLE replays (
    hash        BLOB    PRIMARY KEY,
    bytes       BLOB    NOT NULL,
    size        BIGINT  NOT NULL
);

-- One upload of a replay, and its verification. The life of a run:
--   queued → verifying (claimed under a lease) → verified | rejected   (written exactly once)
--   verifying with an expired lease → claimed again (the claimer died)
CREATE TABLE runs (
    id              INTEGER PRIMARY KEY,
    player_id       BIGINT  NOT NULL REFERENCES players (id),
    replay_hash     BLOB    NOT NULL UNIQUE REFERENCES replays (hash),
    -- From the replay's header, as uploaded.
    level           TEXT    NOT NULL,
    level_hash      TEXT    NOT NULL,
    tuning_hash     TEXT    NOT NULL,
    rules_version   BIGINT  NOT NULL,
    uploaded_ms     BIGINT  NOT NULL,
    status          TEXT    NOT NULL DEFAULT 'queued'
                    CHECK (status IN ('queued', 'verifying', 'verified', 'rejected')),
    -- The claim: who holds it, until when, and how many claims there have been (the fencing
    -- token: a verdict is written only by the holder of the latest claim).
    lease_owner     TEXT,
    lease_until_ms  BIGINT,
    attempts        BIGINT  NOT NULL DEFAULT 0,
    -- The verdict (set once, with status verified or rejected).
    ticks           BIGINT,
    finish_tick     BIGINT,
    reason_kind     TEXT,
    reason          TEXT,
    splits          TEXT,
    verified_ms     BIGINT,
    hidden          INTEGER NOT NULL DEFAULT 0
);

-- The claim query's scan: runs waiting or being verified, oldest first.
CREATE INDEX runs_pending ON runs (status, id);
-- Leaderboards: a level's verified finishes, fastest first, ties by upload order.
CREATE INDEX runs_board ON runs (level, status, finish_tick, id);
CREATE INDEX runs_player ON runs (player_id, level);
