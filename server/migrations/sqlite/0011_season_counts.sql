-- What a level's seasons list (`GET /api/levels/{level}/seasons`) and a board read from SQL
-- need, kept so that neither reads every run of the level. SQLite dialect;
-- migrations/postgres/0011_season_counts.sql is the same tables, indexes and backfill word for
-- word, its triggers one PL/pgSQL function each (taking the board feed's advisory lock first,
-- as 0008's do, so that two writers never wait on each other's rows in opposite orders).
--
-- A run *counts* on its season (level, rules_version, level_hash, tuning_hash) when it is
-- verified, finished and not hidden; of those, only a shown player's are in the season's
-- totals. Before this migration the seasons list grouped every counting run of the level on
-- every request: 3.9–6.2 s at a million runs on SQLite, 1.3–2.1 s on PostgreSQL.

-- Each player's counting runs per season (their player's hidden flag not looked at: hiding
-- a player moves their rows' runs out of the totals, showing them moves them back). A row
-- may stay at 0.
CREATE TABLE season_players (
    level           TEXT    NOT NULL,
    rules_version   BIGINT  NOT NULL,
    level_hash      TEXT    NOT NULL,
    tuning_hash     TEXT    NOT NULL,
    player_id       BIGINT  NOT NULL,
    runs            BIGINT  NOT NULL,
    PRIMARY KEY (level, rules_version, level_hash, tuning_hash, player_id)
);
CREATE INDEX season_players_player ON season_players (player_id);

-- Per season: the counting runs of shown players, and those players (the open board's
-- length). Every season with a row in season_players has a row here.
CREATE TABLE season_counts (
    level           TEXT    NOT NULL,
    rules_version   BIGINT  NOT NULL,
    level_hash      TEXT    NOT NULL,
    tuning_hash     TEXT    NOT NULL,
    runs            BIGINT  NOT NULL,
    players         BIGINT  NOT NULL,
    PRIMARY KEY (level, rules_version, level_hash, tuning_hash)
);

-- A board's entries in board order, by season then (finish tick, id): the rank index's build,
-- the export's batches and a read from SQL walk one season's runs and no other's. The
-- real-time boards' own, so that a real-time board is not found among every open run.
CREATE INDEX runs_ranked ON runs (level, rules_version, level_hash, tuning_hash, finish_tick, id)
    WHERE status = 'verified' AND finish_tick IS NOT NULL;
CREATE INDEX runs_ranked_realtime
    ON runs (level, rules_version, level_hash, tuning_hash, finish_tick, id)
    WHERE status = 'verified' AND finish_tick IS NOT NULL AND realtime = TRUE;
-- A season's first and last verification (the seasons list): one look at each end.
CREATE INDEX runs_season_verified ON runs (level, rules_version, level_hash, tuning_hash, verified_ms)
    WHERE status = 'verified' AND finish_tick IS NOT NULL;

INSERT INTO season_players (level, rules_version, level_hash, tuning_hash, player_id, runs)
SELECT level, rules_version, level_hash, tuning_hash, player_id, COUNT(*)
FROM runs
WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE
GROUP BY level, rules_version, level_hash, tuning_hash, player_id;

INSERT INTO season_counts (level, rules_version, level_hash, tuning_hash, runs, players)
SELECT s.level, s.rules_version, s.level_hash, s.tuning_hash,
       SUM(CASE WHEN p.hidden = FALSE THEN s.runs ELSE 0 END),
       SUM(CASE WHEN p.hidden = FALSE THEN 1 ELSE 0 END)
FROM season_players s JOIN players p ON p.id = s.player_id
GROUP BY s.level, s.rules_version, s.level_hash, s.tuning_hash;

-- A run starts counting (enter) or stops (leave). An update fires both when anything that
-- decides whether and where it counts changes (a verdict, a hide, a finish taken away):
-- leave with the old row, enter with the new, whichever order SQLite runs them in.
CREATE TRIGGER runs_season_insert AFTER INSERT ON runs
WHEN NEW.status = 'verified' AND NEW.finish_tick IS NOT NULL AND NEW.hidden = FALSE
BEGIN
    INSERT INTO season_counts (level, rules_version, level_hash, tuning_hash, runs, players)
    VALUES (NEW.level, NEW.rules_version, NEW.level_hash, NEW.tuning_hash, 0, 0)
    ON CONFLICT DO NOTHING;
    INSERT INTO season_players (level, rules_version, level_hash, tuning_hash, player_id, runs)
    VALUES (NEW.level, NEW.rules_version, NEW.level_hash, NEW.tuning_hash, NEW.player_id, 1)
    ON CONFLICT (level, rules_version, level_hash, tuning_hash, player_id)
    DO UPDATE SET runs = runs + 1;
    UPDATE season_counts SET runs = runs + 1,
        players = players + CASE WHEN (SELECT s.runs FROM season_players s
            WHERE s.level = NEW.level AND s.rules_version = NEW.rules_version
              AND s.level_hash = NEW.level_hash AND s.tuning_hash = NEW.tuning_hash
              AND s.player_id = NEW.player_id) = 1 THEN 1 ELSE 0 END
    WHERE level = NEW.level AND rules_version = NEW.rules_version
      AND level_hash = NEW.level_hash AND tuning_hash = NEW.tuning_hash
      AND (SELECT hidden FROM players WHERE id = NEW.player_id) = FALSE;
END;

