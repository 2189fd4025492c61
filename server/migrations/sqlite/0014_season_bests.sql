-- Each player's best counting run per season and board: what a rank counted from SQL (while a
-- board's rank index builds, store/board_sql.rs) counts instead of every run before the entry.
-- SQLite dialect; migrations/postgres/0014_season_bests.sql is the same table, index and
-- backfill word for word, its triggers one PL/pgSQL function per statement.
--
-- A player's rank on a board is 1 + the shown players whose best is before theirs. Counted
-- over runs that is COUNT(DISTINCT player_id) of every run before the entry: 1.3–2.4 s half
-- way down a million-run board on SQLite (each row read from the table, each id into a
-- temporary B-tree). Over this table's index it is COUNT(*) of one range of index entries.
--
-- A run counts when it is verified, finished and not hidden (as in 0011); `realtime` says
-- which board the row is for: FALSE the open board (every counting run), TRUE the real-time
-- board (the counting runs with realtime set). A row is (finish_tick, run_id) of the first of
-- the player's runs in board order; a player with no counting run on a board has no row.
CREATE TABLE season_bests (
    level           TEXT    NOT NULL,
    rules_version   BIGINT  NOT NULL,
    level_hash      TEXT    NOT NULL,
    tuning_hash     TEXT    NOT NULL,
    realtime        INTEGER NOT NULL,
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

-- SQLite's triggers call no functions: a row inserted into this view (which holds nothing) is
-- the call "work out again the bests of this player in this season", its body the trigger
-- below. Both boards' rows go, then each comes back from the player's runs (a handful, found
-- through runs_player) if they still have a counting run there. SQLite is told that index:
-- given the season, it walked the whole season's runs_ranked instead (seeding 100 000 runs
-- went from 3.4 s to over 10 minutes).
CREATE VIEW season_bests_refresh AS
SELECT level, rules_version, level_hash, tuning_hash, player_id FROM season_bests WHERE 0;

CREATE TRIGGER season_bests_refresh INSTEAD OF INSERT ON season_bests_refresh
BEGIN
    DELETE FROM season_bests
    WHERE level = NEW.level AND rules_version = NEW.rules_version
      AND level_hash = NEW.level_hash AND tuning_hash = NEW.tuning_hash
      AND player_id = NEW.player_id;
    INSERT INTO season_bests
        (level, rules_version, level_hash, tuning_hash, realtime, player_id, finish_tick, run_id)
    SELECT level, rules_version, level_hash, tuning_hash, board, player_id, finish_tick, id
    FROM (
        SELECT r.level, r.rules_version, r.level_hash, r.tuning_hash, b.board, r.player_id,
               r.finish_tick, r.id,
               ROW_NUMBER() OVER (PARTITION BY b.board ORDER BY r.finish_tick, r.id) AS nth
        FROM runs r INDEXED BY runs_player
        CROSS JOIN (SELECT FALSE AS board UNION ALL SELECT TRUE) b
        WHERE r.player_id = NEW.player_id AND r.level = NEW.level
          AND r.rules_version = NEW.rules_version AND r.level_hash = NEW.level_hash
          AND r.tuning_hash = NEW.tuning_hash
          AND r.status = 'verified' AND r.finish_tick IS NOT NULL AND r.hidden = FALSE
          AND (r.realtime = TRUE OR b.board = FALSE)
    ) ranked
    WHERE nth = 1;
END;

-- A run that counted before or counts after a change: its player's bests in the season it
-- was in and the one it is in (the same one, mostly) are worked out again.
CREATE TRIGGER runs_bests_insert AFTER INSERT ON runs
WHEN NEW.status = 'verified' AND NEW.finish_tick IS NOT NULL AND NEW.hidden = FALSE
BEGIN
    INSERT INTO season_bests_refresh
    VALUES (NEW.level, NEW.rules_version, NEW.level_hash, NEW.tuning_hash, NEW.player_id);
END;

CREATE TRIGGER runs_bests_update AFTER UPDATE ON runs
WHEN ((OLD.status = 'verified' AND OLD.finish_tick IS NOT NULL AND OLD.hidden = FALSE)
      OR (NEW.status = 'verified' AND NEW.finish_tick IS NOT NULL AND NEW.hidden = FALSE))
  AND (OLD.status IS NOT NEW.status OR OLD.finish_tick IS NOT NEW.finish_tick
       OR OLD.hidden IS NOT NEW.hidden OR OLD.realtime IS NOT NEW.realtime
       OR OLD.player_id IS NOT NEW.player_id OR OLD.level IS NOT NEW.level
       OR OLD.rules_version IS NOT NEW.rules_version OR OLD.level_hash IS NOT NEW.level_hash
       OR OLD.tuning_hash IS NOT NEW.tuning_hash)
BEGIN
    INSERT INTO season_bests_refresh
    VALUES (OLD.level, OLD.rules_version, OLD.level_hash, OLD.tuning_hash, OLD.player_id);
    INSERT INTO season_bests_refresh
    VALUES (NEW.level, NEW.rules_version, NEW.level_hash, NEW.tuning_hash, NEW.player_id);
END;

CREATE TRIGGER runs_bests_delete AFTER DELETE ON runs
WHEN OLD.status = 'verified' AND OLD.finish_tick IS NOT NULL AND OLD.hidden = FALSE
BEGIN
    INSERT INTO season_bests_refresh
    VALUES (OLD.level, OLD.rules_version, OLD.level_hash, OLD.tuning_hash, OLD.player_id);
END;
