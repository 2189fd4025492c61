-- Seasons and `pogo-server reverify`, PostgreSQL dialect. migrations/sqlite/0006_seasons.sql is the
-- same, word for word: it uses only `BIGINT` and `TEXT`, which mean the same in both dialects
-- (run ids are BIGINT-compatible in both; no bytes or boolean columns). Times are Unix
-- milliseconds.
--
-- A season is one board of a level: its runs share (level, level_hash, tuning_hash,
-- rules_version), the key every board already has (`store::Board`). Nothing new is needed to
-- list past seasons; what is new is `reverify`, which files a past season's runs that still
-- verify under the running rules on the current board.

-- The run this one is a re-verified copy of (`pogo-server reverify`): the same player, inputs,
-- recorded state hashes and trailer, its header re-stamped with the current rules version,
-- tuning hash and level hash, verified again by the current verifier. NULL for an upload.
ALTER TABLE runs ADD COLUMN reverified_from BIGINT REFERENCES runs (id);

-- What `reverify` decided for a run and a target season (the season the running binary
-- ranks): one row per pair, written in the same transaction as the run it files, so a
-- second invocation skips what is done and a killed one leaves nothing half-filed.
--   outcome 'filed':     it verifies on the target; new_run_id is the copy.
--   outcome 'failed':    it no longer verifies; reason_kind/reason are the verifier's.
--   outcome 'duplicate': its re-stamped bytes are a run already stored; new_run_id is that run.
CREATE TABLE reverifications (
    run_id          BIGINT  NOT NULL REFERENCES runs (id),
    level_hash      TEXT    NOT NULL,
    tuning_hash     TEXT    NOT NULL,
    rules_version   BIGINT  NOT NULL,
    outcome         TEXT    NOT NULL CHECK (outcome IN ('filed', 'failed', 'duplicate')),
    new_run_id      BIGINT  REFERENCES runs (id),
    reason_kind     TEXT,
    reason          TEXT,
    done_ms         BIGINT  NOT NULL,
    PRIMARY KEY (run_id, level_hash, tuning_hash, rules_version)
);
