-- The change feed of the leaderboards: one row each time a run enters, leaves or moves on a
-- board (a verdict, a hide or show, a run filed by `reverify`) or a player is hidden or shown.
-- Every server process keeps an in-memory rank index per board (`store::ranks`) and applies the
-- rows after the last one it saw, re-reading the affected players' best runs from `runs`: the
-- database stays the source of truth; a change row only says "look again at this player".
-- Written by triggers, so no code path that changes `runs` or `players` can forget it.
--
-- `seq` must grow in commit order, so that a reader that has seen seq N has seen every change
-- committed before it: SQLite has one writer at a time (the server writes in IMMEDIATE
-- transactions), so rowids are assigned in commit order; AUTOINCREMENT keeps a pruned seq from
-- ever being reused. Rows older than a few minutes are pruned by the servers.
-- migrations/postgres/0008_board_changes.sql is the same feed in PostgreSQL's dialect (an
-- identity column, a trigger function, and an advisory lock for the commit order).
CREATE TABLE board_changes (
    seq         INTEGER PRIMARY KEY AUTOINCREMENT,
    player_id   BIGINT  NOT NULL,
    -- The level whose boards changed; NULL: every level (a player hidden or shown).
    level       TEXT,
    changed_ms  BIGINT  NOT NULL
);

CREATE TRIGGER runs_board_insert AFTER INSERT ON runs
WHEN NEW.status = 'verified'
BEGIN
    INSERT INTO board_changes (player_id, level, changed_ms)
    VALUES (NEW.player_id, NEW.level, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

-- A claim (queued → verifying) touches no board; a verdict, a hide, a realtime flag on a
-- verified run does.
CREATE TRIGGER runs_board_update AFTER UPDATE ON runs
WHEN OLD.status = 'verified' OR NEW.status = 'verified'
BEGIN
    INSERT INTO board_changes (player_id, level, changed_ms)
    VALUES (NEW.player_id, NEW.level, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER runs_board_delete AFTER DELETE ON runs
WHEN OLD.status = 'verified'
BEGIN
    INSERT INTO board_changes (player_id, level, changed_ms)
    VALUES (OLD.player_id, OLD.level, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;

CREATE TRIGGER players_board_update AFTER UPDATE OF hidden ON players
WHEN OLD.hidden IS NOT NEW.hidden
BEGIN
    INSERT INTO board_changes (player_id, level, changed_ms)
    VALUES (NEW.id, NULL, CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER));
END;