CREATE TRIGGER runs_season_enter AFTER UPDATE ON runs
WHEN NEW.status = 'verified' AND NEW.finish_tick IS NOT NULL AND NEW.hidden = FALSE
  AND (OLD.status IS NOT NEW.status OR OLD.finish_tick IS NOT NEW.finish_tick
       OR OLD.hidden IS NOT NEW.hidden OR OLD.player_id IS NOT NEW.player_id
       OR OLD.level IS NOT NEW.level OR OLD.rules_version IS NOT NEW.rules_version
       OR OLD.level_hash IS NOT NEW.level_hash OR OLD.tuning_hash IS NOT NEW.tuning_hash)
BEGIN
    INSERT INTO season_counts (level, rules_version, level_hash, tuning_hash, runs, players)
    VALUES (NEW.level, NEW.rules_version, NEW.level_hash, NEW.tuning_hash, 0, 0)
    ON CONFLICT DO NOTHING;
    INSERT INTO season_players (level, rules_version, level_hash, tuning_hash, player_id, runs)
    VALUES (NEW.level, NEW.rules_version, NEW.level_hash, NEW.tuning_hash, NEW.player_id, 1)
    ON CONFLICT (level, rules_version, level_hash, tuning_hash, player_id)
    DO UPDATE SET runs = runs + 1;
    UPDATE season_counts SET runs = runs + 1,
        players = players + CASE WHEN (SELECT s.runs FROM season_players s
            WHERE s.level = NEW.level AND s.rules_version = NEW.rules_version
              AND s.level_hash = NEW.level_hash AND s.tuning_hash = NEW.tuning_hash
              AND s.player_id = NEW.player_id) = 1 THEN 1 ELSE 0 END
    WHERE level = NEW.level AND rules_version = NEW.rules_version
      AND level_hash = NEW.level_hash AND tuning_hash = NEW.tuning_hash
      AND (SELECT hidden FROM players WHERE id = NEW.player_id) = FALSE;
END;

CREATE TRIGGER runs_season_leave AFTER UPDATE ON runs
WHEN OLD.status = 'verified' AND OLD.finish_tick IS NOT NULL AND OLD.hidden = FALSE
  AND (OLD.status IS NOT NEW.status OR OLD.finish_tick IS NOT NEW.finish_tick
       OR OLD.hidden IS NOT NEW.hidden OR OLD.player_id IS NOT NEW.player_id
       OR OLD.level IS NOT NEW.level OR OLD.rules_version IS NOT NEW.rules_version
       OR OLD.level_hash IS NOT NEW.level_hash OR OLD.tuning_hash IS NOT NEW.tuning_hash)
BEGIN
    UPDATE season_players SET runs = runs - 1
    WHERE level = OLD.level AND rules_version = OLD.rules_version
      AND level_hash = OLD.level_hash AND tuning_hash = OLD.tuning_hash
      AND player_id = OLD.player_id;
    UPDATE season_counts SET runs = runs - 1,
        players = players - CASE WHEN (SELECT s.runs FROM season_players s
            WHERE s.level = OLD.level AND s.rules_version = OLD.rules_version
              AND s.level_hash = OLD.level_hash AND s.tuning_hash = OLD.tuning_hash
              AND s.player_id = OLD.player_id) = 0 THEN 1 ELSE 0 END
    WHERE level = OLD.level AND rules_version = OLD.rules_version
      AND level_hash = OLD.level_hash AND tuning_hash = OLD.tuning_hash
      AND (SELECT hidden FROM players WHERE id = OLD.player_id) = FALSE;
END;

CREATE TRIGGER runs_season_delete AFTER DELETE ON runs
WHEN OLD.status = 'verified' AND OLD.finish_tick IS NOT NULL AND OLD.hidden = FALSE
BEGIN
    UPDATE season_players SET runs = runs - 1
    WHERE level = OLD.level AND rules_version = OLD.rules_version
      AND level_hash = OLD.level_hash AND tuning_hash = OLD.tuning_hash
      AND player_id = OLD.player_id;
    UPDATE season_counts SET runs = runs - 1,
        players = players - CASE WHEN (SELECT s.runs FROM season_players s
            WHERE s.level = OLD.level AND s.rules_version = OLD.rules_version
              AND s.level_hash = OLD.level_hash AND s.tuning_hash = OLD.tuning_hash
              AND s.player_id = OLD.player_id) = 0 THEN 1 ELSE 0 END
    WHERE level = OLD.level AND rules_version = OLD.rules_version
      AND level_hash = OLD.level_hash AND tuning_hash = OLD.tuning_hash
      AND (SELECT hidden FROM players WHERE id = OLD.player_id) = FALSE;
END;

-- A player hidden or shown: their counting runs leave or rejoin the totals of every season
-- they have any on (as many statements as they have seasons, not runs).
CREATE TRIGGER players_season_hidden AFTER UPDATE OF hidden ON players
WHEN OLD.hidden IS NOT NEW.hidden
BEGIN
    UPDATE season_counts SET
        runs = runs + CASE WHEN NEW.hidden THEN -1 ELSE 1 END * (SELECT s.runs FROM season_players s
            WHERE s.player_id = NEW.id AND s.level = season_counts.level
              AND s.rules_version = season_counts.rules_version
              AND s.level_hash = season_counts.level_hash
              AND s.tuning_hash = season_counts.tuning_hash),
        players = players + CASE WHEN NEW.hidden THEN -1 ELSE 1 END
    WHERE (level, rules_version, level_hash, tuning_hash) IN (
        SELECT level, rules_version, level_hash, tuning_hash FROM season_players
        WHERE player_id = NEW.id AND runs > 0);
END;
