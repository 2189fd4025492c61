-- What a level's seasons list (`GET /api/levels/{level}/seasons`) and a board read from SQL
-- need, kept so that neither reads every run of the level. PostgreSQL dialect;
-- migrations/sqlite/0011_season_counts.sql is the same tables, indexes and backfill word for
-- word; its triggers count the same changes per row (SQLite updates a row in place), these
-- per statement, from its transition tables, in PL/pgSQL, and take the board feed's advisory
-- lock first, as 0008's do, so that two writers never wait on each other's rows in opposite
-- orders.
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

-- How a statement moved runs in or out of seasons' counts: per season and player, the
-- counting runs it added (negative: removed).
CREATE TYPE season_delta AS (
    level           TEXT,
    rules_version   BIGINT,
    level_hash      TEXT,
    tuning_hash     TEXT,
    player_id       BIGINT,
    runs            BIGINT
);

-- Applies a statement's moves: the players' rows, then the seasons' totals (a shown player's
-- runs, and the players whose count left or reached 0). Once per statement, not per run: a
-- row updated again and again in one transaction is a chain of versions PostgreSQL walks on
-- every update (per-row triggers seeded 100 000 runs in 284 s, growing with the square).
CREATE FUNCTION season_apply(deltas season_delta[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF cardinality(deltas) = 0 THEN
        RETURN;
    END IF;
    -- The board feed's lock (0008): every writer of a board takes it before any row.
    PERFORM pg_advisory_xact_lock(1886349167);
    INSERT INTO season_counts (level, rules_version, level_hash, tuning_hash, runs, players)
    SELECT DISTINCT level, rules_version, level_hash, tuning_hash, 0, 0 FROM unnest(deltas)
    ON CONFLICT DO NOTHING;
    WITH d AS (
        SELECT level, rules_version, level_hash, tuning_hash, player_id, SUM(runs) AS runs
        FROM unnest(deltas)
        GROUP BY level, rules_version, level_hash, tuning_hash, player_id
        HAVING SUM(runs) <> 0
    ), moved AS (
        INSERT INTO season_players AS s
            (level, rules_version, level_hash, tuning_hash, player_id, runs)
        SELECT level, rules_version, level_hash, tuning_hash, player_id, runs FROM d
        ON CONFLICT (level, rules_version, level_hash, tuning_hash, player_id)
        DO UPDATE SET runs = s.runs + EXCLUDED.runs
        RETURNING s.level, s.rules_version, s.level_hash, s.tuning_hash, s.player_id,
                  s.runs AS now_runs
    ), totals AS (
        SELECT m.level, m.rules_version, m.level_hash, m.tuning_hash,
               SUM(d.runs) AS runs,
               SUM(CASE WHEN m.now_runs > 0 AND m.now_runs - d.runs = 0 THEN 1
                        WHEN m.now_runs = 0 AND m.now_runs - d.runs > 0 THEN -1
                        ELSE 0 END) AS players
        FROM moved m
        JOIN d ON d.level = m.level AND d.rules_version = m.rules_version
              AND d.level_hash = m.level_hash AND d.tuning_hash = m.tuning_hash
              AND d.player_id = m.player_id
        JOIN players p ON p.id = m.player_id
        WHERE p.hidden = FALSE
        GROUP BY m.level, m.rules_version, m.level_hash, m.tuning_hash
    )
    UPDATE season_counts c SET runs = c.runs + t.runs, players = c.players + t.players
    FROM totals t
    WHERE c.level = t.level AND c.rules_version = t.rules_version
      AND c.level_hash = t.level_hash AND c.tuning_hash = t.tuning_hash;
END
$$;

-- Per statement, with its rows before and after: a run counts when it is verified, finished
-- and not hidden; a row that counted before leaves, one that counts after enters (both, and
-- so nothing, when what decides whether and where it counts did not change).
CREATE FUNCTION runs_season_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM season_apply(ARRAY(
        SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, 1)::season_delta
        FROM new_rows
        WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE));
    RETURN NULL;
END
$$;

CREATE FUNCTION runs_season_updated() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM season_apply(ARRAY(
        SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, -1)::season_delta
        FROM old_rows
        WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE
        UNION ALL
        SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, 1)::season_delta
        FROM new_rows
        WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE));
    RETURN NULL;
END
$$;

CREATE FUNCTION runs_season_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM season_apply(ARRAY(
        SELECT ROW(level, rules_version, level_hash, tuning_hash, player_id, -1)::season_delta
        FROM old_rows
        WHERE status = 'verified' AND finish_tick IS NOT NULL AND hidden = FALSE));
    RETURN NULL;
END
$$;

CREATE TRIGGER runs_season_insert AFTER INSERT ON runs
REFERENCING NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION runs_season_inserted();

CREATE TRIGGER runs_season_update AFTER UPDATE ON runs
REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
FOR EACH STATEMENT EXECUTE FUNCTION runs_season_updated();

CREATE TRIGGER runs_season_delete AFTER DELETE ON runs
REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION runs_season_deleted();

-- A player hidden or shown: their counting runs leave or rejoin the totals of every season
-- they have any on (as many rows as they have seasons, not runs).
CREATE FUNCTION players_season_hidden() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_advisory_xact_lock(1886349167);
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
    RETURN NULL;
END
$$;

CREATE TRIGGER players_season_hidden AFTER UPDATE OF hidden ON players
FOR EACH ROW WHEN (OLD.hidden IS DISTINCT FROM NEW.hidden)
EXECUTE FUNCTION players_season_hidden();
