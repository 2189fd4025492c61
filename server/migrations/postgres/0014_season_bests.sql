-- Each player's best counting run per season and board: what a rank counted from SQL (while a
-- board's rank index builds, store/board_sql.rs) counts instead of every run before the entry.
-- PostgreSQL dialect; migrations/sqlite/0014_season_bests.sql is the same table, index and
-- backfill word for word (and says why), its triggers per row through a view.
CREATE TABLE season_bests (
    level           TEXT    NOT NULL,
    rules_version   BIGINT  NOT NULL,
    level_hash      TEXT    NOT NULL,
    tuning_hash     TEXT    NOT NULL,
    realtime        BOOLEAN NOT NULL,
    player_id       BIGINT  NOT NULL,
    finish_tick     BIGINT  NOT NULL,
    run_id          BIGINT  NOT NULL,
    -- The player before the board: a player's two rows are one range (what a refresh deletes).
    PRIMARY KEY (level, rules_version, level_hash, tuning_hash, player_id, realtime)
);
-- A board's bests in board order: the range a rank counts.
CREATE INDEX season_bests_ranked
    ON season_bests (level, rules_version, level_hash, tuning_hash, realtime, finish_tick, run_id);

INSERT INTO season_bests
    (level, rules_version, level_hash, tuning_hash, realtime, player_id, finish_tick, run_id)
SELECT level, rules_version, level_hash, tuning_hash, board, player_id, finish_tick, id
FROM (
    SELECT r.level, r.rules_version, r.level_hash, r.tuning_hash, b.board, r.player_id,
           r.finish_tick, r.id,
           ROW_NUMBER() OVER (
               PARTITION BY r.level, r.rules_version, r.level_hash, r.tuning_hash, b.board,
                            r.player_id
               ORDER BY r.finish_tick, r.id) AS nth
    FROM runs r CROSS JOIN (SELECT FALSE AS board UNION ALL SELECT TRUE) b
    WHERE r.status = 'verified' AND r.finish_tick IS NOT NULL AND r.hidden = FALSE
      AND (r.realtime = TRUE OR b.board = FALSE)
) ranked
WHERE nth = 1;

-- Works out again the bests of the players in `changed` (season and player; `runs` unused),
-- from their runs (a handful each, found through runs_player): their rows go, and each comes
-- back if they still have a counting run on that board. Once per statement, under the board
-- feed's lock (0008), as 0011's season_apply.
CREATE FUNCTION season_bests_refresh(changed season_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(changed) = 0 THEN
        RETURN;
    END IF;
    PERFORM pg_advisory_xact_lock(1886349167);
    DELETE FROM season_bests b
    USING (SELECT DISTINCT level, rules_version, level_hash, tuning_hash, player_id
           FROM unnest(changed)) c
    WHERE b.level = c.level AND b.rules_version = c.rules_version
      AND b.level_hash = c.level_hash AND b.tuning_hash = c.tuning_hash
      AND b.player_id = c.player_id;
    INSERT INTO season_bests
        (level, rules_version, level_hash, tuning_hash, realtime, player_id, finish_tick, run_id)
    SELECT DISTINCT ON (r.level, r.rules_version, r.level_hash, r.tuning_hash, b.board,
                        r.player_id)
           r.level, r.rules_version, r.level_hash, r.tuning_hash, b.board, r.player_id,
           r.finish_tick, r.id
    FROM (SELECT DISTINCT level, rules_version, level_hash, tuning_hash, player_id
          FROM unnest(changed)) c
    JOIN runs r ON r.player_id = c.player_id AND r.level = c.level
               AND r.rules_version = c.rules_version AND r.level_hash = c.level_hash
               AND r.tuning_hash = c.tuning_hash
    CROSS JOIN (SELECT FALSE AS board UNION ALL SELECT TRUE) b
    WHERE r.status = 'verified' AND r.finish_tick IS NOT NULL AND r.hidden = FALSE
      AND (r.realtime = TRUE OR b.board = FALSE)
    ORDER BY r.level, r.rules_version, r.level_hash, r.tuning_hash, b.board, r.player_id,
             r.finish_tick, r.id;
END
$$;

-- The runs that counted before or count after a statement: their players' bests in the
-- seasons they were in and are in. An update that changed nothing a best depends on (a
-- claim, a lease, new splits) refreshes only counting runs' players, and their bests come
-- back as they were.
CREATE FUNCTION runs_bests_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        PERFORM season_bests_refresh(ARRAY(
            SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, 0)::season_delta
            FROM new_rows
            WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE));
    ELSIF TG_OP = 'DELETE' THEN
        PERFORM season_bests_refresh(ARRAY(
            SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, 0)::season_delta
            FROM old_rows
            WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE));
    ELSE
        PERFORM season_bests_refresh(ARRAY(
            SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, 0)::season_delta
            FROM old_rows
            WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE
            UNION ALL
            SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, 0)::season_delta
            FROM new_rows
            WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE));
    END IF;
    RETURN NULL;
END
$$;

CREATE TRIGGER runs_bests_insert AFTER INSERT ON runs
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION runs_bests_changed();

CREATE TRIGGER runs_bests_update AFTER UPDATE ON runs
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION runs_bests_changed();

CREATE TRIGGER runs_bests_delete AFTER DELETE ON runs
REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION runs_bests_changed();
